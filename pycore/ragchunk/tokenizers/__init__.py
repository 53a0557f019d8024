"""Tokenizer registry: encoding name -> tokenizer, built on first use and cached.

Every tokenizer answers the same sizing interface (``encode``, ``count``, ``decode`` and
``byte_lengths``, ``code_point_counts``), whether it is tiktoken on CPython, tiktoken's WASM build handed in by
the browser worker, or the characters-per-token estimate.

The BPE tables come from the npm ``tiktoken`` package (``encoders/<name>.json``), the same
files the page loads, so CPython and the browser give identical token ids. Their
``bpe_ranks`` field holds lines of ``<marker> <first rank> <base64 token> ...``; the i-th
token on a line has rank ``first + i``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import re
import threading
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ..errors import RagchunkError, UnknownEncodingError
from ..settings import DEFAULT_ENCODING, ENCODINGS


class Tokenizer(Protocol):
    """The sizing interface every tokenizer implements."""

    name: str
    exact: bool

    def encode(self, text: str) -> Sequence[int]: ...

    def count(self, text: str) -> int: ...

    def decode(self, tokens: Iterable[int]) -> str: ...

    def byte_lengths(self) -> Sequence[int]: ...

    def code_point_counts(self) -> Sequence[int]: ...


@dataclass(frozen=True, slots=True)
class RankFile:
    """The fields of an ``encoders/<name>.json`` file of the npm tiktoken package."""

    name: str
    pat_str: str
    special_tokens: dict[str, int]
    bpe_ranks: str

    @classmethod
    def from_json(cls, name: str, text: str) -> RankFile:
        """Read the JSON text of ``encoders/<name>.json``."""
        data = json.loads(text)
        return cls(name, data["pat_str"], dict(data["special_tokens"]), data["bpe_ranks"])


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
    """Per-token-id facts the splitter and the windows need, indexed by token id.

    ``byte_lengths[id]`` is the token's length in bytes; ``code_points[id]`` how many
    code points start in it (its bytes that are not UTF-8 continuation bytes). Summed over
    a document's tokens, ``code_points`` gives the code-point offset of every token end
    directly: a character split between tokens counts in the token with its first byte.
    """

    byte_lengths: array
    code_points: array


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def token_tables(bpe_ranks: str) -> TokenTables:
    """Both tables of a ``bpe_ranks`` string, in one pass over its base64 tokens.

    >>> tables = token_tables("! 0 IQ== w6k= qQ== aGVsbG8=")  # "!", "é", a lone continuation byte, "hello"
    >>> list(tables.byte_lengths), list(tables.code_points)
    ([1, 2, 1, 5], [1, 1, 0, 5])
    """
    lengths, counts = array("H"), array("H")
    decode = binascii.a2b_base64
    strip = _CONTINUATION_BYTES
    for line in bpe_ranks.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        first = int(parts[1])
        tokens = list(map(decode, parts[2:]))
        end = first + len(tokens)
        if len(lengths) < end:
            lengths.extend(bytes(end - len(lengths)))
            counts.extend(bytes(end - len(counts)))
        lengths[first:end] = array("H", map(len, tokens))
        counts[first:end] = array("H", [len(b) if b.isascii() else len(b.translate(None, strip)) for b in tokens])
    return TokenTables(lengths, counts)


def _lazy(build: Callable[[], TokenTables]) -> Callable[[], TokenTables]:
    """``build``, called once on first use and remembered."""
    made: list[TokenTables] = []

    def get() -> TokenTables:
        if not made:
            made.append(build())
        return made[0]

    return get


class TiktokenTokenizer:
    """CPython adapter around a ``tiktoken.Encoding``; user text is always ordinary text."""

    exact = True

    def __init__(self, name: str, encoding: Any, tables: Callable[[], TokenTables]) -> None:
        self.name = name
        self._encoding = encoding
        self._tables = _lazy(tables)

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode_ordinary(text)

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def decode(self, tokens: Iterable[int]) -> str:
        return self._encoding.decode(list(tokens), errors="replace")

    def byte_lengths(self) -> Sequence[int]:
        return self._tables().byte_lengths

    def code_point_counts(self) -> Sequence[int]:
        return self._tables().code_points


class WasmTokenizer:
    """Browser adapter around the npm tiktoken WASM ``Tiktoken`` object the worker made.

    ``encoder`` is a Pyodide proxy of that object; ``bpe_ranks`` is the same table text it
    was built from, used only for token byte lengths (character offsets of windows).
    ``encode_source`` encodes a text that still has its JavaScript original (a
    ``browser.JsText``) without copying it back to JavaScript.
    """

    exact = True

    def __init__(self, name: str, encoder: Any, bpe_ranks: str, encode_source: Any = None) -> None:
        self.name = name
        self._encoder = encoder
        self._encode_source = encode_source
        self._tables = _lazy(lambda: token_tables(bpe_ranks))

    def _ids(self, text: str) -> Any:
        source = getattr(text, "source", None)
        if source is not None and self._encode_source is not None:
            return self._encode_source(source)
        return self._encoder.encode_ordinary(text)

    def encode(self, text: str) -> Sequence[int]:
        return self._ids(text).to_memoryview()

    def count(self, text: str) -> int:
        return self._ids(text).length

    def decode(self, tokens: Iterable[int]) -> str:
        from js import Uint32Array  # only inside Pyodide

        data = self._encoder.decode(Uint32Array.new(list(tokens)))
        return data.to_bytes().decode("utf-8", errors="replace")

    def byte_lengths(self) -> Sequence[int]:
        return self._tables().byte_lengths

    def code_point_counts(self) -> Sequence[int]:
        return self._tables().code_points


@dataclass(frozen=True, slots=True)
class CharEstimate:
    """The characters-per-token estimate: ``count = ceil(characters ÷ ratio)``.

    >>> CharEstimate(4).count("abcdefghi"), CharEstimate(4).name
    (3, 'chars/4')
    """

    ratio: float
    exact: bool = field(default=False, init=False)

    @property
    def name(self) -> str:
        return f"chars/{self.ratio:g}"

    def count(self, text: str) -> int:
        return math.ceil(len(text) / self.ratio)


# Places where a text can be cut and encoded piece by piece with the ids of one encode, in
# every encoding of the registry (property-tested on all four):
# - after a line break between a non-space and a visible ASCII character other than "/"
#   (group 1 ends there): the break is a whole pre-tokenizer piece, or ends one after
#   punctuation, whatever follows. (After whitespace it is not: r50k and p50k read "\n\n"
#   at the end of a text as one piece but "\n" "\n" before a letter.)
# - before a single space between a visible ASCII character and an ASCII letter (group 2):
#   no piece runs over that space, and the text before it ends the same way at the end of
#   a text as before " word".
_PIECE_CUT = re.compile(r"(\S\r?\n)[!-.0-~]|[!-~]( )[A-Za-z]")
ENCODE_PIECE_CHARS = 1 << 20


def piece_cut(text: str, at: int, stop: int | None = None) -> int | None:
    """The first offset after ``at`` where ``text`` can be cut into separately encoded
    pieces without changing an id (registry encodings only), searched up to ``stop``
    (default: the end); None if there is none.

    >>> piece_cut("Line.\\nNext.", 0), piece_cut("x.\\n\\nNext", 0), piece_cut("日本語", 0)
    (6, None, None)
    >>> text = "say hello"
    >>> text[:piece_cut(text, 0)], text[piece_cut(text, 0):]
    ('say', ' hello')
    """
    found = _PIECE_CUT.search(text, at, len(text) if stop is None else stop)
    if found is None:
        return None
    return found.end(1) if found.end(1) >= 0 else found.start(2)


def encode_in_pieces(tokenizer: Tokenizer, text: str, progress: Callable[[int, int], None] | None = None,
                     piece: int | None = None) -> Sequence[int]:
    """``tokenizer.encode(text)``, done about ``piece`` characters (default
    :data:`ENCODE_PIECE_CHARS`) at a time so that a long
    text can report ``progress(done, total)`` (code-point offsets) between pieces.

    Pieces end at a :func:`piece_cut` (after a line break between visible characters, or
    before a space between a visible character and a letter), so the ids are exactly those
    of one encode (tested on all four encodings); a stretch with no such place stays in
    one piece. Ids of a text longer than one piece come back in an ``array("I")`` (4 bytes
    each).

    >>> tokenizer = get_tokenizer("cl100k_base")
    >>> text = "One line.\\nTwo lines.\\n" * 500
    >>> calls = []
    >>> list(encode_in_pieces(tokenizer, text, lambda *a: calls.append(a), piece=4000)) == tokenizer.encode(text)
    True
    >>> calls[-1], len(calls)
    ((10500, 10500), 3)
    """
    total = len(text)
    piece = piece or ENCODE_PIECE_CHARS
    if total <= piece or tokenizer.name not in ENCODINGS:
        ids = tokenizer.encode(text)
        if progress is not None:
            progress(total, total)
        return ids
    ids = array("I")
    start = 0
    while start < total:
        cut = piece_cut(text, start + piece) if start + piece < total else None
        end = total if cut is None else cut
        part = tokenizer.encode(text[start:end])
        if isinstance(part, memoryview) and part.itemsize == ids.itemsize:
            ids.frombytes(part.cast("B"))  # a typed view is not "bytes-like" to frombytes in 3.14
        else:
            ids.extend(part)
        start = end
        if progress is not None:
            progress(start, total)
    return ids


def rank_file_dirs() -> list[Path]:
    """Where CPython looks for ``<name>.json`` rank files, first match wins.

    ``$RAGCHUNK_ENCODERS`` if set, then the copies ``build.py`` puts in ``dist/``, then
    the npm package in the checkout's ``node_modules``.
    """
    dirs = []
    if os.environ.get("RAGCHUNK_ENCODERS"):
        dirs.append(Path(os.environ["RAGCHUNK_ENCODERS"]))
    checkout = Path(__file__).resolve().parents[3]
    dirs.append(checkout / "dist" / "assets" / "encoders")
    dirs.append(checkout / "node_modules" / "tiktoken" / "encoders")
    return dirs


def load_rank_file(name: str) -> RankFile | None:
    """Read ``<name>.json`` from the first of :func:`rank_file_dirs` that has it."""
    for directory in rank_file_dirs():
        path = directory / f"{name}.json"
        if path.is_file():
            return RankFile.from_json(name, path.read_text(encoding="utf-8"))
    return None


def tiktoken_from_rank_file(rank_file: RankFile) -> TiktokenTokenizer:
    """Build a CPython tokenizer from the npm package's table."""
    import tiktoken

    ranks = mergeable_ranks(rank_file.bpe_ranks)
    encoding = tiktoken.Encoding(
        rank_file.name, pat_str=rank_file.pat_str, mergeable_ranks=ranks, special_tokens=rank_file.special_tokens
    )
    return TiktokenTokenizer(rank_file.name, encoding, lambda: token_tables(rank_file.bpe_ranks))


