"""The chunk-count and cost arithmetic of fixed-size chunking with overlap."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from fractions import Fraction

from .errors import RagchunkError
from .models import vector_storage  # noqa: F401  (ragchunk.calculator.vector_storage, as the page's snippet prints it)
from .settings import MAX_DOC_CHARS, MAX_DOC_TOKENS, MAX_DOCUMENTS, MAX_TOTAL_TOKENS
from .settings.checks import check_chunking, check_price, check_ratio, check_whole, shown_as


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
            f"document length ({shown_as(chars, shown)}) is too large: it makes more than {MAX_DOC_TOKENS:,} tokens;"
            " enter fewer characters",
            "too_many_tokens",
            {"value": shown_as(chars, shown), "maximum": MAX_DOC_TOKENS},
        )
    return tokens
