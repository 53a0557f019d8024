"""A setting that turns invalid: what needs it goes blank, what does not stays, and nothing
out of date can be downloaded.

The calculator's files keep their tokens (counting needs no chunk settings) and dash only
their chunks; the splitter marks the last chunks as out of date and turns its downloads
off until the settings are valid again, so a download never holds chunks of other settings.
"""

from __future__ import annotations

from pathlib import Path

from pages import CalculatorPage, SplitterPage, number
from ragchunk import get_tokenizer, plan, split
from ragchunk.records import Document, to_jsonl

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "md"
FILES = {"a.md": (DOCS / "ws-README.md").read_text(encoding="utf-8"), "b.txt": "A short note about chunks.\n"}
STALE = ("Out of date: these chunks were made with the settings before your last change, which the page cannot"
         " use. Fix the setting marked above to split again; until then the downloads are off.")


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


def test_the_last_chunks_are_marked_out_of_date_and_cannot_be_downloaded(page, tmp_path):
    text = FILES["a.md"]
    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", text))
    assert not page.is_visible("#stale-note")
    assert page.is_enabled("#download") and page.is_enabled("#download-langchain")

    splitter.set("overlap", "600")
    assert page.inner_text("#overlap-error").startswith("overlap (600) must be smaller than chunk size (512)")
    assert page.is_visible("#stale-note") and page.inner_text("#stale-note") == STALE
    assert page.is_disabled("#download") and page.is_disabled("#download-langchain")

    splitter.set("overlap", "32")
    assert not page.is_visible("#stale-note")
    assert page.is_enabled("#download") and page.is_enabled("#download-langchain")
    name, saved = splitter.download("#download")
    assert name == "document.chunks.jsonl"
    # The chunks of the settings shown (a pasted text's records name no source).
    assert saved.decode("utf-8") == to_jsonl(split(text, by="headings", size=512, overlap=32), Document("", text))

    # A corpus: the same while a re-split of every document is refused.
    splitter.choose_files([(name, data.encode()) for name, data in FILES.items()])
    assert page.is_enabled("#download")
    splitter.set("chunk_size", "0")
    assert page.is_visible("#stale-note")
    assert page.is_disabled("#download") and page.is_disabled("#download-langchain")
    splitter.set("chunk_size", "256")
    assert not page.is_visible("#stale-note") and page.is_enabled("#download")
