"""NFC normalization with a map back to the code points of the original text.

A model whose ``tokenizer.json`` normalizes to NFC (Qwen) tokenizes ``NFC(text)``, but chunk
offsets are code points of ``text`` itself. :func:`nfc_map` normalizes a text and says where
every stretch of the result came from:

- an NFC text (the usual case) is its own normal form: :func:`nfc_map` returns None after one
  quick check in C, and offsets need no map at all;
- otherwise the text is cut into *segments*, each a character before which NFC composition
  never reaches (a starter that is its own NFC and combines with nothing before it) followed
  by the run of other characters up to the next such one. NFC of the text is the NFC of each
  segment, one after the other, so only the segments that NFC changes are normalized and
  remembered: ``(normal start, normal end, original start, original end)``.

A token of the normal text that starts or ends strictly inside a changed segment is given
the whole segment (a segment is one starter and its combining sequence: ``"e\\u0301"``,
a Hangul syllable in jamo), so a token never starts inside a combining sequence that NFC
rewrote, every span is a slice of the original text, and two tokens may share a segment as
they share a character a byte-level token splits.

Which characters start a segment is asked of the running Python's ``unicodedata`` (the
version NFC itself follows there), per distinct character of the text: a character that is
not a mark, has canonical combining class 0 and is not a Hangul vowel or final jamo (the
only characters besides marks that compose with one before them: tests check this against
every composition of that Unicode version), nor decomposes into a character that is.

The model's own NFC is HF ``tokenizers``', whose Unicode data is version 9.0: it reads a
character assigned since then as a plain starter (no combining class, no decomposition,
no composition), where Python's newer data may reorder, compose or decompose it.
:data:`HF_UNKNOWN` lists the 153 characters where that matters (a combining class, a
canonical decomposition or a composition in Unicode 14.0, CPython 3.11's, or 16.0,
Pyodide 314's); :func:`nfc` and :func:`nfc_map` keep each of them as it is and normalize
the text on either side of it apart, which is what HF does. An NFC text by Python's
newer data is also one by HF's (a character of the list only ever cuts a sequence in
two), so the quick check stands.

>>> normal = nfc_map("cafe\\u0301 ok")
>>> normal.text, normal.segments
('café ok', [(3, 4, 3, 5)])
>>> [normal.end_of(p) for p in range(len(normal.text) + 1)]
[0, 1, 2, 3, 5, 6, 7, 8]
>>> nfc_map("café ok") is None
True
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["HF_UNKNOWN", "NfcMap", "is_nfc", "nfc", "nfc_map", "starts_segment"]

#: The characters with a combining class, a canonical decomposition or a part in a composition
#: in Unicode 14.0 or 16.0 that HF ``tokenizers``' NFC (Unicode 9.0 data) reads as plain
#: starters: probed from HF 0.23.3 for 14.0 (tests check it), and for 16.0 the characters
#: Pyodide 314's ``unicodedata`` gives such a property that CPython 3.11's does not. Of a
#: composition HF does not know whose parts it knows otherwise, one part is listed (U+11930,
#: and Todhri's U+105D2 and U+105DA, which compose with U+0307 in 16.0): kept as it is, it
#: composes with nothing.
HF_UNKNOWN_RANGES = (
    0x7FD, (0x897, 0x89F), (0x8CA, 0x8D3), 0x9FE, 0xC3C, (0xD3B, 0xD3C), 0xEBA, 0x1715, (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFA), 0xA82C, 0x105C9, 0x105D2, 0x105DA, 0x105E4, (0x10D24, 0x10D27), (0x10D69, 0x10D6D), (0x10EAB, 0x10EAC),
    (0x10EFD, 0x10EFF), (0x10F46, 0x10F50), (0x10F82, 0x10F85), 0x11070, 0x1133B, 0x11383, 0x11385, 0x1138E,
    0x11391, 0x113B8, 0x113BB, 0x113C2, 0x113C5, (0x113C7, 0x113C9), (0x113CE, 0x113D0), 0x1145E,
    (0x11839, 0x1183A), 0x11930, 0x11938, (0x1193D, 0x1193E), 0x11943, 0x119E0, 0x11A34, 0x11A47, 0x11A99, 0x11D42,
    (0x11D44, 0x11D45), 0x11D97, (0x11F41, 0x11F42), (0x1611E, 0x16129), 0x1612F, (0x16D67, 0x16D6A),
    (0x16FF0, 0x16FF1), 0x1E08F, (0x1E130, 0x1E136), 0x1E2AE, (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF),
    (0x1E5EE, 0x1E5EF),
)
HF_UNKNOWN = frozenset(chr(code) for item in HF_UNKNOWN_RANGES
                       for code in (range(item[0], item[1] + 1) if isinstance(item, tuple) else (item,)))

# Hangul vowel and final jamo: starters that compose with the syllable or jamo before them.
_HANGUL_V_T = frozenset(chr(c) for c in (*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)))
# Characters already judged (per process: the answer depends only on unicodedata).
_STARTS: dict[str, bool] = {}
# Text is checked for NFC in blocks of about this many characters (cut before a segment start),
# so a long text with a few decomposed characters is normalized where they are only.
_BLOCK = 2048
# A long text's first check, in blocks of about this many characters (see is_nfc).
_CHECK_BLOCK = 1 << 16
# The class codes of a text written for the search: a character that starts no segment, one
# that starts a segment but that NFC rewrites on its own, and one of HF_UNKNOWN; any other
# stays itself.
_JOINS, _REWRITTEN, _KEPT = "\x01", "\x02", "\x03"
_UNKNOWN = re.compile("[" + "".join(re.escape(char) for char in sorted(HF_UNKNOWN)) + "]")
# What NFC may change: a run of characters that start no segment (its segment starts just
# before it, or it starts the text, or follows a character of HF_UNKNOWN, which HF keeps as it
# is), or a character NFC rewrites with the run after it.
_CHANGEABLE = re.compile(r"\x01+|\x02\x01*")
_SEGMENT_START = re.compile(r"[^\x01]")


def is_nfc(text: str) -> bool:
    """Whether ``text`` is in NFC (quick check in C; a full check only where it says maybe).

    A long text is checked in blocks of about 64K characters, each cut before a line break
    (where NFC never composes): CPython's quick check answers "maybe" for a whole text when
    one character of it could compose with the one before (Tamil's vowel sign AA), then
    normalizes all of it to be sure, 40 ms for a MB of English with three Tamil words.

    >>> is_nfc("caf\\u00e9\\n" * 50_000), is_nfc("caf\\u00e9\\n" * 50_000 + "e\\u0301")
    (True, False)
    """
    length = len(text)
    if length <= _CHECK_BLOCK:
        return unicodedata.is_normalized("NFC", text)
    start = 0
    while start < length:
        end = text.find("\n", start + _CHECK_BLOCK)
        end = length if end < 0 else end
        if not unicodedata.is_normalized("NFC", text[start:end]):
            return False
        start = end
    return True


def nfc(text: str) -> str:
    """``text`` in NFC as HF reads it; ``text`` itself (the same object) when it already is.

    >>> nfc("e\\u0301") == "\\u00e9", nfc("plain") == "plain"
    (True, True)
    >>> nfc("x\\u1ac2\\u302d") == "x\\u1ac2\\u302d"  # U+1AC2 (Unicode 14.0) is a plain starter to HF
    True
    """
    if is_nfc(text):
        return text
    if _UNKNOWN.search(text) is None:
        return unicodedata.normalize("NFC", text)
    return nfc_map(text).text  # type: ignore[union-attr]


def starts_segment(char: str) -> bool:
    """Whether NFC never composes ``char`` with what comes before it, so a text may be
    normalized in two parts cut just before it.

    >>> starts_segment("e"), starts_segment("\\u0301"), starts_segment("\\u1161"), starts_segment("\\u212b")
    (True, False, False, True)
    """
    known = _STARTS.get(char)
    if known is None and char in HF_UNKNOWN:
        known = _STARTS[char] = True
    if known is None:
        # A character NFC rewrites (Å for the ångström sign, a CJK compatibility ideograph)
        # starts a segment when its full decomposition does.
        known = _STARTS[char] = char.isascii() or (
            _starter(char) and _starter(unicodedata.normalize("NFD", char)[0]))
    return known


def _starter(char: str) -> bool:
    """Not a mark, of combining class 0 and not a Hangul vowel or final jamo."""
    return not unicodedata.category(char).startswith("M") and not unicodedata.combining(char) and char not in _HANGUL_V_T


class NfcMap(NamedTuple):
    """The NFC of a text (``text``) and its ``segments`` that NFC changed, in order:
    ``(normal start, normal end, original start, original end)``."""

    text: str
    segments: list[tuple[int, int, int, int]]

    def start_of(self, p: int) -> int:
        """The original offset of normal offset ``p`` as a token start: the start of the
        changed segment ``p`` lies in."""
        segments = self.segments
        k = bisect_right(segments, (p, 1 << 62)) - 1
        if k < 0:
            return p
        na, nb, oa, ob = segments[k]
        return oa if p < nb else p + ob - nb

    def end_of(self, p: int) -> int:
        """The original offset of normal offset ``p`` as a token end: the end of the changed
        segment ``p`` lies strictly inside."""
        segments = self.segments
        k = bisect_right(segments, (p, 1 << 62)) - 1
        if k < 0:
            return p
        na, nb, oa, ob = segments[k]
        if p == na:
            return oa
        return ob if p < nb else p + ob - nb

    def ends(self, ends: Sequence[int], offset: int = 0) -> list[int] | array:
        """:meth:`end_of` of every offset of the non-decreasing ``ends``, plus ``offset``
        (an ``array`` comes back as an array of the same type)."""
        out = array(ends.typecode, ends) if isinstance(ends, array) else list(ends)
        delta = offset
        i = 0
        for na, nb, _oa, ob in self.segments:
            j = bisect_right(ends, na, i)
            if delta:
                out[i:j] = _shifted(out[i:j], delta)
            k = bisect_left(ends, nb, j)
            if k > j:
                out[j:k] = _shifted(out[j:k], 0, ob + offset)
            delta = ob - nb + offset
            i = k
        if delta and i < len(out):
            out[i:] = _shifted(out[i:], delta)
        return out


def _shifted(values: list[int] | array, delta: int, constant: int | None = None) -> list[int] | array:
    """``values`` each plus ``delta`` (or all equal to ``constant``), of the same type."""
    made = [constant] * len(values) if constant is not None else [value + delta for value in values]
    return array(values.typecode, made) if isinstance(values, array) else made


def nfc_map(text: str) -> NfcMap | None:
    """The NFC of ``text`` with its changed segments, or None when ``text`` is in NFC.

    >>> nfc_map("\\u1100\\u1161\\u11a8 e\\u0301")
    NfcMap(text='각 é', segments=[(0, 1, 0, 3), (2, 3, 4, 6)])
    """
    if is_nfc(text):
        return None
    # The text written in class codes, so that module-level patterns find the segments.
    table = {1: "a", 2: "a"}  # the codes themselves, where the text holds them, are plain starters
    for char in set(text):
        if not char.isascii():
            if char in HF_UNKNOWN:
                table[ord(char)] = _KEPT
            elif not starts_segment(char):
                table[ord(char)] = _JOINS
            elif unicodedata.normalize("NFC", char) != char:
                table[ord(char)] = _REWRITTEN
    coded = text.translate(table)
    segments: list[tuple[int, int, int, int]] = []
    parts: list[str] = []
    done = 0  # original offset up to which parts hold the normal text
    shift = 0  # normal offset minus original offset at ``done``
    length = len(text)
    block = 0
    while block < length:
        # The next block ends just before a segment start (or at the end of the text).
        end = min(length, block + _BLOCK)
        if end < length:
            found = _SEGMENT_START.search(coded, end)
            end = length if found is None else found.start()
        if not unicodedata.is_normalized("NFC", text[block:end]):
            for run in _CHANGEABLE.finditer(coded, block, end):
                a, b = run.span()
                if a > block and coded[a] == _JOINS and coded[a - 1] != _KEPT:
                    a -= 1
                piece = text[a:b]
                normal = unicodedata.normalize("NFC", piece)
                if normal == piece:
                    continue
                parts.append(text[done:a])
                parts.append(normal)
                na = a + shift
                shift += len(normal) - len(piece)
                segments.append((na, b + shift, a, b))
                done = b
        block = end
    parts.append(text[done:])
    return NfcMap("".join(parts), segments)
