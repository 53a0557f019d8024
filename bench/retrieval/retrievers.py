"""Retrievers: each indexes chunk texts and returns the indices of the top ``k`` per query.

``BM25`` (``bm25s``) is bm25s's Lucene BM25 (k1 = 1.5, b = 0.75) over lowercased tokens of
the pattern ``\\w\\w+`` (bm25s's default, scikit-learn's), English stop words removed
(bm25s's list) and stemmed with the Snowball English stemmer (PyStemmer): the reference the
README's first figures used. ``CoreBM25`` (``bm25``), ``MiniLM`` (``minilm``) and ``Hybrid``
(``hybrid``) are the retrievers of ``python -m ragchunk evaluate``, the core's own functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragchunk.evaluate import FUSION_DEPTH
from ragchunk.evaluate.minilm import MODEL_PACKAGE
from ragchunk.evaluate.minilm import MiniLM as Model
from ragchunk.evaluate.retrieval import EmbeddingCache, bm25_top, dense_top, rrf


class BM25:
    name = "bm25s"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self._stemmer = Stemmer.Stemmer("english")
        self.k1, self.b = k1, b
        self.description = (f"bm25s {bm25s.__version__} Lucene BM25 k1={k1} b={b}; tokens: lowercase \\w\\w+, "
                            "English stop words, Snowball English stemmer (PyStemmer)")

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        return self._bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer, return_ids=False,
                                    show_progress=False)

    def search(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> list[list[int]]:
        index = self._bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        index.index(self._tokens(chunks), show_progress=False)
        found, _ = index.retrieve(self._tokens(queries), k=min(k, len(chunks)), show_progress=False, n_threads=1)
        return [list(map(int, row)) for row in found]


class CoreBM25:
    """ragchunk's own BM25 (:mod:`ragchunk.evaluate.bm25`), the one ``evaluate`` runs: the same
    formula and terms as bm25s's Lucene BM25, scored in float64 (bm25s keeps float32, so
    near-ties may rank in another order)."""

    name = "bm25"
    description = "ragchunk.evaluate BM25 (pure Python, Lucene k1=1.5 b=0.75, Snowball English stems)"

    def search(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> list[list[int]]:
        return bm25_top(chunks, queries, k)


class MiniLM:
    """all-MiniLM-L6-v2 as ``evaluate`` runs it (:class:`ragchunk.evaluate.minilm.MiniLM`: int8
    ONNX, ragchunk's WordPiece, 256 tokens), cosine, exact top ``k``. A text is embedded once
    for the whole run (:class:`ragchunk.evaluate.retrieval.EmbeddingCache`): rows that make the
    same chunk share its vector, and the questions are embedded once."""

    name = "minilm"

    def __init__(self) -> None:
        self.cache = EmbeddingCache(Model().embed)
        self.description = f"all-MiniLM-L6-v2 int8 ONNX ({MODEL_PACKAGE}) on onnxruntime, cosine, exact top-k"

    def ranked(self, chunks: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        self.cache.add(queries)
        self.cache.add(chunks)
        return dense_top(self.cache, chunks, queries, depth)

    def search(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> list[list[int]]:
        return self.ranked(chunks, queries, k)


class Hybrid:
    """Reciprocal-rank fusion of :class:`CoreBM25` and :class:`MiniLM`, as ``evaluate``'s hybrid
    (each ranking :data:`ragchunk.evaluate.FUSION_DEPTH` deep); shares the MiniLM's vectors."""

    name = "hybrid"

    def __init__(self, dense: MiniLM) -> None:
        self.dense = dense
        self.description = "reciprocal-rank fusion of bm25 and minilm (ragchunk.evaluate.retrieval.rrf)"

    def search(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> list[list[int]]:
        depth = max(k, FUSION_DEPTH)
        return [rrf(pair, k) for pair in zip(bm25_top(chunks, queries, depth), self.dense.ranked(chunks, queries, depth))]
