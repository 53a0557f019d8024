"""Read the numbers a person typed (form fields, CLI flags) into checked values.

The page mirrors this module in ``web/formula.js`` so answers appear before Python is
ready; ``tests/e2e/test_formula_mirror.py`` proves both give the same values and the same
messages over a grid of inputs.
"""

from __future__ import annotations

import re

from ..calculator import Plan, plan, tokens_from_chars
from ..errors import RagchunkError
from ..settings import LABELS, MAX_CHUNK_SIZE, MAX_DOC_CHARS, MAX_DOC_TOKENS, MAX_DOCUMENTS
from ..settings.checks import check_price, check_ratio, check_whole, example_of, overlap_not_smaller

# One way to match any digit run ("[0-9]+\.?[0-9]*" could split it anywhere: quadratic on a long one).
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Where "," groups digits the last group has three digits (or, as in East Asia, four) and the
# first does not start with 0 ("1,024", "12,345.5", "1,0000", Indian "1,00,000"): "0,02",
# "0,020" and "3,5" are decimals typed with a comma.
GROUPED = re.compile(r"[+-]?[1-9][0-9]{0,3}(?:,[0-9]{2,4})*,[0-9]{3,4}(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")
# Thousands separators people paste from formatted numbers: "10,000", "10 000", "10_000".
SEPARATORS = str.maketrans("", "", ",_ \u00a0\u202f")
# Where the comma is the decimal mark (Russian: "12,5"), only spaces and "_" group digits.
GROUPS_ONLY = str.maketrans("", "", "_ \u00a0\u202f")
SEPARATORS_DECIMAL_COMMA = str.maketrans({",": ".", "_": None, " ": None, "\u00a0": None, "\u202f": None})
SHOWN_MAX = 24


def shown(raw: str) -> str:
    """The user's input as echoed in a message: trimmed, long input shortened.

    >>> shown("  512 "), shown("9" * 30)
    ('512', '99999999999999999999…')
    """
    text = raw.strip()
    return text if len(text) <= SHOWN_MAX else text[:20] + "…"


def parse_number(field: str, raw: str, decimal_comma: bool = False) -> float:
    """Parse a typed number; raise naming ``field`` when it is empty or not a number.

    By default "," groups thousands ("1,024"); with ``decimal_comma`` (a Russian page)
    "," is the decimal mark as "." also is, and only spaces and "_" group digits.

    >>> parse_number("chunk_size", " 1,024 "), parse_number("price_per_million", "0.02")
    (1024.0, 0.02)
    >>> parse_number("chars_per_token", "3,5", decimal_comma=True), parse_number("doc_tokens", "10 000", True)
    (3.5, 10000.0)
    >>> parse_number("price_per_million", "0,02")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: price per million tokens (0,02) has a comma that does not group thousands: write decimals with a dot, e.g. 0.02
    >>> parse_number("chars_per_token", "3,5")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: characters per token (3,5) has a comma that does not group thousands: write decimals with a dot, e.g. 3.5
    """
    label = LABELS[field]
    text = raw.strip()
    if not text:
        raise RagchunkError(field, f"{label} is empty: enter a number", "empty")
    if not decimal_comma and "," in text and not GROUPED.fullmatch(text.translate(GROUPS_ONLY)):
        # The example is what was typed, with a dot ("3,5": 3.5), when that is a number.
        dotted = text.translate(SEPARATORS_DECIMAL_COMMA)
        example = dotted if NUMBER.fullmatch(dotted) and len(dotted) <= SHOWN_MAX else example_of(field)
        raise RagchunkError(field, f"{label} ({shown(raw)}) has a comma that does not group thousands: write"
                                   f" decimals with a dot, e.g. {example}", "comma_not_grouping",
                            {"value": shown(raw), "example": example})
    compact = text.translate(SEPARATORS_DECIMAL_COMMA if decimal_comma else SEPARATORS)
    if not NUMBER.fullmatch(compact):
        example = example_of(field)
        raise RagchunkError(field, f"{label} ({shown(raw)}) is not a number: enter digits, e.g. {example}",
                            "not_a_number", {"value": shown(raw), "example": example})
    return float(compact)


