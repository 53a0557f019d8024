"""Retrievers over one setting's chunks: BM25, all-MiniLM-L6-v2, and their reciprocal-rank fusion.

Each ranks the chunks for every question and keeps the top ``k``. The embedding model embeds
a text once for the whole evaluation (:class:`EmbeddingCache`): settings that make the same
chunk share its vector, and the questions are embedded once.

>>> rrf([[0, 1, 2], [2, 0, 3]], 3)
[0, 2, 1]
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Generator, Sequence
from typing import Any

from .bm25 import BM25
from .minilm import model_ids, model_reads_whole

__all__ = ["RETRIEVERS", "RRF_K", "EmbeddingCache", "bm25_top", "dense_top", "rrf"]

RETRIEVERS = ("bm25", "minilm", "hybrid")
#: The constant of reciprocal-rank fusion (Cormack et al.): a chunk scores Σ 1 / (RRF_K + rank).
RRF_K = 60


def bm25_top(chunks: Sequence[str], questions: Sequence[str], k: int) -> list[list[int]]:
    """The top ``k`` chunk indices per question by BM25."""
    index = BM25(chunks)
    return [index.top(question, k) for question in questions]


class EmbeddingCache:
    """Text -> unit vector, each text embedded once by ``embed`` (a :class:`.minilm.MiniLM`'s),
    and whether the model reads each text whole.

    With ``embed_ids`` (:meth:`.minilm.MiniLM.embed_ids`), a new text is tokenized once: its
    ids go to the model and their count says whether its tail is cut; ``embed`` alone is
    given texts, and :meth:`reads_whole` then counts the text itself.
    """

    def __init__(self, embed: Callable[..., list[Any]], embed_ids: Callable[..., list[Any]] | None = None) -> None:
        self._embed = embed
        self._embed_ids = embed_ids
        self._vectors: dict[str, Any] = {}
        self._whole: dict[str, bool] = {}

    def missing(self, texts: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(text for text in texts if text not in self._vectors))

    def add(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> None:
        new = self.missing(texts)
        if not new:
            return
        if self._embed_ids is None:
            vectors = self._embed(new, progress)
        else:
            vectors = self._embed_ids(self._ids(new), progress)
        self._vectors.update(zip(new, vectors))

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        """What the model reads of each text, from one tokenization that also says whether
        that is all of it (kept for :meth:`reads_whole`)."""
        read = [model_ids(text) for text in texts]
        self._whole.update(zip(texts, (whole for _, whole in read)))
        return [ids for ids, _ in read]

    def reads_whole(self, text: str) -> bool:
        """Whether the model reads all of ``text`` (see :func:`.minilm.model_reads_whole`)."""
        whole = self._whole.get(text)
        if whole is None:
            whole = self._whole[text] = model_reads_whole(text)
        return whole

    def add_steps(self, texts: Sequence[str], stage: str, batch: int = 256) -> Generator[tuple, Any, None]:
        """:meth:`add` as steps ``(stage, done, total)``, one per ``batch`` texts embedded.

        An embedder with a ``steps`` method runs its model outside Python (the page's worker:
        see :class:`.staged.StagedMiniLM`): its steps ``(stage, done, total, request)`` pass
        through, each sent back what its request asked for.
        """
        new = self.missing(texts)
        steps = getattr(self._embed, "steps", None)
        if steps is not None and new:
            vectors = yield from steps(new, stage, self._ids)
            self._vectors.update(zip(new, vectors))
            yield (stage, len(new), len(new))
            return
        for first in range(0, len(new), batch):
            self.add(new[first:first + batch])
            yield (stage, min(first + batch, len(new)), len(new))

    def __getitem__(self, text: str) -> Any:
        return self._vectors[text]


def dense_top(cache: EmbeddingCache, chunks: Sequence[str], questions: Sequence[str], k: int) -> list[list[int]]:
    """The top ``k`` chunk indices per question by cosine similarity (ties keep chunk order).

    Without numpy (the page's Python has none) the dot products are summed in Python.
    """
    if not chunks:
        return [[] for _ in questions]
    try:
        import numpy as np
    except ImportError:
        return _dense_top_lists([cache[text] for text in chunks], [cache[q] for q in questions], k)
    matrix = np.stack([cache[text] for text in chunks])
    out = []
    for question in questions:
        scores = matrix @ cache[question]
        order = sorted(range(len(chunks)), key=lambda i: (-float(scores[i]), i))
        out.append(order[:k])
    return out


def _dense_top_lists(chunks: list[Sequence[float]], questions: list[Sequence[float]], k: int) -> list[list[int]]:
    """:func:`dense_top` over plain lists of floats.

    >>> _dense_top_lists([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], [[0.0, 1.0]], 2)
    [[2, 1]]
    """
    out = []
    for question in questions:
        scores = [sum(map(operator.mul, chunk, question)) for chunk in chunks]
        out.append(sorted(range(len(chunks)), key=lambda i: (-scores[i], i))[:k])
    return out


def rrf(rankings: Sequence[Sequence[int]], k: int) -> list[int]:
    """Reciprocal-rank fusion of rankings of the same chunks: the top ``k``, ties by first appearance."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, 1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (RRF_K + rank)
    first = {index: n for n, index in enumerate(dict.fromkeys(i for ranking in rankings for i in ranking))}
    return sorted(scores, key=lambda i: (-scores[i], first[i]))[:k]
