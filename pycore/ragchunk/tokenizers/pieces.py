"""Token offsets found piece by piece, when they are first read.

Finding where each token lies costs an open tokenizer (WordPiece, Unigram) several times
what finding its ids costs, and a count or the first windows of a preview read few of
them. :func:`encode_ids_first` encodes a text's ids between cut points (see
:mod:`.base`), so the ids are those of the whole text, and keeps each piece's span; its
``starts`` and ``ends`` encode a piece with offsets the first time one of its tokens is
read. :func:`all_ends` gives every end at once for the splitter, which reads them all.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Generator, Sequence
from typing import overload

from .base import Encoded, Tokenizer

__all__ = ["OFFSET_PIECE_CHARS", "PieceOffsets", "all_ends", "encode_ids_first"]

# Characters per piece whose offsets are found together (a preview's first windows read one or two).
OFFSET_PIECE_CHARS = 1 << 16


class _Pieces:
    """A text cut into pieces at cut points, each piece's offsets found once, when asked for."""

    __slots__ = ("bounds", "firsts", "found", "text", "tokenizer")

    def __init__(self, tokenizer: Tokenizer, text: str, bounds: list[int], firsts: list[int]) -> None:
        self.tokenizer = tokenizer
        self.text = text
        self.bounds = bounds  # piece k spans text[bounds[k]:bounds[k + 1]]
        self.firsts = firsts  # and holds tokens firsts[k] .. firsts[k + 1] - 1
        self.found: dict[int, tuple[list[int], list[int]]] = {}

    def offsets(self, k: int) -> tuple[list[int], list[int]]:
        """(starts, ends) of piece ``k``'s tokens, in offsets of the whole text."""
        found = self.found.get(k)
        if found is None:
            start = self.bounds[k]
            encoded = self.tokenizer.encode_with_offsets(self.text[start:self.bounds[k + 1]])
            if len(encoded.ids) != self.firsts[k + 1] - self.firsts[k]:
                raise AssertionError(f"{self.tokenizer.name}: piece {k} has other tokens with offsets than without")
            found = ([start + s for s in encoded.starts], [start + e for e in encoded.ends])
            self.found[k] = found
        return found


class PieceOffsets(Sequence[int]):
    """The starts (``which`` 0) or ends (1) of a text's tokens, read piece by piece."""

    __slots__ = ("pieces", "which")

    def __init__(self, pieces: _Pieces, which: int) -> None:
        self.pieces = pieces
        self.which = which

    def __len__(self) -> int:
        return self.pieces.firsts[-1]

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("token index out of range")
        firsts = self.pieces.firsts
        k = bisect_right(firsts, index) - 1
        return self.pieces.offsets(k)[self.which][index - firsts[k]]

    def whole(self) -> list[int]:
        """Every offset, each piece found (once)."""
        out: list[int] = []
        for k in range(len(self.pieces.bounds) - 1):
            out.extend(self.pieces.offsets(k)[self.which])
        return out


def encode_ids_first(tokenizer: Tokenizer, text: str, report_every: int,
                     piece: int = OFFSET_PIECE_CHARS) -> Generator[tuple[str, int, int], None, Encoded]:
    """The :class:`Encoded` of ``text`` with offsets found when read; yields ``("tokenizing",
    done, total)`` at least every ``report_every`` characters and at the end.

    >>> from ragchunk import get_tokenizer
    >>> from ragchunk.steps import drive
    >>> tok, text = get_tokenizer("bert-base-uncased"), "Один. Two words, then more! " * 40
    >>> encoded = drive(encode_ids_first(tok, text, 1 << 20, piece=64), None)
    >>> whole = tok.encode_with_offsets(text)
    >>> list(encoded.ids) == list(whole.ids), encoded.ends[3] == whole.ends[3], len(encoded.ends.pieces.found)
    (True, True, 1)
    >>> list(encoded.starts) == list(whole.starts), all_ends(encoded) == list(whole.ends)
    (True, True)
    """
    total = len(text)
    ids = array("I")
    bounds, firsts = [0], [0]
    start = reported = 0
    while start < total:
        cut = tokenizer.next_cut(text, start + piece, total) if start + piece < total else None
        end = total if cut is None else cut
        ids.extend(tokenizer.encode(text[start:end]))
        bounds.append(end)
        firsts.append(len(ids))
        start = end
        if start - reported >= report_every or start == total:
            reported = start
            yield ("tokenizing", start, total)
    if not total:
        yield ("tokenizing", 0, 0)
    pieces = _Pieces(tokenizer, text, bounds, firsts)
    return Encoded(ids, PieceOffsets(pieces, 0), PieceOffsets(pieces, 1))


def all_ends(encoded: Encoded) -> Sequence[int]:
    """Every token end of ``encoded`` as a list or array (found now when they are read lazily:
    :class:`PieceOffsets`, or a BPE encoding's :class:`ragchunk.tokenizers.bpe.LazyEnds`)."""
    ends = encoded.ends
    whole = getattr(ends, "whole", None)
    return ends if whole is None else whole()