def read_count(field: str, raw: str, minimum: int, maximum: int, unit: str = "tokens",
               decimal_comma: bool = False) -> int:
    """A whole count typed by a person, checked against its range."""
    value = parse_number(field, raw, decimal_comma)
    return check_whole(field, LABELS[field], value, minimum, maximum, unit=unit, shown=shown(raw))


def read_calc_form(form: dict[str, str], *, decimal_comma: bool = False) -> Plan:
    """The calculator form (strings as typed) to a :class:`Plan`.

    ``form`` keys: ``unit`` ("tokens" or "chars"), ``doc``, ``chars_per_token``,
    ``chunk_size``, ``overlap``, ``price`` (may be empty), ``documents`` (how many
    documents of that length; empty or missing: 1). Every field is read, so one
    call reports every bad field; the errors are raised together as
    :class:`FormErrors`. ``decimal_comma`` reads "12,5" as 12.5 (see :func:`parse_number`).

    >>> read_calc_form({"unit": "chars", "doc": "40000", "chars_per_token": "4",
    ...                 "chunk_size": "512", "overlap": "64", "price": ""}).chunks
    23
    """
    errors = ErrorCollector()
    attempt = errors.attempt
    unit = form.get("unit", "tokens")
    doc = None
    if unit == "chars":
        chars = attempt(read_count, "doc_chars", form.get("doc", ""), 1, MAX_DOC_CHARS, "characters", decimal_comma)
        ratio = attempt(read_ratio, form.get("chars_per_token", ""), decimal_comma)
        if chars is not None and ratio is not None:
            doc = attempt(lambda: tokens_from_chars(chars, ratio, shown=shown(form.get("doc", ""))))
    else:
        doc = attempt(read_count, "doc_tokens", form.get("doc", ""), 1, MAX_DOC_TOKENS, "tokens", decimal_comma)
    size = attempt(read_count, "chunk_size", form.get("chunk_size", ""), 1, MAX_CHUNK_SIZE, "tokens", decimal_comma)
    overlap = attempt(read_count, "overlap", form.get("overlap", ""), 0, MAX_CHUNK_SIZE - 1, "tokens", decimal_comma)
    price_raw = form.get("price", "")
    price = attempt(read_price, price_raw, decimal_comma) if price_raw.strip() else None
    documents_raw = str(form.get("documents", "") or "1")
    documents = attempt(read_count, "documents", documents_raw, 1, MAX_DOCUMENTS, "documents", decimal_comma)
    if size is not None and overlap is not None and overlap >= size:
        errors.append(overlap_not_smaller(overlap, size))
    if errors:
        raise FormErrors(errors)
    try:
        return plan(doc, size, overlap, price, documents)
    except RagchunkError as err:
        raise FormErrors([err]) from None


def read_ratio(raw: str, decimal_comma: bool = False) -> float:
    """A typed characters-per-token ratio, checked (see :func:`ragchunk.calculator.check_ratio`)."""
    return check_ratio(parse_number("chars_per_token", raw, decimal_comma), shown=shown(raw))


def read_price(raw: str, decimal_comma: bool = False) -> float:
    """A typed price per million tokens, checked (see :func:`ragchunk.calculator.check_price`)."""
    return check_price(parse_number("price_per_million", raw, decimal_comma), shown=shown(raw))


class ErrorCollector(list):
    """Reads several fields and keeps every :class:`RagchunkError` instead of stopping at the first.

    >>> errors = ErrorCollector()
    >>> errors.attempt(int, "7"), errors.attempt(parse_number, "overlap", "x"), len(errors)
    (7, None, 1)
    """

    def attempt(self, read, *args):
        """``read(*args)``, or ``None`` after keeping the error it raised."""
        try:
            return read(*args)
        except RagchunkError as err:
            self.append(err)
            return None


class FormErrors(RagchunkError):
    """Several fields are wrong at once; ``errors`` holds one error per field."""

    def __init__(self, errors: list[RagchunkError]) -> None:
        super().__init__(errors[0].field, errors[0].message, errors[0].code, errors[0].params)
        self.errors = errors
