"""Character spans of chunk texts that a splitter returned without offsets.

>>> locate("one two\\n\\nthree  four", ["one two", "two three four"])
[(0, 7), (4, 20)]
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

_NONSPACE = re.compile(r"\S")


def locate(text: str, chunks: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each chunk lies in ``text``, in order; None for a chunk that cannot be found.

    Chunks come in document order and may overlap, so each is looked for from just after
    the previous chunk's start, then anywhere. A chunk found verbatim gets that span;
    otherwise it is matched on its non-whitespace characters alone (splitters that trim,
    join or re-space pieces), and its span runs from its first to its last such character.
    """
    positions: list[int] | None = None
    squeezed = ""
    spans: list[tuple[int, int] | None] = []
    cursor = 0  # where the previous chunk started, in text
    for chunk in chunks:
        found = text.find(chunk, cursor)
        if found < 0:
            found = text.find(chunk)
        if found >= 0 and chunk:
            spans.append((found, found + len(chunk)))
            cursor = found + 1
            continue
        needle = "".join(chunk.split())
        if not needle:
            spans.append(None)
            continue
        if positions is None:
            positions = [m.start() for m in _NONSPACE.finditer(text)]
            squeezed = "".join(text[p] for p in positions)
        low = bisect_left(positions, cursor)
        at = squeezed.find(needle, low)
        if at < 0:
            at = squeezed.find(needle)
        if at < 0:
            spans.append(None)
            continue
        start, end = positions[at], positions[at + len(needle) - 1] + 1
        spans.append((start, end))
        cursor = start + 1
    return spans

