"""Many files at once in both tools: chosen files, a chosen folder, a dropped .zip.

The splitter lists each document with its chunks and splits them as the library and the
command line do (the JSONL and LangChain downloads are the same bytes; the page's own
snippets, run, write them); a file that is not text is listed with its reason and does not
stop the others. The calculator counts each file exactly and adds the chunks up per
document, not over the summed length. Escape stops a run between two files.
"""

from __future__ import annotations

import io
import json
import shlex
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
from pages import CalculatorPage, SplitterPage, number
from ragchunk import SplitOptions, decode_document, get_tokenizer, plan, split_corpus, split_document
from ragchunk.corpus import read_source
from ragchunk.errors import NotTextError
from ragchunk.cli.files import find_files
from ragchunk.results.records import langchain_json

ROOT = Path(__file__).resolve().parents[2]
MD = sorted((ROOT / "tests" / "data" / "md").glob("*.md"))
ENV = {"PYTHONPATH": str(ROOT / "pycore"), "PATH": "/usr/bin:/bin"}
MIXED = ("# Заметки\n\nПривет, мир! Это проверка. 👍🏽 Эмодзи считаются как один символ кода.\n\n"
         "## नमस्ते\n\nनमस्ते दुनिया। यह एक परीक्षण है।\n\n") * 6


def png() -> bytes:
    """A real 1×1 PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def write(folder: Path, files: dict[str, bytes | str]) -> Path:
    for source, data in files.items():
        path = folder / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return folder


def corpus_results(folder: Path, options: SplitOptions) -> list:
    """What the library makes of a folder, walked as the command line walks it."""
    found, problems = find_files([str(folder)])
    assert not problems
    return list(split_corpus(((f.source, f.path.read_bytes()) for f in found), options))


def run_snippet(page, where: Path, output: str) -> bytes:
    """Run the page's command-line snippet as shown, in ``where`` (which holds its folder "docs")."""
    words = shlex.split(page.text_content("#cli-snippet"))
    assert words[:4] == ["python", "-m", "ragchunk", "split"], words
    (where / output).unlink(missing_ok=True)
    subprocess.run([sys.executable, *words[1:]], capture_output=True, check=True, cwd=where, env=ENV)
    return (where / output).read_bytes()


