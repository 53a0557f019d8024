"""The text splitter page: same chunks as the core and the CLI, virtual list, JSONL download."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pages import SplitterPage
from ragchunk import CharEstimate, split
from ragchunk.results.records import Document, to_jsonl

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "md"
WS = (DOCS / "ws-README.md").read_text(encoding="utf-8")


def cli_split(path: Path, *flags: str) -> str:
    """``ragchunk split NAME`` run where the file is, as a person would (records name it as given)."""
    result = subprocess.run(
        [sys.executable, "-m", "ragchunk", "split", path.name, *flags],
        capture_output=True, text=True, check=True, cwd=path.parent,
        env={"PYTHONPATH": str(ROOT / "pycore"), "PATH": "/usr/bin:/bin"},
    )
    return result.stdout


def test_dropped_markdown_splits_like_the_core(page):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    expected = split(WS, by="headings", size=512, overlap=64, tokenizer="cl100k_base")
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert splitter.stat("total") == f"{expected.stats.total_tokens:,}"
    cards = splitter.cards()
    assert cards, "the list shows cards"
    for card in cards:
        chunk = expected.chunks[card["id"]]
        assert card["text"] == chunk.text
        assert card["head"] == WS[chunk.start : chunk.content_start]
        assert f"{chunk.tokens:,} tokens" in card["meta"]
        if chunk.heading_path:
            assert " › ".join(chunk.heading_path) in card["meta"]
        # What the statistics count: before, a card said only its text's tokens.
        assert ("embedded with its context" in card["meta"]) == (chunk.embedded_tokens != chunk.tokens)
        if chunk.embedded_tokens != chunk.tokens:
            assert f"embedded with its context: {chunk.embedded_tokens:,} tokens" in card["meta"]
    assert any(chunk.embedded_tokens != chunk.tokens for chunk in expected.chunks[: len(cards)])
    bins = page.locator("#histogram li")
    assert bins.count() == len(expected.stats.histogram)
    # Bars are as long as their counts: the fullest bin spans the track, an empty one is not drawn.
    widths = page.eval_on_selector_all(
        "#histogram .bin-bar", "bars => bars.map(b => b.getBoundingClientRect().width / b.parentElement.clientWidth)")
    counts = [b.count for b in expected.stats.histogram]
    assert 0 in counts, "this document has an empty bin"
    for width, count in zip(widths, counts, strict=True):
        assert (width == 0) == (count == 0), (widths, counts)
    assert widths.index(max(widths)) == counts.index(max(counts))
    assert "exact cl100k_base token counts" in page.inner_text("#s-tokenizer")


def test_the_status_says_chunk_for_one_and_chunks_for_more(page):
    splitter = SplitterPage(page).open()
    text = "# Title\n\nOne paragraph. Two sentences."
    splitter.after_request(lambda: page.fill("#text", text))
    assert page.inner_text("#text-status") == f"1 chunk from {len(text)} characters."
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    chunks = len(split(WS, by="headings", size=512, overlap=64, tokenizer="cl100k_base").chunks)
    assert page.inner_text("#text-status") == f"ws-README.md: {chunks:,} chunks from {len(WS):,} characters."


def test_settings_resplit_and_the_estimate(page):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    splitter.select("by", "sentences")
    splitter.set("chunk_size", "64")
    splitter.set("overlap", "8")
    expected = split(WS, by="sentences", size=64, overlap=8, tokenizer="cl100k_base")
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert [c["text"] for c in splitter.cards()][:3] == [c.text for c in expected.chunks[:3]]
    splitter.select("sizer", "estimate")
    assert page.is_visible("#chars_per_token")
    splitter.set("chars_per_token", "3")
    estimate = split(WS, by="sentences", size=64, overlap=8, tokenizer=CharEstimate(3))
    assert splitter.stat("chunks") == f"{len(estimate.chunks):,}"
    assert "estimates at 3 characters per token" in page.inner_text("#s-tokenizer")


def test_sections_apart_by_default_and_packed_sections_are_named_on_their_card(page):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    splitter.set("chunk_size", "256")
    assert page.input_value("#siblings") == "apart"
    apart = split(WS, size=256, overlap=32, tokenizer="cl100k_base")
    assert splitter.stat("chunks") == f"{len(apart.chunks):,}"
    splitter.select("siblings", "pack")
    packed = split(WS, size=256, overlap=32, tokenizer="cl100k_base", siblings="pack")
    assert splitter.stat("chunks") == f"{len(packed.chunks):,}" != f"{len(apart.chunks):,}"
    cards = splitter.cards()
    several = [c for c in cards if len(packed.chunks[c["id"]].sections) > 1]
    assert several, "a card of several sections is on screen"
    for card in cards:
        chunk = packed.chunks[card["id"]]
        assert (" sections: " in card["meta"]) == (len(chunk.sections) > 1), card["meta"]
        if len(chunk.sections) > 1:
            assert f" · {len(chunk.sections)} sections: " in card["meta"]
            assert " › ".join(chunk.sections[-1][len(chunk.heading_path):]) in card["meta"]


def test_the_pages_overlap_follows_the_size_until_a_person_types_one(page):
    splitter = SplitterPage(page).open()
    assert page.input_value("#overlap") == "64"
    page.fill("#chunk_size", "128")
    assert page.input_value("#overlap") == "16"  # an eighth, the library's default
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    assert splitter.stat("chunks") == f"{len(split(WS, size=128).chunks):,}"
    splitter.set("overlap", "10")
    splitter.set("chunk_size", "256")
    assert page.input_value("#overlap") == "10"  # a person's own number stays
    SplitterPage(page).open(query="?size=256&overlap=64")  # a link's overlap is a person's too
    assert (page.input_value("#chunk_size"), page.input_value("#overlap")) == ("256", "64")
    SplitterPage(page).open(query="?size=256")
    assert page.input_value("#overlap") == "32"
    # A size past the page's limit is the size's error alone: the overlap does not follow it
    # (it had become 12,499,999, "too large" too, a fix that was not the person's to make).
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    page.fill("#chunk_size", "99999999")
    page.wait_for_selector("#size-error:not(:empty)")
    assert page.input_value("#overlap") == "32"
    assert set(splitter.errors()) == {"size-error"}, splitter.errors()
    # The error names the field by the words its label shows.
    label = page.inner_text('label[for="chunk_size"]').removesuffix(" (tokens)").lower()
    assert label == "chunk size" and splitter.errors()["size-error"].startswith(f"{label} (99999999) is too large")
    page.fill("#chunk_size", "1024")
    assert page.input_value("#overlap") == "128"  # and follows again once the size is one the page takes


def test_thousands_of_chunks_render_only_what_is_visible(page):
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "16")
    page.fill("#overlap", "0")
    text = WS * 6
    splitter.choose_file("big.md", text.encode("utf-8"))
    expected = split(text, by="headings", size=16, overlap=0, tokenizer="cl100k_base")
    assert len(expected.chunks) > 1000
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert page.locator("#chunk-list .chunk-card").count() < 40
    page.eval_on_selector("#chunk-list", "list => { list.scrollTop = list.scrollHeight; }")
    last = len(expected.chunks) - 1
    # Drawn, and its chunk come from the worker (a card waiting for it has no text yet).
    page.wait_for_selector(f'#chunk-list .chunk-card[data-id="{last}"]:not([data-pending])')
    card = [c for c in splitter.cards_loaded() if c["id"] == last][0]
    assert card["text"] == expected.chunks[last].text
    assert page.locator("#chunk-list .chunk-card").count() < 40


def test_download_equals_the_cli_output(page, tmp_path):
    splitter = SplitterPage(page).open()
    path = DOCS / "pyparsing-best_practices.md"
    page.select_option("#by", "paragraphs")
    splitter.choose_file(path.name, path.read_bytes())
    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename == "pyparsing-best_practices.chunks.jsonl"
    saved = tmp_path / "chunks.jsonl"
    download.save_as(saved)
    expected = cli_split(path, "--by", "paragraphs", "--size", "512", "--overlap", "64")
    assert saved.read_text(encoding="utf-8") == expected
    text = path.read_text(encoding="utf-8")
    assert expected == to_jsonl(split(text, by="paragraphs", size=512, overlap=64), Document(path.name, text))


@pytest.mark.parametrize(
    ("field", "value", "slot", "message"),
    [
        ("chunk_size", "0", "size", "chunk size (0) must be at least 1"),
        ("chunk_size", "big", "size", "chunk size (big) is not a number"),
        ("overlap", "600", "overlap", "overlap (600) must be smaller than chunk size (512)"),
    ],
)
def test_bad_settings_show_a_message_next_to_the_field(page, field, value, slot, message):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    splitter.set(field, value)
    assert message in page.inner_text(f"#{slot}-error")


def test_binary_file_is_refused(page):
    splitter = SplitterPage(page).open()
    splitter.choose_file("photo.png", b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
    assert "photo.png is a PNG image, not text" in page.inner_text("#text-error")
    assert not page.is_visible("#split-results")
    splitter.choose_file("slides.pdf", b"%PDF-1.5\n%\xb5\xb5\xb5\xb5\n" + bytes(100), "application/pdf")
    assert page.inner_text("#text-error").startswith("slides.pdf is damaged or truncated and cannot be read as a PDF")
    assert not page.is_visible("#split-results")


def test_leaving_a_box_after_typing_does_not_split_again(page):
    """Typing re-splits; the box's change event when the focus leaves it must not split the
    same document again (which threw the list back to its first chunk)."""
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "64")
    page.fill("#overlap", "8")
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    finished, status = splitter.finished(), page.inner_text("#text-status")
    page.eval_on_selector("#chunk-list", "list => { list.scrollTop = 5 * 208; }")
    page.wait_for_selector('#chunk-list .chunk-card[data-id="9"]')
    page.click("#by")  # the focus leaves #overlap: its change event fires
    # A timer set now fires after the page's re-split debounce (set at the change): by then a
    # re-split would have started (status "Splitting…") or finished (one more request).
    page.evaluate("async () => { const { TEXT_DEBOUNCE_MS } = await import('./ui/document.js');"
                  " await new Promise(done => setTimeout(done, TEXT_DEBOUNCE_MS + 100)); }")
    assert (splitter.finished(), page.inner_text("#text-status")) == (finished, status)
    assert page.eval_on_selector("#chunk-list", "list => list.scrollTop") == 5 * 208


@pytest.mark.parametrize("as_file", [False, True])
def test_a_setting_changed_while_a_large_paste_loads_applies_to_that_paste(page, as_file):
    # A new overlap while the pasted text is on its way: that text is split with it (the old
    # document was split again under the new text's name).
    from test_text import change_while_a_paste_loads

    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", "A short first document. It has two sentences."))
    text = change_while_a_paste_loads(splitter, lambda: page.fill("#overlap", "10"), as_file)
    expected = split(text, size=512, overlap=10)
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    status = page.inner_text("#text-status")
    assert ("lorem.txt" if as_file else "kept out of the box") in status
    assert f"{len(expected.chunks):,} chunks from {len(text):,} characters" in status


def test_the_front_matter_title_is_shown_and_names_the_chunks(page):
    splitter = SplitterPage(page).open()
    text = ("---\ntitle: 'Getting started: it''s easy'  # the page's title\nsidebar_position: 2\n---\n\n"
            "Install the tool. Then run it on your files.\n")
    splitter.after_request(lambda: page.fill("#text", text))
    assert page.is_visible("#s-title") and page.inner_text("#s-title") == "Getting started: it's easy"
    assert [c["text"] for c in splitter.cards()] == ["Install the tool. Then run it on your files."]
    assert "---" not in page.inner_text("#chunk-list") and "sidebar_position" not in page.inner_text("#chunk-list")
    splitter.after_request(lambda: page.fill("#text", "# Plain\n\nNo front matter here."))
    assert not page.is_visible("#s-title")


def test_a_long_document_title_takes_the_row_and_at_most_two_lines(page):
    splitter = SplitterPage(page).open()
    title = " ".join(["A very long title of a page that goes on"] * 12)
    splitter.after_request(lambda: page.fill("#text", f"---\ntitle: {title}\n---\n\nOne sentence here.\n"))
    assert page.get_attribute("#s-title", "title") == title, "the whole title in the tooltip"
    assert page.inner_text("#s-title") == title, "the text itself is whole (clipped by CSS only)"
    row, tile = page.locator("#s-title-row").bounding_box(), page.locator("#s-chunks").locator("..").bounding_box()
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#s-title')).lineHeight) "
                         "|| 1.2 * parseFloat(getComputedStyle(document.querySelector('#s-title')).fontSize)")
    shown = page.locator("#s-title").bounding_box()["height"]
    assert shown <= 2 * line + 1, (shown, line)
    assert row["width"] >= page.locator("#split-stats").bounding_box()["width"] - 1, "the title takes the whole row"
    assert row["height"] < 2.5 * tile["height"], (row, tile)
