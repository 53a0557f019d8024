"""Overlap: which tail of the previous chunk a new chunk starts with.

A tail has at most ``overlap`` tokens, leaves room for the new content within the chunk's
budget, and starts at a sentence start when one qualifies, otherwise at a word start (the
longest such tail wins). Asked again with ``after``, it gives the next shorter tail, down
to none, so the packer can trade overlap for content.

A chunk whose new content opens a section (its heading, or markup without text right before
the heading, such as an ``<a id>`` anchor) takes no tail: the heading is where a reader
starts, and the end of the section before it would only dilute what the chunk is about.
(On ``bench/bench_retrieval.py --wikitext-headings`` this raised IoU and recall at every
target; see ``bench/retrieval/ideas.md``.)
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection

from ..text.segmentation import iter_sentence_starts
from .sizing import Sizer

__all__ = ["Tails"]

_WORD_START = re.compile(r"(?<!\S)\S")
_NONSPACE = re.compile(r"\S")
# Characters that can end a sentence (line breaks included): a window without any has none.
_TERMINATOR = re.compile(r"[.!?…。！？｡।॥\n]")
# How much text before a tail the sentence splitter reads: enough for the word before a mark.
_BEFORE_MARK = 48


class Tails:
    """The tails of the last chunk emitted, for the chunk that follows it."""

    __slots__ = ("headings", "overlap", "prev", "sizer", "text")

    def __init__(self, text: str, sizer: Sizer, overlap: int, headings: Collection[int] = ()) -> None:
        self.text = text
        self.sizer = sizer
        self.overlap = overlap
        # Where the text's sections start (Structure.section_starts): a chunk opening there takes no tail.
        self.headings = headings
        # The last chunk emitted: (start, end, starts of its units that begin a sentence).
        self.prev: tuple[int, int, list[int]] | None = None

    def remember(self, start: int, end: int, unit_starts: list[int]) -> None:
        """The chunk just emitted spans ``[start, end)``; ``unit_starts`` are its units' starts."""
        self.prev = (start, end, unit_starts)

    @property
    def prev_end(self) -> int:
        """Where the last chunk ended: the new content of a chunk with a tail starts here."""
        return self.prev[1]

    def choose(self, unit_end: int, budget: int, after: int = 0) -> int | None:
        """Start of the longest tail of the previous chunk that fits before ``unit_end``.

        The tail has at most ``overlap`` tokens and leaves room within ``budget`` for the
        new content up to ``unit_end``; it starts at or after ``after``. None when no tail
        qualifies (or there is no previous chunk, or no overlap, or the new content opens
        with a heading).
        """
        if self.prev is None or not self.overlap:
            return None
        ps, pe, _ = self.prev
        if self.headings:
            first = _NONSPACE.search(self.text, pe)
            if first is not None and first.start() in self.headings:
                return None
        sizer = self.sizer
        lo = max(ps, after, sizer.lowest(pe, self.overlap, ps), sizer.lowest(unit_end, budget, ps))
        if lo >= pe:
            return None
        start = self._sentence_start(lo, pe)
        if start is not None:
            return start
        found = _WORD_START.search(self.text, lo, pe)
        return found.start() if found else None

    def _sentence_start(self, lo: int, pe: int) -> int | None:
        """The first sentence start after whitespace in ``[lo, pe)``, or None.

        Units of the previous chunk start sentences. Before the first of them, the sentence
        splitter reads from a little before ``lo`` (so the word before a mark is seen) and
        stops at the first start it finds: the cost stays near the distance to that start,
        at most the length of the tail.
        """
        text = self.text
        unit_starts = self.prev[2]  # ascending
        index = bisect_left(unit_starts, lo)
        best = unit_starts[index] if index < len(unit_starts) and unit_starts[index] < pe else None
        stop = pe if best is None else best
        if _TERMINATOR.search(text, max(lo - 1, 0), stop) is None:
            return best
        a = max(self.prev[0], lo - _BEFORE_MARK)
        starts = iter_sentence_starts(text[a:stop])
        # The first span may begin mid-sentence: it is not a sentence start.
        next(starts, None)
        for s in starts:
            start = a + s
            if start >= lo and text[start - 1].isspace():
                return start
        return best