def counted(n: int, noun: str) -> str:
    """``n`` and its English noun, singular for one: "1 document", "1,024 chunks"."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def check_documents(splitter: SplitterPage, results: list, status: str | None = None) -> None:
    """The table of documents has one row per result, with the library's numbers, and their sum;
    the status line says what the run did (or ``status``)."""
    rows = splitter.rows("#documents-body tr")
    shown = {row[0]: row[1:] for row in rows}
    assert len(rows) == len(shown) == len(results)
    assert set(shown) == {r.source for r in results}
    done = [r for r in results if not r.skipped and not r.error]
    for r in done:
        chars, tokens, chunks, largest, note = shown[r.source]
        assert (number(chars), number(tokens), number(chunks), number(largest), note) == (
            r.chars, r.tokens, r.chunks, max(r.chunk_tokens), ""), r.source
    [total] = splitter.rows("#documents tfoot tr")
    assert total == [f"All: {counted(len(done), 'document')}, {len(results) - len(done)} skipped",
                     f"{sum(r.chars for r in done):,}", f"{sum(r.tokens for r in done):,}",
                     f"{sum(r.chunks for r in done):,}", f"{max(max(r.chunk_tokens) for r in done):,}", ""]
    chunks = sum(r.chunks for r in done)
    assert splitter.page.inner_text("#text-status") == (
        status or f"{counted(len(done), 'document')}, {counted(chunks, 'chunk')}; {len(results) - len(done)} skipped.")
    assert splitter.stat("chunks") == f"{chunks:,}"


# --- the splitter: fifty files at once ------------------------------------------------------


@pytest.fixture(scope="module")
def fifty(tmp_path_factory) -> Path:
    """50 small Markdown and text files (parts of real READMEs, one in Russian and Hindi with an
    emoji), some of one chunk and some of several, in a folder named "docs"."""
    texts = [path.read_text(encoding="utf-8") for path in MD]
    files: dict[str, str] = {}
    for i in range(48):
        paragraphs = [p for p in texts[i % len(texts)].split("\n\n") if p.strip()]
        start = (i * 5) % len(paragraphs)
        body = "\n\n".join(paragraphs[start : start + 1 + (i * 7) % 13]) + "\n"
        files[f"{MD[i % len(MD)].stem}-{i:02d}{'.md' if i % 3 else '.txt'}"] = body
    files["meeting notes 48.md"] = "# Meeting\n\nWe agreed on the plan. Alice writes the report.\n"
    files["Заметки-49.md"] = MIXED
    return write(tmp_path_factory.mktemp("fifty") / "docs", files)


def test_fifty_files_are_split_like_the_library_and_the_cli(page, fifty):
    options = SplitOptions(by="headings", size=128, overlap=16, tokenizer="cl100k_base")
    results = corpus_results(fifty, options)
    assert len(results) == 50 and all(r.chunks for r in results)
    assert len({r.chunks for r in results}) > 3, "the files differ in their number of chunks"
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "128")
    page.fill("#overlap", "16")
    splitter.choose_files(sorted(fifty.iterdir()))
    check_documents(splitter, results)
    mixed = {row[0]: row[1:] for row in splitter.rows("#documents-body tr")}["Заметки-49.md"]
    assert number(mixed[0]) == len(MIXED), "characters are code points (the emoji's two halves are not two)"

    name, jsonl = splitter.download("#download")
    assert name == "corpus.chunks.jsonl"
    assert jsonl.decode("utf-8") == "".join(r.jsonl for r in results)
    sources = [json.loads(line)["source"] for line in jsonl.decode("utf-8").splitlines()]
    assert sources == [r.source for r in results for _ in range(r.chunks)]

    page.click("#split-results summary:has-text('Python')")
    assert run_snippet(page, fifty.parent, "corpus.chunks.jsonl") == jsonl
    (fifty.parent / "corpus.chunks.jsonl").unlink()
    python = subprocess.run([sys.executable, "-c", page.text_content("#python-snippet")], capture_output=True,
                            text=True, check=True, cwd=fifty.parent, env=ENV)
    assert python.stdout.split() == [str(sum(r.chunks for r in results)),
                                     str(sum(sum(r.chunk_tokens) for r in results))]
    assert (fifty.parent / "corpus.chunks.jsonl").read_bytes() == jsonl


# --- a corpus bigger than one page of the table ---------------------------------------------


@pytest.mark.parametrize("tool", ["splitter", "calculator"])
def test_a_table_of_250_documents_shows_100_rows_at_a_time_and_totals_them_all(page, tmp_path, tool):
    """Laying out one table of every document froze the page (2,000 rows: ~300 ms, see
    bench/bench_memory.py): each table holds at most 100 rows, paged; the order and the
    totals cover the whole corpus."""
    files = {f"n{i:03d}.md": f"# Note {i}\n\n" + "Words of a note. " * (1 + (i * 37) % 250) for i in range(250)}
    folder = write(tmp_path / "docs", files)
    tokenizer = get_tokenizer("cl100k_base")
    tokens = {name: tokenizer.count(text) for name, text in files.items()}
    shown_page = SplitterPage(page) if tool == "splitter" else CalculatorPage(page)
    shown_page.open()
    shown_page.choose_folder(folder)
    body, foot, pager = (("#documents-body tr", "#documents tfoot tr", "#documents-pages") if tool == "splitter"
                         else ("#files-table tbody tr", "#files-table tfoot tr", "#files-pages"))
    pages = []
    for turn in range(3):
        if turn:
            page.click(f"{pager} button[data-step='1']")
        rows = shown_page.rows(body)
        pages.append([row[0] for row in rows])
        assert all(number(row[2]) == tokens[row[0]] for row in rows)
    assert [len(p) for p in pages] == [100, 100, 50]
    assert sum(pages, []) == sorted(files), "the pages hold every document once, in order"
    assert page.inner_text(f"{pager} .pager-range") == "Documents 201–250 of 250"
    assert page.is_disabled(f"{pager} button[data-step='1']") and not page.is_disabled(f"{pager} button[data-step='-1']")
    [total] = shown_page.rows(foot)
    assert number(total[2]) == sum(tokens.values()), "the totals row adds up all 250, not the page"
    if tool == "splitter":
        # A new order starts at its first page, over the whole corpus.
        page.click("#documents thead button[data-sort='tokens']")
        page.click("#documents thead button[data-sort='tokens']")
        rows = shown_page.rows(body)
        assert page.inner_text(f"{pager} .pager-range") == "Documents 1–100 of 250"
        assert [number(row[2]) for row in rows] == sorted(tokens.values(), reverse=True)[:100]
    else:
        # New totals (another chunk size) keep the page the person is on.
        shown_page.set("chunk_size", "100")
        overlap = int(page.input_value("#overlap"))
        chunks = sum(plan(n, 100, overlap).chunks for n in tokens.values())
        page.wait_for_function("n => document.querySelector('#f-chunks').textContent === n", arg=f"{chunks:,}")
        rows = shown_page.rows(body)
        assert [row[0] for row in rows] == pages[2]
        assert [number(row[3]) for row in rows] == [plan(tokens[row[0]], 100, overlap).chunks for row in rows]


# --- the splitter: a folder with a subfolder and a picture -----------------------------------


def test_a_folder_lists_the_picture_as_skipped_and_splits_the_rest(page, tmp_path):
    folder = write(tmp_path / "docs", {
        "guide.md": MD[3].read_bytes(),
        "notes/list.txt": "Milk. Eggs. Bread.\n\nCall the plumber about the sink on Monday.\n" * 12,
        "notes/deep/more.md": MD[5].read_bytes(),
        "pic.png": png(),
        ".hidden.md": "# Never read\n\nhidden files stay out, as on the command line\n",
        ".git/HEAD": "ref: refs/heads/main\n",
    })
    options = SplitOptions(by="paragraphs", size=200, overlap=20, tokenizer="cl100k_base")
    results = corpus_results(folder, options)
    assert [r.source for r in results] == ["guide.md", "notes/deep/more.md", "notes/list.txt", "pic.png"]
    assert results[-1].skipped == "png"
    splitter = SplitterPage(page).open()
    page.select_option("#by", "paragraphs")
    page.fill("#chunk_size", "200")
    page.fill("#overlap", "20")
    splitter.choose_folder(folder)
    check_documents(splitter, results)
    with pytest.raises(NotTextError) as refused:
        decode_document(png(), "pic.png")
    assert str(refused.value).startswith("pic.png is a PNG image, not text")
    assert splitter.rows("#documents-body tr.skipped") == [["pic.png", "—", "—", "—", "—", str(refused.value)]]
    assert page.is_visible("#documents-body tr.skipped")

    _, jsonl = splitter.download("#download")
    assert jsonl.decode("utf-8") == "".join(r.jsonl for r in results)
    page.click("#split-results summary:has-text('Python')")
    assert run_snippet(page, tmp_path, "corpus.chunks.jsonl") == jsonl


def test_one_document_and_one_chunk_are_said_in_the_singular(page):
    """A run that reads one document of two (the other is a picture) says "1 document" and
    "1 chunk" in both tools; Russian takes its own plural forms of the same numbers."""
    files = [("note.txt", b"Buy milk. Call the plumber on Monday.\n"), ("pic.png", png())]
    splitter = SplitterPage(page).open()
    splitter.choose_files(files)
    assert page.inner_text("#text-status") == "1 document, 1 chunk; 1 skipped."
    assert splitter.rows("#documents tfoot tr")[0][0] == "All: 1 document, 1 skipped"
    splitter.open(query="?lang=ru")
    splitter.choose_files([*files, ("more.txt", ("Ещё одна заметка. " * 400).encode())])
    chunks = number(splitter.stat("chunks"))
    assert 1 < chunks < 1000
    form = "чанка" if chunks % 10 in (2, 3, 4) and chunks % 100 not in (12, 13, 14) else "чанков"
    if chunks % 10 == 1 and chunks % 100 != 11:
        form = "чанк"
    assert page.inner_text("#text-status") == f"2 документа, {chunks} {form}; пропущено: 1."

    calc = CalculatorPage(page).open()
    calc.choose_files(files)
    tokens = get_tokenizer("cl100k_base").count(files[0][1].decode())
    assert page.inner_text("#text-status") == f"1 file counted: {tokens} tokens; 1 skipped."
    assert calc.rows("#files-table tfoot tr")[0][0] == "All: 1 document, 1 skipped"


def test_the_documents_table_names_the_kind_of_each_document(page):
    docs = ROOT / "tests" / "data" / "docs"
    splitter = SplitterPage(page).open()
    splitter.choose_files([docs / "guide.docx", docs / "guide.html", docs / "guide.md"])
    notes = {row[0]: row[-1] for row in splitter.rows("#documents-body tr")}
    assert notes == {"guide.docx": "Word", "guide.html": "HTML", "guide.md": ""}


# --- the splitter: a dropped .zip ------------------------------------------------------------

ZIPPED = {
    "notes.md": "# Notes\n\nThe plan for the week. Write the report. Review the budget.\n\n"
                "## Monday\n\nMeet the team at nine. Discuss the roadmap and the open issues.\n" * 4,
    "more.txt": "More text, stored without compression. " * 40 + "\n",
    "sub/inner.md": MD[0].read_text(encoding="utf-8"),
}


def notes_zip() -> bytes:
    """notes.zip as an archiver makes it: deflated and stored entries, a folder entry, macOS litter."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.md", ZIPPED["notes.md"], compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("more.txt", ZIPPED["more.txt"], compress_type=zipfile.ZIP_STORED)
        archive.writestr("sub/", "")
        archive.writestr("sub/inner.md", ZIPPED["sub/inner.md"], compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("__MACOSX/._notes.md", b"\x00\x05\x16\x07 resource fork", compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def test_a_zip_of_a_very_compressible_log_is_read_and_a_bomb_is_not(page, tmp_path):
    log = "INFO ok\n" * 200_000  # 1.6 MB that deflates about 650 times
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.log.txt", log, compress_type=zipfile.ZIP_DEFLATED)
    assert len(log) / len(buffer.getvalue()) > 200
    splitter = SplitterPage(page).open()
    splitter.choose_files([("logs.zip", buffer.getvalue())])
    [row] = splitter.rows("#documents-body tr")
    assert row[0] == "app.log.txt" and number(row[1]) == len(log)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w") as archive:
        archive.writestr("zeros.txt", b"0" * 40_000_000, compress_type=zipfile.ZIP_DEFLATED)
    splitter.choose_files([("bomb.zip", bomb.getvalue())])
    assert "bomb.zip inflates far beyond its size" in page.inner_text("#documents-body")


def test_a_dropped_zip_is_split_document_by_document(page, tmp_path):
    data = notes_zip()
    options = SplitOptions(by="sentences", size=60, overlap=8, tokenizer="cl100k_base")
    expected = {source: split_document(source, text.encode("utf-8"), options) for source, text in ZIPPED.items()}
    splitter = SplitterPage(page).open()
    page.select_option("#by", "sentences")
    page.fill("#chunk_size", "60")
    page.fill("#overlap", "8")
    splitter.drop_files({"notes.zip": data})
    results = [expected[source] for source in sorted(expected)]
    assert all(r.chunks > 1 for r in results)
    check_documents(splitter, results)
    assert [row[0] for row in splitter.rows("#documents-body tr")] == ["more.txt", "notes.md", "sub/inner.md"]

    _, jsonl = splitter.download("#download")
    assert jsonl.decode("utf-8") == "".join(r.jsonl for r in results)
    # The same records as the command line gives for the archive unpacked.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(tmp_path / "docs")
    page.click("#split-results summary:has-text('Python')")
    assert run_snippet(page, tmp_path, "corpus.chunks.jsonl") == jsonl


def test_a_zip_given_with_other_files_names_its_documents_after_it(page):
    """Before, notes.md from the zip and a loose notes.md were both "notes.md": two rows of one
    name and a JSONL with two records of each (source, id)."""
    loose = b"# Loose notes\n\nA file of the same name as one in the zip. It is a document of its own."
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "60")
    page.fill("#overlap", "8")
    splitter.drop_files({"notes.md": loose, "notes.zip": notes_zip()})
    sources = ["notes.md", "notes.zip/more.txt", "notes.zip/notes.md", "notes.zip/sub/inner.md"]
    assert [row[0] for row in splitter.rows("#documents-body tr")] == sources
    _, jsonl = splitter.download("#download")
    keys = [(record["source"], record["id"]) for record in map(json.loads, jsonl.decode("utf-8").splitlines())]
    assert len(keys) == len(set(keys)) and sorted({source for source, _ in keys}) == sources


# --- the splitter: the LangChain download -------------------------------------------------------


def test_the_langchain_download_is_the_records_as_langchain_documents(page, tmp_path):
    folder = write(tmp_path / "docs", {path.name: path.read_bytes() for path in MD[:4]})
    options = SplitOptions(by="headings", size=128, overlap=16, tokenizer="cl100k_base", context="headings")
    results = corpus_results(folder, options)
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "128")
    page.fill("#overlap", "16")
    page.select_option("#context", "headings")
    splitter.choose_files(sorted(folder.iterdir()))
    check_documents(splitter, results)

    name, data = splitter.download("#download-langchain")
    assert name == "corpus.langchain.json"
    rows = [record for r in results for record in r.records()]
    assert data.decode("utf-8") == langchain_json(rows)
    documents = json.loads(data)
    assert [d["metadata"]["source"] for d in documents] == [row["source"] for row in rows]
    # The heading context is what is embedded; a chunk without one is embedded (and kept) as it is.
    assert any(d["page_content"] != d["metadata"].get("text", d["page_content"]) for d in documents)
    assert all(d["metadata"].get("text", d["page_content"]) == row["text"] for d, row in zip(documents, rows))
    # The JSONL beside it is what the command line writes with --context headings.
    _, jsonl = splitter.download("#download")
    page.click("#split-results summary:has-text('Python')")
    assert "--context headings" in page.text_content("#cli-snippet")
    assert run_snippet(page, tmp_path, "corpus.chunks.jsonl") == jsonl


