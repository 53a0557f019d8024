"""ragchunk.calculator (ragchunk.plan): chunk count, embedded and repeated tokens, cost, and input checks."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from strategies import plan_inputs  # noqa: E402

import ragchunk  # noqa: E402
from ragchunk import Plan, RagchunkError, chunk_count, plan, tokens_from_chars  # noqa: E402
from ragchunk.settings.checks import check_price, check_ratio  # noqa: E402
from ragchunk.settings import (  # noqa: E402
    MAX_CHARS_PER_TOKEN,
    MAX_CHUNK_SIZE,
    MAX_DOC_CHARS,
    MAX_DOC_TOKENS,
    MAX_PRICE_PER_MILLION,
    MAX_TOTAL_TOKENS,
)

# A message names the field, then says the fix after a colon.
FIX = re.compile(r": (enter |round it|lower )")
LABELS = {
    "doc_tokens": "document length",
    "chunk_size": "chunk size",
    "overlap": "overlap",
    "price_per_million": "price per million tokens",
    "chars_per_token": "characters per token",
    "doc_chars": "document length",
}


def brute_force_windows(doc: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Window ``[start, end)`` pairs: start at 0, advance by the step until a window reaches the end."""
    step = size - overlap
    spans = []
    for start in range(0, doc, step):
        end = min(start + size, doc)
        spans.append((start, end))
        if end == doc:
            break
    return spans


def smallest_chunk_count(doc: int, size: int, overlap: int) -> int:
    """Fewest windows whose last one reaches the end, found by binary search (works for huge values)."""
    step = size - overlap
    low, high = 1, doc
    while low < high:
        middle = (low + high) // 2
        if (middle - 1) * step + size >= doc:
            high = middle
        else:
            low = middle + 1
    return low


def assert_error(err: RagchunkError, field: str) -> None:
    assert isinstance(err, ValueError)
    assert err.field == field
    assert LABELS[field] in str(err), str(err)
    assert FIX.search(str(err)), str(err)
    assert err.to_json() == {"field": field, "message": str(err), "code": err.code, "params": err.params}
    assert err.code in CODES, err.code
    assert set(err.params) <= {"value", "minimum", "maximum", "unit", "overlap", "chunk_size", "example"}


# The codes the page translates (web/i18n/*.json: error.<code>).
CODES = {"not_a_number", "too_small", "not_greater", "too_large", "not_whole", "overlap_not_smaller",
         "total_too_large", "too_many_tokens"}


def test_codes_and_params_say_what_the_message_says():
    with pytest.raises(RagchunkError) as caught:
        plan(10_000, 512, 512)
    assert (caught.value.code, caught.value.params) == ("overlap_not_smaller", {"overlap": 512, "chunk_size": 512})
    with pytest.raises(RagchunkError) as caught:
        check_ratio(0, shown="0,0")
    assert (caught.value.code, caught.value.params) == ("not_greater", {"value": "0,0", "minimum": 0})
    with pytest.raises(RagchunkError) as caught:
        check_price(2e6)
    assert (caught.value.code, caught.value.params) == ("too_large", {"value": "2000000.0", "maximum": 1_000_000})
    with pytest.raises(RagchunkError) as caught:
        tokens_from_chars(1.5, 4)
    assert (caught.value.code, caught.value.params) == ("not_whole", {"value": "1.5", "unit": "characters"})


def test_seed_example_from_the_issue():
    result = plan(10_000, 512, 64)
    assert result.chunks == 23
    assert result.total_tokens == 11_408
    assert result.repeated_tokens == 1_408
    assert round(result.repeated_share * 100, 1) == 12.3
    assert round(result.extra_share * 100, 1) == 14.1
    assert result.step == 448
    assert result.last_chunk_tokens == 10_000 - 22 * 448
    assert result.cost is None and result.price_per_million is None


def test_seed_example_cost():
    result = plan(10_000, 512, 64, price_per_million=0.02)
    assert result.cost == pytest.approx(11_408 * 0.02 / 1_000_000, rel=1e-12)
    assert result.price_per_million == 0.02


