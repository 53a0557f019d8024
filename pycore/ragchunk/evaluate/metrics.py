"""How well the top ``k`` chunks of a question hold its answers, in characters.

IoU, recall and precision are those of the code behind Chroma's report "Evaluating Chunking
Strategies for Retrieval" (``BaseEvaluation._scores_from_dataset_and_retrievals`` in
``chunking_evaluation/evaluation_framework/base_evaluation.py`` of brandonstarxel/
chunking_evaluation, commit d451fc4), re-written here, not copied. Per question, with the
top ``k`` retrieved chunks as character spans of their documents:

- ``covered`` is the union of the intersections of every retrieved chunk *of an answer's
  document* with every answer span (a chunk of another document may be retrieved: it
  covers nothing but still counts below);
- ``recall = |covered| / Σ|answer|``;
- ``precision = |covered| / Σ|retrieved chunk|``: a plain sum over all ``k`` chunks,
  overlapping chunks and chunks of other documents included;
- ``IoU = |covered| / (Σ|retrieved chunk| + Σ|answer not covered|)``.

Beside them: ``hit`` (some retrieved chunk touches an answer), the reciprocal rank of the
first such chunk (MRR is its mean), and precision Ω: the best precision any retriever could
reach at full recall with these chunks (the chunks that touch an answer, and nothing else).

>>> score([("a", 0, 30), ("a", 50, 60)], [("a", 0, 40)])
Score(iou=0.6, recall=0.75, precision=0.75, hit=1.0, reciprocal_rank=1.0)
>>> score([("b", 0, 10), ("a", 20, 30)], [("a", 5, 25)])
Score(iou=0.14285714285714285, recall=0.25, precision=0.25, hit=1.0, reciprocal_rank=0.5)
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

Span = tuple[str, int, int]  # (source, start, end) in code points of the extracted text


class Score(NamedTuple):
    iou: float
    recall: float
    precision: float
    hit: float
    reciprocal_rank: float


def union(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The disjoint, sorted union of half-open spans; touching spans merge.

    >>> union([(5, 8), (0, 2), (2, 3), (7, 9), (4, 4)])
    [(0, 3), (4, 4), (5, 9)]
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def overlap_length(span: tuple[int, int], disjoint: Sequence[tuple[int, int]]) -> int:
    """Characters of ``span`` inside the disjoint spans ``disjoint``.

    >>> overlap_length((3, 12), [(0, 5), (10, 20)])
    4
    """
    start, end = span
    return sum(max(0, min(end, b) - max(start, a)) for a, b in disjoint)


def _by_source(spans: Iterable[Span]) -> dict[str, list[tuple[int, int]]]:
    grouped: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for source, start, end in spans:
        grouped[source].append((start, end))
    return grouped


def score(retrieved: Sequence[Span], answers: Sequence[Span]) -> Score:
    """The measures of one question: ``retrieved`` best first, ``answers`` the spans of its quotes.

    Answers that overlap each other count once (their union).
    """
    chunks = {source: union(spans) for source, spans in _by_source(retrieved).items()}
    wanted = {source: union(spans) for source, spans in _by_source(answers).items()}
    answer_chars = sum(e - s for spans in wanted.values() for s, e in spans)
    covered = sum(overlap_length(span, chunks.get(source, ())) for source, spans in wanted.items() for span in spans)
    retrieved_chars = sum(e - s for _, s, e in retrieved)
    rank = next((index for index, (source, s, e) in enumerate(retrieved, 1)
                 if overlap_length((s, e), wanted.get(source, ()))), 0)
    denominator = retrieved_chars + answer_chars - covered
    return Score(
        iou=covered / denominator if denominator else 0.0,
        recall=covered / answer_chars if answer_chars else 0.0,
        precision=covered / retrieved_chars if retrieved_chars else 0.0,
        hit=1.0 if rank else 0.0,
        reciprocal_rank=1.0 / rank if rank else 0.0,
    )


class ChunkSpans:
    """The spans of one setting's chunks, to find those that touch a span fast.

    Chunks of a document come in order, each starting and ending no earlier than the one
    before it (with overlap too), so the chunks touching a span are one run of them.
    """

    def __init__(self, chunks: Sequence[Span]) -> None:
        self.chunks = list(chunks)
        self._by_source: dict[str, tuple[list[int], list[int], list[int]]] = {}
        for index, (source, start, end) in enumerate(self.chunks):
            starts, ends, indices = self._by_source.setdefault(source, ([], [], []))
            starts.append(start)
            ends.append(end)
            indices.append(index)

    def touching(self, source: str, start: int, end: int) -> list[int]:
        """Indices of the chunks of ``source`` that share a character with ``[start, end)``."""
        found = self._by_source.get(source)
        if found is None:
            return []
        starts, ends, indices = found
        return indices[bisect_right(ends, start):bisect_left(starts, end)]


def precision_omega(chunks: ChunkSpans, answers: Sequence[Span]) -> float:
    """The precision of retrieving exactly the chunks that touch an answer: the best any
    retriever could do at full recall with these chunks (Chroma's precision Ω).

    >>> precision_omega(ChunkSpans([("a", 0, 10), ("a", 10, 20), ("a", 20, 30)]), [("a", 12, 18)])
    0.6
    """
    touching = sorted({index for source, start, end in answers for index in chunks.touching(source, start, end)})
    return score([chunks.chunks[index] for index in touching], answers).precision if touching else 0.0


def bootstrap_interval(values: Sequence[float], *, resamples: int = 1000, level: float = 0.95,
                       seed: int = 0) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (the questions are the sample).

    The random draws are seeded, so the interval is the same on every run and in every
    Python (``random.Random`` is the same Mersenne Twister on CPython and in Pyodide).

    >>> bootstrap_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    >>> low, high = bootstrap_interval([0.0, 1.0] * 20); low < 0.5 < high
    True
    """
    if not values:
        return (0.0, 0.0)
    draw = random.Random(seed)
    n = len(values)
    means = sorted(math.fsum(draw.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1.0 - level) / 2
    return means[int(tail * (resamples - 1))], means[int((1.0 - tail) * (resamples - 1) + 0.5)]