# --- the calculator: several files, and N documents ----------------------------------------------


def test_calculator_counts_each_file_and_adds_chunks_per_document(page, tmp_path):
    files = {"a.md": MD[6].read_bytes(), "b.md": MD[3].read_bytes(), "c.txt": b"Short note.\n",
             "d.md": MD[0].read_bytes(), "e.png": png()}
    folder = write(tmp_path / "docs", files)
    texts = {name: read_source(name, data).text for name, data in files.items() if name != "e.png"}

    def expect(encoding: str, size: int, overlap: int):
        tokens = {name: get_tokenizer(encoding).count(text) for name, text in texts.items()}
        plans = {name: plan(n, size, overlap) for name, n in tokens.items()}
        return tokens, plans

    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "256")
    calc.set("overlap", "32")
    calc.choose_files(sorted(folder.iterdir()))
    tokens, plans = expect("cl100k_base", 256, 32)
    summed = plan(sum(tokens.values()), 256, 32)
    chunks = sum(p.chunks for p in plans.values())
    assert chunks != summed.chunks, "per document is not the formula over the summed length"

    def check(tokens, plans):
        rows = calc.rows("#files-table tbody tr")
        assert [row[0] for row in rows] == sorted(files)
        for source, chars, counted, chunked, note in rows:
            if source == "e.png":
                assert (chars, counted, chunked) == ("—", "—", "—")
                assert note.startswith("e.png is a PNG image, not text")
                continue
            assert (number(chars), number(counted), number(chunked), note) == (
                len(texts[source]), tokens[source], plans[source].chunks, ""), source
        assert calc.rows("#files-table tfoot tr") == [[
            "All: 4 documents, 1 skipped", f"{sum(len(t) for t in texts.values()):,}",
            f"{sum(tokens.values()):,}", f"{sum(p.chunks for p in plans.values()):,}", ""]]
        shown = {name: page.inner_text(f"#f-{name}") for name in ("documents", "tokens", "chunks", "total", "repeated")}
        assert number(shown["documents"]) == 4
        assert number(shown["tokens"]) == sum(tokens.values())
        assert number(shown["chunks"]) == sum(p.chunks for p in plans.values())
        assert number(shown["total"]) == sum(p.total_tokens for p in plans.values())
        assert number(shown["repeated"].split(" (")[0]) == sum(p.repeated_tokens for p in plans.values())

    check(tokens, plans)
    assert page.inner_text("#text-status") == f"4 files counted: {sum(tokens.values()):,} tokens; 1 skipped."
    # "Result" still answers for the length typed in the form; it says so while the files show.
    assert page.is_visible("#r-not-files")
    assert page.inner_text("#r-not-files") == ("These figures are for the document length above; your files are added"
                                               " up under “Your files”.")
    assert number(calc.result("chunks")) == plan(10_000, 256, 32).chunks
    cli = subprocess.run([sys.executable, "-m", "ragchunk", "calc", "docs", "--size", "256", "--overlap", "32", "--json"],
                         capture_output=True, text=True, check=True, cwd=tmp_path, env=ENV)
    totals = json.loads(cli.stdout)
    assert (totals["chunks"], totals["total_tokens"]) == (chunks, sum(p.total_tokens for p in plans.values()))

    # Another tokenizer counts every file again; another chunk size re-adds the chunks.
    calc.after_request(lambda: page.select_option("#encoding", "o200k_base"))
    check(*expect("o200k_base", 256, 32))
    calc.set("chunk_size", "100")
    tokens, plans = expect("o200k_base", 100, 32)
    page.wait_for_function("n => document.querySelector('#f-chunks').textContent === n",
                           arg=f"{sum(p.chunks for p in plans.values()):,}")
    check(tokens, plans)
    # A pasted text replaces the files: one answer again, and nothing says otherwise.
    calc.paste("A pasted note. " * 40)
    assert page.is_hidden("#files") and page.is_hidden("#r-not-files")
    assert number(calc.result("chunks")) == plan(calc.token_count(), 100, 32).chunks


