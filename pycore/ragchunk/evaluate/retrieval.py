"""Retrievers over one setting's chunks: BM25, all-MiniLM-L6-v2, and their reciprocal-rank fusion.

Each ranks the chunks for every question and keeps the top ``k``. The embedding model embeds
a text once for the whole evaluation (:class:`EmbeddingCache`): settings that make the same
chunk share its vector, and the questions are embedded once.

>>> rrf([[0, 1, 2], [2, 0, 3]], 3)
[0, 2, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
            read = [model_ids(text) for text in new]
            self._whole.update(zip(new, (whole for _, whole in read)))
            vectors = self._embed_ids([ids for ids, _ in read], progress)
        self._vectors.update(zip(new, vectors))

    def reads_whole(self, text: str) -> bool:
        """Whether the model reads all of ``text`` (see :func:`.minilm.model_reads_whole`)."""
        whole = self._whole.get(text)
        if whole is None:
            whole = self._whole[text] = model_reads_whole(text)
        return whole

    def __getitem__(self, text: str) -> Any:
        return self._vectors[text]


def dense_top(cache: EmbeddingCache, chunks: Sequence[str], questions: Sequence[str], k: int) -> list[list[int]]:
    """The top ``k`` chunk indices per question by cosine similarity (ties keep chunk order)."""
    import numpy as np

    if not chunks:
        return [[] for _ in questions]
    matrix = np.stack([cache[text] for text in chunks])
    out = []
    for question in questions:
        scores = matrix @ cache[question]
        order = sorted(range(len(chunks)), key=lambda i: (-float(scores[i]), i))
        out.append(order[:k])
    return out


def rrf(rankings: Sequence[Sequence[int]], k: int) -> list[int]:
    """Reciprocal-rank fusion of rankings of the same chunks: the top ``k``, ties by first appearance."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, 1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (RRF_K + rank)
    first = {index: n for n, index in enumerate(dict.fromkeys(i for ranking in rankings for i in ranking))}
    return sorted(scores, key=lambda i: (-scores[i], first[i]))[:k]
