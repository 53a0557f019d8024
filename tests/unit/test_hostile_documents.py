"""Issue 36: one bad file never stops a corpus. Hostile documents fail alone, fast, in bounded
memory, each with one honest line; the rest of the corpus keeps its chunks.

Every case is built at run time by ``hostile_files`` at a small size; ``bench/bench_readers.py
--hostile`` runs the same builders big and prints time and memory as ratios. Growth is shown
here by counting work (lines of ragchunk run, characters handed to a pattern) at n and 4n,
and memory by ``tracemalloc``, never by timing.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest

import hostile_files as h
from catalog import english
from ragchunk import corpus
from ragchunk.api import Workspace
from ragchunk.cli import main
from ragchunk.corpus import split_corpus, split_document
from ragchunk.errors import RagchunkError
from ragchunk.cli.files import find_files, printable, zip_documents
from ragchunk.integrations.arrow import document_records
from ragchunk.options import SplitOptions
from ragchunk.readers import ReadOptions, html, pdf
from ragchunk.readers.formats import read_document

OPTIONS = SplitOptions(size=64, overlap=0, tokenizer="cl100k_base")
GOOD = [("a.md", b"# A\n\nThe first good file."), ("z.md", b"# Z\n\nThe last good file.")]


def refused(call, code: str) -> RagchunkError:
    with pytest.raises(RagchunkError) as caught:
        call()
    error = caught.value
    assert error.code == code, (error.code, error.message)
    assert error.field == "file" and ": " in error.message
    assert english(error) == error.message, "the page says it from web/i18n/en.json"
    return error


def lines_run(action) -> int:
    """Lines of ragchunk's own code run by ``action()``: work, loops included, without a clock."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if "ragchunk" in frame.f_code.co_filename else None

    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
    return count


def peak_bytes(action) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue(), capsys.readouterr().err


