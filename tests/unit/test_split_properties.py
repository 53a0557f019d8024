"""Property tests of ragchunk.split: generated Markdown and Unicode, several sizes and sizers.

Every example is checked against all guarantees by ``test_split.assert_guarantees``, with
token counts recomputed by the tokenizer on each final chunk text.
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from ragchunk import CharEstimate, RagchunkError, get_tokenizer, split  # noqa: E402
from ragchunk.text.graphemes import floor_boundary, grapheme_spans, is_boundary  # noqa: E402
from ragchunk.packing.sizing import TokenSizer  # noqa: E402
from ragchunk.tokenizers import bpe  # noqa: E402
from strategies import MULTIBYTE_PIECES, markdown  # noqa: E402
from test_split import assert_guarantees, counter_for  # noqa: E402

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

any_text = st.one_of(markdown(), markdown(), st.text(max_size=300))


@st.composite
def chunking(draw, low: int) -> tuple[int, int]:
    size = draw(st.one_of(st.integers(low, 24), st.integers(low, 200)))
    return size, draw(st.integers(0, size - 1))


BY = st.sampled_from(["headings", "paragraphs", "sentences"])


@SETTINGS
@given(any_text, BY, chunking(4), st.sampled_from(["cl100k_base", "o200k_base"]))
def test_guarantees_with_exact_tokenizers(text, by, sizes, encoding):
    size, overlap = sizes
    result = split(text, by=by, size=size, overlap=overlap, tokenizer=encoding)
    assert_guarantees(text, result, size, overlap, counter_for(encoding))


@SETTINGS
@given(any_text, BY, chunking(4), st.sampled_from(["pack", "apart"]))
def test_guarantees_with_sibling_sections_packed_or_apart(text, by, sizes, siblings):
    size, overlap = sizes
    result = split(text, by=by, size=size, overlap=overlap, siblings=siblings)
    assert_guarantees(text, result, size, overlap, counter_for("cl100k_base"), apart=siblings == "apart")


@SETTINGS
@given(any_text, BY, chunking(1), st.sampled_from([1, 1.5, 2.5, 4, 7]))
def test_guarantees_with_the_character_estimate(text, by, sizes, ratio):
    size, overlap = sizes
    sizer = CharEstimate(ratio)
    result = split(text, by=by, size=size, overlap=overlap, tokenizer=sizer)
    assert_guarantees(text, result, size, overlap, sizer.count)


@settings(max_examples=60, deadline=None)
@given(any_text, BY, st.integers(1, 3), st.sampled_from(["p50k_base", "r50k_base", "cl100k_base"]))
def test_tiny_sizes_either_work_or_name_the_size(text, by, size, encoding):
    try:
        result = split(text, by=by, size=size, overlap=0, tokenizer=encoding)
    except RagchunkError as err:
        assert err.field == "chunk_size"
        assert "alone is" in err.message
    else:
        assert_guarantees(text, result, size, 0, counter_for(encoding))


@settings(max_examples=40, deadline=None)
@given(markdown(), BY, chunking(4))
def test_the_split_is_deterministic(text, by, sizes):
    size, overlap = sizes
    assert split(text, by=by, size=size, overlap=overlap) == split(text, by=by, size=size, overlap=overlap)


# --- the pieces the speed rests on ----------------------------------------------------------

SYNC_TEXT = st.lists(
    st.sampled_from(["a", "Bc", "z9", "1", "22", ".", ",", ";", " ", "  ", "\n", "\r\n", "\n\n", "'s", "'", "'ll",
                     "é", "e\u0301", "€", "日本", "👍🏽", "\u200d", "-", "#", "/", "\n/", "\t", "!", "?", ")", "(",
                     "\u00a0", "...", "http://x.y/z", "Привет", "<|endoftext|>", "123456", "\r", " the", "\n- ",
                     "```", "*", "|", "`", "~", "_", "=", "{", "}", "[", "]", "<", ">", "@", "$", "%", "^", "&", "+",
                     "\\", '"', "Ab", "aB", "\x00", "\n ", " \n", "\u2028", "\x85", "ǅ", "ʰ", "ß"]),
    min_size=1, max_size=50,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(SYNC_TEXT, st.data(), st.sampled_from(["cl100k_base", "o200k_base", "p50k_base", "r50k_base"]))
def test_exact_counts_from_the_document_tokens_match_a_recount(text, data, encoding):
    tokenizer = get_tokenizer(encoding)
    sizer = TokenSizer(text, tokenizer)
    for _ in range(4):
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, len(text)))
        assert sizer.exact(start, end) == tokenizer.count(text[start:end]), (start, end)


def _cuts_by_brute_force(text: str) -> list[int]:
    # Every position the cut rules of the BPE encodings accept, tried one by one.
    return [c for c in range(len(text) + 1) if bpe._is_cut(text, c)]


@settings(max_examples=400, deadline=None)
@given(SYNC_TEXT, st.sampled_from(["cl100k_base", "o200k_base", "p50k_base", "r50k_base"]), st.data())
def test_ids_split_at_every_cut_in_every_slice_that_holds_its_context(text, encoding, data):
    # What exact counts and the encoding in pieces rest on (tokenizers.base: cut points):
    # around a cut, any slice that keeps the cut's context encodes as its two sides.
    tokenizer = get_tokenizer(encoding)
    whole = tokenizer.encode(text)
    for c in _cuts_by_brute_force(text):
        assert tokenizer.encode(text[:c]) + tokenizer.encode(text[c:]) == whole, (text[:c], text[c:])
        a, b = bpe._cut_span(text, c)
        s = data.draw(st.integers(0, a))
        e = data.draw(st.integers(b, len(text)))
        part = text[s:e]
        assert tokenizer.encode(part) == tokenizer.encode(text[s:c]) + tokenizer.encode(text[c:e]), (s, c, e)
        assert tokenizer.encode(text[c:e]) == tokenizer.encode(text[c:b] + text[b:e])  # the right side stands alone


def _first_cut_by_definition(text: str, at: int, stop: int) -> int | None:
    found = [c for c in _cuts_by_brute_force(text) if at <= c < stop and bpe._cut_span(text, c)[1] <= stop
             and (c == at or bpe._cut_span(text, c)[0] >= at)]
    return min(found, default=None)


def _last_cut_by_definition(text: str, low: int, high: int) -> int | None:
    found = [c for c in _cuts_by_brute_force(text) if low < c <= high and bpe._cut_span(text, c)[0] >= low
             and (c == high or bpe._cut_span(text, c)[1] <= high)]
    return max(found, default=None)


CUT_EXAMPLES = ["xa b\nc", "xa b\n/c", "a b", "x\n\nab cd\n", "1 2 3", "ab\ncd ef", "a\u00a0b c", "a.\r\nB c",
                "  a  b ", "x\nY", "say hello world", "a" + " b" * 20]


@pytest.mark.parametrize("text", CUT_EXAMPLES)
def test_first_and_last_cuts_of_every_slice(text):
    for low in range(len(text) + 1):
        for high in range(low, len(text) + 1):
            assert bpe.next_cut(text, low, high) == _first_cut_by_definition(text, low, high), (low, high)
            assert bpe.last_cut(text, low, high) == _last_cut_by_definition(text, low, high), (low, high)


@settings(max_examples=300, deadline=None)
@given(SYNC_TEXT, st.data())
def test_first_and_last_cuts_follow_the_definition(text, data):
    low = data.draw(st.integers(0, len(text)))
    high = data.draw(st.integers(low, len(text)))
    assert bpe.next_cut(text, low, high) == _first_cut_by_definition(text, low, high)
    assert bpe.last_cut(text, low, high) == _last_cut_by_definition(text, low, high)


def test_a_line_of_many_spaces_finds_its_last_cut_by_scanning():
    text = "a" + "  x" * 50 + " word"  # many spaces that are not cuts before the last one
    assert bpe.last_cut(text, 0, len(text) - 2) == _last_cut_by_definition(text, 0, len(text) - 2)
    assert bpe.last_cut(text, 0, len(text)) == len(text) - 5


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_exact_counts_reusing_recent_sync_points_match_a_recount(encoding):
    # exact() reuses the first sync point of the last call with the same start and the last
    # sync point of the last call with the same end: calls sharing a start or an end, in
    # every order, must still give the recount.
    tokenizer = get_tokenizer(encoding)
    text = (Path(__file__).parents[1] / "data" / "md" / "nopt-README.md").read_text(encoding="utf-8")[:3000]
    sizer = TokenSizer(text, tokenizer)
    points = list(range(0, len(text), 97)) + [len(text)]
    for end in points[1:]:
        for start in [p for p in points if p < end] + [p for p in reversed(points) if p < end]:
            assert sizer.exact(start, end) == tokenizer.count(text[start:end]), (start, end)
    for start in points[:-1]:
        for end in [p for p in points if p > start] + [p for p in reversed(points) if p > start]:
            assert sizer.exact(start, end) == tokenizer.count(text[start:end]), (start, end)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=600), st.sampled_from(["cl100k_base", "o200k_base"]))
def test_token_ends_are_the_characters_started_so_far(text, encoding):
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return
    tokenizer = get_tokenizer(encoding)
    sizer = TokenSizer(text, tokenizer)
    starts = [i for i, byte in enumerate(data) if not 0x80 <= byte < 0xC0]  # byte offset of each character
    end = 0
    for token, char_end in zip(tokenizer.encode(text), sizer.ends, strict=True):
        end += len(tokenizer._encoding.decode_single_token_bytes(token))  # tiktoken's own bytes
        assert char_end == bisect_left(starts, end)
    assert end == len(data)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(MULTIBYTE_PIECES + ("\r\n", "\U0001f1e6", "a", "\ufe0f", "\U0001f3fb")),
                max_size=20).map("".join), st.data())
def test_grapheme_floor_is_a_boundary(text, data):
    spans = grapheme_spans(text)
    assert "".join(text[a:b] for a, b in spans) == text
    pos = data.draw(st.integers(0, len(text)))
    cut = floor_boundary(text, pos, 0)
    assert cut <= pos
    assert is_boundary(text, cut)
    assert all(not is_boundary(text, p) for p in range(cut + 1, pos + 1) if p < len(text))
