"""Tokenizer registry: name -> tokenizer, built on first use and cached.

Every exact tokenizer answers the sizing interface of :mod:`ragchunk.tokenizers.base`
(ids with the code-point span of each token, cut points, special tokens), whatever its
family: byte-level BPE encodings, OpenAI's, Llama 3's and Qwen's (:mod:`.bpe`: tiktoken on CPython,
tiktoken's WASM build handed in by the browser worker), BERT's uncased WordPiece (:mod:`.wordpiece`) and
XLM-R's Unigram model (:mod:`.unigram`), the last two in pure Python on both.
:class:`CharEstimate` is the characters-per-token estimate, which sizes text without tokens.
"""

from __future__ import annotations

import math
import sys
import threading
from array import array
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from ..errors import RagchunkError, UnknownEncodingError
from ..settings import DEFAULT_ENCODING
from ..steps import drive
from . import bpe
from .base import Encoded, Tokenizer
from .bpe import TiktokenTokenizer, WasmTokenizer
from .catalog import CATALOG, ENCODINGS, OPEN_TOKENIZERS
from .pieces import OFFSET_PIECE_CHARS, encode_ids_first

__all__ = [
    "REGISTRY",
    "CATALOG",
    "ENCODINGS",
    "OPEN_TOKENIZERS",
    "CharEstimate",
    "Encoded",
    "Registry",
    "TiktokenTokenizer",
    "Tokenizer",
    "WasmTokenizer",
    "check_encoding",
    "check_tokenizer",
    "encode_in_pieces",
    "encode_steps",
    "get_tokenizer",
]


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


ENCODE_PIECE_CHARS = 1 << 20


def encode_in_pieces(tokenizer: Tokenizer, text: str, progress: Callable[[int, int], None] | None = None,
                     piece: int | None = None) -> Encoded:
    """``tokenizer.encode_with_offsets(text)``, done about ``piece`` characters (default
    :data:`ENCODE_PIECE_CHARS`) at a time so that a long text can report
    ``progress(done, total)`` (code-point offsets) between pieces.

    Pieces end at the tokenizer's cut points, so the ids are exactly those of one encode;
    a stretch with no cut stays in one piece. Ids of a text longer than one piece come
    back in an ``array("I")`` (4 bytes each).

    >>> tokenizer = get_tokenizer("cl100k_base")
    >>> text = "One line.\\nTwo lines.\\n" * 500
    >>> calls = []
    >>> encoded = encode_in_pieces(tokenizer, text, lambda *a: calls.append(a), piece=4000)
    >>> list(encoded.ids) == tokenizer.encode(text), list(encoded.ends) == list(tokenizer.encode_with_offsets(text).ends)
    (True, True)
    >>> calls[-1], len(calls)
    ((10500, 10500), 3)
    """
    return drive(encode_steps(tokenizer, text, piece),
                 None if progress is None else lambda step: progress(step[1], step[2]))


def encode_steps(tokenizer: Tokenizer, text: str, piece: int | None = None,
                 spans_when_read: bool = False) -> Generator[tuple[str, int, int], None, Encoded]:
    """:func:`encode_in_pieces` step by step: yields ``("tokenizing", done, total)`` after
    each piece (the last with ``done == total``) and returns the :class:`Encoded`.

    ``spans_when_read``: for a count that reads few token spans (the calculator's windows),
    an open tokenizer finds the ids first and each piece's spans when one is read
    (:mod:`.pieces`); finding them with the ids costs less when every span will be read.
    A BPE encoding's spans follow from its ids: they are then made block by block when
    read (:class:`ragchunk.tokenizers.bpe.LazyEnds`; :func:`.pieces.all_ends` makes them all).
    """
    total = len(text)
    piece = piece or ENCODE_PIECE_CHARS
    from_ids = getattr(tokenizer, "encoded_from_ids", None)
    if from_ids is None and spans_when_read:
        # Progress after each of those pieces (open tokenizers are slower than BPE: a step a second or so).
        return (yield from encode_ids_first(tokenizer, text, min(piece, OFFSET_PIECE_CHARS)))
    if total <= piece:
        if from_ids is not None and spans_when_read:
            encoded = from_ids(tokenizer.encode(text), text, lazy=True)
        else:
            encoded = tokenizer.encode_with_offsets(text)
        yield ("tokenizing", total, total)
        return encoded
    ids = array("I")
    starts: list[int] = []
    ends: list[int] = []
    start = 0
    while start < total:
        cut = tokenizer.next_cut(text, start + piece, total) if start + piece < total else None
        end = total if cut is None else cut
        if from_ids is not None:
            part = tokenizer.encode(text[start:end])
            if isinstance(part, memoryview) and part.itemsize == ids.itemsize:
                ids.frombytes(part.cast("B"))  # a typed view is not "bytes-like" to frombytes in 3.14
            else:
                ids.extend(part)
        else:
            encoded = tokenizer.encode_with_offsets(text[start:end])
            ids.extend(encoded.ids)
            starts.extend(start + s for s in encoded.starts)
            ends.extend(start + e for e in encoded.ends)
        start = end
        yield ("tokenizing", start, total)
    if from_ids is not None:
        return from_ids(ids, text, lazy=spans_when_read)
    return Encoded(ids, starts, ends)


