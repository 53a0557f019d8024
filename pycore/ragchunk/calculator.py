"""The chunk-count and cost arithmetic of fixed-size chunking with overlap."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from fractions import Fraction

from .errors import RagchunkError
from .models import vector_storage  # noqa: F401  (ragchunk.calculator.vector_storage, as the page's snippet prints it)
from .settings import (
    EXAMPLES,
    MAX_CHARS_PER_TOKEN,
    MAX_CHUNK_SIZE,
    MAX_DOC_CHARS,
    MAX_DOC_TOKENS,
    MAX_DOCUMENTS,
    MAX_PRICE_PER_MILLION,
    MAX_TOTAL_TOKENS,
)


@dataclass(frozen=True, slots=True)
class Plan:
    """What embedding ``documents`` documents of ``doc_tokens`` tokens each in fixed windows costs.

    ``chunks``, ``total_tokens``, ``repeated_tokens`` and ``cost`` are totals over the
    documents (chunk counts add up per document: 100 documents of 1,000 tokens at 512/64
    make 300 chunks, where one document of 100,000 tokens would make 224);
    ``last_chunk_tokens`` and ``step`` are per document. ``repeated_share`` is the part of
    ``total_tokens`` that is overlap (0..1); ``extra_share`` is how much more than the
    documents is embedded (repeated ÷ documents). ``cost`` is ``None`` when no price was given.
    """

    doc_tokens: int
    chunk_size: int
    overlap: int
    step: int
    chunks: int
    total_tokens: int
    repeated_tokens: int
    repeated_share: float
    extra_share: float
    last_chunk_tokens: int
    price_per_million: float | None
    cost: float | None
    documents: int = 1

    def to_json(self) -> dict[str, object]:
        """The plan as a plain dict (the keys of ``ragchunk calc --json``)."""
        return asdict(self)


def _shown(value: object, shown: str | None) -> str:
    if shown is not None:
        return shown
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return repr(value)


def example_of(field: str) -> str:
    """A value of ``field`` that a message offers as an example (``settings.EXAMPLES``).

    >>> example_of("price_per_million"), example_of("chunk_size")
    ('0.02', '512')
    """
    return EXAMPLES.get(field, EXAMPLES["chunk_size"])


def check_whole(
    field: str, label: str, value: object, minimum: int, maximum: int, *, unit: str = "tokens", shown: str | None = None
) -> int:
    """Validate a whole count within [minimum, maximum]; ``shown`` is how the user wrote it.

    >>> check_whole("chunk_size", "chunk size", 512.0, 1, 10)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: chunk size (512.0) is too large: enter at most 10
    """
    text = _shown(value, shown)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RagchunkError(field, f"{label} ({text}) is not a number: enter a whole number of {unit}",
                            "not_a_number", {"value": text, "example": example_of(field)})
    if value < minimum:
        raise RagchunkError(field, f"{label} ({text}) must be at least {minimum:,}: enter a larger number",
                            "too_small", {"value": text, "minimum": minimum})
    if value > maximum:
        raise RagchunkError(field, f"{label} ({text}) is too large: enter at most {maximum:,}",
                            "too_large", {"value": text, "maximum": maximum})
    if isinstance(value, float) and not value.is_integer():
        raise RagchunkError(field, f"{label} ({text}) must be a whole number of {unit}: round it",
                            "not_whole", {"value": text, "unit": unit})
    return int(value)


def check_chunking(chunk_size: int, overlap: int) -> tuple[int, int]:
    """Validate a chunk size and an overlap in tokens; return them as ints.

    >>> check_chunking(512, 64)
    (512, 64)
    >>> check_chunking(512, 512)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (512) must be smaller than chunk size (512): lower the overlap
    """
    size = check_whole("chunk_size", "chunk size", chunk_size, 1, MAX_CHUNK_SIZE)
    over = check_whole("overlap", "overlap", overlap, 0, MAX_CHUNK_SIZE - 1)
    if over >= size:
        raise overlap_not_smaller(over, size)
    return size, over


def overlap_not_smaller(overlap: int, chunk_size: int) -> RagchunkError:
    """The error for an overlap that is not smaller than the chunk size."""
    return RagchunkError(
        "overlap",
        f"overlap ({overlap:,}) must be smaller than chunk size ({chunk_size:,}): lower the overlap",
        "overlap_not_smaller",
        {"overlap": overlap, "chunk_size": chunk_size},
    )


def chunk_count(doc_tokens: int, chunk_size: int, overlap: int) -> int:
    """Number of fixed windows of ``chunk_size`` tokens, ``overlap`` shared, over ``doc_tokens`` tokens.

    >>> chunk_count(10_000, 512, 64), chunk_count(512, 512, 64), chunk_count(0, 512, 64)
    (23, 1, 0)

    A document of no tokens has no window; one that fits has one. Whole floats (512.0)
    are taken as ints.

    >>> chunk_count(100, 10, 10)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (10) must be smaller than chunk size (10): lower the overlap

    Raises :class:`RagchunkError` (a ``ValueError``) naming the argument, as :func:`plan`
    does: a value that is not a whole number, a negative or too large document length, a
    chunk size below 1, a negative overlap or one not smaller than the chunk size.
    """
    doc = check_whole("doc_tokens", "document length", doc_tokens, 0, MAX_DOC_TOKENS)
    size, over = check_chunking(chunk_size, overlap)
    if doc == 0:
        return 0
    if doc <= size:
        return 1
    return 1 + -(-(doc - size) // (size - over))


def plan(doc_tokens: int, chunk_size: int, overlap: int, price_per_million: float | None = None,
         documents: int = 1) -> Plan:
    """Chunks, embedded tokens, repeated tokens and cost for ``documents`` documents of ``doc_tokens`` tokens.

    >>> p = plan(10_000, 512, 64, price_per_million=0.02)
    >>> p.chunks, p.total_tokens, p.repeated_tokens, round(p.repeated_share * 100, 1)
    (23, 11408, 1408, 12.3)
    >>> round(p.extra_share * 100, 1), p.cost
    (14.1, 0.00022816)
    >>> plan(1_000, 512, 64, documents=100).chunks, plan(100_000, 512, 64).chunks
    (300, 224)

    A document that fits is one chunk; the last chunk holds the remainder.
    Raises :class:`RagchunkError` naming the field for a non-integer, non-positive or
    too large value, or an overlap not smaller than the chunk size.
    """
    doc = check_whole("doc_tokens", "document length", doc_tokens, 1, MAX_DOC_TOKENS)
    size, over = check_chunking(chunk_size, overlap)
    price = check_price(price_per_million)
    count = check_whole("documents", "number of documents", documents, 1, MAX_DOCUMENTS, unit="documents")
    per_document = chunk_count(doc, size, over)
    step = size - over
    repeated = (per_document - 1) * over * count
    total = doc * count + repeated
    if doc * count > MAX_TOTAL_TOKENS:
        raise RagchunkError(
            "documents",
            f"number of documents ({count:,}) is too large for documents of {doc:,} tokens: the corpus would exceed"
            f" {MAX_TOTAL_TOKENS:,} tokens; enter fewer documents",
            "corpus_too_large",
            {"documents": count, "doc_tokens": doc, "maximum": MAX_TOTAL_TOKENS},
        )
    if total > MAX_TOTAL_TOKENS:
        raise RagchunkError(
            "overlap",
            f"overlap ({over:,}) repeats too many tokens: the total would exceed {MAX_TOTAL_TOKENS:,};"
            " lower the overlap or the document length",
            "total_too_large",
            {"overlap": over, "maximum": MAX_TOTAL_TOKENS},
        )
    last = doc - (per_document - 1) * step
    cost = None if price is None else total / 1_000_000 * price
    return Plan(
        doc_tokens=doc,
        chunk_size=size,
        overlap=over,
        step=step,
        chunks=per_document * count,
        total_tokens=total,
        repeated_tokens=repeated,
        repeated_share=repeated / total,
        extra_share=repeated / (doc * count),
        last_chunk_tokens=last,
        price_per_million=price,
        cost=cost,
        documents=count,
    )


@dataclass(frozen=True, slots=True)
class CorpusPlan:
    """Fixed windows over documents of different lengths, counted per document and added up."""

    documents: int
    doc_tokens: int
    chunk_size: int
    overlap: int
    chunks: int
    total_tokens: int
    repeated_tokens: int
    repeated_share: float
    extra_share: float
    price_per_million: float | None
    cost: float | None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def plan_corpus(lengths: Iterable[int], chunk_size: int, overlap: int,
                price_per_million: float | None = None) -> CorpusPlan:
    """The calculator's totals over a corpus: each document's windows counted on its own length.

    Documents of no tokens make no chunks.

    >>> p = plan_corpus([1_000] * 100, 512, 64)
    >>> p.documents, p.chunks, p.total_tokens
    (100, 300, 112800)
    """
    size, over = check_chunking(chunk_size, overlap)
    price = check_price(price_per_million)
    documents = tokens = chunks = nonempty = 0
    for length in lengths:
        doc = check_whole("doc_tokens", "document length", length, 0, MAX_DOC_TOKENS)
        documents += 1
        tokens += doc
        chunks += chunk_count(doc, size, over)
        nonempty += doc > 0
    # Each document repeats overlap once per chunk after its first.
    repeated = (chunks - nonempty) * over
    total = tokens + repeated
    return CorpusPlan(
        documents=documents,
        doc_tokens=tokens,
        chunk_size=size,
        overlap=over,
        chunks=chunks,
        total_tokens=total,
        repeated_tokens=repeated,
        repeated_share=repeated / total if total else 0.0,
        extra_share=repeated / tokens if tokens else 0.0,
        price_per_million=price,
        cost=None if price is None else total / 1_000_000 * price,
    )


def _whole(number: float) -> float | int:
    # Limits travel as JSON params; 100.0 and 100 must read the same on both sides.
    return int(number) if float(number).is_integer() else number


def check_price(price_per_million: float | None, *, shown: str | None = None) -> float | None:
    """Validate an optional price in currency units per million tokens.

    >>> check_price(None), check_price(0.13)
    (None, 0.13)
    """
    if price_per_million is None:
        return None
    return _check_real("price_per_million", "price per million tokens", price_per_million, 0.0, MAX_PRICE_PER_MILLION,
                       inclusive=True, shown=shown)


def _check_real(field: str, label: str, value: object, minimum: float, maximum: float, *, inclusive: bool,
                shown: str | None) -> float:
    text = _shown(value, shown)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RagchunkError(field, f"{label} ({text}) is not a number: enter a number", "not_a_number",
                            {"value": text, "example": example_of(field)})
    number = float(value)
    if number < minimum or (number == minimum and not inclusive):
        relation = "at least" if inclusive else "greater than"
        raise RagchunkError(field, f"{label} ({text}) must be {relation} {minimum:g}: enter a larger number",
                            "too_small" if inclusive else "not_greater", {"value": text, "minimum": _whole(minimum)})
    if number > maximum:
        raise RagchunkError(field, f"{label} ({text}) is too large: enter at most {maximum:,.0f}",
                            "too_large", {"value": text, "maximum": _whole(maximum)})
    return number


def tokens_from_chars(chars: int, chars_per_token: float, *, shown: str | None = None) -> int:
    """Estimated tokens of ``chars`` characters at ``chars_per_token``: ceil(chars ÷ ratio).

    The ratio is taken as the decimal a person wrote (its shortest repr), and the division
    is exact, so 410 characters at 4.1 are 100 tokens, not 101.

    >>> tokens_from_chars(40_000, 4), tokens_from_chars(10, 4), tokens_from_chars(7, 3.5), tokens_from_chars(410, 4.1)
    (10000, 3, 2, 100)
    """
    n = check_whole("doc_chars", "document length", chars, 1, MAX_DOC_CHARS, unit="characters", shown=shown)
    ratio = Fraction(repr(check_ratio(chars_per_token)))
    tokens = math.ceil(n / ratio)
    if tokens > MAX_DOC_TOKENS:
        raise RagchunkError(
            "doc_chars",
            f"document length ({_shown(chars, shown)}) is too large: it makes more than {MAX_DOC_TOKENS:,} tokens;"
            " enter fewer characters",
            "too_many_tokens",
            {"value": _shown(chars, shown), "maximum": MAX_DOC_TOKENS},
        )
    return tokens


def check_ratio(chars_per_token: float, *, shown: str | None = None) -> float:
    """Validate a characters-per-token ratio (greater than 0, at most 100).

    >>> check_ratio(4)
    4.0
    """
    return _check_real("chars_per_token", "characters per token", chars_per_token, 0.0, MAX_CHARS_PER_TOKEN,
                       inclusive=False, shown=shown)
