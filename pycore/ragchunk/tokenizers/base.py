"""What the rest of ragchunk knows about a tokenizer: the sizing interface.

The splitter, the fixed windows, the calculator and the page see a tokenizer only through
:class:`Tokenizer`: ids with the code-point span of every token in the text, the places
where a text may be cut without changing its tokens, and how many special tokens the
model adds. Nothing is assumed about bytes, merges or vocabularies, so a BPE encoding, a
lowercasing WordPiece and an NFKC-normalizing Unigram model fit the same slot.

Cut points
----------
A position ``c`` of ``text`` is a *cut* when the tokens on either side of it do not
depend on what is across it: for every ``s <= c <= e`` that keeps the context the rule
looks at inside ``[s, e)`` (``c == s`` needs none on the left),
``ids(text[s:e]) == ids(text[s:c]) + ids(text[c:e])``; in particular every token of
``text`` ends at or before ``c`` or starts at or after it. ``next_cut(text, at, stop)``
finds the first cut ``c`` with ``at <= c < stop`` whose right-hand context lies before
``stop``; ``last_cut(text, low, high)`` the last cut ``c`` with ``low < c < high`` whose
left-hand context lies at or after ``low``. Both may look at ``text`` beyond the bounds to
decide that ``c`` is a cut of the whole text, never to decide that it is one of the
slice. No cut lies strictly inside the context of another (so a cut found for a wider
slice stays one for every narrower slice that still holds its context). A tokenizer with no such places returns None from both (the splitter then counts
every span by encoding it, which is slower and just as exact).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable


class Encoded(NamedTuple):
    """The tokens of a text and where each lies in it, in code points.

    ``ids`` are the content tokens (no special tokens). ``ends[i]`` is the offset just
    after the last character token ``i`` covers, ``starts[i]`` the offset of the first;
    both are non-decreasing, ``0 <= starts[i] < ends[i] <= len(text)``. A character that
    two tokens share (a byte-level BPE split inside a multi-byte character, a ligature
    that normalization expands and the model cuts) belongs to both. ``starts`` may be a
    lazy sequence: only the fixed windows read it, and only for the tokens they start at.
    With an open tokenizer both may be found piece by piece when read (:mod:`.pieces`;
    ``all_ends`` there gives every end at once).
    """

    ids: Sequence[int]
    starts: Sequence[int]
    ends: Sequence[int]


@runtime_checkable
class Tokenizer(Protocol):
    """The sizing interface every exact tokenizer implements.

    ``name`` is the registry name (``"cl100k_base"``, ``"bert-base-uncased"`` ...);
    ``special_tokens`` how many ids the model adds to every input (``[CLS]`` and
    ``[SEP]``: 2; a raw encoding: 0). ``count(text) == len(encode(text))``, both without
    special tokens; user text is always ordinary text (a string such as
    ``"<|endoftext|>"`` is never read as a special token).
    """

    name: str
    exact: bool
    special_tokens: int

    def encode(self, text: str) -> Sequence[int]: ...

    def encode_with_offsets(self, text: str) -> Encoded: ...

    def count(self, text: str) -> int: ...

    def next_cut(self, text: str, at: int, stop: int) -> int | None: ...

    def last_cut(self, text: str, low: int, high: int) -> int | None: ...