def tokenizer_names() -> list[str]:
    """Every name :func:`get_tokenizer` knows: the BPE encodings, then the open models' tokenizers."""
    return [*ENCODINGS, *OPEN_TOKENIZERS]


def check_tokenizer(name: str) -> str:
    """Validate a tokenizer name (an encoding or an open model's tokenizer).

    >>> check_tokenizer("xlm-roberta")
    'xlm-roberta'
    """
    if name in OPEN_TOKENIZERS:
        return name
    if name not in ENCODINGS:
        known = ", ".join(tokenizer_names())
        raise UnknownEncodingError(
            "encoding",
            f"encoding ({name}) is not known: choose one of {known}",
            "unknown_encoding",
            {"value": str(name), "choices": known},
        )
    return name


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
    """Tokenizer name -> tokenizer, each built once on first use (thread-safe).

    On CPython a name not provided explicitly is built from the tables in the package.
    The browser worker provides its WASM encoders with :meth:`provide`.
    """

    def __init__(self) -> None:
        self._built: dict[str, Tokenizer] = {}
        self._factories: dict[str, Callable[[], Tokenizer]] = {}
        self._lock = threading.Lock()

    def provide(self, name: str, factory: Callable[[], Tokenizer]) -> None:
        """Use ``factory`` to build ``name`` (replaces a tokenizer built before)."""
        check_tokenizer(name)
        with self._lock:
            self._factories[name] = factory
            self._built.pop(name, None)

    def get(self, name: str = DEFAULT_ENCODING) -> Tokenizer:
        """The tokenizer for ``name``; raises :class:`UnknownEncodingError` for an unknown one."""
        check_tokenizer(name)
        with self._lock:
            if name not in self._built:
                self._built[name] = self._factories.get(name, lambda: _build_default(name))()
            return self._built[name]

    def loaded(self) -> list[str]:
        """Names already built."""
        with self._lock:
            return sorted(self._built)


def _build_default(name: str) -> Tokenizer:
    family = CATALOG[name].family
    if family == "wordpiece":
        from . import wordpiece

        return wordpiece.load(name)
    if family == "unigram":
        from . import unigram

        return unigram.load()
    if sys.platform == "emscripten":
        # The page builds tiktoken's WASM encoder for a BPE encoding and provides it.
        raise RagchunkError(
            "encoding",
            f"encoding ({name}) is not loaded yet: wait for it to load, then retry",
            "encoding_not_loaded",
            {"name": name},
        )
    return bpe.load(name)


REGISTRY = Registry()


def get_tokenizer(name: str = DEFAULT_ENCODING) -> Tokenizer:
    """The exact tokenizer registered as ``name``.

    >>> tok = get_tokenizer("cl100k_base")
    >>> tok.encode("hello world"), tok.count("hello world"), tok.decode([15339, 1917])
    ([15339, 1917], 2, 'hello world')
    >>> tok.count("<|endoftext|>")  # special-token text is ordinary text
    7
    >>> list(tok.encode_with_offsets("héllo wörld").ends)
    [1, 3, 5, 7, 9, 11]
    """
    return REGISTRY.get(name)
