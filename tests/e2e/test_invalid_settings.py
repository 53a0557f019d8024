"""A setting that turns invalid: what needs it goes blank, what does not stays, and nothing
out of date can be downloaded.

The calculator's files keep their tokens (counting needs no chunk settings) and dash only
their chunks; the splitter marks the last chunks as out of date and turns its downloads
off until the settings are valid again, so a download never holds chunks of other settings.
A file refused while a new setting's split waits is named as the reason, not the settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pages import CalculatorPage, SplitterPage, number
from ragchunk import get_tokenizer, plan, split
from ragchunk.errors import RagchunkError
from ragchunk.readers.formats import read_document
from ragchunk.results.records import Document, to_jsonl

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "md"
FILES = {"a.md": (DOCS / "ws-README.md").read_text(encoding="utf-8"), "b.txt": "A short note about chunks.\n"}
STALE = ("Out of date: these chunks were made with the settings before your last change, which the page cannot"
         " use. Fix the setting marked above to split again; until then the downloads are off.")
REFUSED = ("Out of date: these chunks were made with the settings before your last change. {name} was refused before"
           " they were split again (the reason is above). Choose another file, or change a setting to split this"
           " document again; until then the downloads are off.")
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256))


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


def refuse_a_file_before_the_new_size_splits(page, query: str = "") -> tuple[SplitterPage, list[dict]]:
    """Split a text, type a new size and, before its split goes out (the page waits for typing
    to pause), drop a picture; the page object and the cards shown before.

    The page's clock stands still from the new size until the picture is answered: however
    slowly this machine reads the drop, the size's split cannot go out first.
    """
    page.clock.install()
    splitter = SplitterPage(page).open(query=query)
    splitter.after_request(lambda: page.fill("#text", FILES["a.md"]))
    before = splitter.cards()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    page.fill("#chunk_size", "256")
    splitter.drop_file("photo.png", PICTURE)
    page.clock.resume()
    return splitter, before


def looks(page, selector: str) -> dict[str, str]:
    return page.eval_on_selector(selector, "b => { const s = getComputedStyle(b);"
                                           " return {cursor: s.cursor, color: s.color, borderStyle: s.borderTopStyle}; }")


def test_a_file_refused_before_a_new_setting_split_is_named_as_the_reason(page):
    text = FILES["a.md"]
    with pytest.raises(RagchunkError) as caught:
        read_document(PICTURE, "photo.png")
    splitter, before = refuse_a_file_before_the_new_size_splits(page)
    assert splitter.errors() == {"text-error": caught.value.message}
    assert page.inner_text("#stale-note") == REFUSED.format(name="photo.png")
    assert splitter.cards() == before
    assert page.is_disabled("#download") and page.is_disabled("#download-langchain")
    off = looks(page, "#download")

    # The document before stays in the core: the next setting splits it, and the chunks are fresh.
    splitter.set("overlap", "32")
    assert not page.is_visible("#stale-note")
    assert splitter.stat("chunks") == f"{len(split(text, by='headings', size=256, overlap=32).chunks):,}"
    assert page.is_enabled("#download") and page.is_enabled("#download-langchain")
    # Before, a disabled download looked like an enabled one.
    on = looks(page, "#download")
    assert off["cursor"] == "not-allowed" and on["cursor"] == "pointer"
    assert off["color"] != on["color"] and off["borderStyle"] != on["borderStyle"]

    # A setting the core refuses afterwards is the settings' fault again.
    splitter.set("overlap", "600")
    assert page.inner_text("#stale-note") == STALE


def test_the_refused_file_note_is_in_the_page_language(page):
    refuse_a_file_before_the_new_size_splits(page, "?lang=ru")
    assert page.inner_text("#stale-note") == (
        "Устарело: эти чанки получены с настройками до вашего последнего изменения. photo.png пришёл до того, как их"
        " разбили заново, и не принят (причина указана выше). Выберите другой файл или измените настройку, чтобы"
        " разбить этот документ снова; до тех пор скачивание недоступно.")
    assert "photo.png" in page.inner_text("#text-error")
