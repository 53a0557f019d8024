"""ragchunk.results.compare and ``python -m ragchunk compare``: the ways of cutting side by side."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import ragchunk
from ragchunk.cli import main
from ragchunk.results.compare import compare
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


GUIDE = ("# Guide\n\n" + " ".join(f"Sentence number {n} says a little more about the guide." for n in range(12))
         + "\n\n## Install\n\nRun the installer. It asks two questions.\n\n## Use\n\n"
         + " ".join(f"Step {n} is done with care." for n in range(10)) + "\n")


def test_the_heading_share_is_of_chunks_that_start_at_a_heading_on_every_row():
    # Before, it counted heading lines anywhere in a chunk's text: a structural chunk embedded
    # after its heading path did not count, a fixed window with a heading halfway in did.
    tokenizer = ragchunk.get_tokenizer()
    fixed = ragchunk.windows(GUIDE, 48, 0, tokenizer)
    opens = [w.text.lstrip().startswith("#") for w in fixed]
    assert any("\n#" in w.text and not o for w, o in zip(fixed, opens, strict=True)), "a window holds a heading late"
    rows = {row.method: row for row in compare([("guide.md", GUIDE)], size=48, overlap=0)}
    assert rows["fixed"].with_heading == sum(opens) / len(fixed) < 1
    for by in ("headings", "paragraphs", "sentences"):
        chunks = ragchunk.split(GUIDE, by=by, size=48, overlap=0).chunks
        assert any(not c.text.startswith("#") for c in chunks), by
        assert rows[by].with_heading == 1.0, by  # every chunk opens with its heading or its path line
    rows = {row.method: row for row in compare([("guide.md", GUIDE)], size=48, overlap=0, context="none")}
    assert rows["fixed"].with_heading == sum(opens) / len(fixed)
    for by in ("headings", "paragraphs", "sentences"):
        chunks = ragchunk.split(GUIDE, by=by, size=48, overlap=0, context="none").chunks
        assert rows[by].with_heading == sum(c.text.startswith("#") for c in chunks) / len(chunks) < 1, by
    # A table's header line repeated before a piece of the table is not a heading.
    table = "| Plan | Seats |\n|---|---|\n" + "".join(f"| plan {n} | {n * 10} |\n" for n in range(40))
    rows = {row.method: row for row in compare([("table.md", table)], size=48, overlap=0)}
    assert [row.with_heading for row in rows.values()] == [0.0] * 4


def test_fixed_windows_leave_out_the_front_matter_as_the_structural_rows_do():
    # Before, fixed windows counted the front matter: 1 chunk of 6 tokens against none.
    rows = compare([("only.md", "---\ntitle: Only\n---\n")])
    assert [(row.method, row.chunks, row.tokens) for row in rows] == [(method, 0, 0) for method in
                                                                      ("fixed", "headings", "paragraphs", "sentences")]
    body = "Some words here.\n\n## Part\n\nMore words there.\n"
    alone = {row.method: row for row in compare([("a.md", body)], size=512, overlap=0, context="none")}
    fronted = {row.method: row for row in compare([("a.md", "---\ntitle: A title\n---\n\n" + body)], size=512,
                                                  overlap=0, context="none")}
    assert fronted == alone
    assert alone["fixed"].tokens == ragchunk.get_tokenizer().count(body)


def test_the_prefix_setting_leaves_room_for_the_model_s_document_prefix():
    model = ragchunk.get_model("e5-small-v2")
    whole = model.max_chunk_tokens()
    assert compare([("a.md", GUIDE)], model=model.id, size=whole)[0].chunks > 0
    with pytest.raises(ragchunk.RagchunkError) as caught:
        compare([("a.md", GUIDE)], model=model.id, size=whole, prefix=True)
    assert caught.value.field == "chunk_size"
    sizes = {row.method: row.max_tokens for row in compare([("a.md", GUIDE * 8)], model=model.id, prefix=True)}
    assert max(sizes.values()) <= model.max_chunk_tokens(prefix=True) < whole


def test_the_cli_and_the_worker_pass_the_prefix_on(tmp_path):
    model = ragchunk.get_model("e5-small-v2")
    doc = tmp_path / "a.md"
    doc.write_text(GUIDE * 8, encoding="utf-8")
    out = io.StringIO()
    assert main(["compare", str(doc), "--model", model.id, "--prefix", "--json"], out=out) == 0
    assert json.loads(out.getvalue())["size"] == model.max_chunk_tokens(prefix=True)
    assert main(["compare", str(doc), "--model", model.id, "--prefix", "--size", str(model.max_chunk_tokens())],
                out=io.StringIO()) == 2
    from ragchunk.api import Workspace

    workspace = Workspace()
    loaded = json.loads(workspace.handle("load", json.dumps({"name": "a.md"}), GUIDE * 8))
    for prefix, size in ((True, model.max_chunk_tokens(prefix=True)), (False, model.max_chunk_tokens())):
        reply = json.loads(workspace.handle("compare", json.dumps({
            "doc": loaded["result"]["doc"], "model": model.id, "chunk_size": "", "overlap": "", "prefix": prefix})))
        assert reply["ok"] and reply["result"]["size"] == size, reply


def test_siblings_reach_the_rows_from_the_library_the_cli_and_the_worker(tmp_path):
    """The comparison packs sections as the split beside it does: its headings row is that split's,
    for pack and for apart, whether asked in Python, on the command line or by the page."""
    from ragchunk.api import Workspace

    text = "".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    doc = tmp_path / "a.md"
    doc.write_text(text, encoding="utf-8")
    workspace = Workspace()
    loaded = json.loads(workspace.handle("load", json.dumps({"name": "a.md"}), text))
    seen = {}
    for siblings in ("pack", "apart"):
        split = ragchunk.split(text, by="headings", size=256, overlap=32, siblings=siblings)
        row = {r.method: r for r in compare([("a.md", text)], size=256, overlap=32, siblings=siblings)}["headings"]
        assert row.chunks == len(split.chunks)
        out = io.StringIO()
        assert main(["compare", str(doc), "--size", "256", "--overlap", "32", "--siblings", siblings, "--json"],
                    out=out) == 0
        cli = {r["method"]: r for r in json.loads(out.getvalue())["rows"]}["headings"]
        reply = json.loads(workspace.handle("compare", json.dumps({
            "doc": loaded["result"]["doc"], "chunk_size": "256", "overlap": "32", "siblings": siblings})))
        assert reply["ok"], reply
        page = {r["method"]: r for r in reply["result"]["rows"]}["headings"]
        assert cli == page == row.to_json()
        seen[siblings] = row.chunks
    assert seen["apart"] > seen["pack"]  # the documents have small sibling sections
    assert main(["compare", str(doc), "--siblings", "merge"], out=io.StringIO()) == 2
