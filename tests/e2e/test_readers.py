"""Documents made by real tools in the page: HTML, Word, EPUB, PDF, notebooks and
reStructuredText (the fixtures of tests/unit/test_readers*.py and test_pdf_reader.py).

The text the page says it read is CPython's reader output for those bytes; the chunks,
their count and the JSONL download are the library's and the command line's (with the
PDF's pages and the HTML's anchors). Damaged, encrypted and zip-bomb files get one message
that names the file, and the document before stays. Heading context ("Its heading path,
then the chunk") gives embed texts within the size, as ``--context headings`` does. The
comparison of the ways of cutting shows the core's ``compare`` figures.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from pages import CalculatorPage, SplitterPage
from ragchunk import CharEstimate, SplitOptions, get_model, get_tokenizer, split, split_document
from ragchunk.results.compare import compare
from ragchunk.readers.formats import read_document
from ragchunk.settings import DEFAULT_CHARS_PER_TOKEN
from shown import fixed, integer, percent
from test_binary import EN, calculator_state, refusal, splitter_state
from test_splitter import cli_split

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "docs"
PDFS = ROOT / "tests" / "data" / "pdf"
MD = ROOT / "tests" / "data" / "md"
GUIDE_MD = DOCS / "guide.md"
SIZE, OVERLAP = 64, 8
SETTINGS = ("--by", "headings", "--size", str(SIZE), "--overlap", str(OVERLAP))

# name -> (path, how it comes into the page). Each was made by a real tool (make_fixtures.sh,
# tests/data/pdf/make_fixtures.py): pandoc, LibreOffice, nbformat, Chromium's PDF printer.
FILES = {
    "guide.html": (DOCS / "guide.html", "choose"),
    "guide.docx": (DOCS / "guide.docx", "drop"),
    "guide-lo.docx": (DOCS / "guide-lo.docx", "choose"),
    "guide.epub": (DOCS / "guide.epub", "drop"),
    "analysis.ipynb": (DOCS / "analysis.ipynb", "choose"),
    "guide.rst": (DOCS / "guide.rst", "drop"),
    "outline.pdf": (PDFS / "outline.pdf", "choose"),
    "columns.pdf": (PDFS / "columns.pdf", "drop"),
}


def give(view, name: str, data: bytes, how: str) -> None:
    if how == "drop":
        view.drop_file(name, data)
    else:
        view.choose_file(name, data, "application/octet-stream")


def small_chunks(page) -> None:
    """Chunks of 64 tokens with 8 of overlap, set before any document (nothing to re-split yet)."""
    page.fill("#chunk_size", str(SIZE))
    page.fill("#overlap", str(OVERLAP))


# --- documents of every format -----------------------------------------------------------------


@pytest.mark.parametrize("name", list(FILES))
def test_a_document_is_read_and_split_like_the_library(page, tmp_path, name):
    path, how = FILES[name]
    data = path.read_bytes()
    extracted = read_document(data, name)
    expected = split_document(name, data, SplitOptions(by="headings", size=SIZE, overlap=OVERLAP))
    assert not expected.error and expected.chunks > 1
    splitter = SplitterPage(page).open()
    small_chunks(page)
    give(splitter, name, data, how)
    assert splitter.errors() == {}
    assert page.inner_text("#text-status") == (
        f"{name}: {integer(expected.chunks)} chunks from {integer(len(extracted.text))} characters.")
    assert splitter.stat("chunks") == integer(expected.chunks)
    assert splitter.notes() == [note["message"] for note in extracted.notes]
    # What the page says it read from the file is the reader's text, character for character.
    assert page.is_visible("#extracted") and not page.eval_on_selector("#extracted", "d => d.open")
    assert splitter.extracted_text() == extracted.text
    saved, text = splitter.download_text("download-text", tmp_path)
    assert (saved, text) == (f"{path.stem}.extracted.md", extracted.text)

    records = expected.records()
    cards = splitter.all_cards()
    assert [c["text"] for c in cards] == [r["text"] for r in records]
    assert [c["tokens"] for c in cards] == [r["tokens"] for r in records]
    for card, record in zip(cards, records):
        if record["heading_path"]:
            assert card["meta"].endswith(" · " + " › ".join(record["heading_path"])), card["meta"]

    saved, jsonl = splitter.download_text("download", tmp_path)
    assert saved == f"{path.stem}.chunks.jsonl"
    assert jsonl == cli_split(path, *SETTINGS) == expected.jsonl
    downloaded = [json.loads(line) for line in jsonl.splitlines()]
    assert {r["source"] for r in downloaded} == {name}
    if extracted.kind == "pdf":
        # The chunks name the pages their text is on; the page does not show them, the download has them.
        pages = {page_number for _, page_number in extracted.pages}
        assert len(pages) > 1
        for record in downloaded:
            assert record["page_start"] == extracted.page_at(record["start"])
            assert record["page_start"] <= record["page_end"] and record["page_end"] in pages
        assert {r["page_start"] for r in downloaded} == pages
    if extracted.kind == "html":
        # Each chunk names the id of the nearest heading above its new content.
        assert len({r["anchor"] for r in downloaded if r.get("anchor")}) > 2
        for record in downloaded:
            assert record.get("anchor", "") == extracted.anchor_at(record["content_start"])


@pytest.mark.parametrize("name", ["guide.html", "guide.docx", "outline.pdf", "guide.epub"])
def test_the_calculator_counts_the_text_read_from_the_file(page, name):
    path, how = FILES[name]
    data = path.read_bytes()
    text = read_document(data, name).text
    tokenizer = get_tokenizer("cl100k_base")
    count = tokenizer.count(text)
    raw = tokenizer.count(data.decode("utf-8", "replace"))
    assert count != raw
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", str(SIZE))
    calc.set("overlap", str(OVERLAP))
    give(calc, name, data, how)
    assert calc.errors() == {}
    assert calc.token_count() == count, "the tokens of the text read, not of the file's bytes"
    assert page.inner_text("#t-chars") == integer(len(text))
    assert page.inner_text("#text-status") == f"{name}: {integer(count)} tokens, {integer(len(text))} characters."
    assert page.input_value("#doc") == str(count)
    shown = calc.windows()
    assert shown and all(w["text"] in text for w in shown), "the windows are cut from the text read"


# --- files that cannot be read ------------------------------------------------------------------


def zip_bomb() -> bytes:
    """A Word document of ~20 KB whose styles part inflates to 20 MB (tests/unit/test_readers_hostile.py)."""
    namespace = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", f'<w:document xmlns:w="{namespace}"><w:body/></w:document>')
        archive.writestr("word/styles.xml", b"\0" * (20 * 1024 * 1024))
    return buffer.getvalue()


def locked_pdf() -> bytes:
    """outline.pdf encrypted by pypdf with a user password (RC4, 128 bits)."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO((PDFS / "outline.pdf").read_bytes()))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def bad_files() -> list[tuple[str, bytes, str]]:
    """(name, bytes, the message the page shows): the core's refusal in English."""
    outline = (PDFS / "outline.pdf").read_bytes()
    files = [("half.pdf", outline[: len(outline) // 2]), ("locked.pdf", locked_pdf()),
             ("guide-encrypted.docx", (DOCS / "guide-encrypted.docx").read_bytes()), ("bomb.docx", zip_bomb())]
    shown = [(name, data, refusal(EN, name, data)) for name, data in files]
    # AES needs the cryptography package, which Pyodide does not have (CPython may).
    shown.append(("aes.pdf", (PDFS / "aes.pdf").read_bytes(), EN["error.pdf_encrypted_aes"].format(name="aes.pdf")))
    return shown


def test_unreadable_files_get_one_message_and_the_splitter_keeps_its_document(page, tmp_path):
    splitter = SplitterPage(page).open()
    splitter.choose_file(GUIDE_MD.name, GUIDE_MD.read_bytes())
    before = splitter_state(page)
    assert before["visible"] and before["cards"]
    _, jsonl = splitter.download_text("download", tmp_path)
    for index, (name, data, message) in enumerate(bad_files()):
        give(splitter, name, data, "drop" if index % 2 else "choose")
        assert message.startswith(name + " ")
        assert splitter.errors() == {"text-error": message}, name
        assert splitter_state(page) == before, name
        assert page.get_attribute("#text", "aria-invalid") == "true"
        assert splitter.download_text("download", tmp_path)[1] == jsonl, "the download is still the document before"
    # The core still holds guide.md: a new size re-splits it.
    splitter.set("chunk_size", "100")
    assert splitter.errors() == {}
    overlap = int(page.input_value("#overlap"))
    assert overlap == 100 // 8, "the page's own overlap follows the size"
    assert splitter.stat("chunks") == integer(len(split(GUIDE_MD.read_text(encoding="utf-8"), size=100,
                                                        overlap=overlap).chunks))


def test_unreadable_files_get_one_message_and_the_calculator_keeps_its_document(page):
    calc = CalculatorPage(page).open()
    calc.choose_file(GUIDE_MD.name, GUIDE_MD.read_bytes())
    before = calculator_state(page)
    assert before["tokens"].startswith(integer(get_tokenizer().count(GUIDE_MD.read_text(encoding="utf-8"))))
    for index, (name, data, message) in enumerate(bad_files()):
        give(calc, name, data, "drop" if index % 2 else "choose")
        assert calc.errors() == {"text-error": message}, name
        assert calculator_state(page) == before, name


# --- heading context ---------------------------------------------------------------------------


def test_heading_context_embeds_the_heading_path_within_the_size(page, tmp_path):
    text = GUIDE_MD.read_text(encoding="utf-8")
    splitter = SplitterPage(page).open()
    small_chunks(page)
    splitter.choose_file(GUIDE_MD.name, GUIDE_MD.read_bytes())
    # Heading context is the default, in the page as in the CLI.
    _, by_default = splitter.download_text("download", tmp_path)
    assert "embed_text" in by_default and by_default == cli_split(GUIDE_MD, *SETTINGS)
    splitter.select("context", "none")
    assert splitter.errors() == {}
    _, plain = splitter.download_text("download", tmp_path)
    assert "embed_text" not in plain and plain == cli_split(GUIDE_MD, *SETTINGS, "--context", "none")
    assert page.text_content("#cli-snippet").endswith(" --context none --siblings apart -o guide.chunks.jsonl --stats")
    splitter.select("context", "headings")
    assert splitter.errors() == {}
    _, jsonl = splitter.download_text("download", tmp_path)
    assert jsonl == by_default == cli_split(GUIDE_MD, *SETTINGS, "--context", "headings")
    assert page.text_content("#cli-snippet") == (
        f"python -m ragchunk split guide.md {' '.join(SETTINGS)} --encoding cl100k_base --context headings"
        " --siblings apart -o guide.chunks.jsonl --stats")
    tokenizer = get_tokenizer("cl100k_base")
    records = [json.loads(line) for line in jsonl.splitlines()]
    with_path = 0
    assert any("embed_text" not in record for record in records)
    for record in records:
        chunk, path = record["text"], record["heading_path"]
        # A chunk without a context line is embedded as it is: no embed_text in its record.
        embedded, embedded_tokens = record.get("embed_text", chunk), record.get("embed_tokens", record["tokens"])
        assert ("embed_text" in record) == ("embed_tokens" in record) and record.get("embed_text") != chunk
        assert chunk == text[record["start"]:record["end"]]
        assert embedded.endswith(chunk)
        assert embedded_tokens == tokenizer.count(embedded) <= SIZE
        assert record["tokens"] <= embedded_tokens
        lines = embedded[: len(embedded) - len(chunk)].split("\n")
        assert lines[-1] == ""
        if len(lines) == 1:
            # No line above: the chunk is under no heading, or its new content opens with its top heading.
            opening = text[record["content_start"]:record["end"]].lstrip()
            assert not path or (len(path) == 1 and opening.startswith("#")), record
            continue
        with_path += 1
        # The first line is the heading path (" > "), shortened from the outside in, of the
        # headings above the chunk's new content (without the heading the chunk opens with).
        named = lines[0].split(" > ")
        assert named in ([path[-len(named):]] + ([path[:-1][-len(named):]] if len(path) > 1 else [])), record
        for line in lines[1:-1]:
            assert line.startswith("|"), record  # a cut table's header row
    assert with_path >= len(records) // 2
    # The cards show the chunks themselves, and their counts are of the chunk, not the embed text.
    cards = splitter.all_cards()
    assert [(c["text"], c["tokens"]) for c in cards] == [(r["text"], r["tokens"]) for r in records]
    # What LangChain gets to embed is the embed text.
    _, documents = splitter.download_text("download-langchain", tmp_path)
    assert [d["page_content"] for d in json.loads(documents)] == [r.get("embed_text", r["text"]) for r in records]


def test_tokens_to_embed_count_the_heading_lines(page, tmp_path):
    splitter = SplitterPage(page).open()
    small_chunks(page)
    page.select_option("#context", "headings")
    splitter.choose_file(GUIDE_MD.name, GUIDE_MD.read_bytes())
    _, jsonl = splitter.download_text("download", tmp_path)
    records = [json.loads(line) for line in jsonl.splitlines()]
    assert any("embed_text" in r for r in records) and any("embed_text" not in r for r in records)
    assert splitter.stat("total") == integer(sum(r.get("embed_tokens", r["tokens"]) for r in records))


# --- the comparison of the ways of cutting ---------------------------------------------------------


def compare_rows(rows) -> list[list[str]]:
    """The core's comparison rows as the page writes them."""
    names = {"fixed": "Fixed windows", "headings": "Headings", "paragraphs": "Paragraphs", "sentences": "Sentences"}
    return [[names[row.method], integer(row.chunks), integer(row.tokens), "—" if row.cost is None else fixed(row.cost, 6),
             f"{integer(row.min_tokens)} / {integer(row.median_tokens)} / {integer(row.max_tokens)}",
             percent(row.mid_sentence), percent(row.with_heading)] for row in rows]


def test_the_comparison_shows_the_cores_figures(page):
    files = [MD / "ws-README.md", DOCS / "guide.html"]
    texts = [(path.name, read_document(path.read_bytes(), path.name).text) for path in files]
    splitter = SplitterPage(page).open()
    small_chunks(page)
    # One document.
    splitter.choose_file(files[0].name, files[0].read_bytes())
    expected = compare(texts[:1], size=SIZE, overlap=OVERLAP, tokenizer="cl100k_base")
    assert [row.method for row in expected] == ["fixed", "headings", "paragraphs", "sentences"]
    assert len({row.chunks for row in expected}) > 1, "the ways of cutting differ on this document"
    assert splitter.compare() == compare_rows(expected)
    # Two documents (a corpus) with a paid model: the rows add both up, and the cost is the model's.
    splitter.choose_files([(path.name, path.read_bytes()) for path in files])
    assert page.is_visible("#corpus")
    splitter.select("sizer", "model:text-embedding-3-small")
    assert not page.is_visible("#compare-table"), "a new setting hides the old comparison"
    price = get_model("text-embedding-3-small").price_per_million
    expected = compare(texts, size=SIZE, overlap=OVERLAP, model="text-embedding-3-small", price_per_million=price)
    assert all(row.cost is not None for row in expected)
    assert splitter.compare() == compare_rows(expected)
    # A size the estimate cannot window: the fixed row goes, the structural rows stay.
    splitter.select("sizer", "estimate")
    expected = compare(texts, size=SIZE, overlap=OVERLAP, tokenizer=CharEstimate(DEFAULT_CHARS_PER_TOKEN))
    assert [row.method for row in expected] == ["headings", "paragraphs", "sentences"]
    assert splitter.compare() == compare_rows(expected)
