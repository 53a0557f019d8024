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

import os

from hypothesis import strategies as st

from ragchunk.tokenizers import ENCODINGS

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


def examples(n: int) -> int:
    """``n`` property examples, times ``$RAGCHUNK_HYPOTHESIS_SCALE`` (e.g. 10 for a long run)."""
    return max(1, round(n * float(os.environ.get("RAGCHUNK_HYPOTHESIS_SCALE", "1"))))


# --- generated Markdown and Unicode --------------------------------------------------------
#
# Documents made of the blocks the splitter cuts between (headings, setext headings, fenced
# and indented code, nested lists and quotes, tables, HTML, rules), with sentences of words
# that stress the sentence rules, scripts without spaces, and hostile Unicode; line endings
# LF, CRLF or CR, and sometimes a BOM.

WORDS = st.sampled_from(
    [
        "the", "Dr.", "e.g.", "U.S.", "v2.0.1", "3.14", "word", "Word", "x", "a-b", "https://example.com/a?b=c",
        "<|endoftext|>", "\x00", "naïve", "Привет", "т. е.", "नमस्ते।", "日本語の文章。", "שלום", "مرحبا", "👍🏽",
        "👨\u200d👩\u200d👧", "🇺🇦🇩🇪", "e\u0301", "\u200b", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        "…", "?!", "\"Quoted.\"", "(aside)", "`code`", "**bold**", "_", "#tag", "1.", "-",
        # Hostile Unicode (issue 5): bidi controls, joiners, BOMs and NULs inside text, combining
        # stacks, keycaps, tag flags, line separators, special-token strings, replacement marks.
        "\u202eevil\u202c", "\u2067مرحبا\u2069", "a\u200db", "\u200c", "\ufeff", "x\x00y", "Z\u0351\u036b\u0343",
        "1\ufe0f\u20e3", "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "a\u2028b",
        "\u2029", "\x85", "<|fim_prefix|>", "<|im_start|>", "<|", "\ufffd", "ภาษาไทย", "𝕬𝖇𝖈", "\ue000", "।।",
    ]
)
SPACE = st.sampled_from([" ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "\u2009", "\u200b "])
ENDS = st.sampled_from([".", ".", "?", "!", "", "।", "。", "..."])


@st.composite
def sentence(draw) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=12))
    spaces = draw(st.lists(SPACE, min_size=len(words), max_size=len(words)))
    body = "".join(w + s for w, s in zip(words, spaces)).rstrip()
    return body[:1].upper() + body[1:] + draw(ENDS)


@st.composite
def paragraph(draw) -> list[str]:
    sentences = draw(st.lists(sentence(), min_size=1, max_size=5))
    joined = " ".join(sentences)
    if draw(st.booleans()):  # hard-wrapped lines
        width = draw(st.integers(20, 70))
        lines, line = [], ""
        for word in joined.split(" "):
            if line and len(line) + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        return [*lines, line]
    return [joined]


heading = st.builds(lambda level, s: ["#" * level + " " + s.rstrip(".?!।。…")], st.integers(1, 6), sentence())
setext = st.builds(lambda s, c: [s, c * 5], sentence(), st.sampled_from("=-"))
code = st.builds(
    lambda fence, lang, lines, closed: [fence + lang, *lines, *([fence] if closed else [])],
    st.sampled_from(["```", "~~~", "````"]),
    st.sampled_from(["", "python", "sh"]),
    st.lists(st.one_of(sentence(), st.just("# not a heading"), st.just(""), st.just("    x = 1")), max_size=6),
    st.booleans(),
)
list_block = st.lists(
    st.builds(lambda depth, marker, s: f"{'  ' * depth}{marker} {s}", st.integers(0, 8),
              st.sampled_from(["-", "*", "1.", "2)"]), sentence()),
    min_size=1, max_size=6,
)
table = st.builds(
    lambda rows: ["| a | b |", "|---|---|", *[f"| {x} | {y} |" for x, y in rows]],
    st.lists(st.tuples(WORDS, WORDS), max_size=4),
)
quote = st.lists(st.builds(lambda depth, s: ">" * depth + " " + s, st.integers(1, 4), sentence()), min_size=1, max_size=3)
long_word = st.builds(lambda piece, n: [piece * n], st.sampled_from(["ab", "👍🏽", "🇺🇦", "e\u0301", "日本", "/x"]),
                      st.integers(20, 200))
multibyte = st.lists(st.sampled_from(MULTIBYTE_PIECES), min_size=1, max_size=10).map(lambda p: ["".join(p)])
indented = st.lists(sentence().map(lambda s: "    " + s), min_size=1, max_size=3)
storm = st.builds(lambda piece, n: [piece * n], st.sampled_from(["#", "`", "|", "-", "=", ">", "<", ".", "*", "1.", "\t", "\x00"]),
                  st.integers(1, 40))
BLOCKS = st.one_of(paragraph(), paragraph(), heading, heading, setext, code, list_block, table, quote, long_word,
                   multibyte, indented, storm, st.just(["---"]), st.just(["<div>", "html", "</div>"]),
                   st.just(["<!-- open comment"]))


@st.composite
def markdown(draw) -> str:
    blocks = draw(st.lists(BLOCKS, max_size=12))
    separators = draw(st.lists(st.sampled_from(["\n\n", "\n\n", "\n", "\n\n\n", "\n \n"]), min_size=len(blocks),
                               max_size=len(blocks)))
    text = "".join("\n".join(block) + sep for block, sep in zip(blocks, separators))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    if ending != "\n":
        text = text.replace("\n", ending)
    if draw(st.booleans()):
        text = text.rstrip()
    return ("\ufeff" if draw(st.integers(0, 9)) == 0 else "") + text




def markdown_text(max_size: int = 300) -> st.SearchStrategy[str]:
    """Generated Markdown (twice as likely) or arbitrary Unicode text."""
    return st.one_of(markdown(), markdown(), st.text(max_size=max_size))
