"""ragchunk.windows (fixed token windows with character offsets).

The oracle for a window's character span is computed here from first principles: the
window's tokens cover a byte range of the UTF-8 text; the span is the smallest run of
whole characters that contains it. An encoding that normalizes (Qwen: NFC) reads the normal
form of a text: its windows of a text not in NFC are those of the normal form, each widened
to a slice of the original text that NFC turns into a stretch holding it.
"""

from __future__ import annotations

import bisect
import sys
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from strategies import ENCODING_NAMES, any_text, chunking, encodings, multibyte_text  # noqa: E402

import ragchunk  # noqa: E402
from ragchunk import RagchunkError, Window, get_tokenizer, plan, windows  # noqa: E402
from test_tokenizers import normal, reference  # noqa: E402
from ragchunk.packing.windowing import windows_of  # noqa: E402

DOCUMENTS = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))

BOUNDARY_TEXTS = [
    "Привет, мир",
    "नमस्ते दुनिया",
    "👍🏽👨\u200d👩\u200d👧\u200d👦🇺🇦",
    "日本語の文章",
    "e\u0301a\u0300 n\u0303",
    "ok 👍🏽 done",
]


def char_starts(text: str) -> list[int]:
    """Byte offset where each character starts, plus the total byte length."""
    return list(accumulate((len(ch.encode("utf-8")) for ch in text), initial=0))


def check_windows(text: str, size: int, overlap: int, name: str, result: list[Window]) -> None:
    normal_text = normal(name, text)
    if normal_text != text:
        check_windows(normal_text, size, overlap, name, windows(normal_text, size, overlap, get_tokenizer(name)))
        normal_windows = windows(normal_text, size, overlap, get_tokenizer(name))
        assert [(w.index, w.token_start, w.token_end, w.tokens, w.overlap_tokens) for w in result] == [
            (w.index, w.token_start, w.token_end, w.tokens, w.overlap_tokens) for w in normal_windows]
        for window, normal_window in zip(result, normal_windows):
            assert window.text == text[window.start : window.end]
            for at in (window.start, window.end, window.overlap_end):
                assert normal(name, text[:at]) + normal(name, text[at:]) == normal_text
            assert len(normal(name, text[: window.start])) <= normal_window.start
            assert len(normal(name, text[: window.end])) >= normal_window.end
        assert not result or (result[0].start == 0 and result[-1].end == len(text))
        return
    tokenizer = get_tokenizer(name)
    ids = list(tokenizer.encode(text))
    n = len(ids)
    step = size - overlap
    assert len(result) == (plan(n, size, overlap).chunks if n else 0)
    byte_at = list(accumulate((len(reference(name).decode_single_token_bytes(i)) for i in ids), initial=0))
    assert byte_at[-1] == len(text.encode("utf-8"))
    starts = char_starts(text)
    for k, window in enumerate(result):
        assert window.index == k
        assert window.token_start == k * step
        assert window.token_end == min(k * step + size, n)
        assert window.tokens == window.token_end - window.token_start > 0
        first_byte, last_byte = byte_at[window.token_start], byte_at[window.token_end]
        assert window.start == bisect.bisect_right(starts, first_byte) - 1
        assert window.end == bisect.bisect_left(starts, last_byte)
        assert window.text == text[window.start : window.end]
        assert text.encode("utf-8")[first_byte:last_byte] in window.text.encode("utf-8")
        if "\ufffd" not in text:
            assert "\ufffd" not in window.text
        if k == 0:
            assert window.start == 0
            assert window.overlap_tokens == 0
            assert window.overlap_end == window.start
        else:
            previous = result[k - 1]
            assert window.overlap_tokens == overlap
            assert previous.start <= window.start <= previous.end <= window.end
            assert window.overlap_end == previous.end
            assert previous.text.endswith(text[window.start : window.overlap_end])
            shared = text.encode("utf-8")[first_byte : byte_at[window.token_start + overlap]]
            assert shared in text[window.start : window.overlap_end].encode("utf-8")
    if result:
        assert result[-1].end == len(text)
        assert result[-1].token_end == n


@pytest.mark.parametrize("name", ENCODING_NAMES)
@pytest.mark.parametrize("text", BOUNDARY_TEXTS)
@pytest.mark.parametrize(("size", "overlap"), [(s, o) for s in range(1, 5) for o in range(s)])
def test_tiny_windows_over_multibyte_characters(text, size, overlap, name):
    check_windows(text, size, overlap, name, windows(text, size, overlap, get_tokenizer(name)))


def test_boundaries_really_fall_inside_characters():
    tokenizer = get_tokenizer("cl100k_base")
    text = "👍🏽"
    ids = tokenizer.encode(text)
    length = {i: len(reference("cl100k_base").decode_single_token_bytes(i)) for i in ids}
    result = windows(text, 1, 0, tokenizer)
    assert len(result) == len(ids) > 2
    widened = [w for w in result if len(w.text.encode("utf-8")) > length[ids[w.token_start]]]
    assert widened, "expected a token that is only part of a character"
    assert "".join(w.text for w in result) != text  # widened windows repeat the split character