def test_calculator_adds_up_chunks_over_n_documents(page, tmp_path):
    calc = CalculatorPage(page).open()
    calc.set("doc", "1000")
    calc.set("documents", "100")
    calc.wait_core_numbers()
    many = plan(1000, 512, 64, documents=100)
    assert (calc.result("chunks"), calc.result("total")) == ("300", f"{many.total_tokens:,}") == ("300", "112,800")
    assert calc.result("repeated").startswith(f"{many.repeated_tokens:,} (")
    page.click("#results summary")
    cli = shlex.split(page.text_content("#cli-snippet"))
    assert "--docs" in cli and cli[cli.index("--docs") + 1] == "100"
    out = subprocess.run([sys.executable, *cli[1:], "--json"], capture_output=True, text=True, check=True, env=ENV)
    assert json.loads(out.stdout)["chunks"] == 300
    calc.set("documents", "1")
    calc.set("doc", "100000")
    calc.wait_core_numbers()
    assert calc.result("chunks") == "224" == f"{plan(100_000, 512, 64).chunks}"


# --- a run cancelled between two files ----------------------------------------------------------

# The page's worker, with a gate: the `holdAt`-th "load" request is held back until
# `release()` (a file that takes long to read), so Escape lands while a file is on its way;
# `workers` counts the workers started (a cancel the worker does not answer in time restarts it).
GATE = """
    window.gate = { loads: 0, holdAt: Infinity, release: null, workers: 0 };
    const Original = window.Worker;
    window.Worker = class extends Original {
        constructor(...args) {
            super(...args);
            window.gate.workers++;
        }
        postMessage(message, transfer) {
            if (message?.type === "load" && ++window.gate.loads === window.gate.holdAt) {
                window.gate.release = () => super.postMessage(message, transfer);
                return;
            }
            super.postMessage(message, transfer);
        }
    };
"""
CANCELLED = {"splitter": "Cancelled. Drop or paste the document again to split it.",
             "calculator": "Cancelled. Paste or drop the text again to count it."}