def sources(jsonl: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for line in jsonl.splitlines():
        source = json.loads(line)["source"]
        found[source] = found.get(source, 0) + 1
    return found


# --- 1, 2: every document fails alone ---------------------------------------------------------

NOT_TEXT_CODECS = ["rot13", "uu", "zlib", "hex", "base64", "bz2", "quopri", "undefined", "punycode"]


@pytest.mark.parametrize("label", NOT_TEXT_CODECS)
def test_a_codec_that_is_not_text_is_ignored_with_a_note(label):
    found = read_document(h.meta_charset(label), "m.html")
    assert "Hello world." in found.text
    assert [note["code"] for note in found.notes] == ["charset_ignored"]
    assert english(found.notes[0]) == found.notes[0]["message"]


def test_a_reader_exception_fails_its_document_alone(monkeypatch):
    def broken(data, name, options):
        raise LookupError("unknown encoding: rot13")

    monkeypatch.setattr(html, "read", broken)
    results = list(split_corpus([GOOD[0], ("m.html", b"<p>x</p>"), GOOD[1]], OPTIONS))
    assert [r.source for r in results] == ["a.md", "m.html", "z.md"]
    assert results[0].chunks == results[2].chunks == 1
    failed = results[1]
    assert failed.code == "reader_failed" and failed.error.startswith("m.html could not be read by the HTML reader")
    assert "LookupError: unknown encoding: rot13" in failed.error


def test_a_split_exception_fails_its_document_alone(monkeypatch):
    real = corpus.split_with

    def split_with(text, *args, **kwargs):
        if "poison" in text:
            raise IndexError("list index out of range")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(corpus, "split_with", split_with)
    results = list(split_corpus([GOOD[0], ("p.md", "poison"), GOOD[1]], OPTIONS))
    assert [r.code for r in results] == ["", "split_failed", ""]
    assert results[1].error == ("p.md could not be split (IndexError: list index out of range): this is a bug in"
                                " ragchunk; report it with the file, and split the other documents meanwhile")


def test_memory_error_fails_its_document_alone(monkeypatch):
    real = corpus.split_with

    def split_with(text, *args, **kwargs):
        if "huge" in text:
            raise MemoryError
        return real(text, *args, **kwargs)

    monkeypatch.setattr(corpus, "split_with", split_with)
    results = list(split_corpus([("huge.md", "huge"), GOOD[1]], OPTIONS))
    assert results[0].code == "document_out_of_memory" and results[1].chunks == 1


@pytest.mark.parametrize("digits", [5_000, 100_000])
def test_a_huge_number_in_a_notebook_is_refused_clearly(digits):
    error = refused(lambda: read_document(h.notebook_nbformat_digits(digits), "n.ipynb"), "notebook_number_too_long")
    assert f"{digits:,} digits" in error.message


def test_an_ordinary_notebook_number_still_reads():
    assert read_document(h.notebook(nbformat=4, nbformat_minor=5), "n.ipynb").text.startswith("# Notes")


def every_hostile_file() -> dict[str, bytes]:
    return {
        "rot13.html": h.meta_charset("rot13"), "zlib.html": h.meta_charset("zlib"),
        "digits.ipynb": h.notebook_nbformat_digits(5_000), "output.ipynb": h.notebook_big_output(100_000),
        "nested.html": h.nested(2_000), "tables.html": h.nested(500, "<table><tr><td>c"),
        "dtd.epub": h.epub_with_dtd(), "bomb.pdf": h.pdf_flate_bomb(20_000_000),
        "filter.pdf": h.pdf_filter(b"/FooDecode", b"xx"), "loop.pdf": h.pdf_parent_loop(),
        "utf7.html": h.meta_charset("utf-7", "+ADw-script+AD4-"), "cp037.html": h.meta_charset("cp037"),
        "bom.html": b"\xff\xfe<p>not utf-16 at all</p>", "xml.html": h.xml_encoding("base64"),
    }


@pytest.mark.parametrize("name", sorted(every_hostile_file()))
def test_split_document_never_raises_on_a_hostile_file(name):
    result = split_document(name, every_hostile_file()[name], OPTIONS)
    assert result.chunks or result.skipped or (result.error and result.code), result


def test_a_folder_of_hostile_files_keeps_every_good_file(tmp_path, capsys):
    for name, data in [*GOOD, *every_hostile_file().items()]:
        (tmp_path / name).write_bytes(data)
    for jobs in ("1", "2"):
        code, out, err = cli(capsys, "split", str(tmp_path), "--size", "64", "--jobs", jobs)
        assert code == 1, err
        written = sources(out)
        assert written["a.md"] == 1 and written["z.md"] == 1
        assert "internal error" not in err and "Traceback" not in err
        for line in err.splitlines():
            assert line.startswith("ragchunk: "), line


def test_integrations_record_a_reader_failure(monkeypatch):
    monkeypatch.setattr(html, "read", lambda data, name, options: 1 / 0)
    rows = document_records("m.html", b"<p>x</p>", OPTIONS, "record")
    assert rows[0]["source"] == "m.html" and "ZeroDivisionError" in rows[0]["error"]


def test_the_page_says_a_reader_failure_in_one_line(monkeypatch):
    monkeypatch.setattr(html, "read", lambda data, name, options: 1 / 0)
    reply = json.loads(Workspace().handle("load", json.dumps({"name": "m.html"}), b"<p>x</p>"))
    assert reply["ok"] is False and reply["errors"][0]["code"] == "reader_failed"


# --- 7: a dead worker ------------------------------------------------------------------------


def _dies_on(marker: str | None):
    real = corpus.split_document

    def split_document(source, document, options, threads=1, read_options=None):
        if source == "die.md" and (marker is None or not os.path.exists(marker)):
            if marker is not None:
                Path(marker).write_text("died once")
            os._exit(9)
        return real(source, document, options, threads, read_options)

    return split_document


def test_a_worker_that_dies_fails_its_document_after_one_retry(monkeypatch):
    monkeypatch.setattr(corpus, "split_document", _dies_on(None))
    documents = [GOOD[0], ("die.md", "# D\n\ntext"), *[(f"m{i}.md", f"# M{i}\n\ntext") for i in range(20)], GOOD[1]]
    results = list(split_corpus(documents, OPTIONS, jobs=2, context="fork"))
    assert [r.source for r in results] == [s for s, _ in documents]
    died = results[1]
    assert died.code == "worker_died" and died.error.startswith("die.md stopped the worker process")
    assert all(r.chunks == 1 for r in results if r.source != "die.md")


def test_a_worker_that_dies_once_is_retried_and_succeeds(monkeypatch, tmp_path):
    monkeypatch.setattr(corpus, "split_document", _dies_on(str(tmp_path / "died")))
    documents = [GOOD[0], ("die.md", "# D\n\ntext"), GOOD[1]]
    results = list(split_corpus(documents, OPTIONS, jobs=2, context="fork"))
    assert [r.chunks for r in results] == [1, 1, 1] and (tmp_path / "died").exists()


def test_closing_the_results_early_stops_the_workers():
    results = split_corpus([(f"d{i}.md", "# D\n\ntext") for i in range(200)], OPTIONS, jobs=2, context="fork")
    assert next(results).chunks == 1
    results.close()


# --- 3, 4, 5: bounded by what comes out --------------------------------------------------------

SMALL_LIMIT = ReadOptions(max_chars=50_000)


@pytest.mark.parametrize("name, data", [
    ("big.docx", lambda: h.docx_of_text(400_000)),
    ("big.html", lambda: ("<p>" + "word " * 20_000 + "</p>") * 4),
    ("big.md", lambda: "word " * 20_000),
    ("big.rst", lambda: ("Para " * 200 + "\n\n") * 100),
    ("big.ipynb", lambda: h.notebook([{"cell_type": "markdown", "source": "x " * 60_000, "metadata": {}}])),
    ("big.epub", lambda: h.epub({f"c{i}.xhtml": "<html><body><p>" + "word " * 5_000 + "</p></body></html>"
                                 for i in range(5)})),
    ("big.pdf", lambda: h.pdf_text(2_000)),
])
def test_every_reader_stops_at_max_chars(name, data):
    made = data()
    made = made.encode() if isinstance(made, str) else made
    error = refused(lambda: read_document(made, name, SMALL_LIMIT), "text_too_large")
    assert "50,000 characters" in error.message


def test_a_docx_that_inflates_far_stops_early_in_little_memory():
    data = h.docx_of_text(4_000_000)  # inflates ~110:1, within the ZIP ratio check
    peak = peak_bytes(lambda: refused(lambda: read_document(data, "big.docx", SMALL_LIMIT), "text_too_large"))
    assert peak < 8_000_000, peak


def test_max_chars_holds_for_texts_given_as_text():
    result = split_document("t.md", "word " * 20_000, OPTIONS, read_options=SMALL_LIMIT)
    assert result.code == "text_too_large"


def test_pages_drawing_one_stream_again_and_again_are_stopped(monkeypatch):
    monkeypatch.setattr(pdf, "CONTENT_FLOOR", 1_000_000)
    data = h.pdf_shared_stream(200, 300_000)
    error = refused(lambda: read_document(data, "shared.pdf"), "pdf_too_much_content")
    assert f"from {len(data):,} bytes" in error.message


def test_the_content_budget_counts_each_page_and_the_file():
    from ragchunk.readers._pdf_text import ContentBudget, TooMuchContent

    budget = ContentBudget(total=1_000, page=300)
    budget.start_page()
    budget.take(200)
    with pytest.raises(TooMuchContent) as caught:
        budget.take(200)
    assert caught.value.scope == "page"
    budget.start_page()
    budget.take(250)
    budget.start_page()
    budget.take(250)
    with pytest.raises(TooMuchContent) as caught:
        budget.take(250)
    assert caught.value.scope == "file"


def test_a_pdf_flate_bomb_says_so():
    refused(lambda: read_document(h.pdf_flate_bomb(40_000_000), "bomb.pdf"), "pdf_bomb")


@pytest.mark.parametrize("filters", [b"/FooDecode", b"[/FlateDecode /FooDecode]"])
def test_an_unknown_pdf_filter_is_named(filters):
    error = refused(lambda: read_document(h.pdf_filter(filters, b"xx"), "f.pdf"), "pdf_filter_unknown")
    assert "/FooDecode" in error.message


def test_a_filter_chain_of_known_filters_is_read():
    data = zlib.compress(h.text_content(3)).hex().encode() + b">"
    assert "Line 0" in read_document(h.pdf_filter(b"[/ASCIIHexDecode /FlateDecode]", data), "c.pdf").text


def test_a_page_tree_loop_is_not_called_a_scan():
    error = refused(lambda: read_document(h.pdf_parent_loop(), "loop.pdf"), "pdf_page_loop")
    assert "OCR" not in error.message


def test_a_notebook_output_costs_memory_near_its_size():
    data = h.notebook_big_output(2_000_000)
    peak = peak_bytes(lambda: read_document(data, "out.ipynb"))
    # The bytes, their text and the parsed output: a few times the file, not 113 bytes a character.
    assert peak < 8 * len(data), (peak, len(data))


# --- 6: linear time on every nesting shape -----------------------------------------------------


@pytest.mark.parametrize("shape", sorted(h.NESTING_SHAPES))
def test_every_nesting_shape_is_read_in_linear_work(shape):
    small = lines_run(lambda: read_document(h.nested(500, h.NESTING_SHAPES[shape]), "n.html"))
    large = lines_run(lambda: read_document(h.nested(2_000, h.NESTING_SHAPES[shape]), "n.html"))
    assert large < 5.5 * small, (shape, small, large)


def test_nested_tables_hand_linear_text_to_the_cell_pattern(monkeypatch):
    handed = []
    real = html.table_cell
    monkeypatch.setattr(html, "table_cell", lambda text: handed.append(len(text)) or real(text))
    read_document(h.nested(400, "<table><tr><td>c"), "t.html")
    small, handed[:] = sum(handed), []
    read_document(h.nested(1_600, "<table><tr><td>c"), "t.html")
    assert sum(handed) < 5 * small


def test_tables_nested_past_the_limit_keep_their_text():
    text = read_document(h.nested(40, "<table><tr><td>c"), "t.html").text
    assert text.count("c") == 40


# --- 10: a page's declaration cannot choose a hostile or lying charset --------------------------


@pytest.mark.parametrize("label", ["utf-16", "utf-16le", "UTF-16BE", "unicode"])
def test_a_declared_utf16_is_read_as_utf8(label):
    found = read_document(h.meta_charset(label, "Привет, мир."), "u.html")
    assert "Привет, мир." in found.text and found.notes == ()


@pytest.mark.parametrize("label", ["utf-32", "cp037", "cp500", "utf-7", "x-user-defined", "replacement"])
def test_utf7_ebcdic_and_utf32_are_never_taken_from_a_page(label):
    found = read_document(h.meta_charset(label, "Hello +ADw-b+AD4- Привет"), "x.html")
    assert "Hello +ADw-b+AD4- Привет" in found.text
    assert found.notes[0]["code"] in ("charset_ignored", "unknown_charset")


def test_an_ignored_charset_falls_back_to_detection():
    found = read_document('<meta charset="cp037"><p>café noir</p>'.encode("cp1252"), "w.html")
    assert "café noir" in found.text and found.notes[0]["params"]["used"] == "windows-1252"


def test_an_xml_declaration_is_held_to_the_same_labels():
    found = read_document(h.xml_encoding("base64", "plain"), "x.xhtml")
    assert "plain" in found.text and found.notes[0]["code"] == "charset_ignored"


def test_real_charsets_are_still_honoured():
    page = '<meta charset="koi8-r"><p>Привет</p>'.encode("koi8-r")
    assert "Привет" in read_document(page, "k.html").text


def test_a_lying_bom_is_ignored_and_a_true_one_kept():
    lying = read_document(b"\xff\xfe<p>not utf-16 at all</p>", "b.html")
    assert "not utf-16 at all" in lying.text and lying.notes[0]["code"] == "bom_ignored"
    true = read_document("\ufeff<p>да</p>".encode("utf-16-le"), "t.html")
    assert "да" in true.text and true.notes == ()


# --- 8: links, loops and FIFOs -------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n\nnot in the folder")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\ntext")
    (folder / "secret.md").symlink_to(outside)
    (folder / "same.md").symlink_to(folder / "a.md")
    (folder / "sub").mkdir()
    (folder / "sub" / "loop").symlink_to(folder)
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.md")
    return folder


def test_a_link_out_of_the_folder_is_skipped_and_said(linked, capsys):
    code, out, err = cli(capsys, "split", str(linked), "--size", "64")
    assert code == 0 and sorted(sources(out)) == ["a.md", "same.md"]
    assert "secret.md: a link to " in err and "not followed (--follow-links follows it)" in err
    assert "pipe.md: not a regular file" in err and "Secret" not in out


def test_follow_links_follows_and_loops_end(linked, capsys):
    code, out, err = cli(capsys, "split", str(linked), "--size", "64", "--follow-links")
    assert code == 0 and sorted(sources(out)) == ["a.md", "same.md", "secret.md"]


def test_find_files_counts_what_links_leave_out(linked):
    left_out = __import__("collections").Counter()
    notes: list[str] = []
    found, problems = find_files([str(linked)], left_out=left_out, notes=notes)
    assert [f.source for f in found] == ["a.md", "same.md"] and not problems
    assert left_out["link"] == 2 and left_out["special"] == (1 if hasattr(os, "mkfifo") else 0)


# --- 9: a name cannot forge a line ----------------------------------------------------------------


def test_a_name_with_a_newline_and_an_escape_cannot_forge_a_line(tmp_path, capsys):
    name = "x\n\x1b[2Kragchunk: note: everything is fine\n.ipynb"
    (tmp_path / name).write_bytes(h.notebook_nbformat_digits(5_000))
    (tmp_path / "a.md").write_text("# A\n\ntext")
    code, out, err = cli(capsys, "split", str(tmp_path), "--size", "64")
    assert code == 1 and "\x1b" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ragchunk: error: x\\n\\x1b[2Kragchunk: note:"), lines
    assert json.loads(out.splitlines()[0])["source"] == "a.md"


@pytest.mark.parametrize("raw, shown", [("a\nb", "a\\nb"), ("\x1b[31m", "\\x1b[31m"), ("\r", "\\r"),
                                        ("\u202egnp.exe", "\\u202egnp.exe"), ("\x85", "\\x85"), ("café", "café")])
def test_printable_escapes_what_moves_a_terminal(raw, shown):
    assert printable(raw) == shown


# --- minors: EPUB DTD, .zip in the CLI, --max-chars ------------------------------------------------


def test_an_epub_chapter_with_a_dtd_is_refused():
    error = refused(lambda: read_document(h.epub_with_dtd(), "x.epub"), "xml_entities")
    assert "c1.xhtml" in error.message


def zipped(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_the_cli_reads_a_zip_of_documents(tmp_path, capsys):
    (tmp_path / "docs.zip").write_bytes(zipped({"a.md": b"# A\n\ntext", "sub/b.md": b"# B\n\ntext",
                                                ".hidden.md": b"x", "__MACOSX/a.md": b"x"}))
    code, out, err = cli(capsys, "split", str(tmp_path), "--size", "64")
    assert code == 0 and sorted(sources(out)) == ["docs.zip/a.md", "docs.zip/sub/b.md"], err


def test_a_zip_bomb_given_to_the_cli_fails_alone(tmp_path, capsys, monkeypatch):
    import ragchunk.cli.files as files

    monkeypatch.setattr(files, "ZIP_MAX_BYTES", 1_000_000)
    (tmp_path / "bomb.zip").write_bytes(zipped({"big.md": b"a" * 2_000_000}))
    (tmp_path / "a.md").write_text("# A\n\ntext")
    code, out, err = cli(capsys, "split", str(tmp_path), "--size", "64")
    assert code == 1 and sources(out) == {"a.md": 1} and "bomb.zip inflates far beyond its size" in err


def test_zip_documents_refuses_a_damaged_archive():
    with pytest.raises(ValueError, match="not a readable ZIP archive"):
        list(zip_documents("x.zip", b"PK\x03\x04" + bytes(40)))


def test_max_chars_in_the_cli(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# A\n\ntext")
    (tmp_path / "big.md").write_text("word " * 2_000)
    code, out, err = cli(capsys, "split", str(tmp_path), "--size", "64", "--max-chars", "5000")
    assert code == 1 and sources(out) == {"a.md": 1} and "big.md holds more than 5,000 characters" in err
    code, _, err = cli(capsys, "split", str(tmp_path), "--max-chars", "0")
    assert code == 2 and "--max-chars" in err
