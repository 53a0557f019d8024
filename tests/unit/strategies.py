"""Hypothesis strategies shared by the unit tests.

Test modules import this file by path (pytest runs with ``--import-mode=importlib``, so
``tests/unit`` is not on ``sys.path``)::

    from strategies import chunking, plan_inputs

works because each test module puts its own directory on ``sys.path`` first.

>>> from hypothesis import find
>>> find(chunking(), lambda pair: pair[0] > 3)
(4, 0)
"""

from __future__ import annotations

from hypothesis import strategies as st

from ragchunk.settings import ENCODINGS

ENCODING_NAMES = sorted(ENCODINGS)

# Pieces that put several UTF-8 bytes (and several code points) behind one visible
# character, so token and window boundaries fall inside characters.
MULTIBYTE_PIECES = (
    "Привет, мир! ",
    "नमस्ते दुनिया। ",
    "👍🏽",
    "👨\u200d👩\u200d👧\u200d👦",
    "🇺🇦",
    "日本語の文章。",
    "中文文本",
    "한국어 ",
    "e\u0301",
    "n\u0303a\u0300",
    "€",
    " ",
    "\n",
    "code = f(x) ",
)


@st.composite
def chunking(draw, max_size: int = 64) -> tuple[int, int]:
    """A valid ``(chunk_size, overlap)``: ``1 <= size``, ``0 <= overlap < size``."""
    size = draw(st.integers(1, max_size))
    overlap = draw(st.integers(0, size - 1))
    return size, overlap


@st.composite
def plan_inputs(draw, max_doc: int = 5_000, max_size: int = 600) -> tuple[int, int, int]:
    """A valid ``(doc_tokens, chunk_size, overlap)`` small enough for a brute force."""
    doc = draw(st.integers(1, max_doc))
    size, overlap = draw(chunking(max_size))
    return doc, size, overlap


def multibyte_text(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Text glued from multi-byte pieces (emoji with skin tone and ZWJ, Hindi, CJK ...)."""
    return st.lists(st.sampled_from(MULTIBYTE_PIECES), max_size=max_pieces).map("".join)


def any_text(max_size: int = 60) -> st.SearchStrategy[str]:
    """Arbitrary Unicode text (no lone surrogates) or text made of multi-byte pieces."""
    return st.one_of(st.text(max_size=max_size), multibyte_text())


encodings = st.sampled_from(ENCODING_NAMES)
