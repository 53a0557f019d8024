"""Speed of the PDF reader on CPython and in Pyodide (Node), as ratios to one tiktoken pass.

For each PDF the reader's median time over ``--runs`` gives MB/s (of PDF bytes) and
pages/s. The reference is ONE ``ragchunk.get_tokenizer("cl100k_base").encode`` pass over
the extracted text on CPython, timed in the same run (median, alternated with the reads);
``x pass`` is read time / reference time, for CPython and for Pyodide alike (Pyodide has no
tiktoken, so its reads are compared with the same CPython pass). The Pyodide reads run in
Node on the real pypdf wheel (``loadPackage`` of the file), and their output is compared
with CPython's (``same``: the text and page map hash alike).

The PDFs, made in a temporary folder:

- ``chromium``: the fixtures' river guide repeated ``--repeat`` times, printed by Chromium
  (Playwright, /usr/bin/chromium) with outline, tags, header and footer: embedded subset
  TrueType fonts, one Tj per line fragment, the common case;
- ``pypdf``: a ``--pages``-page report written by pypdf (Helvetica, 30 lines a page);
- ``columns``: the two-column soft-hyphen fixture of tests/data/pdf.

    python3 bench/bench_pdf.py [--runs 3] [--pages 500] [--repeat 12] [--wheel PATH] [--no-pyodide]

The wheel is ``--wheel`` or fetched with ``pip download pypdf==<pin> --no-deps``; its
sha256 must equal ``ragchunk.readers.pdf.PYPDF_WHEEL_SHA256``. Results are printed and
written to ``bench/out/bench_pdf.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "pycore"))

from ragchunk.readers import ReadOptions  # noqa: E402
from ragchunk.readers import pdf as pdf_reader  # noqa: E402

WORDS = "river water stone valley bank delta stream source glacier meander channel tide".split()


def output_hash(text: str, pages: list | tuple) -> str:
    """One hash of what the reader made, to compare CPython with Pyodide."""
    return hashlib.sha256(json.dumps([text, [list(p) for p in pages]]).encode()).hexdigest()


def read_times(data: bytes, name: str, runs: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = pdf_reader.read(data, name, ReadOptions())
        times.append(time.perf_counter() - started)
    return times, result


def pyodide_main(request_json: str) -> str:
    """Entry point inside Pyodide (called by harness/pdf_node.js): read each file ``runs`` times."""
    request = json.loads(request_json)
    reply = {"python": platform.python_version(), "platform": sys.platform, "files": {}}
    import pypdf

    reply["pypdf"] = pypdf.__version__
    for file in request["files"]:
        data = Path(file["path"]).read_bytes()
        times, result = read_times(data, file["name"], request["runs"])
        digest = output_hash(result.text, result.pages)
        reply["files"][file["name"]] = {"seconds": statistics.median(times), "hash": digest}
    return json.dumps(reply)


def pypdf_report(pages: int) -> bytes:
    """A ``pages``-page report made by pypdf's writer: 30 lines of Helvetica a page, a
    chapter and a bookmark every ten pages, a running header and page numbers."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()

    def font(base: str):
        return writer._add_object(DictionaryObject({
            NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject(base), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }))

    fonts = DictionaryObject({NameObject("/F1"): font("/Helvetica"), NameObject("/F2"): font("/Helvetica-Bold")})
    resources = writer._add_object(DictionaryObject({NameObject("/Font"): fonts}))
    k = 0
    for number in range(1, pages + 1):
        ops = ["BT /F1 9 Tf 280 760 Td (Annual report) Tj ET"]
        y = 720
        if number % 10 == 1:
            ops.append(f"BT /F2 18 Tf 72 {y} Td (Chapter {number // 10 + 1}) Tj ET")
            y -= 30
        for line in range(30):
            text = " ".join(WORDS[(k + i) % len(WORDS)] for i in range(11)) + ("." if line % 7 == 6 else "")
            k += 1
            ops.append(f"BT /F1 11 Tf 72 {y} Td ({text}) Tj ET")
            y -= 14
        ops.append(f"BT /F1 9 Tf 300 40 Td ({number}) Tj ET")
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = resources
    for first in range(0, pages, 10):
        writer.add_outline_item(title=f"Chapter {first // 10 + 1}", page_number=first)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def chromium_guide(repeat: int, folder: Path) -> Path | None:
    """The fixtures' river guide ``repeat`` times over, printed by Chromium; None without it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    spec = importlib.util.spec_from_file_location("make_fixtures", ROOT / "tests" / "data" / "pdf" / "make_fixtures.py")
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    parts = []
    for copy in range(1, repeat + 1):
        for tag, content in fixtures.RIVERS:
            if tag in ("ol", "ul"):
                parts.append(f"<{tag}>" + "".join(f"<li>{item}</li>" for item in content) + f"</{tag}>")
            else:
                parts.append(f"<{tag}>{content} {copy if tag[0] == 'h' else ''}</{tag}>")
    html = f"<html><head><title>Guide</title><style>{fixtures.STYLE}</style></head><body>{''.join(parts)}</body></html>"
    path = folder / "chromium.pdf"
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(profile, executable_path=fixtures.CHROMIUM, args=fixtures.ARGS,
                                                       headless=True)
        page = browser.new_page()
        page.set_content(html)
        page.pdf(path=str(path), format="A5", outline=True, tagged=True, display_header_footer=True,
                 header_template=fixtures.HEADER, footer_template=fixtures.FOOTER_OF,
                 margin={"top": "1.6cm", "bottom": "1.6cm", "left": "1.2cm", "right": "1.2cm"})
        browser.close()
    return path


def wheel_path(given: str | None, folder: Path) -> Path:
    if given:
        path = Path(given)
    else:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(folder),
                        f"pypdf=={pdf_reader.PYPDF_VERSION}"], check=True)
        path = next(folder.glob("pypdf-*.whl"))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != pdf_reader.PYPDF_WHEEL_SHA256:
        raise SystemExit(f"{path.name} has sha256 {digest}, not the pinned {pdf_reader.PYPDF_WHEEL_SHA256}")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=12)
    parser.add_argument("--wheel")
    parser.add_argument("--no-pyodide", action="store_true")
    args = parser.parse_args()

    from ragchunk import get_tokenizer

    encode = get_tokenizer("cl100k_base").encode
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files: dict[str, Path] = {}
        guide = chromium_guide(args.repeat, folder)
        if guide is not None:
            files["chromium"] = guide
        files["pypdf"] = folder / "pypdf.pdf"
        files["pypdf"].write_bytes(pypdf_report(args.pages))
        files["columns"] = ROOT / "tests" / "data" / "pdf" / "columns.pdf"

        rows = {}
        for name, path in files.items():
            data = path.read_bytes()
            reads, passes, result = [], [], None
            for _ in range(args.runs):
                times, result = read_times(data, name, 1)
                reads.append(times[0])
                started = time.perf_counter()
                encode(result.text)
                passes.append(time.perf_counter() - started)
            import pypdf

            page_count = len(pypdf.PdfReader(io.BytesIO(data)).pages)
            rows[name] = {
                "bytes": len(data), "pages": page_count, "chars": len(result.text),
                "cpython_s": statistics.median(reads), "tiktoken_pass_s": statistics.median(passes),
                "hash": output_hash(result.text, result.pages),
            }

        pyodide = None
        if not args.no_pyodide:
            wheel = wheel_path(args.wheel, folder)
            request = folder / "request.json"
            listed = [{"name": name, "path": str(path)} for name, path in files.items()]
            request.write_text(json.dumps({"runs": args.runs, "files": listed}))
            done = subprocess.run(["node", str(HERE / "harness" / "pdf_node.js"), str(wheel), str(ROOT), str(request)],
                                  capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(done.stderr[-3000:])
            pyodide = json.loads(done.stdout.strip().splitlines()[-1])
            pyodide["wheel_bytes"] = wheel.stat().st_size

    title = f"pypdf {pdf_reader.PYPDF_VERSION}, CPython {platform.python_version()}"
    if pyodide:
        title += (f", Pyodide Python {pyodide['python']} (boot {pyodide['boot_ms']:.0f} ms,"
                  f" wheel {pyodide['wheel_ms']:.0f} ms)")
    print(title)
    header = f"{'pdf':9} {'pages':>6} {'MB':>6} {'CPython MB/s':>12} {'pages/s':>8} {'x pass':>7}"
    if pyodide:
        header += f" {'Pyodide MB/s':>12} {'pages/s':>8} {'x pass':>7} {'same':>5}"
    print(header)
    for name, row in rows.items():
        mb = row["bytes"] / 1e6
        seconds = row["cpython_s"]
        line = (f"{name:9} {row['pages']:6} {mb:6.2f} {mb / seconds:12.2f} {row['pages'] / seconds:8.0f}"
                f" {seconds / row['tiktoken_pass_s']:7.0f}")
        if pyodide:
            other = pyodide["files"][name]
            row["pyodide_s"] = other["seconds"]
            row["same_output"] = other["hash"] == row["hash"]
            line += (f" {mb / other['seconds']:12.2f} {row['pages'] / other['seconds']:8.0f}"
                     f" {other['seconds'] / row['tiktoken_pass_s']:7.0f} {'yes' if row['same_output'] else 'NO':>5}")
        print(line)
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_pdf.json").write_text(json.dumps({"rows": rows, "pyodide": pyodide, "runs": args.runs}, indent=2))
    return 0 if not pyodide or all(row["same_output"] for row in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
