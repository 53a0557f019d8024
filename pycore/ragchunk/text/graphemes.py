"""Approximate extended grapheme cluster boundaries: where a too-long word may be cut.

Only a single word longer than a chunk is ever cut inside, and it must not be cut in the
middle of what a reader sees as one character. The rules are a small, linear subset of
Unicode's UAX #29 that covers what shows up in real text:

- never before a combining mark (category ``M*``), a zero-width joiner (U+200D), a
  variation selector (U+FE00–U+FE0F), an emoji modifier (U+1F3FB–U+1F3FF) or a tag
  character (U+E0020–U+E007F);
- never right after a zero-width joiner (``👨‍👩‍👧`` stays whole);
- regional indicators pair up (``🇺🇦🇩🇪`` is two flags, cut only between them);
- never between ``\\r`` and ``\\n``.

Hangul jamo sequences and prepended marks are not handled: they are rare inside a single
word long enough to need cutting, and cutting there loses nothing (no U+FFFD, no text).

>>> text = "e\\u0301👍🏽🇺🇦🇩🇪"
>>> [p for p in range(len(text) + 1) if is_boundary(text, p)]
[0, 2, 4, 6, 8]
"""

from __future__ import annotations

import unicodedata
from itertools import pairwise

__all__ = ["floor_boundary", "grapheme_spans", "is_boundary"]

_ZWJ = "\u200d"


def _extends(char: str) -> bool:
    """True for a character that joins the cluster before it."""
    code = ord(char)
    if code < 0x300:  # nothing below the combining diacritics extends a cluster
        return False
    if code == 0x200D or 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True
    return unicodedata.category(char)[0] == "M"


def _regional(char: str) -> bool:
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def is_boundary(text: str, pos: int, floor: int = 0) -> bool:
    """True when ``text`` may be cut at ``pos`` without splitting a grapheme cluster.

    ``floor`` is a position already known to be a boundary (the start of the piece being
    cut); regional indicators are paired from there, so the work stays bounded by the
    piece rather than the text.

    >>> is_boundary("a\\r\\nb", 2), is_boundary("a\\r\\nb", 3), is_boundary("👨\\u200d👩", 2)
    (False, True, False)
    """
    if pos <= 0 or pos >= len(text):
        return True
    before, after = text[pos - 1], text[pos]
    if before == "\r":
        return after != "\n"
    if before == _ZWJ or _extends(after):
        return False
    if _regional(before) and _regional(after):
        first = pos - 1
        while first > floor and _regional(text[first - 1]):
            first -= 1
        return (pos - first) % 2 == 0
    return True


def floor_boundary(text: str, pos: int, floor: int) -> int:
    """The last grapheme boundary in ``(floor, pos]``, or ``floor`` when there is none.

    >>> floor_boundary("xe\\u0301\\u0301y", 3, 0), floor_boundary("e\\u0301\\u0301", 2, 0)
    (1, 0)
    """
    pos = min(pos, len(text))
    while pos > floor and not is_boundary(text, pos, floor):
        pos -= 1
    return pos


def grapheme_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of every cluster of ``text`` (for tests and tools).

    >>> grapheme_spans("e\\u0301x🇺🇦")
    [(0, 2), (2, 3), (3, 5)]
    """
    cuts = [pos for pos in range(1, len(text)) if is_boundary(text, pos)]
    edges = [0, *cuts, len(text)] if text else []
    return list(pairwise(edges))
