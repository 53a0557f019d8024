"""IoU, recall and precision of retrieved chunks against answer spans, in characters.

The definitions are those of the code behind Chroma's report "Evaluating Chunking
Strategies for Retrieval": ``BaseEvaluation._scores_from_dataset_and_retrievals`` in
``chunking_evaluation/evaluation_framework/base_evaluation.py`` of the public repository
brandonstarxel/chunking_evaluation (commit d451fc4), re-written here, not copied. Per
question, with the top ``k`` retrieved chunks as character spans of their corpora:

- ``covered`` is the union of the intersections of every retrieved chunk *of the
  question's corpus* with every reference span (a chunk of another corpus may be
  retrieved: it covers nothing but still counts below);
- ``recall = |covered| / Σ|reference|``;
- ``precision = |covered| / Σ|retrieved chunk|``: a plain sum over all ``k`` chunks,
  overlapping chunks and chunks of other corpora included;
- ``IoU = |covered| / (Σ|retrieved chunk| + Σ|reference not covered|)``, the part of each
  reference that no retrieved chunk of its corpus touches counted per reference.

The means over questions are the figures the report publishes (its ``iou_mean`` etc.).
The reference spans of this data set never overlap each other, so the per-reference and
the union readings of "not covered" agree.

>>> score([("a", 0, 30), ("a", 50, 60)], "a", ((0, 40),))
Score(iou=0.6, recall=0.75, precision=0.75, recall_any=None)
>>> score([("b", 0, 10)], "a", ((5, 25),))
Score(iou=0.0, recall=0.0, precision=0.0, recall_any=None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ragchunk.evaluate.metrics import overlap_length, union  # the core's, shared


class Score(NamedTuple):
    iou: float
    recall: float
    precision: float
    # Not the report's: recall when any identical copy of a reference counts as found.
    recall_any: float | None = None


def score(retrieved: Sequence[tuple[str, int, int]], corpus: str, references: Sequence[tuple[int, int]],
          copies: Sequence[Sequence[tuple[int, int]]] = ()) -> Score:
    """The three measures of one question (see the module docstring).

    ``retrieved`` holds ``(corpus, start, end)`` of each retrieved chunk, best first;
    ``references`` the answer spans in ``corpus``. With ``copies`` (per reference, every
    span of ``corpus`` holding the same text), ``recall_any`` is the recall when the best
    covered copy of each reference counts: a diagnostic, not one of the report's measures.
    """
    chunks = union((s, e) for c, s, e in retrieved if c == corpus)
    covered_per_reference = [overlap_length(ref, chunks) for ref in references]
    covered = sum(covered_per_reference)  # references are disjoint: this is |covered|
    reference_chars = sum(e - s for s, e in references)
    retrieved_chars = sum(e - s for _, s, e in retrieved)
    missed = reference_chars - covered
    recall_any = None
    if copies:
        recall_any = sum(max(overlap_length(c, chunks) for c in spans) for spans in copies) / reference_chars
    return Score(
        iou=covered / (retrieved_chars + missed) if retrieved_chars + missed else 0.0,
        recall=covered / reference_chars,
        precision=covered / retrieved_chars if retrieved_chars else 0.0,
        recall_any=recall_any,
    )
