"""Real text in the page: exact tokens (equal to CPython's), windows, encodings, files."""

from __future__ import annotations

import unicodedata

import pytest

from pages import CalculatorPage, paste_large
from ragchunk import get_tokenizer, windows

MULTILINGUAL = (
    "# Chunking guide\n\nRetrieval-augmented generation splits documents into chunks. "
    "Привет, мир! Это проверка токенизации: ёжик, съешь же ещё этих мягких булок.\n"
    "नमस्ते दुनिया। यह हिंदी का एक वाक्य है॥ "
    "日本語のテキストと中文文本。한국어 문장도 있습니다. "
    "Emoji: 👋🏽 👨‍👩‍👧‍👦 🇺🇦 ✨ — combining: é (e\u0301), Z\u0351\u036b\u0343a\u0310l\u0352go. "
    "Code: `def f(x): return x ** 2  # 𝛼` and <|endoftext|> and <|fim_prefix|> as plain text.\n"
) * 12




LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 100_000


def change_while_a_paste_loads(tool, change, as_file: bool = False) -> str:
    """Paste :data:`LOREM` (5.7 MB, kept out of the box; ``as_file``: choose it as lorem.txt), do
    ``change`` while it is still on its way into the core, and wait until the tool has
    answered; returns the text."""
    before = tool.finished()
    if as_file:
        tool.page.set_input_files("#file", files=[{"name": "lorem.txt", "mimeType": "text/plain",
                                                   "buffer": LOREM.encode()}])
    else:
        paste_large(tool.page, LOREM)
    tool.page.wait_for_selector("#cancel:visible")
    change()
    tool.page.wait_for_function("n => Number(document.querySelector('#drop').dataset.analyses) > n", arg=before)
    tool.page.wait_for_selector("#cancel", state="hidden")
    return LOREM


def expected_windows(text: str, size: int, overlap: int, encoding: str = "cl100k_base"):
    return windows(text, size, overlap, get_tokenizer(encoding))


def test_pasted_text_is_counted_exactly_like_cpython(page, watch):
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "40")
    calc.set("overlap", "8")
    calc.paste(MULTILINGUAL)
    tokenizer = get_tokenizer("cl100k_base")
    count = tokenizer.count(MULTILINGUAL)
    assert calc.token_count() == count
    assert page.input_value("#doc") == str(count)
    assert page.is_checked('input[name="unit"][value="tokens"]')
    calc.wait_core_numbers()
    assert "Exact token count" in page.inner_text("#doc-hint")
    ratio = len(MULTILINGUAL) / count
    assert f"{ratio:.2f}" in page.inner_text("#t-ratio")

    shown = calc.windows()
    cut = expected_windows(MULTILINGUAL, 40, 8)
    assert len(shown) == 5
    assert f"(5 of {len(cut)})" in page.inner_text("#preview-title")
    for seen, window in zip(shown, cut):
        assert seen["text"] == window.text
        assert seen["head"] == MULTILINGUAL[window.start : window.overlap_end]
        assert seen["tokens"] == window.tokens
        assert "\ufffd" not in seen["text"]
    assert shown[0]["head"] == "" and all(w["head"] for w in shown[1:])
    # A length typed over the count is no longer the text's exact count (before, the hint still said so).
    calc.set("doc", "5000")
    assert page.inner_text("#doc-hint") == "Tokens of your document (pasting text below fills in the exact count)."
    # No request carries the text, or any piece of it.
    for request in watch.requests:
        assert "Привет" not in request.url and "Chunking" not in request.url
        assert not request.post_data


def test_the_status_says_token_for_one_and_tokens_for_more(page):
    calc = CalculatorPage(page).open()
    calc.paste("Hello")
    assert calc.text_status() == "1 token, 5 characters."
    calc.paste("Hello world")
    assert calc.text_status() == "2 tokens, 11 characters."


