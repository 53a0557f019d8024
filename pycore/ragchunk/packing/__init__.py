"""Packing: units of a text into chunks within a token budget.

``sizing`` answers how many tokens a span has (the :class:`~.sizing.Sizer` Protocol),
``packer`` fills chunks greedily at the largest boundary that fits, ``overlap`` picks the
tail a chunk starts with, ``context`` counts the heading line a chunk is embedded with,
``windowing`` cuts fixed token windows, and ``stats`` describes the chunks made.
"""
