"""A setting that turns invalid: what needs it goes blank, what does not stays, and nothing
out of date can be downloaded.

The calculator's files keep their tokens (counting needs no chunk settings) and dash only
their chunks; the splitter marks the last chunks as out of date and turns its downloads
off until the settings are valid again, so a download never holds chunks of other settings.
"""

from __future__ import annotations

from pathlib import Path

from pages import CalculatorPage, number
from ragchunk import get_tokenizer, plan

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "md"
FILES = {"a.md": (DOCS / "ws-README.md").read_text(encoding="utf-8"), "b.txt": "A short note about chunks.\n"}


def test_the_files_keep_their_tokens_while_a_chunk_setting_is_invalid(page):
    tokens = {name: get_tokenizer("cl100k_base").count(text) for name, text in FILES.items()}
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "abc")
    calc.wait_core_numbers()
    calc.choose_files([(name, text.encode()) for name, text in FILES.items()])
    # Chosen while the size is invalid: every file with its tokens, its chunks a dash.
    assert calc.rows("#files-table tbody tr") == [
        [name, f"{len(text):,}", f"{tokens[name]:,}", "—", ""] for name, text in FILES.items()]
    assert calc.rows("#files-table tfoot tr") == [[
        "All: 2 documents, 0 skipped", f"{sum(len(t) for t in FILES.values()):,}", f"{sum(tokens.values()):,}", "—", ""]]
    assert (page.inner_text("#f-documents"), number(page.inner_text("#f-tokens"))) == ("2", sum(tokens.values()))
    assert page.inner_text("#f-chunks") == "—"

    calc.set("chunk_size", "100")
    chunks = {name: plan(n, 100, 64).chunks for name, n in tokens.items()}
    page.wait_for_function("n => document.querySelector('#files-chunks').textContent === n",
                           arg=f"{sum(chunks.values()):,}")
    assert [row[3] for row in calc.rows("#files-table tbody tr")] == [f"{chunks[name]:,}" for name in FILES]

    # Invalid again once the rows are there: their chunk counts go, their tokens stay.
    calc.set("overlap", "600")
    page.wait_for_function("() => document.querySelector('#files-chunks').textContent === '—'")
    assert calc.rows("#files-table tbody tr") == [
        [name, f"{len(text):,}", f"{tokens[name]:,}", "—", ""] for name, text in FILES.items()]
    assert number(page.inner_text("#f-tokens")) == sum(tokens.values())
    assert page.inner_text("#f-chunks") == "—"