@pytest.mark.parametrize(("doc", "size"), [(1, 1), (1, 512), (100, 512), (511, 512), (512, 512)])
@pytest.mark.parametrize("overlap_of_size", [0.0, 0.5, "max"])
def test_document_that_fits_is_one_chunk(doc, size, overlap_of_size):
    overlap = size - 1 if overlap_of_size == "max" else int(size * overlap_of_size)
    result = plan(doc, size, overlap)
    assert result.chunks == 1
    assert result.repeated_tokens == 0
    assert result.total_tokens == doc
    assert result.last_chunk_tokens == doc
    assert result.repeated_share == 0 and result.extra_share == 0


def test_one_token_more_than_the_size_makes_two_chunks():
    result = plan(513, 512, 64)
    assert result.chunks == 2
    assert result.repeated_tokens == 64
    assert result.last_chunk_tokens == 513 - 448


@pytest.mark.parametrize(("doc", "size"), [(10_000, 512), (1024, 512), (1025, 512), (7, 1), (1, 1)])
def test_overlap_zero_repeats_nothing(doc, size):
    result = plan(doc, size, 0)
    assert result.chunks == -(-doc // size)
    assert result.total_tokens == doc
    assert result.repeated_tokens == 0
    assert result.step == size


@pytest.mark.parametrize(("doc", "size"), [(10, 4), (100, 2), (1000, 512), (50, 49)])
def test_overlap_one_below_size_steps_one_token(doc, size):
    result = plan(doc, size, size - 1)
    assert result.step == 1
    assert result.chunks == doc - size + 1
    assert result.total_tokens == result.chunks * size
    assert result.last_chunk_tokens == size


@pytest.mark.parametrize(
    ("doc", "size", "overlap"),
    [
        (MAX_DOC_TOKENS, MAX_CHUNK_SIZE, 0),
        (MAX_DOC_TOKENS, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE // 2),
        (MAX_DOC_TOKENS, 1, 0),
        (MAX_DOC_TOKENS, 2, 1),
        (MAX_DOC_TOKENS - 1, 3, 1),
        (MAX_DOC_TOKENS, 1000, 999),
        (MAX_CHUNK_SIZE, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE - 1),
        (10**11 + 7, 9_999_999, 1_234_567),
    ],
)
def test_huge_values_up_to_the_limits(doc, size, overlap):
    result = plan(doc, size, overlap)
    chunks = smallest_chunk_count(doc, size, overlap)
    assert result.chunks == chunks
    assert result.repeated_tokens == (chunks - 1) * overlap
    assert result.total_tokens == doc + (chunks - 1) * overlap
    assert result.total_tokens <= MAX_TOTAL_TOKENS
    assert 0 < result.last_chunk_tokens <= size
    assert (chunks - 1) * (size - overlap) + result.last_chunk_tokens == doc
    assert all(isinstance(getattr(result, name), int) for name in ("doc_tokens", "chunks", "total_tokens"))


def test_total_exactly_at_the_cap_is_allowed():
    # 2**53 - 1 == 6361 * 69431 * 20394401; with step 1 the total is size * chunks.
    size = 69_431
    chunks = 6_361 * 20_394_401
    doc = size + chunks - 1
    result = plan(doc, size, size - 1)
    assert result.chunks == chunks
    assert result.total_tokens == 2**53 - 1 == MAX_TOTAL_TOKENS


def test_total_above_the_cap_is_refused():
    size = 69_431
    doc = size + 6_361 * 20_394_401  # one token more than the case at the cap
    with pytest.raises(RagchunkError) as caught:
        plan(doc, size, size - 1)
    assert caught.value.field == "overlap"
    assert f"{MAX_TOTAL_TOKENS:,}" in str(caught.value)
    assert "lower the overlap" in str(caught.value)


def test_largest_inputs_overflow_the_total():
    with pytest.raises(RagchunkError) as caught:
        plan(MAX_DOC_TOKENS, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE - 1)
    assert caught.value.field == "overlap"


BAD_COUNTS = [0, -1, -512, 1.5, 0.5, True, False, "512", "10,000", None, math.nan, math.inf, -math.inf, [512]]


# plan and chunk_count check their arguments alike; a document of 0 tokens is an error for
# plan only (chunk_count gives it no window).
CHECKED = [plan, chunk_count]


@pytest.mark.parametrize(("function", "value"), [
    (function, value) for function in CHECKED for value in BAD_COUNTS
    if not (function is chunk_count and type(value) is int and value == 0)
], ids=lambda v: v.__name__ if callable(v) else repr(v))  # by name: ids must be the same in every process (xdist)
def test_bad_document_length(function, value):
    with pytest.raises(RagchunkError) as caught:
        function(value, 512, 64)
    assert_error(caught.value, "doc_tokens")


@pytest.mark.parametrize("function", CHECKED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", BAD_COUNTS, ids=repr)
def test_bad_chunk_size(function, value):
    with pytest.raises(RagchunkError) as caught:
        function(10_000, value, 0)
    assert_error(caught.value, "chunk_size")


@pytest.mark.parametrize("function", CHECKED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", [v for v in BAD_COUNTS if v not in (0, False)], ids=repr)
def test_bad_overlap(function, value):
    with pytest.raises(RagchunkError) as caught:
        function(10_000, 512, value)
    assert_error(caught.value, "overlap")


@pytest.mark.parametrize(
    ("field", "args"),
    [
        ("doc_tokens", (MAX_DOC_TOKENS + 1, 512, 64)),
        ("doc_tokens", (float(MAX_DOC_TOKENS) * 2, 512, 64)),
        ("chunk_size", (10_000, MAX_CHUNK_SIZE + 1, 64)),
        ("overlap", (10_000, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE)),
    ],
)
def test_values_above_the_limits(field, args):
    with pytest.raises(RagchunkError) as caught:
        plan(*args)
    assert_error(caught.value, field)
    assert "too large" in str(caught.value)


def test_messages_echo_the_value_and_the_limit():
    with pytest.raises(RagchunkError) as caught:
        plan(10_000, MAX_CHUNK_SIZE + 1, 64)
    assert str(caught.value) == f"chunk size ({MAX_CHUNK_SIZE + 1:,}) is too large: enter at most {MAX_CHUNK_SIZE:,}"
    with pytest.raises(RagchunkError) as caught:
        plan(10_000, 51.5, 0)
    assert "(51.5)" in str(caught.value) and "whole number" in str(caught.value)


@pytest.mark.parametrize(("size", "overlap"), [(512, 512), (512, 513), (1, 1), (2, 5)])
def test_overlap_not_smaller_than_size(size, overlap):
    with pytest.raises(RagchunkError) as caught:
        plan(10_000, size, overlap)
    assert_error(caught.value, "overlap")
    assert str(caught.value) == (
        f"overlap ({overlap:,}) must be smaller than chunk size ({size:,}): lower the overlap"
    )


@pytest.mark.parametrize(
    "price", [-0.01, -1, math.nan, math.inf, -math.inf, MAX_PRICE_PER_MILLION * 1.0001, True, "0.02", [1]], ids=repr
)
def test_bad_price(price):
    with pytest.raises(RagchunkError) as caught:
        plan(10_000, 512, 64, price_per_million=price)
    assert_error(caught.value, "price_per_million")


@pytest.mark.parametrize("price", [0, 0.0, 0.13, 5, MAX_PRICE_PER_MILLION])
def test_good_price(price):
    result = plan(10_000, 512, 64, price)
    assert result.price_per_million == price
    assert result.cost == 11_408 / 1_000_000 * price


def test_float_whole_numbers_are_accepted_as_ints():
    result = plan(10_000.0, 512.0, 64.0)
    assert (result.doc_tokens, result.chunk_size, result.overlap) == (10_000, 512, 64)
    assert all(type(v) is int for v in (result.doc_tokens, result.chunk_size, result.overlap))


def test_plan_is_frozen_and_serialises_every_field():
    result = plan(10_000, 512, 64)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.chunks = 1  # type: ignore[misc]
    assert result.to_json() == {f.name: getattr(result, f.name) for f in dataclasses.fields(Plan)}


def test_chunk_count_of_nothing_is_zero():
    assert chunk_count(0, 512, 64) == 0
    assert chunk_count(0.0, 512, 64) == 0


@pytest.mark.parametrize(("size", "overlap"), [(10, 10), (10, 11), (1, 1), (512, 10_000)])
def test_chunk_count_overlap_not_smaller_than_size(size, overlap):
    # Once a division by zero (overlap == size) or a negative count (overlap > size).
    with pytest.raises(RagchunkError) as caught:
        chunk_count(100, size, overlap)
    assert_error(caught.value, "overlap")
    assert str(caught.value) == f"overlap ({overlap:,}) must be smaller than chunk size ({size:,}): lower the overlap"


def test_chunk_count_takes_whole_floats_as_ints():
    count = chunk_count(10_000.0, 512.0, 64.0)
    assert (count, type(count)) == (plan(10_000, 512, 64).chunks, int)


def test_public_api_exports_plan():
    assert ragchunk.plan is plan
    assert ragchunk.plan(10_000, 512, 64).chunks == 23


@settings(max_examples=300, deadline=None)
@given(plan_inputs(), st.one_of(st.none(), st.floats(0, MAX_PRICE_PER_MILLION)))
def test_formula_matches_brute_force(inputs, price):
    doc, size, overlap = inputs
    spans = brute_force_windows(doc, size, overlap)
    result = plan(doc, size, overlap, price)
    assert result.chunks == len(spans) == chunk_count(doc, size, overlap)
    assert result.total_tokens == sum(end - start for start, end in spans)
    assert result.last_chunk_tokens == spans[-1][1] - spans[-1][0]
    assert result.repeated_tokens == result.total_tokens - doc
    assert result.step == size - overlap
    assert result.repeated_share == result.repeated_tokens / result.total_tokens
    assert result.extra_share == result.repeated_tokens / doc
    if price is None:
        assert result.cost is None
    else:
        assert result.cost == result.total_tokens / 1e6 * price


@settings(max_examples=200, deadline=None)
@given(st.integers(1, MAX_DOC_TOKENS), st.integers(1, MAX_CHUNK_SIZE), st.data())
def test_formula_matches_binary_search_for_huge_values(doc, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    chunks = smallest_chunk_count(doc, size, overlap)
    if doc + (chunks - 1) * overlap > MAX_TOTAL_TOKENS:
        with pytest.raises(RagchunkError) as caught:
            plan(doc, size, overlap)
        assert caught.value.field == "overlap"
        return
    result = plan(doc, size, overlap)
    assert result.chunks == chunks
    assert result.total_tokens == doc + (chunks - 1) * overlap


# --- characters -> tokens -------------------------------------------------------------


@pytest.mark.parametrize(
    ("chars", "ratio"), [(40_000, 4), (10, 4), (7, 3.5), (1, 100), (1, 0.001), (MAX_DOC_CHARS, 4), (3, 2.5)]
)
def test_tokens_from_chars_examples(chars, ratio):
    assert tokens_from_chars(chars, ratio) == math.ceil(chars / ratio)


def test_tokens_from_chars_seed():
    assert tokens_from_chars(40_000, 4) == 10_000
    assert tokens_from_chars(40_001, 4) == 10_001


@settings(max_examples=300, deadline=None)
@given(st.integers(1, MAX_DOC_CHARS), st.floats(1e-6, MAX_CHARS_PER_TOKEN))
def test_tokens_from_chars_is_ceil_of_the_exact_decimal_quotient(chars, ratio):
    # The ratio counts as the decimal it prints as; the quotient is exact, not a float.
    exact = math.ceil(Fraction(chars) / Fraction(repr(ratio)))
    if exact > MAX_DOC_TOKENS:
        with pytest.raises(RagchunkError, match="too large"):
            tokens_from_chars(chars, ratio)
    else:
        assert tokens_from_chars(chars, ratio) == exact


@pytest.mark.parametrize(("chars", "ratio"), [(1, 5e-324), (1, 1e-310), (MAX_DOC_CHARS, 1e-300)])
def test_tiny_ratio_is_a_ragchunk_error_not_an_overflow(chars, ratio):
    # The quotient overflows a float; a person must get a message, not an OverflowError.
    with pytest.raises(RagchunkError):
        tokens_from_chars(chars, ratio)


@pytest.mark.parametrize(
    "ratio", [0, 0.0, -1, -0.5, MAX_CHARS_PER_TOKEN + 0.001, 1e9, math.nan, math.inf, "4", None, True], ids=repr
)
def test_bad_ratio(ratio):
    with pytest.raises(RagchunkError) as caught:
        tokens_from_chars(40_000, ratio)
    assert_error(caught.value, "chars_per_token")


def test_ratio_limit_is_inclusive():
    assert tokens_from_chars(1_000, MAX_CHARS_PER_TOKEN) == math.ceil(1_000 / MAX_CHARS_PER_TOKEN)


@pytest.mark.parametrize("chars", [0, -1, 1.5, MAX_DOC_CHARS + 1, "40000", None, math.nan], ids=repr)
def test_bad_character_count(chars):
    with pytest.raises(RagchunkError) as caught:
        tokens_from_chars(chars, 4)
    assert_error(caught.value, "doc_chars")
