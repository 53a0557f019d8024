"""The calculator form: defaults at first paint, updates, chars mode, price, bad input."""

from __future__ import annotations

import re

import pytest

from pages import CalculatorPage
from ragchunk import plan, tokens_from_chars
from ragchunk.api import form_spec

SEED = {"chunks": "23", "total": "11,408", "repeated": "1,408 (12.3 % of the total)", "extra": "14.1 %"}


def test_defaults_are_in_the_html_before_any_script_runs(browser, base_url):
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("./")
        shown = {name: page.inner_text(f"#r-{name}") for name in SEED}
        assert shown == SEED
        assert page.input_value("#chunk_size") == "512" and page.input_value("#overlap") == "64"
        # The worked example says the core's plan of the defaults.
        d = form_spec()["defaults"]
        p = plan(d["doc_tokens"], d["chunk_size"], d["overlap"])
        assert page.inner_text("#how-example") == (
            f"Example: {p.doc_tokens:,} tokens, chunks of {p.chunk_size} with {p.overlap} overlap → step {p.step},"
            f" 1 + ⌈{p.doc_tokens - p.chunk_size:,} ÷ {p.step}⌉ = {p.chunks} chunks, {p.doc_tokens:,} +"
            f" {p.chunks - 1} × {p.overlap} = {p.total_tokens:,} tokens, of which {p.repeated_tokens:,}"
            f" ({p.repeated_share * 100:.1f} %) are repeated: {p.extra_share * 100:.1f} % more than the document."
        )
    finally:
        context.close()


@pytest.mark.fresh_core  # start-up itself
def test_defaults_then_the_core_agrees(page):
    calc = CalculatorPage(page).open(wait_ready=False)
    assert {name: calc.result(name) for name in SEED} == SEED
    calc.wait_ready()
    calc.wait_core_numbers()
    assert {name: calc.result(name) for name in SEED} == SEED
    assert "Ready" in page.inner_text("#core-stage")


@pytest.mark.parametrize(
    ("doc", "size", "overlap"),
    [("100000", "1000", "200"), ("512", "512", "64"), ("513", "512", "0"), ("1000", "10", "9")],
)
def test_changing_inputs_updates_results(page, doc, size, overlap):
    calc = CalculatorPage(page).open()
    calc.set("doc", doc)
    calc.set("chunk_size", size)
    calc.set("overlap", overlap)
    calc.wait_core_numbers()
    expected = plan(int(doc), int(size), int(overlap))
    assert calc.result("chunks") == f"{expected.chunks:,}"
    assert calc.result("total") == f"{expected.total_tokens:,}"
    assert calc.result("repeated").startswith(f"{expected.repeated_tokens:,} (")
    assert calc.result("extra") == f"{expected.extra_share * 100:.1f} %"


def test_chars_mode_converts_at_the_ratio(page):
    calc = CalculatorPage(page).open()
    assert not page.is_visible("#chars_per_token")
    calc.unit("chars")
    assert page.is_visible("#chars_per_token")
    calc.set("doc", "40000")
    assert calc.result("chunks") == "23"
    calc.set("chars_per_token", "3.5")
    calc.wait_core_numbers()
    expected = plan(tokens_from_chars(40_000, 3.5), 512, 64)
    assert calc.result("total") == f"{expected.total_tokens:,}"
    assert f"{expected.doc_tokens:,} tokens estimated from characters" in page.inner_text("#r-detail")


def test_price_gives_the_cost(page):
    calc = CalculatorPage(page).open()
    assert calc.result("cost") == "enter a price"
    calc.set("doc", "1000000000")
    calc.set("price", "0.02")
    calc.wait_core_numbers()
    expected = plan(10**9, 512, 64, 0.02)
    assert calc.result("cost") == f"{expected.cost:,.2f} at 0.02 per million tokens"


BAD_INPUTS = [
    ("doc", "", "doc", "document length is empty: enter a number"),
    ("doc", "ten", "doc", "document length (ten) is not a number: enter digits, e.g. 10000"),
    ("doc", "-5", "doc", "document length (-5) must be at least 1: enter a larger number"),
    ("doc", "1e15", "doc", "document length (1e15) is too large: enter at most 1,000,000,000,000"),
    ("doc", "100.5", "doc", "document length (100.5) must be a whole number of tokens: round it"),
    ("chunk_size", "0", "size", "chunk size (0) must be at least 1: enter a larger number"),
    ("chunk_size", "-512", "size", "chunk size (-512) must be at least 1: enter a larger number"),
    ("chunk_size", "512.5", "size", "chunk size (512.5) must be a whole number of tokens: round it"),
    ("chunk_size", "abc", "size", "chunk size (abc) is not a number: enter digits, e.g. 512"),
    ("overlap", "512", "overlap", "overlap (512) must be smaller than chunk size (512): lower the overlap"),
    ("overlap", "600", "overlap", "overlap (600) must be smaller than chunk size (512): lower the overlap"),
    ("overlap", "-1", "overlap", "overlap (-1) must be at least 0: enter a larger number"),
    ("price", "-0.5", "price", "price per million tokens (-0.5) must be at least 0: enter a larger number"),
    ("price", "free", "price", "price per million tokens (free) is not a number: enter digits, e.g. 0.02"),
]


@pytest.mark.parametrize(("field", "value", "slot", "message"), BAD_INPUTS)
def test_bad_input_shows_its_message_next_to_the_field(page, field, value, slot, message):
    calc = CalculatorPage(page).open()
    calc.set(field, value)
    calc.wait_core_numbers()
    assert calc.error(slot) == f"⚠ {message}" or calc.error(slot) == message
    assert page.get_attribute(f"#{field}", "aria-invalid") is not None
    assert calc.result("chunks") == "—"
    body = page.inner_text("body")
    assert "NaN" not in body and "undefined" not in body and "Infinity" not in body
    calc.set(field, {"doc": "10000", "chunk_size": "512", "overlap": "64", "price": ""}[field])
    assert calc.result("chunks") == "23"
    assert calc.error(slot) == ""


def test_ratio_errors_in_chars_mode(page):
    calc = CalculatorPage(page).open()
    calc.unit("chars")
    calc.set("chars_per_token", "0")
    calc.wait_core_numbers()
    assert "characters per token (0) must be greater than 0" in calc.error("ratio")
    assert calc.result("chunks") == "—"


def test_the_calculator_answers_without_python(context, watch):
    """Typing gives answers from the JS mirror even when the Python runtime cannot load."""
    context.route(re.compile(r".*/pyodide\.asm\.wasm$"), lambda route: route.abort())
    watch.allow_console.extend(["pyodide.asm.wasm", "net::ERR_FAILED", "Failed to load resource"])
    page = context.new_page()
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    page.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    calc = CalculatorPage(page).open(wait_ready=False)
    page.wait_for_selector('#core-status[data-state="failed"]')
    assert "could not start" in page.inner_text("#core-stage")
    calc.set("chunk_size", "1000")
    calc.set("overlap", "100")
    assert calc.result("chunks") == f"{plan(10_000, 1000, 100).chunks:,}"
    assert page.get_attribute("#results", "data-source") == "page"
    calc.set("overlap", "1000")
    assert "must be smaller than chunk size" in calc.error("overlap")
    watch.check()
