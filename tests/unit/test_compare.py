"""ragchunk.compare and ``python -m ragchunk compare``: the ways of cutting side by side."""

from __future__ import annotations

import io
import json
from pathlib import Path

import ragchunk
from ragchunk.cli import main
from ragchunk.compare import compare
from ragchunk.readers.formats import EXTENSIONS, KINDS, NAMES, readable_formats

DOCS = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))


def test_each_row_is_what_that_way_of_cutting_makes():
    texts = [(doc.name, doc.read_text(encoding="utf-8")) for doc in DOCS]
    rows = {row.method: row for row in compare(texts, size=200, overlap=20, price_per_million=0.02)}
    assert list(rows) == ["fixed", "headings", "paragraphs", "sentences"]
    for by in ("headings", "paragraphs", "sentences"):
        splits = [ragchunk.split(text, by=by, size=200, overlap=20) for _, text in texts]
        sizes = [c.embed_tokens if c.embed_text else c.tokens for s in splits for c in s.chunks]
        row = rows[by]
        assert (row.chunks, row.tokens, row.max_tokens, row.min_tokens) == (len(sizes), sum(sizes), max(sizes),
                                                                            min(sizes))
        assert row.cost == sum(sizes) / 1e6 * 0.02
    tokenizer = ragchunk.get_tokenizer()
    fixed = sum(ragchunk.plan(tokenizer.count(text), 200, 20).chunks for _, text in texts)
    assert rows["fixed"].chunks == fixed
    # Structure-aware chunks end at sentence or block ends; fixed windows mostly do not.
    assert rows["fixed"].mid_sentence > 0.5 > 0.05 > max(rows[b].mid_sentence for b in ("headings", "paragraphs"))


def test_the_cli_prints_the_table_and_json(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for doc in DOCS[:3]:
        (folder / doc.name).write_bytes(doc.read_bytes())
    out = io.StringIO()
    assert main(["compare", str(folder), "--size", "128", "--overlap", "16", "--json"], out=out) == 0
    data = json.loads(out.getvalue())
    assert data["documents"] == 3 and [r["method"] for r in data["rows"]] == ["fixed", "headings", "paragraphs",
                                                                               "sentences"]
    out = io.StringIO()
    assert main(["compare", str(folder), "--model", "all-MiniLM-L6-v2", "--overlap", "16"], out=out) == 0
    assert "size 254" in out.getvalue() and "bert-base-uncased" in out.getvalue()
    out = io.StringIO()
    assert main(["compare", str(folder), "--chars-per-token", "4"], out=out) == 0
    assert "fixed" not in out.getvalue()  # the estimate has no token positions for windows


def test_the_formats_said_are_every_reader_s():
    # Before, the sentence said "give text or Markdown files", written before the other readers.
    said = readable_formats()
    assert set(NAMES) == set(KINDS), "every reader has a name to be said by"
    for kind, name in NAMES.items():
        first = next(extension for extension, of in EXTENSIONS.items() if of == kind)
        assert f"{name} ({first}" in said, kind
    for name in ("HTML", "PDF", "Word (.docx)", "EPUB", "Jupyter notebooks (.ipynb)", "reStructuredText (.rst)"):
        assert name in said


def test_a_folder_of_files_that_are_not_documents_has_nothing_to_compare(tmp_path, capsys):
    folder = tmp_path / "images"
    folder.mkdir()
    for name in ("a.png", "b.png"):
        (folder / name).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "c.md").write_bytes(b"")
    for json_flag in ([], ["--json"]):
        assert main(["compare", str(folder), *json_flag], out=io.StringIO()) == 1
        assert capsys.readouterr().err == (f"ragchunk: error: {folder} holds no document to compare (skipped: 1 empty,"
                                           f" 2 png): ragchunk reads {readable_formats()}\n")
    (folder / "notes.md").write_text("# Notes\n\nSome words to compare.\n", encoding="utf-8")
    assert main(["compare", str(folder)], out=io.StringIO()) == 0
    assert capsys.readouterr().err == ""