def test_docstring_example():
    result = windows("one two three four five", 3, 1, get_tokenizer())
    assert [w.text for w in result] == ["one two three", " three four five"]
    assert result[1].overlap_tokens == 1
    assert "one two three four five"[result[1].start : result[1].overlap_end] == " three"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize(("size", "overlap"), [(64, 16), (7, 3), (200, 0)])
def test_real_documents(document, size, overlap):
    text = document.read_text(encoding="utf-8")
    result = windows(text, size, overlap, get_tokenizer("cl100k_base"))
    check_windows(text, size, overlap, "cl100k_base", result)


def test_there_are_real_documents():
    assert len(DOCUMENTS) >= 3


def test_empty_text_has_no_windows():
    assert windows("", 512, 64, get_tokenizer()) == []


def test_text_that_fits_is_one_window():
    text = "A short text."
    result = windows(text, 512, 64, get_tokenizer())
    assert len(result) == 1
    assert (result[0].text, result[0].start, result[0].end) == (text, 0, len(text))


@pytest.mark.parametrize(("size", "overlap", "field"), [(0, 0, "chunk_size"), (4, 4, "overlap"), (4, -1, "overlap"),
                                                        (2.5, 0, "chunk_size"), ("4", 1, "chunk_size")])
def test_invalid_chunking(size, overlap, field):
    with pytest.raises(RagchunkError) as caught:
        windows("some text", size, overlap, get_tokenizer())
    assert caught.value.field == field


@pytest.mark.parametrize("limit", [-1, 1.5, "3", True])
def test_invalid_limit(limit):
    with pytest.raises(RagchunkError) as caught:
        windows("some text", 4, 1, get_tokenizer(), limit=limit)
    assert (caught.value.field, isinstance(caught.value, ValueError)) == ("preview", True)
    assert str(caught.value).startswith("limit (")


@pytest.mark.parametrize(("size", "overlap", "field"), [(0, 0, "chunk_size"), (4, 4, "overlap"), (4, -1, "overlap"),
                                                        (2.5, 0, "chunk_size")])
def test_windows_of_checks_its_arguments(size, overlap, field):
    text = "some text with a few words"
    with pytest.raises(RagchunkError) as caught:
        windows_of(text, get_tokenizer().encode_with_offsets(text), size, overlap)
    assert caught.value.field == field


TEXT = " ".join(f"word{i}" for i in range(60))


@pytest.mark.parametrize("limit", [0, 1, 2, 5, 10_000])
def test_limit_keeps_the_first_windows(limit):
    tokenizer = get_tokenizer()
    every = windows(TEXT, 8, 3, tokenizer)
    assert len(every) > 5
    assert windows(TEXT, 8, 3, tokenizer, limit=limit) == every[:limit]


def test_no_limit_gives_every_window():
    tokenizer = get_tokenizer()
    assert len(windows(TEXT, 8, 3, tokenizer, limit=None)) == plan(tokenizer.count(TEXT), 8, 3).chunks


def test_window_json_has_every_field():
    window = windows(TEXT, 8, 3, get_tokenizer())[1]
    assert window.to_json() == {
        "index": 1, "text": window.text, "start": window.start, "end": window.end, "token_start": 5,
        "token_end": 13, "tokens": 8, "overlap_tokens": 3, "overlap_end": window.overlap_end,
    }


def test_public_api_exports_windows():
    assert ragchunk.windows is windows and ragchunk.Window is Window


@settings(max_examples=200, deadline=None)
@given(any_text(), chunking(max_size=12), encodings)
def test_windows_property(text, pair, name):
    size, overlap = pair
    check_windows(text, size, overlap, name, windows(text, size, overlap, get_tokenizer(name)))


@settings(max_examples=40, deadline=None)
@given(multibyte_text(max_pieces=40), chunking(max_size=40), st.integers(0, 6))
def test_limit_property(text, pair, limit):
    size, overlap = pair
    tokenizer = get_tokenizer("o200k_base")
    assert windows(text, size, overlap, tokenizer, limit=limit) == windows(text, size, overlap, tokenizer)[:limit]


@settings(max_examples=60, deadline=None)
@given(multibyte_text(max_pieces=40), chunking(max_size=24), st.integers(0, 12), st.integers(0, 12),
       st.sampled_from(["cl100k_base", "bert-base-uncased", "xlm-roberta"]))
def test_windows_from_a_later_one_are_those_windows(text, pair, first, count, name):
    # The preview of window N makes no window before it, and its windows are the same.
    size, overlap = pair
    tokenizer = get_tokenizer(name)
    encoded = tokenizer.encode_with_offsets(text)
    every = windows_of(text, encoded, size, overlap)
    assert windows_of(text, encoded, size, overlap, limit=first + count, first=first) == every[first:first + count]