def cancel_third_file(tool, files: list[Path], release: bool) -> None:
    """Choose ``files``, press Escape while the third is on its way to the core (let it go on
    when ``release``), and wait until the run has stopped."""
    page = tool.page
    finished = tool.finished()
    page.evaluate("() => { gate.loads = 0; gate.holdAt = 3; }")
    page.set_input_files("#file", files=files)
    page.wait_for_function("() => gate.release !== null")
    assert page.inner_text("#text-status").startswith(
        f"{'Reading files:' if isinstance(tool, SplitterPage) else 'Counting file'} 2 of {len(files)} ")
    assert page.is_visible("#cancel")
    page.keyboard.press("Escape")
    if release:
        page.evaluate("() => gate.release()")
    page.wait_for_function("n => Number(document.querySelector('#drop').dataset.analyses) > n", arg=finished)
    assert not page.is_visible("#cancel")
    assert page.evaluate("() => gate.loads") == 3, "no file is read after the cancel"
    page.evaluate("() => { gate.holdAt = Infinity; }")


def test_escape_stops_a_many_file_run_and_the_last_corpus_stays(page, fifty, tmp_path):
    options = SplitOptions(by="headings", size=128, overlap=16, tokenizer="cl100k_base")
    first = write(tmp_path / "docs", {path.name: path.read_bytes() for path in MD[:3]})
    kept = corpus_results(first, options)
    page.add_init_script(GATE)
    splitter = SplitterPage(page).open()
    page.fill("#chunk_size", "128")
    page.fill("#overlap", "16")
    splitter.choose_files(sorted(first.iterdir()))
    check_documents(splitter, kept)
    _, before = splitter.download("#download")

    cancel_third_file(splitter, sorted(fifty.iterdir()), release=True)
    assert page.evaluate("() => gate.workers") == 1, "the worker stopped the request itself"
    # The corpus shown before stays, and is still in the core: its download is the same.
    check_documents(splitter, kept, status=CANCELLED["splitter"])
    assert splitter.download("#download")[1] == before

    splitter.choose_files(sorted(fifty.iterdir()))
    check_documents(splitter, corpus_results(fifty, options))


