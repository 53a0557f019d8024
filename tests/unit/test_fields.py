"""ragchunk.options.fields: the calculator form, strings exactly as a person types them."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragchunk import RagchunkError, plan
from ragchunk.options.fields import FormErrors, parse_number, read_calc_form, shown
from ragchunk.settings import MAX_DOC_CHARS, MAX_DOC_TOKENS, MAX_TOTAL_TOKENS

FIX = re.compile(r": (enter |round it|lower )")


def form(**typed: str) -> dict[str, str]:
    base = {"unit": "tokens", "doc": "10000", "chars_per_token": "4", "chunk_size": "512", "overlap": "64", "price": ""}
    base.update(typed)
    return base


def errors_of(typed: dict[str, str]) -> list[RagchunkError]:
    with pytest.raises(FormErrors) as caught:
        read_calc_form(typed)
    assert isinstance(caught.value, RagchunkError)
    assert caught.value.field == caught.value.errors[0].field
    assert str(caught.value) == caught.value.errors[0].message
    return caught.value.errors


@pytest.mark.parametrize(
    "typed",
    ["10000", "10,000", "10 000", "10_000", "10\u00a0000", "10\u202f000", "  10000  ", "\t10000\n", "1e4", "1E4",
     "1e+4", "10000.0", "10000.", "+10000", "1,0000", "100e2"],
)
def test_document_length_as_typed(typed):
    result = read_calc_form(form(doc=typed))
    assert result.doc_tokens == 10_000
    assert result == plan(10_000, 512, 64)


@pytest.mark.parametrize(("typed", "value"), [("1e3", 1000), ("1", 1), ("0001", 1), ("1,000,000,000,000", 10**12)])
def test_more_document_lengths(typed, value):
    assert read_calc_form(form(doc=typed, chunk_size="1", overlap="0")).doc_tokens == value


@pytest.mark.parametrize(("typed", "value"), [(".5", 0.5), ("0.02", 0.02), ("0", 0.0), ("1,000", 1000.0), (" 3 ", 3.0)])
def test_price_as_typed(typed, value):
    result = read_calc_form(form(price=typed))
    assert result.price_per_million == value
    assert result.cost == result.total_tokens / 1e6 * value


@pytest.mark.parametrize("typed", ["", " ", "\t \n"])
def test_empty_price_means_no_cost(typed):
    result = read_calc_form(form(price=typed))
    assert result.cost is None and result.price_per_million is None


def test_missing_price_key_means_no_cost():
    typed = form()
    del typed["price"]
    assert read_calc_form(typed).cost is None


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "document length is empty: enter a number"),
        ("   ", "document length is empty: enter a number"),
        ("abc", "document length (abc) is not a number: enter digits"),
        ("12abc", "document length (12abc) is not a number"),
        ("1.2.3", "(1.2.3) is not a number"),
        ("0x10", "(0x10) is not a number"),
        ("Infinity", "(Infinity) is not a number"),
        ("inf", "(inf) is not a number"),
        ("nan", "(nan) is not a number"),
        ("NaN", "(NaN) is not a number"),
        ("e5", "(e5) is not a number"),
        ("--5", "(--5) is not a number"),
        ("-5", "document length (-5) must be at least 1: enter a larger number"),
        ("0", "document length (0) must be at least 1"),
        ("-0", "(-0) must be at least 1"),
        ("51.5", "document length (51.5) must be a whole number of tokens: round it"),
        ("1e15", f"document length (1e15) is too large: enter at most {MAX_DOC_TOKENS:,}"),
        ("1e999", "(1e999) is too large"),
        (" 1,000,000,000,001 ", "(1,000,000,000,001) is too large"),
    ],
)
def test_bad_document_length(typed, says):
    errors = errors_of(form(doc=typed))
    assert [e.field for e in errors] == ["doc_tokens"]
    assert says in errors[0].message
    assert FIX.search(errors[0].message)


@pytest.mark.parametrize(
    ("field", "typed", "says"),
    [
        ("chunk_size", "0", "chunk size (0) must be at least 1"),
        ("chunk_size", "abc", "chunk size (abc) is not a number"),
        ("chunk_size", "", "chunk size is empty"),
        ("chunk_size", "51.5", "chunk size (51.5) must be a whole number"),
        ("chunk_size", "1e15", "chunk size (1e15) is too large"),
        ("overlap", "-1", "overlap (-1) must be at least 0"),
        ("overlap", "6.4", "overlap (6.4) must be a whole number"),
        ("overlap", "x", "overlap (x) is not a number"),
        ("overlap", "512", "overlap (512) must be smaller than chunk size (512): lower the overlap"),
        ("overlap", "1,000", "overlap (1,000) must be smaller than chunk size (512): lower the overlap"),
        ("price_per_million", "-1", "price per million tokens (-1) must be at least 0"),
        ("price_per_million", "nan", "price per million tokens (nan) is not a number"),
        ("price_per_million", "$5", "price per million tokens ($5) is not a number"),
        ("price_per_million", "1e7", "price per million tokens (1e7) is too large"),
    ],
)
def test_bad_other_fields(field, typed, says):
    key = "price" if field == "price_per_million" else field
    errors = errors_of(form(**{key: typed}))
    assert [e.field for e in errors] == [field]
    assert says in errors[0].message
    assert FIX.search(errors[0].message)


def test_every_bad_field_is_reported_in_form_order():
    errors = errors_of(form(doc="abc", chunk_size="0", overlap="x", price="-1"))
    assert [e.field for e in errors] == ["doc_tokens", "chunk_size", "overlap", "price_per_million"]


def test_overlap_versus_size_comes_after_the_single_field_errors():
    errors = errors_of(form(doc="", chunk_size="100", overlap="100", price="nan"))
    assert [e.field for e in errors] == ["doc_tokens", "price_per_million", "overlap"]
    assert "smaller than chunk size (100)" in errors[-1].message


def test_chars_mode_bad_fields_in_order():
    errors = errors_of(form(unit="chars", doc="lots", chars_per_token="0", chunk_size="", overlap="-3"))
    assert [e.field for e in errors] == ["doc_chars", "chars_per_token", "chunk_size", "overlap"]
    assert "characters per token (0) must be greater than 0" in errors[1].message


@pytest.mark.parametrize(("doc", "ratio", "chars"), [("40000", "4", 40_000), ("40,000", "4.0", 40_000),
                                                     ("1 000", "2.5", 1000), ("7", "3.5", 7), ("1", "100", 1)])
def test_chars_mode(doc, ratio, chars):
    result = read_calc_form(form(unit="chars", doc=doc, chars_per_token=ratio))
    assert result.doc_tokens == math.ceil(chars / float(ratio))


def test_chars_mode_seed():
    result = read_calc_form(form(unit="chars", doc="40,000", chars_per_token="4"))
    assert (result.doc_tokens, result.chunks, result.total_tokens) == (10_000, 23, 11_408)


@pytest.mark.parametrize(("doc", "ratio"), [("410", "4.1"), ("41,000", "4.1"), ("42", "2.8"), ("21", "0.7")])
def test_chars_mode_whole_quotient_is_not_rounded_up(doc, ratio):
    # 410 characters at 4.1 characters per token are exactly 100 tokens, as typed.
    exact = math.ceil(Fraction(doc.replace(",", "")) / Fraction(ratio))
    assert read_calc_form(form(unit="chars", doc=doc, chars_per_token=ratio)).doc_tokens == exact


@pytest.mark.parametrize(("ratio", "says"), [("0", "must be greater than 0"), ("-2", "must be greater than 0"),
                                             ("100.5", "is too large"), ("four", "is not a number"),
                                             ("", "is empty")])
def test_chars_mode_bad_ratio(ratio, says):
    errors = errors_of(form(unit="chars", doc="40000", chars_per_token=ratio))
    assert [e.field for e in errors] == ["chars_per_token"]
    assert "characters per token" in errors[0].message and says in errors[0].message


def test_chars_mode_too_many_tokens():
    errors = errors_of(form(unit="chars", doc=f"{MAX_DOC_CHARS:,}", chars_per_token="0.5"))
    assert [e.field for e in errors] == ["doc_chars"]
    assert "enter fewer characters" in errors[0].message
    assert f"{MAX_DOC_TOKENS:,}" in errors[0].message


def test_chars_mode_too_many_characters():
    errors = errors_of(form(unit="chars", doc=str(MAX_DOC_CHARS + 1)))
    assert [e.field for e in errors] == ["doc_chars"]
    assert "too large" in errors[0].message


def test_total_cap_is_a_form_error():
    errors = errors_of(form(doc=f"{MAX_DOC_TOKENS}", chunk_size="10,000,000", overlap="9,999,999"))
    assert [e.field for e in errors] == ["overlap"]
    assert f"{MAX_TOTAL_TOKENS:,}" in errors[0].message


@pytest.mark.parametrize("typed", ["9" * 30 + "x", "x" * 40, "1" * 25 + " apples"])
def test_long_input_is_shortened_in_the_message(typed):
    message = errors_of(form(doc=typed))[0].message
    assert f"({typed[:20]}…)" in message
    assert typed not in message


def test_long_number_is_shortened_in_the_too_large_message():
    message = errors_of(form(doc="9" * 30))[0].message
    assert "(" + "9" * 20 + "…) is too large" in message


def test_input_of_exactly_the_shown_length_is_kept_whole():
    typed = "y" * 24
    assert f"({typed})" in errors_of(form(doc=typed))[0].message
    assert shown(f"  {typed}  ") == typed


def test_parse_number_names_its_field():
    with pytest.raises(RagchunkError) as caught:
        parse_number("overlap", "six")
    assert caught.value.field == "overlap"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, MAX_DOC_TOKENS), st.sampled_from([",", "_", " ", "\u00a0", "\u202f"]))
def test_grouped_digits_read_back(number, separator):
    typed = f"{number:,}".replace(",", separator)
    assert read_calc_form(form(doc=typed, chunk_size="10000000", overlap="0")).doc_tokens == number


@pytest.mark.parametrize(
    ("typed", "value"),
    [("12,5", 12.5), ("12.5", 12.5), ("10 000", 10_000.0), ("10\u202f000,5", 10_000.5), ("1_000", 1000.0),
     (",5", 0.5), ("1,5e3", 1500.0)],
)
def test_decimal_comma_reads_the_comma_as_the_decimal_mark(typed, value):
    assert parse_number("price_per_million", typed, decimal_comma=True) == value


@pytest.mark.parametrize("typed", ["1,000,5", "1.000,5", "12,,5"])
def test_decimal_comma_refuses_two_decimal_marks(typed):
    with pytest.raises(RagchunkError) as caught:
        parse_number("price_per_million", typed, decimal_comma=True)
    assert caught.value.code == "not_a_number" and caught.value.params == {"value": typed, "example": "0.02"}


def test_decimal_comma_changes_what_a_grouped_number_means():
    assert parse_number("doc_tokens", "10,000") == 10_000
    assert parse_number("doc_tokens", "10,000", decimal_comma=True) == 10


def test_form_errors_carry_codes():
    errors = errors_of(form(doc="", chunk_size="2e7", overlap="x", price="-1"))
    assert [(e.code, e.params) for e in errors] == [
        ("empty", {}),
        ("too_large", {"value": "2e7", "maximum": 10_000_000}),
        ("not_a_number", {"value": "x", "example": "64"}),
        ("too_small", {"value": "-1", "minimum": 0}),
    ]
    with pytest.raises(FormErrors) as caught:
        read_calc_form({**form(), "chunk_size": "5,5"}, decimal_comma=True)
    assert (caught.value.code, caught.value.params) == ("not_whole", {"value": "5,5", "unit": "tokens"})


@pytest.mark.parametrize("field, example", [("price_per_million", "0.02"), ("chars_per_token", "4"),
                                            ("documents", "1000"), ("chunk_size", "512"), ("overlap", "64")])
def test_a_number_that_is_not_one_is_answered_with_an_example_of_that_field(field, example):
    with pytest.raises(RagchunkError) as caught:
        parse_number(field, "cheap")
    assert caught.value.params["example"] == example
    assert str(caught.value).endswith(f"enter digits, e.g. {example}")
    # The example is itself what the field accepts.
    assert parse_number(field, example) == float(example)