def test_overlap_is_highlighted_with_more_than_colour(page):
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "30")
    calc.set("overlap", "10")
    calc.paste(MULTILINGUAL)
    mark = page.locator("#windows li:nth-child(2) mark.overlap")
    assert mark.count() == 1
    style = mark.evaluate(
        "m => ({bg: getComputedStyle(m).backgroundColor, outline: getComputedStyle(m).outlineStyle,"
        " before: getComputedStyle(m, '::before').content})"
    )
    assert style["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert style["outline"] == "dashed"
    assert "↩" in style["before"]
    assert page.locator("#windows li:nth-child(1) mark.overlap").count() == 0


def test_show_more_appends_the_next_windows(page):
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "20")
    calc.set("overlap", "5")
    calc.paste(MULTILINGUAL)
    page.click("#more")
    page.wait_for_function("() => document.querySelectorAll('#windows li').length === 10")
    cut = expected_windows(MULTILINGUAL, 20, 5)
    assert [w["text"] for w in calc.windows()] == [w.text for w in cut[:10]]
    assert page.inner_text("#more") == "Show 5 more"


def test_changing_chunk_settings_recuts_the_preview(page):
    calc = CalculatorPage(page).open()
    calc.paste(MULTILINGUAL)
    calc.after_request(lambda: calc.set("overlap", "0"))
    calc.after_request(lambda: calc.set("chunk_size", "25"))
    # An invalid pair does not re-cut: the last valid preview stays.
    calc.set("overlap", "30")
    assert "must be smaller than chunk size" in calc.error("overlap")
    calc.set("overlap", "0")
    cut = expected_windows(MULTILINGUAL, 25, 0)
    assert [w["text"] for w in calc.windows()] == [w.text for w in cut[:5]]


@pytest.mark.fresh_core  # what the first use of an encoding fetches
@pytest.mark.parametrize("encoding", ["o200k_base", "p50k_base", "r50k_base", "llama3", "qwen2", "deepseek"])
def test_switching_encoding_loads_its_table_lazily(page, watch, encoding):
    # MULTILINGUAL is not in NFC (e + U+0301 composes): qwen2 counts its NFC, and its windows
    # are slices of the text as pasted, as on CPython.
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "40")
    calc.set("overlap", "8")
    calc.paste(MULTILINGUAL)
    def tables():
        return [r.url.rsplit("/", 1)[-1] for r in watch.requests if "/encoders/" in r.url]

    assert tables() == ["cl100k_base.json"]
    calc.after_request(lambda: page.select_option("#encoding", encoding))
    assert tables() == ["cl100k_base.json", f"{encoding}.json"]
    assert not unicodedata.is_normalized("NFC", MULTILINGUAL)
    expected = get_tokenizer(encoding).count(MULTILINGUAL)
    assert expected != get_tokenizer("cl100k_base").count(MULTILINGUAL)
    assert calc.token_count() == expected
    assert page.input_value("#doc") == str(expected)
    assert [w["text"] for w in calc.windows()] == [w.text for w in expected_windows(MULTILINGUAL, 40, 8, encoding)[:5]]


def test_special_token_text_counts_as_ordinary_text(page):
    calc = CalculatorPage(page).open()
    text = "<|endoftext|> hello <|endofprompt|>" * 3
    calc.paste(text)
    assert calc.token_count() == get_tokenizer("cl100k_base").count(text)
    assert page.inner_text("#text-error") == ""


def test_whitespace_only_text_is_refused(page):
    calc = CalculatorPage(page).open()
    calc.paste("Some text")
    page.fill("#text", "   \n\t  ")
    page.wait_for_selector("#text-error:not(:empty)")
    assert "text is empty" in page.inner_text("#text-error")
    assert not page.is_visible("#preview")


