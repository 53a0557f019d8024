"""Statistics of a split: chunk sizes, what the overlap costs, a size histogram."""

from __future__ import annotations

import functools
import statistics
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from ..settings import MAX_CHUNK_SIZE
from ..settings.checks import check_whole

HISTOGRAM_BINS = 10
# More bins than tokens are never drawn (a bin holds at least one size), so this is the most
# a histogram over the largest chunk size can have.
MAX_HISTOGRAM_BINS = MAX_CHUNK_SIZE


@dataclass(frozen=True, slots=True)
class Bin:
    """Chunks of ``low`` to ``high`` tokens (both inclusive)."""

    low: int
    high: int
    count: int

    def to_json(self) -> dict[str, int]:
        return {"low": self.low, "high": self.high, "count": self.count}


@dataclass(frozen=True, slots=True)
class Stats:
    """Sizes of the chunks of one split, in tokens of the sizer that made it: what each chunk
    costs to embed (its ``embed_tokens`` when it has context lines, else its ``tokens``).

    ``total_tokens`` is what embedding every chunk costs; ``overlap_tokens`` is the part of
    it that repeats text of the previous chunk, and ``overlap_percent`` that part in percent
    of the total. The histogram has fixed bins over ``1..size`` so two splits with the same
    size compare bin by bin.
    """

    chunks: int
    min_tokens: int
    mean_tokens: float
    median_tokens: float
    max_tokens: int
    total_tokens: int
    overlap_tokens: int
    overlap_percent: float
    size: int
    histogram: tuple[Bin, ...]

    def to_json(self) -> dict[str, object]:
        """Plain JSON (the page draws the histogram from ``histogram``)."""
        return {
            "chunks": self.chunks,
            "min_tokens": self.min_tokens,
            "mean_tokens": self.mean_tokens,
            "median_tokens": self.median_tokens,
            "max_tokens": self.max_tokens,
            "total_tokens": self.total_tokens,
            "overlap_tokens": self.overlap_tokens,
            "overlap_percent": self.overlap_percent,
            "size": self.size,
            "histogram": [b.to_json() for b in self.histogram],
        }


@functools.lru_cache(maxsize=64)
def _edges(size: int, bins: int) -> tuple[tuple[int, int], ...]:
    count = max(1, min(bins, size))
    cuts = [round(k * size / count) for k in range(count + 1)]
    return tuple((cuts[k] + 1, cuts[k + 1]) for k in range(count))


def bin_edges(size: int, bins: int = HISTOGRAM_BINS) -> list[tuple[int, int]]:
    """Inclusive ``(low, high)`` token ranges that tile ``1..size`` in at most ``bins`` bins.

    >>> bin_edges(512)[:3], bin_edges(512)[-1]
    ([(1, 51), (52, 102), (103, 154)], (462, 512))
    >>> bin_edges(3)
    [(1, 1), (2, 2), (3, 3)]
    """
    return list(_edges(size, bins))


def compute_stats(tokens: Sequence[int], overlap_tokens: Sequence[int], size: int,
                  bins: int = HISTOGRAM_BINS) -> Stats:
    """Statistics of chunks with these token counts and real overlaps, for a target ``size``.

    >>> s = compute_stats([100, 50, 120], [0, 10, 20], 128)
    >>> s.chunks, s.min_tokens, s.median_tokens, s.max_tokens, s.total_tokens, s.overlap_tokens
    (3, 50, 100, 120, 270, 30)
    >>> round(s.overlap_percent, 2), [b.count for b in s.histogram]
    (11.11, [0, 0, 0, 1, 0, 0, 0, 1, 0, 1])

    No chunks give zeros and empty bins. A count above ``size`` (which a split never
    makes) lands in the last bin.

    >>> compute_stats([3], [0], 0)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: chunk size (0) must be at least 1: enter a larger number

    ``bins`` is the most bins the histogram has (fewer when ``size`` is smaller):

    >>> compute_stats([3], [0], 8, bins=0)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: histogram bins (0) must be at least 1: enter a larger number

    Raises :class:`RagchunkError` (a ``ValueError``) naming ``chunk_size``, as
    :func:`ragchunk.plan` does, for a ``size`` that is not a whole number from 1, and
    naming ``bins`` for ``bins`` that is not one from 1 to :data:`MAX_HISTOGRAM_BINS`.
    """
    size = check_whole("chunk_size", "chunk size", size, 1, MAX_CHUNK_SIZE)
    # A bool is an int to Python, but True bins is a mistake, not one bin: check_whole refuses it.
    bins = check_whole("bins", "histogram bins", bins, 1, MAX_HISTOGRAM_BINS, unit="bins")
    edges = _edges(size, bins)
    counts = [0] * len(edges)
    highs = [high for _, high in edges[:-1]]
    for value in tokens:
        counts[bisect_left(highs, value)] += 1  # a count above size lands in the last bin
    total = sum(tokens)
    repeated = sum(overlap_tokens)
    return Stats(
        chunks=len(tokens),
        min_tokens=min(tokens, default=0),
        mean_tokens=total / len(tokens) if tokens else 0.0,
        median_tokens=statistics.median(tokens) if tokens else 0,
        max_tokens=max(tokens, default=0),
        total_tokens=total,
        overlap_tokens=repeated,
        overlap_percent=repeated / total * 100 if total else 0.0,
        size=size,
        histogram=tuple(Bin(low, high, n) for (low, high), n in zip(edges, counts)),
    )


def format_stats(stats: Stats, tokenizer: str = "") -> str:
    """Statistics as a few aligned lines for a terminal.

    >>> print(format_stats(compute_stats([100, 50], [0, 10], 100, bins=2), "cl100k_base"))
    chunks          2 (tokens by cl100k_base)
    tokens          min 50, mean 75.0, median 75, max 100 (target 100)
    total           150 tokens embedded
    overlap         10 tokens (6.7 % of the total)
    histogram          1-50  1 ####################
                     51-100  1 ####################
    """
    by = f" (tokens by {tokenizer})" if tokenizer else ""
    median = f"{stats.median_tokens:g}"
    lines = [
        f"chunks          {stats.chunks:,}{by}",
        (f"tokens          min {stats.min_tokens:,}, mean {stats.mean_tokens:,.1f}, median {median}, "
         f"max {stats.max_tokens:,} (target {stats.size:,})"),
        f"total           {stats.total_tokens:,} tokens embedded",
        f"overlap         {stats.overlap_tokens:,} tokens ({stats.overlap_percent:.1f} % of the total)",
    ]
    widest = max((b.count for b in stats.histogram), default=0)
    label_width = len(f"{stats.size}") * 2 + 1
    count_width = len(f"{widest}")
    for index, b in enumerate(stats.histogram):
        bar = "#" * (round(b.count / widest * 20) if widest else 0)
        if b.count and not bar:
            bar = "#"
        label = f"{b.low}-{b.high}".rjust(label_width)
        head = "histogram       " if index == 0 else " " * 16
        lines.append(f"{head}{label}  {b.count:>{count_width}} {bar}".rstrip())
    return "\n".join(lines)
