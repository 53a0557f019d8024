"""The documents the integration tests chunk, and what the library gives for each of them."""

from __future__ import annotations

from pathlib import Path

import hostile_files as h
from ragchunk.corpus import split_document
from ragchunk.options import SplitOptions

ROOT = Path(__file__).resolve().parents[2]
PYCORE = ROOT / "pycore"
DATA = ROOT / "tests" / "data"

OPTIONS = {"size": 128, "overlap": 16}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)


def documents() -> list[tuple[str, bytes | None]]:
    """Real documents as files' bytes (Markdown, HTML, DOCX, a PDF with pages), one without any
    heading, hostile files (issue 36: a page that declares a codec that is not text, read with a
    note; a notebook whose nbformat has 5,000 digits and a PDF whose page tree loops, which fail
    alone), and those that give no chunks: a scanned PDF (fails), a null (fails), an image and an
    empty file (not documents)."""
    files = [*sorted((DATA / "md").glob("*.md")), DATA / "docs" / "guide.html", DATA / "docs" / "guide.docx",
             DATA / "pdf" / "outline.pdf", DATA / "pdf" / "scan.pdf"]
    found: list[tuple[str, bytes | None]] = [(path.name, path.read_bytes()) for path in files]
    found += [(name, build()) for name, build in HOSTILE.items()]
    found += [("plain.txt", b"No heading anywhere. Just two sentences of plain text."), ("missing.md", None),
              ("image.png", PNG), ("empty.md", b"")]
    return found


HOSTILE = {"rot13.html": lambda: h.meta_charset("rot13"), "digits.ipynb": lambda: h.notebook_nbformat_digits(5_000),
           "loop.pdf": h.pdf_parent_loop}
FAILING = {"scan.pdf", "missing.md", "digits.ipynb", "loop.pdf"}
SKIPPED = {"image.png", "empty.md"}


def expected_records(source: str, document: bytes | str | None) -> list[dict]:
    """What the library gives for one document: its records, or for a failure the row on_error="record" makes."""
    if document is None:
        return [{"source": source, "error": "the document is null: give its text or bytes, or leave the row out"}]
    result = split_document(source, document, SplitOptions(**OPTIONS))
    if result.error:
        return [{"source": source, "error": result.error}]
    return result.records()


def rows_by_source(rows: list[dict]) -> dict[str, list[dict]]:
    """Rows (nulls left out) grouped by source, each group in the order the engine gave them."""
    grouped: dict[str, list[dict]] = {}
    for row in rows:
        record = {key: value for key, value in row.items() if value is not None}
        if isinstance(record.get("heading_path"), tuple):
            record["heading_path"] = list(record["heading_path"])
        grouped.setdefault(record.get("source", ""), []).append(record)
    return grouped




def assert_library_records(grouped: dict[str, list[dict]], docs: list[tuple[str, bytes | None]]) -> None:
    """Every document of ``docs`` has exactly the library's records in ``grouped`` (a failure its
    error row), and a skipped one has none."""
    for source, data in docs:
        if source in SKIPPED:
            assert source not in grouped
        else:
            assert grouped[source] == expected_records(source, data), source
    assert set(grouped) == {source for source, _ in docs} - SKIPPED
