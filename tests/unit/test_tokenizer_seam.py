"""The splitter, the fixed windows and encoding in pieces know a tokenizer only through its
interface: a lowercasing, NFKC-normalizing test tokenizer (no byte tables possible) keeps
every guarantee they make."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from strategies import any_text, examples, markdown  # noqa: E402
from test_split import assert_guarantees  # noqa: E402
from toy_tokenizer import NfkcToyTokenizer  # noqa: E402

from ragchunk import RagchunkError, chunk_count, split, windows  # noqa: E402
from ragchunk.packing.sizing import TokenSizer  # noqa: E402
from ragchunk.tokenizers import Tokenizer, encode_in_pieces  # noqa: E402

TOY = NfkcToyTokenizer()
DOCS = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))
# Characters whose normalization changes their length or case, or that it makes spaces of.
LOSSY = st.sampled_from(["ﬁ", "Ａ", "İ", "ﷺ", "ß", "Σ", "½", "㎏", "ǅ", "\u00a8", "e\u0301", "Ⅻ", "ｶ", "①", "x", "Word",
                         " ", "\n", "\u00a0", "\u3000", ". ", "# ", "\n\n", "- "])
LOSSY_TEXT = st.lists(LOSSY, min_size=1, max_size=80).map("".join)
SETTINGS = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_toy_is_a_tokenizer_whose_offsets_cannot_come_from_bytes():
    assert isinstance(TOY, Tokenizer)
    encoded = TOY.encode_with_offsets("abﬁ Ａﷺ")
    # "abf" and "i" share "ﬁ"; "Ａﷺ" is "a" and the 18 characters of "ﷺ", in 7 pieces of three or fewer.
    assert (encoded.starts[:2], encoded.ends[:2]) == ([0, 2], [3, 3])
    assert len(encoded.ids) == 2 + 7 and encoded.starts[2:4] == [4, 5] and encoded.ends[-1] == 6


@SETTINGS
@given(st.one_of(markdown(), LOSSY_TEXT, any_text()), st.sampled_from(["headings", "paragraphs", "sentences"]),
       st.integers(6, 60), st.data())
def test_every_splitter_guarantee_holds_with_a_normalizing_tokenizer(text, by, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    try:
        result = split(text, by=by, size=size, overlap=overlap, tokenizer=TOY)
    except RagchunkError as err:  # one character may need more tokens than the size
        assert err.field == "chunk_size" and "alone is" in err.message
        return
    assert result.tokenizer == "toy-nfkc"
    assert_guarantees(text, result, size, overlap, TOY.count)


@SETTINGS
@given(st.one_of(LOSSY_TEXT, markdown(), any_text()), st.integers(1, 12), st.data())
def test_windows_follow_the_formula_with_a_normalizing_tokenizer(text, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    encoded = TOY.encode_with_offsets(text)
    n = len(encoded.ids)
    result = windows(text, size, overlap, TOY)
    assert len(result) == chunk_count(n, size, overlap)
    step = size - overlap
    for k, window in enumerate(result):
        assert (window.token_start, window.token_end) == (k * step, min(k * step + size, n))
        assert window.start == encoded.starts[window.token_start]
        assert window.end == encoded.ends[window.token_end - 1]
        assert window.text == text[window.start : window.end] and window.text.strip()
        if k:
            previous = result[k - 1]
            assert previous.start <= window.start and previous.end <= window.end
            assert window.overlap_end == min(max(previous.end, window.start), window.end)
    if result:
        assert result[0].start == encoded.starts[0] and result[-1].end == encoded.ends[-1]


@SETTINGS
@given(st.one_of(LOSSY_TEXT, markdown()), st.data())
def test_exact_counts_from_cut_points_match_a_recount(text, data):
    sizer = TokenSizer(text, TOY)
    for _ in range(6):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert sizer.exact(start, end) == TOY.count(text[start:end]), (start, end)


@SETTINGS
@given(st.one_of(LOSSY_TEXT, markdown()), st.integers(1, 40))
def test_encoding_in_pieces_gives_the_offsets_of_one_encode(text, piece):
    whole = TOY.encode_with_offsets(text)
    encoded = encode_in_pieces(TOY, text, piece=piece)
    assert list(encoded.ids) == whole.ids
    assert list(encoded.starts) == whole.starts and list(encoded.ends) == whole.ends


@pytest.mark.parametrize("document", DOCS, ids=lambda p: p.name)
def test_real_documents_split_with_the_toy(document):
    text = document.read_text(encoding="utf-8")
    for by, size, overlap in (("headings", 128, 16), ("sentences", 32, 8)):
        result = split(text, by=by, size=size, overlap=overlap, tokenizer=TOY)
        assert_guarantees(text, result, size, overlap, TOY.count)
