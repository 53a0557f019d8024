"""Speed of every document reader, as MB/s of input and as a ratio to one tiktoken pass.

The documents are real: the 1 MB Markdown corpus of :mod:`corpus` converted by pandoc into
standalone HTML, DOCX, EPUB 3 and reStructuredText, and into a notebook written as JSON the
way Jupyter writes it (each document's prose a Markdown cell, each fenced block a code
cell). For each reader the reference is ONE ``encode`` pass of cl100k_base
(``ragchunk.get_tokenizer("cl100k_base").encode``) over the text that reader extracted,
timed alternately with the reader in the same run (median of ``--runs``), so that the
ratio ``x pass`` (reader time / tiktoken time) does not depend on the machine's speed.

The table is printed and written as JSON to ``bench/out/bench_readers.json``; the converted
documents are kept in ``bench/out/readers/`` (rebuilt when the corpus changes). Kinds whose
converter is missing (``apt-get install pandoc``) are listed and skipped.

    python3 bench/bench_readers.py [--runs 5] [--size 1000000]

``--hostile`` instead runs the worst case of each reader (``tests/unit/hostile_files.py``, the
cases of issue 36) at two sizes, each read in a fresh process: seconds, peak memory above a
bare import, and what came out (characters, or the error that stopped it), with the growth
in time from the small size to the large one (4x the input) and peak memory per byte of
output. Linear work shows as a time ratio near 4 (or near 1 where a bound stops the read),
bounded memory as a small peak per output byte.

    python3 bench/bench_readers.py --hostile [--scale 1.0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pycore"))
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from bench_split import paired_seconds  # noqa: E402
from ragchunk import get_tokenizer  # noqa: E402
from ragchunk.readers import ReadOptions  # noqa: E402
from ragchunk.readers.formats import read_document  # noqa: E402

OUT = HERE / "out"
FENCE_OPEN = "```"


def notebook_json(markdown: str) -> bytes:
    """A notebook of ``markdown``: fenced blocks become code cells, the text between Markdown cells."""
    cells = []
    prose: list[str] = []
    code: list[str] | None = None
    for line in markdown.splitlines(keepends=True):
        if line.startswith(FENCE_OPEN):
            if code is None:
                if "".join(prose).strip():
                    cells.append({"cell_type": "markdown", "id": f"c{len(cells)}", "metadata": {},
                                  "source": prose})
                prose, code = [], []
            else:
                cells.append({"cell_type": "code", "execution_count": None, "id": f"c{len(cells)}",
                              "metadata": {}, "outputs": [], "source": code})
                code = None
            continue
        (prose if code is None else code).append(line)
    if "".join(prose).strip():
        cells.append({"cell_type": "markdown", "id": f"c{len(cells)}", "metadata": {}, "source": prose})
    notebook = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                           "name": "python3"},
                                             "language_info": {"name": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def documents(size: int) -> tuple[dict[str, Path], list[str]]:
    """name -> path of each converted document (made once per corpus), and the kinds skipped."""
    text, _ = corpus.markdown_corpus(size)
    folder = OUT / "readers" / hashlib.sha256(text.encode()).hexdigest()[:12]
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "corpus.md"
    source.write_text(text, encoding="utf-8")
    made: dict[str, Path] = {"corpus.md": source}
    notebook = folder / "corpus.ipynb"
    if not notebook.exists():
        notebook.write_bytes(notebook_json(text))
    made["corpus.ipynb"] = notebook
    skipped = []
    pandoc = shutil.which("pandoc")
    for name, args in (("corpus.html", ["-s"]), ("corpus.docx", []), ("corpus.epub", ["-t", "epub3"]),
                       ("corpus.rst", ["-s", "-t", "rst"])):
        target = folder / name
        if not target.exists():
            if pandoc is None:
                skipped.append(name)
                continue
            # gfm: the corpus is GitHub-flavoured Markdown (READMEs, changelogs).
            subprocess.run([pandoc, "-f", "gfm", str(source), "-o", str(target), *args, "--metadata",
                            "title=Corpus"], check=True, capture_output=True)
        made[name] = target
    return made, skipped


# name -> (file name, builder of the bytes at size n, n of the small run). The large run is 4n.
HOSTILE: dict[str, tuple[str, str, int]] = {
    "docx inflating past the ZIP check": ("big.docx", "docx_of_text(n)", 8_000_000),
    "pdf: 400 pages of one stream": ("shared.pdf", "pdf_shared_stream(n, 1_000_000)", 100),
    "notebook: one big output": ("out.ipynb", "notebook_big_output(n)", 10_000_000),
    "notebook: a huge nbformat": ("digits.ipynb", "notebook_nbformat_digits(n)", 100_000),
    "html: unclosed nested lists": ("lists.html", "nested(n)", 25_000),
    "html: nested tables": ("tables.html", "nested(n, '<table><tr><td>c')", 25_000),
    "html: nested quotes": ("quotes.html", "nested(n, '<blockquote>q')", 25_000),
    "markdown: one long text": ("big.md", "('word ' * n).encode()", 2_000_000),
    "rst: one long text": ("big.rst", "(('Para ' * 200 + '\\n\\n') * (n // 1000)).encode()", 2_000_000),
}


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def hostile_case(path: str, name: str) -> None:
    """Read one file (in this fresh process) and print what it cost as JSON.

    Peak memory is the process's high-water mark above its resident size before the file is
    read (Linux: the mark is reset through /proc/self/clear_refs after the imports, whose
    tables would otherwise hide a smaller peak)."""
    import time

    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kb("VmRSS")
    data = Path(path).read_bytes()
    start = time.perf_counter()
    try:
        out, error = len(read_document(data, name, ReadOptions()).text), ""
    except Exception as err:  # noqa: BLE001 - an error is a result here
        out, error = 0, getattr(err, "code", None) or type(err).__name__
    seconds = time.perf_counter() - start
    peak = _status_kb("VmHWM")
    print(json.dumps({"seconds": seconds, "peak_kb": peak, "before_kb": before, "chars": out, "error": error}))


def hostile(scale: float) -> None:
    import tempfile

    sys.path.insert(0, str(HERE.parent / "tests" / "unit"))
    import hostile_files  # noqa: F401 - the builders' namespace

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for case, (name, builder, small) in HOSTILE.items():
            runs = []
            for n in (max(1, int(small * scale)), max(4, int(4 * small * scale))):
                data = eval(builder, vars(hostile_files), {"n": n})  # noqa: S307 - our own table
                path = Path(folder, name)
                path.write_bytes(data)
                done = subprocess.run([sys.executable, __file__, "--hostile-case", str(path), name],
                                      capture_output=True, text=True, check=True)
                runs.append({"n": n, "bytes": len(data), **json.loads(done.stdout.splitlines()[-1])})
            small_run, large_run = runs
            rows.append({"case": case, "runs": runs,
                         "time_ratio": large_run["seconds"] / max(small_run["seconds"], 1e-6)})
    # peak: memory above the bare import (the file's bytes included); per MB of input and of output.
    print(f"{'case':<36}{'in MB':>7}{'out MB':>8}{'s':>7}{'peak MB':>8}{'/in':>7}{'/out':>7}  result")
    for row in rows:
        for run in row["runs"]:
            peak = (run["peak_kb"] - run["before_kb"]) / 1024
            size, out = run["bytes"] / corpus.MB, run["chars"] / corpus.MB
            per_out = f"{peak / out:7.1f}" if out >= 0.01 else f"{'-':>7}"
            print(f"{row['case'] if run is row['runs'][0] else '':<36}{size:>7.2f}{out:>8.2f}{run['seconds']:>7.2f}"
                  f"{peak:>8.0f}{peak / size:>7.1f}{per_out}  {run['error'] or 'read'}")
        print(f"{'':<36}time x {row['time_ratio']:.1f} for 4x the input")
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_readers_hostile.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=corpus.MB)
    parser.add_argument("--hostile", action="store_true", help="the worst case of each reader at two sizes")
    parser.add_argument("--scale", type=float, default=1.0, help="scale the --hostile sizes")
    parser.add_argument("--hostile-case", nargs=2, metavar=("PATH", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hostile_case:
        hostile_case(*args.hostile_case)
        return
    if args.hostile:
        hostile(args.scale)
        return
    tokenizer = get_tokenizer("cl100k_base")
    made, skipped = documents(args.size)
    rows = []
    for name, path in made.items():
        data = path.read_bytes()
        extracted = read_document(data, name, ReadOptions())

        def reader(data: bytes = data, name: str = name) -> object:
            return read_document(data, name, ReadOptions())

        def reference(text: str = extracted.text) -> object:
            return tokenizer.encode(text)

        ratio, cpu_ratio, seconds, _ = paired_seconds(reference, reader, args.runs)
        rows.append({"kind": extracted.kind, "file": name, "input_mb": len(data) / corpus.MB,
                     "text_mb": len(extracted.text.encode()) / corpus.MB, "seconds": seconds,
                     "input_mb_per_s": len(data) / corpus.MB / seconds, "x_pass": ratio, "x_pass_cpu": cpu_ratio})
    print(f"{'kind':<9}{'input MB':>9}{'text MB':>9}{'seconds':>9}{'MB/s in':>9}{'x pass':>8}")
    for row in rows:
        print(f"{row['kind']:<9}{row['input_mb']:>9.2f}{row['text_mb']:>9.2f}{row['seconds']:>9.3f}"
              f"{row['input_mb_per_s']:>9.2f}{row['x_pass']:>8.2f}")
    if skipped:
        print("skipped (no pandoc):", ", ".join(skipped))
    OUT.mkdir(exist_ok=True)
    report = {"python": platform.python_version(), "machine": platform.machine(), "runs": args.runs,
              "reference": "one cl100k_base encode of the extracted text", "rows": rows, "skipped": skipped}
    (OUT / "bench_readers.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