def tiktoken_fallback(name: str) -> TiktokenTokenizer:
    """Outside a checkout: tiktoken's own loader (it may download and cache the table)."""
    import tiktoken

    encoding = tiktoken.get_encoding(name)

    def tables() -> TokenTables:
        lengths, counts = array("H", bytes(2 * encoding.n_vocab)), array("H", bytes(2 * encoding.n_vocab))
        for token_bytes in encoding.token_byte_values():
            rank = encoding.encode_single_token(token_bytes)
            lengths[rank] = len(token_bytes)
            counts[rank] = len(token_bytes.translate(None, _CONTINUATION_BYTES))
        return TokenTables(lengths, counts)

    return TiktokenTokenizer(name, encoding, tables)


def check_encoding(name: str) -> str:
    """Validate an encoding name against the registry.

    >>> check_encoding("o200k_base")
    'o200k_base'
    """
    if name not in ENCODINGS:
        known = ", ".join(ENCODINGS)
        raise UnknownEncodingError(
            "encoding",
            f"encoding ({name}) is not known: choose one of {known}",
            "unknown_encoding",
            {"value": str(name), "choices": known},
        )
    return name


class Registry:
    """Encoding name -> tokenizer, each built once on first use (thread-safe).

    On CPython a name not provided explicitly is built from the rank file on disk. The
    browser worker provides its WASM encoders with :meth:`provide`.
    """

    def __init__(self) -> None:
        self._built: dict[str, Tokenizer] = {}
        self._factories: dict[str, Callable[[], Tokenizer]] = {}
        self._lock = threading.Lock()

    def provide(self, name: str, factory: Callable[[], Tokenizer]) -> None:
        """Use ``factory`` to build ``name`` (replaces a tokenizer built before)."""
        check_encoding(name)
        with self._lock:
            self._factories[name] = factory
            self._built.pop(name, None)

    def get(self, name: str = DEFAULT_ENCODING) -> Tokenizer:
        """The tokenizer for ``name``; raises :class:`UnknownEncodingError` for an unknown one."""
        check_encoding(name)
        with self._lock:
            if name not in self._built:
                self._built[name] = self._factories.get(name, lambda: _build_default(name))()
            return self._built[name]

    def loaded(self) -> list[str]:
        """Names already built."""
        with self._lock:
            return sorted(self._built)


def _build_default(name: str) -> Tokenizer:
    import sys

    if sys.platform == "emscripten":
        raise RagchunkError(
            "encoding",
            f"encoding ({name}) is not loaded yet: wait for it to load, then retry",
            "encoding_not_loaded",
            {"name": name},
        )
    rank_file = load_rank_file(name)
    return tiktoken_from_rank_file(rank_file) if rank_file else tiktoken_fallback(name)


REGISTRY = Registry()


def get_tokenizer(name: str = DEFAULT_ENCODING) -> Tokenizer:
    """The exact tokenizer of an encoding of the registry.

    >>> tok = get_tokenizer("cl100k_base")
    >>> tok.encode("hello world"), tok.count("hello world"), tok.decode([15339, 1917])
    ([15339, 1917], 2, 'hello world')
    >>> tok.count("<|endoftext|>")  # special-token text is ordinary text
    7
    """
    return REGISTRY.get(name)
