"""The page's JS mirror of the formula (web/core/formula.js) equals the Python core.

The mirror answers while Python boots; this runs both over a grid of typed inputs, edge
cases and every kind of bad input included, and asserts the same numbers and the same
errors (field, code, params, and the English message: the mirror holds no sentence, the
page says its error from code + params with the English catalog), field by field — with
"," read as thousands separator (English) and as decimal mark (``decimal_comma``, Russian).
"""

from __future__ import annotations

import itertools
import json

from pages import wait_language
from ragchunk.options.fields import FormErrors, read_calc_form

DOCS = ["1", "511", "512", "513", "10000", "10,000", " 40000 ", "1e3", "999999999999", "1000000000000",
        "1000000000001", "1e15", "0", "-1", "2.5", "", "abc", "1e", ".5", "9007199254740993"]
SIZES = ["1", "2", "64", "512", "513", "8191", "10000000", "10000001", "0", "-3", "512.0", "512.5", "x", ""]
OVERLAPS = ["0", "1", "63", "64", "511", "512", "1000", "9999999", "-1", "3.3", "", "o"]
PRICES = ["", "0", "0.02", "0.13", "1", "1e-9", "1000000", "1000001", "-0.01", "cheap", "1,5"]
RATIOS = ["4", "3.5", "4.1", "2.8", "0.7", "0.001", "1e-7", "1e-310", "100", "100.5", "0", "-2", "four", ""]
CHARS = ["410", "42", "21", "1", "40000", "4000000000000", "4000000000001", "0", "7.5", "z"]
# Typed on a page where "," is the decimal mark.
COMMA_NUMBERS = ["10 000", "10\u202f000", "10,000", "12,5", "12.5", "0,02", ",5", "1,5e3", "1,000,5", "1 0,5", "", "x",
                 "4,1", "0,0", "100,5", "512,0", "-0,5"]


def forms():
    for doc, size, overlap in itertools.product(DOCS, SIZES, OVERLAPS):
        yield {"unit": "tokens", "doc": doc, "chars_per_token": "4", "chunk_size": size, "overlap": overlap, "price": ""}
    for price, (size, overlap) in itertools.product(PRICES, [("512", "64"), ("1", "0"), ("10000000", "9999999")]):
        for doc in ("10000", "1000000000000", "1"):
            yield {"unit": "tokens", "doc": doc, "chars_per_token": "4", "chunk_size": size, "overlap": overlap,
                   "price": price}
    for chars, ratio, (size, overlap) in itertools.product(CHARS, RATIOS, [("512", "64"), ("100", "0"), ("3", "2")]):
        yield {"unit": "chars", "doc": chars, "chars_per_token": ratio, "chunk_size": size, "overlap": overlap,
               "price": "0.02"}
    for doc, number in itertools.product(COMMA_NUMBERS, COMMA_NUMBERS):
        yield {"unit": "tokens", "doc": doc, "chars_per_token": "4", "chunk_size": number, "overlap": "64",
               "price": "", "decimal_comma": True}
    for price in COMMA_NUMBERS:
        yield {"unit": "tokens", "doc": "10 000", "chars_per_token": "4", "chunk_size": "512", "overlap": "64",
               "price": price, "decimal_comma": True}
        # The same typing where "," only groups thousands: "0,02" and "1,000,5" are refused, "10,000" is 10000.
        yield {"unit": "tokens", "doc": price, "chars_per_token": "4", "chunk_size": "512", "overlap": "64",
               "price": price}
        yield {"unit": "chars", "doc": doc, "chars_per_token": number, "chunk_size": "512", "overlap": "0,0",
               "price": "", "decimal_comma": True}


def python_answer(form):
    try:
        return {"ok": True, "result": read_calc_form(form, decimal_comma=form.get("decimal_comma", False)).to_json()}
    except FormErrors as err:
        return {"ok": False, "errors": [e.to_json() for e in err.errors]}


def test_mirror_equals_the_python_core_over_the_grid(page):
    page.goto("./")
    wait_language(page, "en")
    grid = list(forms())
    assert len(grid) > 3000
    answers = page.evaluate(
        """async forms => {
            const { readCalcForm } = await import('./core/formula.js');
            const { SPEC } = await import('./spec.js');
            const { errorMessage } = await import('./ui/errors.js');
            return forms.map(form => {
                const answer = readCalcForm(SPEC, form);
                if (answer.ok) return answer;
                // What an English page says for each error (ui/errors.js, i18n/en.json).
                return { ...answer, errors: answer.errors.map(e => ({ ...e, message: errorMessage(e) })) };
            });
        }""",
        grid,
    )
    mismatches = []
    for form, js in zip(grid, answers):
        py = json.loads(json.dumps(python_answer(form)))
        if js != py:
            mismatches.append((form, js, py))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    codes = {e["code"] for a in answers if not a["ok"] for e in a["errors"]}
    assert codes == {"empty", "not_a_number", "comma_not_grouping", "too_small", "not_greater", "too_large", "not_whole",
                     "overlap_not_smaller", "total_too_large", "too_many_tokens"}, "the grid must reach every kind of error"
    assert any(a["ok"] for a in answers)
    comma = [a for form, a in zip(grid, answers) if form.get("decimal_comma") and a["ok"] and form["price"] == "12,5"]
    assert comma and all(a["result"]["price_per_million"] == 12.5 for a in comma)