def test_dropped_markdown_file_is_counted(page):
    calc = CalculatorPage(page).open()
    data = MULTILINGUAL.encode("utf-8")
    calc.after_request(
        lambda: page.evaluate(
            """bytes => {
                const file = new File([new Uint8Array(bytes)], 'guide.md', {type: 'text/markdown'});
                const transfer = new DataTransfer();
                transfer.items.add(file);
                document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
            }""",
            list(data),
        )
    )
    assert calc.token_count() == get_tokenizer().count(MULTILINGUAL)
    assert calc.text_status().startswith("guide.md:")


@pytest.mark.parametrize(
    ("name", "data", "what"),
    [
        # (a PDF is read by its reader, not refused: tests/e2e/test_readers.py)
        ("notes.db", b"SQLite format 3\x00" + bytes(84), "an SQLite database"),
        ("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), "a PNG image"),
        ("archive.md", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(40), "a ZIP archive"),
        ("blob.bin", bytes(range(256)) * 4, "a binary file"),
    ],
)
def test_binary_files_are_refused_and_named(page, name, data, what):
    calc = CalculatorPage(page).open()
    calc.choose_file(name, data, "application/octet-stream")
    error = page.inner_text("#text-error")
    assert name in error and what in error and "not text" in error
    assert not page.is_visible("#text-stats")


def test_invalid_utf8_is_decoded_with_replacement_and_said(page):
    calc = CalculatorPage(page).open()
    data = "Café au lait, naïve résumé. ".encode() * 3 + b"caf\xe9 \xff\xfe broken" + b" end"
    calc.choose_file("latin1.txt", data)
    text = data.decode("utf-8", errors="replace")
    assert calc.token_count() == get_tokenizer().count(text)
    notes = page.inner_text("#text-notes")
    assert "latin1.txt is not valid UTF-8" in notes and "replaced" in notes


def test_cancel_stops_a_long_tokenization_and_the_tool_recovers(page):
    calc = CalculatorPage(page).open()
    paste_large(page, "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 160_000)
    page.wait_for_selector("#cancel:visible")
    page.keyboard.press("Escape")
    page.wait_for_selector("#text-status:has-text('Cancelled')")
    assert not page.is_visible("#text-stats")
    calc.wait_ready()
    calc.paste("Short text after a cancel.")
    assert calc.token_count() == get_tokenizer().count("Short text after a cancel.")


def test_a_large_paste_is_counted_without_filling_the_box(page):
    calc = CalculatorPage(page).open()
    text = MULTILINGUAL * 50
    assert len(text) > 200_000
    calc.record_status()
    calc.after_request(lambda: paste_large(page, text))
    assert calc.token_count() == get_tokenizer().count(text)
    assert page.input_value("#text") == ""
    assert "kept out of the box" in calc.text_status()
    # Before, a paste was "Reading the file…" while it loaded.
    assert "Reading the text…" in calc.statuses() and not any("file" in said for said in calc.statuses())
    assert [w["text"] for w in calc.windows()] == [w.text for w in expected_windows(text, 512, 64)[:5]]


def test_a_setting_changed_while_a_large_paste_loads_applies_to_that_paste(page):
    # The new document is on its way (loading, then counting) when the tokenizer changes: it is
    # counted again with the new one. It used to be dropped, and the old text recounted.
    calc = CalculatorPage(page).open()
    calc.paste("short text A")
    text = change_while_a_paste_loads(calc, lambda: page.select_option("#encoding", "o200k_base"))
    assert calc.token_count() == get_tokenizer("o200k_base").count(text)
    assert "kept out of the box" in calc.text_status()


def test_a_run_of_letters_too_long_for_the_page_is_refused_in_words(page):
    # 30,000 letters with no break: the WASM encoder would take minutes (and fails past a million).
    calc = CalculatorPage(page).open()
    calc.paste("a" * 30_000)
    assert page.inner_text("#text-error") == (
        "the text holds a run of 30,000 letters with no space, digit or punctuation; the page counts runs of up to"
        " 20,000: count it with the command line (python -m ragchunk tokens FILE)")
    calc.paste("Short text after it.")
    assert calc.token_count() == get_tokenizer().count("Short text after it.")
