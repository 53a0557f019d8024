"""Byte-level BPE encodings: tiktoken on CPython, tiktoken's WASM build in the browser.

OpenAI's encodings and the open LLMs' whose ``tokenizer.json`` tiktoken's engine can run
(Llama 3, Qwen, DeepSeek: :mod:`ragchunk.tables.llms`). Both adapters read the same rank files
(``encoders/<name>.json`` of the npm ``tiktoken`` package, or one derived in that format,
shipped in ``ragchunk/tables/data/``), so CPython and the page give identical ids. A rank file's ``bpe_ranks`` field holds lines of ``<marker> <first rank> <base64
token> ...``; the i-th token on a line has rank ``first + i``.

Offsets: a token is a run of UTF-8 bytes and may end inside a character. A character
belongs, for ``ends``, to the token that holds its first byte, so summing per token "how
many characters start in it" gives every token's code-point end with no byte offsets at
all; a token that begins with a continuation byte starts one character earlier.

Normalization: a rank file with ``"normalizer": "NFC"`` (Qwen) encodes the NFC of the text.
An NFC text (one check in C) is encoded as it is; any other is normalized by
:func:`ragchunk.tokenizers.nfc.nfc_map`, and the offsets found in the normal text are mapped
back to the original's code points (a token inside a combining sequence NFC rewrote gets
the whole sequence). Offsets then need the text as well as the ids: ``encoded_from_ids``
and ``ends_of`` take it.

Cut points (see :mod:`ragchunk.tokenizers.base`): no pre-tokenizer piece of cl100k, o200k,
p50k, r50k, llama3 (cl100k's regex), qwen2 (cl100k's with single digits) or deepseek (its
own, folded from three Splits) runs over
- a line break that follows a non-space and is followed by a visible ASCII character
  other than ``/`` (the cut is just after the line break; after whitespace it is not one:
  r50k and p50k read ``"\\n\\n"`` at the end of a text as one piece but ``"\\n" "\\n"``
  before a letter, and o200k glues ``/`` to punctuation before a line break);
- a single space between a visible ASCII character and an ASCII letter (the cut is just
  before the space: the space starts the next piece whatever follows the letter).
The pieces on either side are then encoded on their own, so the ids split there
(property-tested on every encoding, for every slice around a cut). Both rules cut just
before a space or an ASCII character, where NFC never composes, so they hold for the NFC
of the text too (and the property tests include combining marks).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from typing import Any, NamedTuple

from .. import tables
from ..errors import RagchunkError
from .catalog import CATALOG
from .nfc import NfcMap, nfc, nfc_map

#: The normalizers a rank file may name (``""``: none).
NORMALIZERS = ("", "NFC")


@dataclass(frozen=True, slots=True)
class RankFile:
    """The fields of an ``encoders/<name>.json`` file of the npm tiktoken package (or one made like it)."""

    name: str
    pat_str: str
    special_tokens: dict[str, int]
    bpe_ranks: str
    normalizer: str = ""

    @classmethod
    def from_json(cls, name: str, text: str | bytes) -> RankFile:
        """Read the JSON text of ``encoders/<name>.json``."""
        data = json.loads(text)
        return cls(name, data["pat_str"], dict(data["special_tokens"]), data["bpe_ranks"], data.get("normalizer", ""))


def rank_file(name: str) -> RankFile:
    """The rank file of encoding ``name`` from the installed package (hash-checked)."""
    return RankFile.from_json(name, tables.read(CATALOG[name].tables[0]))


def iter_ranks(bpe_ranks: str) -> Iterable[tuple[str, int]]:
    """Yield ``(base64 token, rank)`` pairs of a ``bpe_ranks`` string.

    >>> list(iter_ranks("! 0 IQ== Ig==\\n! 5 Iw=="))
    [('IQ==', 0), ('Ig==', 1), ('Iw==', 5)]
    """
    for line in bpe_ranks.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        first = int(parts[1])
        for offset, token in enumerate(parts[2:]):
            yield token, first + offset


def mergeable_ranks(bpe_ranks: str) -> dict[bytes, int]:
    """The ``{token bytes: rank}`` mapping ``tiktoken.Encoding`` takes."""
    decode = base64.b64decode
    return {decode(token): rank for token, rank in iter_ranks(bpe_ranks)}


class TokenTables(NamedTuple):
    """Per-token-id facts that place tokens in the text, indexed by token id.

    ``code_points[id]``: how many characters start in the token (its bytes that are not
    UTF-8 continuation bytes); ``continued[id]``: 1 when the token begins with a
    continuation byte (it starts inside the character before it), else 0.
    """

    code_points: array
    continued: bytes


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def token_tables(bpe_ranks: str) -> TokenTables:
    """Both tables of a ``bpe_ranks`` string, in one pass over its base64 tokens.

    >>> tables = token_tables("! 0 IQ== w6k= qQ== aGVsbG8=")  # "!", "é", a lone continuation byte, "hello"
    >>> list(tables.code_points), list(tables.continued)
    ([1, 1, 0, 5], [0, 0, 1, 0])
    """
    counts = array("H")
    continued = bytearray()
    decode = binascii.a2b_base64
    strip = _CONTINUATION_BYTES
    for line in bpe_ranks.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        first = int(parts[1])
        tokens = list(map(decode, parts[2:]))
        end = first + len(tokens)
        if len(counts) < end:
            counts.extend(bytes(end - len(counts)))
            continued.extend(bytes(end - len(continued)))
        counts[first:end] = array("H", [len(b) if b.isascii() else len(b.translate(None, strip)) for b in tokens])
        continued[first:end] = bytes(1 if b and 0x80 <= b[0] < 0xC0 else 0 for b in tokens)
    return TokenTables(counts, bytes(continued))


# Token count from which token ends are kept in a 4-byte array instead of a list.
ARRAY_ENDS_FROM = 1 << 20
_ENDS_SLICE = 1 << 18


def token_ends(ids: Any, counts: Sequence[int], offset: int = 0, compact: bool = False) -> list[int] | array:
    """The code-point end of every token of ``ids`` (tokens of a text starting at ``offset``).

    itemgetter reads the counts of many ids at C speed. A list bisects faster than an
    array, but holds an end in 36 bytes instead of 4: ``compact`` ends come in an array,
    built slice by slice so that no list of a Python int per token is ever made.

    >>> token_ends([0, 1, 1], [1, 2], offset=10)
    [11, 13, 15]
    """
    if not compact:
        if len(ids) < 2:
            return [offset + counts[ids[0]]] if ids else []
        running = accumulate(itemgetter(*ids)(counts), initial=offset)
        next(running)  # the initial value itself
        return list(running)
    ends = array("I")
    total = offset
    for first in range(0, len(ids), _ENDS_SLICE):
        part = ids[first : first + _ENDS_SLICE]
        running = accumulate(itemgetter(*part)(counts) if len(part) > 1 else (counts[part[0]],), initial=total)
        next(running)  # the initial value itself
        ends.extend(running)
        total = ends[-1]
    return ends


class _PerToken(Sequence):
    """A value per token of ``_ids``, found when read (:meth:`_at`); indexes as a list does."""

    __slots__ = ()
    _ids: Sequence[int]

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._at(index)

    def _at(self, index: int) -> int:
        raise NotImplementedError


class LazyEnds(_PerToken):
    """The ends of a BPE encoding's tokens (:func:`token_ends`), made block by block when read.

    A count reads none and a preview the few of its windows, so a pasted text's first count
    does not pay for the ends of every token; :meth:`whole` makes the rest (a split reads all).

    >>> ends = LazyEnds([0, 1, 1, 0], [1, 2], block=2)
    >>> ends[1], len(ends._made), ends[-1], ends.whole()
    (3, 2, 6, [1, 3, 5, 6])
    """

    __slots__ = ("_block", "_compact", "_counts", "_ids", "_made")

    def __init__(self, ids: Sequence[int], counts: Sequence[int], compact: bool = False, block: int = 1 << 13) -> None:
        self._ids, self._counts, self._compact, self._block = ids, counts, compact, block
        self._made: list[int] | array = array("I") if compact else []

    def _make(self, upto: int) -> None:
        """Make the ends of tokens before ``upto`` (rounded up to a whole block)."""
        made, ids = self._made, self._ids
        while len(made) < upto:
            first = len(made)
            made.extend(token_ends(ids[first : first + self._block], self._counts, made[-1] if first else 0,
                                   self._compact))

    def _at(self, index: int) -> int:
        if index >= len(self._made):
            self._make(index + 1)
        return self._made[index]

    def whole(self) -> list[int] | array:
        """Every end, as :func:`token_ends` makes them (a list, or an array when compact)."""
        self._make(len(self._ids))
        return self._made


class _Starts(_PerToken):
    """``starts[i]`` of a BPE encoding, computed when asked (only windows read a few).

    With ``normal`` (the text was not in NFC), ``ends`` are offsets in its normal form and
    each start is mapped back to the original text.
    """

    __slots__ = ("_continued", "_ends", "_ids", "_normal")

    def __init__(self, ids: Sequence[int], ends: Sequence[int], continued: bytes, normal: NfcMap | None = None) -> None:
        self._ids, self._ends, self._continued, self._normal = ids, ends, continued, normal

    def _at(self, index: int) -> int:
        before = self._ends[index - 1] if index else 0
        start = before - self._continued[self._ids[index]]
        return start if self._normal is None else self._normal.start_of(start)


class Encoded(NamedTuple):
    """:class:`ragchunk.tokenizers.base.Encoded` of a BPE encoding (``starts`` computed on demand)."""

    ids: Sequence[int]
    starts: Sequence[int]
    ends: Sequence[int]


# --- cut points ------------------------------------------------------------------------

_VISIBLE_ASCII = frozenset(chr(c) for c in range(0x21, 0x7F))
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LINE_STARTS = frozenset(chr(c) for c in range(0x21, 0x7F) if chr(c) != "/")


def _is_cut(text: str, c: int) -> bool:
    """Whether ``c`` is a cut of the whole ``text`` (either rule)."""
    if not 0 < c < len(text):
        return False
    char = text[c]
    if char == " ":
        return c + 1 < len(text) and text[c - 1] in _VISIBLE_ASCII and text[c + 1] in _ASCII_LETTERS
    if char not in _LINE_STARTS or text[c - 1] != "\n":
        return False
    before = c - 2
    if before >= 0 and text[before] == "\r":
        before -= 1
    return before >= 0 and not text[before].isspace()


def _cut_span(text: str, c: int) -> tuple[int, int]:
    """The context ``[a, b)`` the rule reads to call ``c`` a cut (``c`` must be one)."""
    if text[c] == " ":
        return c - 1, c + 2
    return (c - 3 if text[c - 2] == "\r" else c - 2), c + 1


def next_cut(text: str, at: int, stop: int) -> int | None:
    """The first cut ``c`` with ``at <= c < stop`` whose right-hand context lies before ``stop``.

    >>> next_cut("say hello", 0, 9), next_cut("Line.\\nNext.", 0, 11), next_cut("x.\\n\\nNext", 0, 9)
    (3, 6, None)
    """
    stop = min(stop, len(text))
    if at >= stop:
        return None
    if _is_cut(text, at) and _cut_span(text, at)[1] <= stop:
        return at
    found = _CUT.search(text, at, stop)
    if found is None:
        return None
    return found.end(1) if found.end(1) >= 0 else found.start(2)


def last_cut(text: str, low: int, high: int) -> int | None:
    """The last cut ``c`` with ``low < c <= high`` whose left-hand context lies at or after ``low``.

    ``c == high`` qualifies when it is a cut of the whole text (its right-hand context
    may then lie past ``high``); a cut below ``high`` needs its context inside ``[low, high)``.

    >>> last_cut("one two three", 0, 13), last_cut("one two three", 0, 7), last_cut("a.\\nb c", 0, 6)
    (7, 7, 4)
    """
    high = min(high, len(text))
    if high <= low:
        return None
    if _is_cut(text, high) and _cut_span(text, high)[0] >= low:
        return high
    # Usually the last cut is a space in the span's last line or the line break before
    # that line: found with rfind, no regex.
    newline = text.rfind("\n", low, high - 1)
    line = max(low + 1, newline + 1)
    space = text.rfind(" ", line, high - 1)
    for _ in range(8):
        if space < line:
            break
        if text[space - 1] in _VISIBLE_ASCII and text[space + 1] in _ASCII_LETTERS:
            return space
        space = text.rfind(" ", line, space)
    else:
        return _last_cut_scan(text, low, high)  # a line of many spaces: let the regex look
    if newline < low:
        return None
    c = newline + 1
    if c < high and _is_cut(text, c) and _cut_span(text, c)[0] >= low:
        return c
    return _last_cut_scan(text, low, newline + 1)


def _last_cut_scan(text: str, low: int, high: int) -> int | None:
    """:func:`last_cut` below ``high`` by a regex over growing windows, from the end backwards."""
    width = 32
    while True:
        a = max(low, high - width)
        # The first match in the reversed window is the last one in the text.
        found = _CUT_REVERSED.search(text[a:high][::-1])
        if found is not None:
            if found.start(1) >= 0:
                return high - 1 - found.start(0)  # the character after the line break
            return high - 1 - found.start(2)
        if a == low:
            return None
        width *= 4


# group 1 ends where the line-break rule cuts; group 2 starts where the space rule cuts.
_CUT = re.compile(r"(\S\r?\n)[!-.0-~]|[!-~]( )[A-Za-z]")
# The same rules on reversed text: group 1 is the reversed "\S\r?\n", group 2 the space.
_CUT_REVERSED = re.compile(r"[!-.0-~](\n\r?\S)|[A-Za-z]( )[!-~]")


# --- adapters --------------------------------------------------------------------------

def _once(build: Callable[[], TokenTables]) -> Callable[[], TokenTables]:
    """``build``, called once on first use and remembered."""
    made: list[TokenTables] = []

    def get() -> TokenTables:
        if not made:
            made.append(build())
        return made[0]

    return get


class _Bpe:
    """What both adapters share: token offsets from the per-token tables, normalization, and the cut rules.

    ``normalizer`` is the rank file's (``"NFC"`` or ``""``); raises ValueError for another.
    """

    exact = True
    special_tokens = 0

    def __init__(self, name: str, tables_of: Callable[[], TokenTables], normalizer: str = "") -> None:
        if normalizer not in NORMALIZERS:
            raise ValueError(f"normalizer ({normalizer}) of encoding {name} is not supported: only NFC or none")
        self.name = name
        self.normalizer = normalizer
        self._tables = _once(tables_of)

    def _encode_normal(self, text: str) -> Sequence[int]:
        """The ids of ``text``, already normalized."""
        raise NotImplementedError

    def encode(self, text: str) -> Sequence[int]:
        return self._encode_normal(nfc(text) if self.normalizer else text)

    def encode_with_offsets(self, text: str) -> Encoded:
        normal = nfc_map(text) if self.normalizer else None
        if normal is None:
            return self.encoded_from_ids(self._encode_normal(text), text)
        return self._mapped(self._encode_normal(normal.text), normal)

    def encoded_from_ids(self, ids: Sequence[int], text: str, lazy: bool = False) -> Encoded:
        """The :class:`Encoded` of ``text`` from its ids (BPE offsets follow from the ids, and
        from the text only where normalization changed it); ``lazy``: the ends are
        :class:`LazyEnds`, made when read (for a count that reads few of them)."""
        normal = nfc_map(text) if self.normalizer else None
        if normal is not None:
            return self._mapped(ids, normal)
        made = self._tables()
        compact = len(ids) >= ARRAY_ENDS_FROM
        ends = LazyEnds(ids, made.code_points, compact) if lazy else token_ends(ids, made.code_points, 0, compact)
        return Encoded(ids, _Starts(ids, ends, made.continued), ends)

    def _mapped(self, ids: Sequence[int], normal: NfcMap) -> Encoded:
        """The :class:`Encoded` of a text whose normal form ``normal`` has the tokens ``ids``."""
        made = self._tables()
        normal_ends = token_ends(ids, made.code_points, 0, len(ids) >= ARRAY_ENDS_FROM)
        return Encoded(ids, _Starts(ids, normal_ends, made.continued, normal), normal.ends(normal_ends))

    def ends_of(self, ids: Sequence[int], offset: int = 0, compact: bool = False, text: str = "") -> list[int] | array:
        """Token ends of ``ids`` encoded from ``text``, which starts at ``offset`` in the
        document (see :func:`token_ends`; ``text`` is read only by a normalizing encoding)."""
        normal = nfc_map(text) if self.normalizer else None
        if normal is None:
            return token_ends(ids, self._tables().code_points, offset, compact)
        return normal.ends(token_ends(ids, self._tables().code_points, 0, compact), offset)

    def next_cut(self, text: str, at: int, stop: int) -> int | None:
        return next_cut(text, at, stop)

    def last_cut(self, text: str, low: int, high: int) -> int | None:
        return last_cut(text, low, high)


class TiktokenTokenizer(_Bpe):
    """CPython adapter around a ``tiktoken.Encoding``; user text is always ordinary text.

    tiktoken releases the GIL while it encodes, so a second thread may work meanwhile.
    """

    releases_gil = True

    def __init__(self, name: str, encoding: Any, tables_of: Callable[[], TokenTables], normalizer: str = "") -> None:
        super().__init__(name, tables_of, normalizer)
        self._encoding = encoding

    def _encode_normal(self, text: str) -> list[int]:
        return self._encoding.encode_ordinary(text)

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(nfc(text) if self.normalizer else text))

    def decode(self, tokens: Iterable[int]) -> str:
        return self._encoding.decode(list(tokens), errors="replace")


#: The longest run of letters the page's WASM encoder is given. A run of letters is one piece
#: of tiktoken's pattern, and the npm encoder merges a piece in time that grows with the
#: square of its length (400,000 letters took minutes here) and fails past about a million.
WASM_MAX_RUN = 20_000


def check_runs(text: str) -> None:
    """Refuse a text with a run of letters longer than :data:`WASM_MAX_RUN` (the page's limit).

    Such a run holds a whole block of half that length at a multiple of it, so only the
    blocks are looked at (a few characters of each, in C), and a run is measured only from
    a block that is letters throughout: the check costs a fraction of a millisecond per MB.

    >>> check_runs("a" * 20_000 + " b")
    >>> check_runs("x" + "é" * 20_000)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: the text holds a run of 20,001 letters with no space, digit or punctuation; the page counts runs of up to 20,000: count it with the command line (python -m ragchunk tokens FILE)
    """
    block = WASM_MAX_RUN // 2
    for start in range(0, len(text) - block + 1, block):
        if not (text[start : start + 32].isalpha() and text[start : start + block].isalpha()):
            continue
        low, high = start, start + block
        while low and text[low - 1].isalpha():
            low -= 1
        while high < len(text) and text[high].isalpha():
            high += 1
        if high - low > WASM_MAX_RUN:
            raise RagchunkError(
                "text",
                f"the text holds a run of {high - low:,} letters with no space, digit or punctuation; the page counts"
                f" runs of up to {WASM_MAX_RUN:,}: count it with the command line (python -m ragchunk tokens FILE)",
                "letter_run_too_long", {"length": high - low, "limit": WASM_MAX_RUN},
            )


class WasmTokenizer(_Bpe):
    """Browser adapter around the npm tiktoken WASM ``Tiktoken`` object the worker made.

    ``encoder`` is a Pyodide proxy of that object; ``bpe_ranks`` is the table text it was
    built from (read here only for the per-token offset tables), ``normalizer`` the table's.
    ``encode_source`` encodes a text that still has its JavaScript original (a
    ``browser.JsText``) without copying it back to JavaScript. A normalizing encoding
    normalizes here, in Python, what is not in NFC (then the Python copy goes to the encoder):
    one normalizer decides both the ids and their offsets.
    """

    releases_gil = False

    def __init__(self, name: str, encoder: Any, bpe_ranks: str, encode_source: Any = None,
                 normalizer: str = "") -> None:
        super().__init__(name, lambda: token_tables(bpe_ranks), normalizer)
        self._encoder = encoder
        self._encode_source = encode_source

    def _ids(self, text: str) -> Any:
        """The ids of ``text``, already normalized (a JS array)."""
        check_runs(text)
        source = getattr(text, "source", None)
        if source is not None and self._encode_source is not None:
            return self._encode_source(source)
        return self._encoder.encode_ordinary(text)

    def _normal(self, text: str) -> str:
        # nfc() hands back the very object when the text is in NFC, so a JsText keeps its source.
        return nfc(text) if self.normalizer else text

    def _encode_normal(self, text: str) -> Sequence[int]:
        return self._ids(text).to_memoryview()

    def count(self, text: str) -> int:
        return self._ids(self._normal(text)).length

    def decode(self, tokens: Iterable[int]) -> str:
        from js import Uint32Array  # only inside Pyodide

        data = self._encoder.decode(Uint32Array.new(list(tokens)))
        return data.to_bytes().decode("utf-8", errors="replace")


def load(name: str) -> TiktokenTokenizer:
    """The CPython tokenizer of encoding ``name``, built from the rank file in the package."""
    import tiktoken

    ranks = rank_file(name)
    encoding = tiktoken.Encoding(
        ranks.name, pat_str=ranks.pat_str, mergeable_ranks=mergeable_ranks(ranks.bpe_ranks),
        special_tokens=ranks.special_tokens,
    )
    return TiktokenTokenizer(name, encoding, lambda: token_tables(ranks.bpe_ranks), ranks.normalizer)
