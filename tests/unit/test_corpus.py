"""A whole corpus: ragchunk.corpus and ``split``/``calc`` over files and folders."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ragchunk
from ragchunk.calculator import chunk_count, plan, plan_corpus
from ragchunk.cli import batch, main
from ragchunk.corpus import CorpusSummary, split_corpus, split_document
from ragchunk.options import SplitOptions
from ragchunk.results.records import Document

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "tests" / "data" / "md").glob("*.md"))
OPTIONS = SplitOptions(by="headings", size=128, overlap=16)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Nested folders of documents, with binaries, empty files, UTF-16, a hidden folder and a broken link."""
    root = tmp_path / "corpus"
    (root / "guide" / "deep").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / ".git").mkdir()
    for index, doc in enumerate(DOCS[:4]):
        (root / ("guide" if index % 2 else "guide/deep") / doc.name).write_bytes(doc.read_bytes())
    (root / "README.md").write_text("# Corpus\n\nA folder of documents. It has a few.\n", encoding="utf-8")
    (root / "notes" / "windows.txt").write_bytes("Заметки из Windows.\r\nВторая строка.\r\n".encode("utf-16"))
    (root / "notes" / "empty.md").write_bytes(b"")
    (root / "notes" / "blank.md").write_text(" \n\t\n", encoding="utf-8")
    (root / "notes" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    (root / "notes" / "archive.zip").write_bytes(b"PK\x03\x04" + bytes(60))
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (root / ".hidden.md").write_text("# Hidden\n\nNot read by default.\n", encoding="utf-8")
    os.symlink(root / "gone.md", root / "notes" / "broken.md")
    return root


def run(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    real = sys.stderr
    sys.stderr = err
    try:
        code = main(list(argv), out=out, stdin=io.TextIOWrapper(io.BytesIO(stdin)))
    finally:
        sys.stderr = real
    return code, out.getvalue(), err.getvalue()


def expected_sources(tree: Path) -> list[str]:
    return sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and not any(
        part.startswith(".") for part in p.relative_to(tree).parts))


def test_a_tree_gives_sorted_sources_skips_what_is_not_text_and_names_what_cannot_be_read(tree):
    code, out, err = run("split", str(tree), "--size", "128", "--overlap", "16", "--jobs", "1", "--stats")
    assert code == 1  # the broken link cannot be read: named, the run goes on, exit 1 at the end
    broken = tree / "notes" / "broken.md"
    assert f"ragchunk: error: {broken} cannot be read: no such file or folder; check the path\n" in err
    rows = [json.loads(line) for line in out.splitlines()]
    sources = list(dict.fromkeys(row["source"] for row in rows))
    documents = ["README.md", *[f"guide/{d.name}" for d in DOCS[1:4:2]], *[f"guide/deep/{d.name}" for d in DOCS[0:4:2]],
                 "notes/windows.txt"]
    assert sources == sorted(documents)
    assert [p for p in expected_sources(tree) if p not in sources] == sorted(
        ["notes/archive.zip", "notes/blank.md", "notes/empty.md", "notes/photo.png"])
    # Every record is the library's record of that document, and chunks come in order.
    for source in sources:
        path = tree / source
        decoded = ragchunk.decode_document(path.read_bytes(), source).text
        mine = [row for row in rows if row["source"] == source]
        assert mine == [json.loads(line) for line in
                        ragchunk.to_jsonl(ragchunk.split(decoded, size=128, overlap=16), Document(source, decoded)).splitlines()]
        assert [row["id"] for row in mine] == list(range(len(mine)))
    # A .zip is read as a folder of documents; this one is damaged, so it is named like the broken link.
    assert "documents       6 (skipped: 2 empty, 1 png)" in err
    assert "notes/archive.zip is not a readable ZIP archive" in err
    assert "failed" not in err  # unreadable files are named above, not "failed" documents


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_the_output_is_byte_identical_for_any_jobs(tree, jobs):
    one = run("split", str(tree), "--size", "64", "--overlap", "8", "--jobs", "1")
    many = run("split", str(tree), "--size", "64", "--overlap", "8", "--jobs", jobs)
    assert one == many and one[1]


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_the_library_gives_the_same_records_in_worker_processes(context):
    documents = [(doc.name, doc.read_bytes()) for doc in DOCS] + [("plain.txt", "One. Two. Three.")]
    serial = list(split_corpus(documents, OPTIONS))
    parallel = list(split_corpus(documents, OPTIONS, jobs=2, context=context))
    assert [r.jsonl for r in parallel] == [r.jsonl for r in serial]
    assert [r.source for r in parallel] == [name for name, _ in documents]
    for (name, data), result in zip(documents, serial, strict=True):
        text = data if isinstance(data, str) else data.decode("utf-8")
        expected = ragchunk.split(text, size=128, overlap=16)
        assert result.jsonl == ragchunk.to_jsonl(expected, Document(name, text))
        assert result.tokens == ragchunk.get_tokenizer().count(text) == expected.document_tokens


def test_worker_processes_need_a_tokenizer_they_can_receive():
    options = SplitOptions(size=64, overlap=0, tokenizer=ragchunk.get_tokenizer("o200k_base"))
    with pytest.raises(ragchunk.RagchunkError) as caught:
        list(split_corpus([("a", "text")], options, jobs=2))
    assert caught.value.field == "tokenizer" and "registry name" in caught.value.message
    with pytest.raises(ragchunk.RagchunkError) as caught:
        list(split_corpus([("a", "text")], OPTIONS, jobs=0))
    assert caught.value.field == "jobs"


def test_include_exclude_and_hidden(tree):
    code, out, _ = run("split", str(tree), "--size", "64", "--overlap", "0", "--include", "*.md", "--exclude",
                       "guide/deep/*", "--jobs", "1")
    sources = {json.loads(line)["source"] for line in out.splitlines()}
    assert sources == {"README.md", *(f"guide/{d.name}" for d in DOCS[1:4:2])}
    assert code == 1  # notes/broken.md matches *.md and still cannot be read
    code, out, _ = run("split", str(tree), "--size", "64", "--overlap", "0", "--include", "*.md", "--exclude",
                       "notes/*", "--hidden", "--jobs", "1")
    assert code == 0 and ".hidden.md" in {json.loads(line)["source"] for line in out.splitlines()}
    code, out, err = run("split", str(tree), "--size", "64", "--overlap", "0", "--include", "*.nothing")
    # A folder with nothing to read is a bad input (1), like a file that cannot be read; 2 is a bad flag's.
    assert (code, out) == (1, "") and f"{tree} holds no document to split (" in err and "--include/--exclude" in err


def test_file_arguments_keep_their_path_and_stdin_is_dash(tree):
    readme = str(tree / "README.md")
    code, out, err = run("split", readme, "-", "--size", "64", "--overlap", "0", "--jobs", "1", stdin=b"From stdin.")
    assert (code, err) == (0, "")
    assert [json.loads(line)["source"] for line in out.splitlines()] == [readme, "-"]


@pytest.mark.parametrize(("after", "said"), [(3, "3 documents"), (1, "1 document")])
def test_an_interrupted_run_leaves_whole_records_only(tree, tmp_path, monkeypatch, after, said):
    target = tmp_path / "out.jsonl"
    real = batch.split_corpus

    def interrupted(*args, **kwargs):
        for index, result in enumerate(real(*args, **kwargs)):
            if index == after:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(batch, "split_corpus", interrupted)  # the name run_split calls
    code, _, err = run("split", str(tree), "--size", "32", "--overlap", "4", "-o", str(target), "--jobs", "1")
    assert code == 130 and f"interrupted after {said}: the output holds whole records only" in err
    data = target.read_text(encoding="utf-8")
    assert data.endswith("\n") and len({json.loads(line)["source"] for line in data.splitlines()}) == after


def default_ctrl_c() -> None:
    """In the child, before exec: Ctrl-C as a terminal gives it. A suite started in the background
    of a non-interactive shell (`cmd &`) ignores SIGINT, children inherit that, and Python keeps
    an ignored SIGINT ignored: the run would never hear the test's signal."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_a_real_process_leaves_whole_lines(tree, tmp_path):
    # A real SIGINT while worker processes run: whatever reached the file is whole records.
    import signal
    import time

    big = tmp_path / "big"
    big.mkdir()
    text = "\n\n".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    for index in range(60):
        (big / f"doc{index:03}.md").write_text(text, encoding="utf-8")
    target = tmp_path / "out.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "ragchunk", "split", str(big), "--size", "64", "--overlap", "8",
                                "--by", "sentences", "-o", str(target), "--jobs", "2"],
                               env={**os.environ, "PYTHONPATH": str(ROOT / "pycore")}, stderr=subprocess.PIPE,
                               cwd=tmp_path, preexec_fn=default_ctrl_c)
    while not target.exists() or target.stat().st_size < 10_000:  # the run is under way
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=600)
    assert process.returncode == 130, err
    assert b"whole records only" in err and b"Traceback" not in err
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines and all(line.endswith("\n") and json.loads(line)["text"] for line in lines)


def test_progress_is_drawn_on_request_and_silent_when_piped(tree, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the built-in line, whether or not tqdm is installed
    _, _, quiet = run("split", str(tree / "guide"), "--size", "64", "--overlap", "0", "--jobs", "1")
    assert quiet == ""
    _, _, drawn = run("split", str(tree / "guide"), "--size", "64", "--overlap", "0", "--jobs", "1", "--progress")
    assert "splitting 4/4 documents" in drawn and "MB/s" in drawn and "s left" in drawn


def test_summary_adds_up_the_documents():
    summary = CorpusSummary(keep_largest=2)
    results = [split_document(doc.name, doc.read_bytes(), OPTIONS) for doc in DOCS]
    results.append(split_document("x.png", b"\x89PNG\r\n\x1a\n" + bytes(9), OPTIONS))
    results.append(split_document("small.md", "One.", SplitOptions(size=1, overlap=0)))
    for result in results:
        summary.add(result)
    data = summary.to_json()
    good = [r for r in results if not r.skipped and not r.error]
    assert data["documents"] == len(good) == len(DOCS) + 1
    assert data["skipped"] == {"png": 1}
    assert data["chunks"] == sum(r.chunks for r in good)
    assert data["tokens"] == sum(r.tokens for r in good)
    assert data["embedded_tokens"] == sum(sum(r.chunk_tokens) for r in good)
    assert data["max_tokens"] == max(max(r.chunk_tokens) for r in good)
    assert [d["tokens"] for d in data["largest"]] == sorted((r.tokens for r in good), reverse=True)[:2]


def test_a_document_too_hard_for_the_size_fails_alone():
    result = split_document("emoji.md", "👨\u200d👩\u200d👧", SplitOptions(size=1, overlap=0))
    assert result.error.startswith("chunk size (1) is too small") and result.field == "chunk_size"
    assert result.jsonl == "" and result.chunks == 0


# --- the calculator over a corpus ----------------------------------------------------------


def test_chunk_counts_add_up_per_document_not_over_the_total():
    assert plan(1_000, 512, 64, documents=100).chunks == 300 == 100 * chunk_count(1_000, 512, 64)
    assert plan(100_000, 512, 64).chunks == 224
    corpus = plan_corpus([1_000] * 100, 512, 64, 0.02)
    same = plan(1_000, 512, 64, 0.02, documents=100)
    assert (corpus.chunks, corpus.total_tokens, corpus.repeated_tokens, corpus.cost) == (
        same.chunks, same.total_tokens, same.repeated_tokens, same.cost)


def test_calc_over_files_sums_the_documents(tree):
    code, out, err = run("calc", str(tree), "--size", "128", "--overlap", "16", "--price", "0.02", "--json",
                         "--encoding", "o200k_base")
    assert code == 1 and "broken.md" in err
    data = json.loads(out)
    tokenizer = ragchunk.get_tokenizer("o200k_base")
    lengths = []
    for source in expected_sources(tree):
        path = tree / source
        if source.endswith(("png", "zip", "empty.md", "blank.md", "broken.md")):
            continue
        lengths.append(tokenizer.count(ragchunk.decode_document(path.read_bytes(), source).text))
    each = [plan(n, 128, 16, 0.02) for n in lengths]
    assert data["documents"] == len(lengths) == 6
    assert data["chunks"] == sum(p.chunks for p in each)
    assert data["total_tokens"] == sum(p.total_tokens for p in each)
    assert data["repeated_tokens"] == sum(p.repeated_tokens for p in each)
    assert data["cost"] == pytest.approx(sum(p.cost for p in each))
    assert data["skipped"] == {"empty": 2, "png": 1} and "archive.zip is not a readable ZIP archive" in err


def test_calc_docs_multiplies_one_length():
    code, out, _ = run("calc", "--tokens", "1000", "--docs", "100", "--size", "512", "--overlap", "64", "--json")
    assert code == 0 and json.loads(out)["chunks"] == 300 and json.loads(out)["documents"] == 100
    code, _, err = run("calc", "--tokens", "1000", "--docs", "0", "--size", "512", "--overlap", "64")
    assert code == 2 and err.startswith("ragchunk: error: --docs: number of documents (0) must be at least 1")


def test_html_headings_keep_their_text_and_markdown_headings_their_rendered_text():
    """The HTML reader writes a heading's visible text; only Markdown a person wrote has
    links and tags to leave out of a heading's name."""
    from ragchunk.corpus import split_document
    from ragchunk.options import SplitOptions

    options = SplitOptions(size=32, overlap=0)
    html = (b"<h1>&lt;div&gt;: the element</h1><p>" + b"Text. " * 40 + b"</p>"
            b"<h2><a href='/x'>Linked</a> [not](a link)</h2><p>" + b"More. " * 40 + b"</p>")
    paths = {tuple(r["heading_path"]) for r in split_document("a.html", html, options).records()}
    assert paths == {("<div>: the element",), ("<div>: the element", "Linked [not](a link)")}
    markdown = b"# <div>: the element\n\n" + b"Text. " * 40 + b"\n\n## [Linked](/x) text\n\n" + b"More. " * 40
    paths = {tuple(r["heading_path"]) for r in split_document("a.md", markdown, options).records()}
    assert paths == {(": the element",), (": the element", "Linked text")}


# --- when workers pay (issue 32) ---------------------------------------------------------------


def _no_workers(monkeypatch):
    from ragchunk import corpus

    def refuse(*args, **kwargs):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(corpus, "_Worker", refuse)


def test_a_small_corpus_stays_in_this_process_when_asked(monkeypatch):
    _no_workers(monkeypatch)
    documents = [(f"d{i}.md", f"# D{i}\n\nSome text. More text.") for i in range(40)]
    results = list(split_corpus(documents, OPTIONS, jobs=2, min_parallel_bytes=256 * 1024))
    assert [r.jsonl for r in results] == [r.jsonl for r in split_corpus(documents, OPTIONS)]


def test_a_corpus_past_the_threshold_goes_to_workers_in_order():
    from ragchunk import corpus

    documents = [(f"d{i:03}.md", f"# D{i}\n\n" + "Some text here. " * 400) for i in range(60)]
    assert sum(len(text) for _, text in documents) > 256 * 1024
    started = []
    real = corpus._Worker

    class Counting(real):
        def __init__(self, *args):
            started.append(1)
            super().__init__(*args)

    corpus._Worker = Counting
    try:
        parallel = list(split_corpus(documents, OPTIONS, jobs=2, context="fork", min_parallel_bytes=256 * 1024))
    finally:
        corpus._Worker = real
    assert len(started) == 2
    assert [r.jsonl for r in parallel] == [r.jsonl for r in split_corpus(documents, OPTIONS)]


def test_without_the_threshold_jobs_means_worker_processes(monkeypatch):
    _no_workers(monkeypatch)
    with pytest.raises(AssertionError, match="worker process was started"):
        list(split_corpus([("a.md", "# A\n\nText.")], OPTIONS, jobs=2))


def test_the_command_line_default_keeps_a_small_folder_in_one_process(monkeypatch, tmp_path):
    _no_workers(monkeypatch)
    for i in range(5):
        (tmp_path / f"d{i}.md").write_text(f"# D{i}\n\nSome text.\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["split", str(tmp_path), "--size", "64"], out=out) == 0
    assert len(out.getvalue().splitlines()) == 5


def test_workers_holding_two_batches_of_large_results_never_wait_on_each_other():
    """A worker sends a result bigger than the pipe holds while the parent sends it the next
    batch: both must go on (a thread of the worker reads its batches). Run in a child process,
    so a hang shows as that process not finishing, at the 10-minute guard."""
    script = (
        "from ragchunk.corpus import split_corpus\n"
        "from ragchunk.options import SplitOptions\n"
        "docs = [(f'd{i}.md', '# Big\\n\\n' + 'A sentence of text here. ' * 12000) for i in range(12)]\n"
        "results = list(split_corpus(docs, SplitOptions(size=64, overlap=8), jobs=2, context='fork'))\n"
        "assert [r.source for r in results] == [d for d, _ in docs]\n"
        "print(sum(len(r.jsonl) for r in results))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(Path(ragchunk.__file__).parents[1])})
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 12 * 500_000  # each result far past what a pipe holds


def test_the_command_line_splits_one_document_on_two_threads_unless_jobs_1(monkeypatch, tmp_path):
    from ragchunk import corpus

    monkeypatch.setattr(batch, "usable_cpus", lambda: 2)
    asked = []
    real = corpus.split_document

    def recording(source, document, options, threads=1, read_options=None):
        asked.append(threads)
        return real(source, document, options, threads, read_options)

    monkeypatch.setattr(corpus, "split_document", recording)
    path = tmp_path / "long.md"
    path.write_text("# Long\n\n" + "Some text here. More of it.\n\n" * 3000, encoding="utf-8")
    outputs = []
    for flags in ([], ["--jobs", "1"]):
        out = io.StringIO()
        assert main(["split", str(path), "--size", "128", *flags], out=out) == 0
        outputs.append(out.getvalue())
    assert asked == [None, 1]  # None: ragchunk.split's default, two threads on a machine with two cores
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) > 100
