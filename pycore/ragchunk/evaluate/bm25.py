"""BM25 in pure Python: the same ranking on CPython and in Pyodide.

Lucene's BM25 (as bm25s's ``method="lucene"``): a chunk's score for a query is the sum over
the query's terms ``t`` of ``idf(t) · tf / (tf + k1 · (1 − b + b · |chunk| / avg |chunk|))``
with ``idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))``, ``k1 = 1.5``, ``b = 0.75``. Terms are
the lowercase runs of two or more word characters (``\\w\\w+``), without Lucene's English
stop words, stemmed by the Snowball English stemmer (the pure-Python ``snowballstemmer``'s
own English stemmer, never PyStemmer's C build, whose stems differ for some words). Ties keep the chunks' order, so every run ranks alike.

>>> index = BM25(["The cat sat on the mat.", "Dogs bark at night.", "A dog barked twice."])
>>> index.top("barking dogs", 3)
[1, 2]
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ..errors import RagchunkError

__all__ = ["BM25", "STOP_WORDS", "terms"]

# Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), as bm25s's "en".
STOP_WORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their then"
                       " there these they this to was will with".split())
_TERM = re.compile(r"\b\w\w+\b")
_stemmer = None
# Word -> its stem: a corpus has far fewer distinct words than words, and stemming is the slow part.
_stems: dict[str, str] = {}


def _stem_words(words: list[str]) -> list[str]:
    global _stemmer
    new = [word for word in dict.fromkeys(words) if word not in _stems]
    if new:
        if _stemmer is None:
            try:
                import snowballstemmer
            except ImportError:
                raise RagchunkError("extra", 'snowballstemmer is not installed: pip install "ragchunk[evaluate]"',
                                    "extra_missing", {"module": "snowballstemmer", "extra": "evaluate"}) from None
            # Its pure-Python English stemmer, always: snowballstemmer.stemmer() hands back
            # PyStemmer's C build when that is installed, whose older Snowball stems some words
            # otherwise ("international": "internat" against "intern"), so CPython would rank
            # unlike the page.
            _stemmer = snowballstemmer.EnglishStemmer()
        _stems.update(zip(new, _stemmer.stemWords(new)))
    return [_stems[word] for word in words]


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text``.

    >>> terms("The runners were running, and THE runner ran.")
    ['runner', 'were', 'run', 'runner', 'ran']
    """
    return _stem_words([word for word in _TERM.findall(text.lower()) if word not in STOP_WORDS])


class BM25:
    """An index of ``documents`` (chunk texts); :meth:`top` ranks them for a query."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.counts = [Counter(terms(document)) for document in documents]
        self.lengths = [sum(counts.values()) for counts in self.counts]
        n = len(documents)
        self.average = (sum(self.lengths) / n) if n else 0.0
        df: Counter = Counter()
        for counts in self.counts:
            df.update(counts.keys())
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}
        self.postings: dict[str, list[int]] = {}
        for index, counts in enumerate(self.counts):
            for term in counts:
                self.postings.setdefault(term, []).append(index)

    def scores(self, query: str) -> dict[int, float]:
        """Document index -> score, for the documents holding a term of ``query``."""
        out: dict[int, float] = {}
        k1, b, average = self.k1, self.b, self.average or 1.0
        for term in terms(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for index in self.postings[term]:
                tf = self.counts[index][term]
                norm = k1 * (1 - b + b * self.lengths[index] / average)
                out[index] = out.get(index, 0.0) + idf * tf / (tf + norm)
        return out

    def top(self, query: str, k: int) -> list[int]:
        """The indices of the ``k`` best documents for ``query``, best first (those with a score above 0)."""
        scores = self.scores(query)
        return sorted((index for index, value in scores.items() if value > 0), key=lambda i: (-scores[i], i))[:k]
