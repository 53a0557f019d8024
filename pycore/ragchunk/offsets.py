"""Byte offsets (tiktoken's unit) to code-point offsets (Python's unit), in one place.

JavaScript's UTF-16 offsets never enter the core: the worker passes whole strings.
"""

from __future__ import annotations

from collections.abc import Iterable

CONTINUATION = bytes(range(0x80, 0xC0))


def is_continuation(byte: int) -> bool:
    """True for a UTF-8 continuation byte (10xxxxxx)."""
    return 0x80 <= byte < 0xC0


class ByteToChar:
    """Maps byte offsets of ``text.encode('utf-8')`` to code-point offsets of ``text``.

    An offset inside a multi-byte character snaps to that character's start
    (``snap="down"``) or to the next character (``snap="up"``), so a slice never splits
    a character.

    >>> m = ByteToChar("añb")
    >>> m.char(0), m.char(2, "down"), m.char(2, "up"), m.char(4)
    (0, 1, 2, 3)
    """

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogatepass")
        self.ascii = len(self.data) == len(text)
        self._byte = 0
        self._char = 0

    def snap(self, offset: int, snap: str = "down") -> int:
        """The nearest character boundary at or below/above a byte offset."""
        data = self.data
        if snap == "down":
            while 0 < offset < len(data) and is_continuation(data[offset]):
                offset -= 1
        else:
            while offset < len(data) and is_continuation(data[offset]):
                offset += 1
        return offset

    def char(self, offset: int, snap: str = "down") -> int:
        """Code-point offset of a byte offset; fastest when offsets come in ascending order."""
        if self.ascii:
            return offset
        offset = self.snap(offset, snap)
        if offset < self._byte:
            self._byte = self._char = 0
        chunk = self.data[self._byte : offset]
        # Deleting continuation bytes leaves one byte per character.
        self._char += len(chunk.translate(None, CONTINUATION))
        self._byte = offset
        return self._char

    def chars(self, offsets: Iterable[tuple[int, str]]) -> dict[tuple[int, str], int]:
        """Map many ``(byte offset, snap)`` pairs at once, in one forward pass."""
        return {key: self.char(*key) for key in sorted(set(offsets))}

