"""A test tokenizer that lowercases and applies NFKC, to prove the splitter and the windows
know a tokenizer only through its interface (ragchunk.tokenizers.base).

Each whitespace-separated word is normalized character by character (NFKC, then
lowercase: "ﬁ" becomes "fi", "Ａ" becomes "a", "İ" becomes "i̇", "ﷺ" becomes 18
characters) and cut into pieces of at most three normalized characters; a piece's id is
made from its characters. Normalization is lossy, so no per-token byte or character table
can exist: offsets are mapped through each word's span, as the open-model tokenizers do.
Its cut points are the whitespace characters that follow a non-space.
"""

from __future__ import annotations

import re
import unicodedata

from ragchunk.tokenizers.base import Encoded

_WORD = re.compile(r"\S+")
_CUT = re.compile(r"\S(\s)")
PIECE = 3


def _normalized(char: str) -> str:
    return unicodedata.normalize("NFKC", char).lower()


class NfkcToyTokenizer:
    """Words -> NFKC-lowercased pieces of <= 3 characters."""

    name = "toy-nfkc"
    exact = True
    special_tokens = 2

    def __init__(self) -> None:
        self.calls = 0

    def _word(self, text: str, start: int, end: int, ids: list, starts: list, ends: list) -> None:
        normal: list[str] = []
        source: list[int] = []  # for each normalized character, the source character it came from
        for index in range(start, end):
            piece = _normalized(text[index])
            normal.extend(piece)
            source.extend([index] * len(piece))
        for a in range(0, len(normal), PIECE):
            b = min(a + PIECE, len(normal))
            ids.append(sum(ord(ch) * 31**k for k, ch in enumerate(normal[a:b])) % 100_003)
            starts.append(source[a])
            ends.append(source[b - 1] + 1)

    def encode_with_offsets(self, text: str) -> Encoded:
        self.calls += 1
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        for word in _WORD.finditer(text):
            self._word(text, word.start(), word.end(), ids, starts, ends)
        return Encoded(ids, starts, ends)

    def encode(self, text: str) -> list[int]:
        return self.encode_with_offsets(text).ids

    def count(self, text: str) -> int:
        return len(self.encode_with_offsets(text).ids)

    def next_cut(self, text: str, at: int, stop: int) -> int | None:
        if 0 < at < len(text) and text[at].isspace() and not text[at - 1].isspace():
            return at
        found = _CUT.search(text, at, stop)
        return found.start(1) if found else None

    def last_cut(self, text: str, low: int, high: int) -> int | None:
        high = min(high, len(text))
        if low < high < len(text) and text[high].isspace() and not text[high - 1].isspace():
            return high
        for c in range(high - 1, low, -1):
            if text[c].isspace() and not text[c - 1].isspace():
                return c
        return None