@pytest.mark.parametrize("tool", ["splitter", "calculator"])
def test_a_cancel_that_restarts_the_core_clears_what_it_lost(page, fifty, tmp_path, tool):
    """A worker that does not answer the cancel in time is restarted, with an empty workspace:
    the corpus shown before goes from the page (its downloads, pages and recounts are gone)."""
    first = write(tmp_path / "docs", {path.name: path.read_bytes() for path in MD[:3]})
    page.add_init_script(GATE)
    shown = "#corpus" if tool == "splitter" else "#files"
    page_object = (SplitterPage if tool == "splitter" else CalculatorPage)(page).open()
    page_object.choose_files(sorted(first.iterdir()))
    assert page.is_visible(shown)

    cancel_third_file(page_object, sorted(fifty.iterdir()), release=False)
    assert page.inner_text("#text-status") == CANCELLED[tool]
    page_object.wait_ready()
    assert page.evaluate("() => gate.workers") == 2, "the worker was restarted"
    assert not page.is_visible(shown)
    assert not page.is_visible("#split-results" if tool == "splitter" else "#text-stats")

    page_object.choose_files(sorted(fifty.iterdir()))
    if tool == "splitter":
        check_documents(page_object, corpus_results(fifty, SplitOptions(tokenizer="cl100k_base")))
    else:
        page_object.after_request(lambda: page.select_option("#encoding", "o200k_base"))
        rows = page_object.rows("#files-table tbody tr")
        counter = get_tokenizer("o200k_base")
        assert {row[0]: number(row[2]) for row in rows} == {
            path.name: counter.count(read_source(path.name, path.read_bytes()).text) for path in fifty.iterdir()}
