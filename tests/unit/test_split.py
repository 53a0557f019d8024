"""ragchunk.split: structural chunks with exact sizes, overlap and headings.

Golden snapshots of real documents live in ``tests/data/golden/`` (one JSONL file per
document and setting, exactly what ``python -m ragchunk split`` writes). A behaviour change
shows up as a diff there. To accept a change on purpose, regenerate them and review the
diff::

    RAGCHUNK_REGEN_GOLDEN=1 python3 -m pytest tests/unit/test_split.py -k golden -p no:cacheprovider

Without that variable a missing or different snapshot fails the test.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import sys
from bisect import bisect_left, bisect_right
from pathlib import Path

import pytest
from ragchunk import CharEstimate, RagchunkError, get_tokenizer, split, to_jsonl
from ragchunk.results.records import Document
from ragchunk.packing.sizing import TokenSizer
from ragchunk.text.structure import Structure, markup_direction
from ragchunk.tokenizers import bpe
from ragchunk.cli import main
from ragchunk.readers.formats import readable_formats
from ragchunk.text.graphemes import grapheme_spans, is_boundary
from ragchunk.text.markdown import heading_paths, parse_blocks

sizing_module = importlib.import_module("ragchunk.packing.sizing")
structure_module = importlib.import_module("ragchunk.text.structure")

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "tests" / "data" / "md").glob("*.md"))
GOLDEN = ROOT / "tests" / "data" / "golden"
GOLDEN_DOCS = ["tiktoken-js-README.md", "ws-README.md", "safer-buffer-Porting-Buffer.md"]
GOLDEN_SETTINGS = [("headings", 128, 16), ("sentences", 64, 8)]
CL100K = get_tokenizer("cl100k_base")
_RUN = re.compile(r"\S+")
_NONSPACE = re.compile(r"\S")


def counter_for(tokenizer):
    """The exact count the guarantees are checked with (never the splitter's own shortcuts)."""
    if isinstance(tokenizer, CharEstimate):
        return tokenizer.count
    if isinstance(tokenizer, str):
        return get_tokenizer(tokenizer).count
    return tokenizer.count


def assert_guarantees(text: str, result, size: int, overlap: int, count, prefix_tokens=None,
                      apart: bool = False) -> None:
    """Every promise of ``split`` for one result, checked from the outside. ``prefix_tokens``
    (chunk -> tokens) is what a chunk's context line costs: a word is cut only where it does
    not fit the size less that. ``apart``: the split kept sections apart."""
    chunks = result.chunks
    assert [c.id for c in chunks] == list(range(len(chunks)))
    # A leading BOM is not content: it never joins the first word.
    runs = [m.span() for m in _RUN.finditer(" " + text[1:] if text.startswith("\ufeff") else text)]
    run_starts = [a for a, _ in runs]
    run_counts: dict[tuple[int, int], tuple[int, int]] = {}  # run -> (tokens, room where it starts)

    def run_around(pos: int) -> tuple[int, int] | None:
        index = bisect_right(run_starts, pos) - 1
        if index >= 0 and runs[index][0] < pos < runs[index][1]:
            return runs[index]
        return None

    blocks = parse_blocks(text)
    # Front matter is metadata: no chunk holds it; its title roots the paths of a text without an H1.
    front = blocks.pop(0) if blocks and blocks[0].kind == "front_matter" else None
    paths = heading_paths(blocks)
    # Markup without text right before a heading (an anchor, a comment, a rule) opens its
    # section, except comments right after a heading: those are that heading's.
    openers = set()
    for index, block in enumerate(blocks):
        first = index
        while block.kind == "heading" and first > 0 and (blocks[first - 1].kind == "rule" or (
                blocks[first - 1].kind in ("html", "paragraph")
                and markup_direction(text, blocks[first - 1].start, blocks[first - 1].end) == "open")):
            first -= 1
        if 0 < first < index and blocks[first - 1].kind == "heading":
            while first < index and text.startswith("<!--", blocks[first].start):
                first += 1
        paths[first:index] = [paths[index]] * (index - first)
        openers.update(range(first, index))
    if front is not None and front.title and not any(b.kind == "heading" and b.level == 1 for b in blocks):
        paths = [(front.title, *path) for path in paths]
    block_starts = [b.start for b in blocks]
    covered_to = front.end if front is not None else 0
    previous = None
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        assert chunk.tokens == count(chunk.text), chunk
        assert 0 < chunk.tokens <= size, chunk
        if chunk.embed_text:
            # What is embedded: its context lines, then the chunk, counted exactly, within the size.
            assert chunk.embed_text.endswith(chunk.text), chunk
            assert chunk.embed_tokens == count(chunk.embed_text) and chunk.embed_tokens <= size, chunk
        assert chunk.text.count("\ufffd") == text[chunk.start : chunk.end].count("\ufffd")
        assert chunk.start <= chunk.content_start < chunk.end
        carried = text[chunk.start : chunk.content_start]
        assert chunk.overlap_tokens == (count(carried) if carried else 0), chunk
        assert chunk.overlap_tokens <= overlap
        if previous is None:
            assert carried == ""
        else:
            assert previous.text.endswith(carried)
            if carried:
                assert chunk.content_start == previous.end
        # New content: in order, disjoint, nothing but whitespace (or a leading BOM) skipped.
        assert chunk.content_start >= covered_to
        gap = text[covered_to : chunk.content_start]
        assert gap.strip() == "" or (covered_to == 0 and gap.strip() == "\ufeff"), (covered_to, chunk)
        for pos in (chunk.start, chunk.end):
            run = run_around(pos)
            if run is not None:
                if run not in run_counts:
                    # The room that decided the cut is that of the chunk the word starts in
                    # (met first): a later piece may have other context lines, or none.
                    room = size - (prefix_tokens(chunk) if prefix_tokens else 0) - context_tokens(chunk, count)
                    run_counts[run] = (count(text[run[0] : run[1]]), room)
                tokens, room = run_counts[run]
                assert tokens > room, (chunk, text[run[0] : run[1]][:80])
        first = _NONSPACE.search(text, chunk.content_start)
        index = bisect_right(block_starts, first.start()) - 1
        if index >= 0 and block_starts[index] == first.start() and (blocks[index].kind == "heading" or index in openers):
            assert carried == "", chunk  # a chunk that opens a section carries no overlap
        # Every section the chunk's text holds (overlap too), and the path they all share.
        lead = _NONSPACE.search(text, chunk.start)
        held = [paths[i] if i >= 0 else () for i in range(bisect_right(block_starts, lead.start()) - 1,
                                                             bisect_left(block_starts, chunk.end))]
        held = [p for k, p in enumerate(held) if k == 0 or p != held[k - 1]]
        assert chunk.sections == tuple(held), chunk
        path = tuple(os.path.commonprefix(held))
        assert chunk.heading_path == path, chunk
        assert chunk.heading == (path[-1] if path else "")
        if len(held) == 1:
            assert held[0] == (paths[index] if index >= 0 else ()), chunk  # the path of the new content
        if apart:
            # One section's text: headings (and the markup opening them) only before any of it.
            kinds = ["head" if blocks[i].kind == "heading" or i in openers else "text"
                     for i in range(max(bisect_right(block_starts, lead.start()) - 1, 0),
                                    bisect_left(block_starts, chunk.end))]
            assert "head" not in kinds[kinds.index("text"):] if "text" in kinds else True, chunk
        lines = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)]
        if lines and not lines.startswith("|") and not lines.lstrip().startswith("|"):
            # The context line names headings the whole chunk is under, and only those.
            line = lines.split("\n", 1)[0]
            assert line in {" > ".join(path[i:j]) for j in range(len(path) + 1) for i in range(j)}, chunk
        covered_to = chunk.end
        previous = chunk
    assert text[covered_to:].strip() == "" or (covered_to == 0 and text.strip() == "\ufeff")
    if front is not None:
        assert all(c.content_start >= front.end for c in chunks)
    stats = result.stats
    assert stats.chunks == len(chunks)
    # The statistics are of what is embedded: a cut table's header line or a heading context counts.
    assert stats.total_tokens == sum(c.embed_tokens if c.embed_text else c.tokens for c in chunks)
    assert stats.max_tokens <= size
    assert stats.overlap_tokens == sum(c.overlap_tokens for c in chunks)
    assert sum(b.count for b in stats.histogram) == len(chunks)


def context_tokens(chunk, count) -> int:
    """What the chunk's context lines cost (0 without): the room they leave its text is the size minus this."""
    lines = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)]
    return count(lines) if lines else 0


def check(text: str, by: str = "headings", size: int = 64, overlap: int = 8, tokenizer="cl100k_base",
          context: str | None = None, siblings: str | None = None):
    """The guarantees of a split with these settings (``context``, ``siblings``: the library's default unless given)."""
    options = {} if context is None else {"context": context}
    if siblings is not None:
        options["siblings"] = siblings
    result = split(text, by=by, size=size, overlap=overlap, tokenizer=tokenizer, **options)
    assert_guarantees(text, result, size, overlap, counter_for(tokenizer), apart=siblings == "apart")
    return result


def texts(result) -> list[str]:
    return [c.text for c in result.chunks]


def new_content(result, text: str) -> list[str]:
    return [text[c.content_start : c.end].strip() for c in result.chunks]


# --- configuration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"by": "words"}, "by", "by (words) is not known: choose one of headings, paragraphs, sentences"),
        ({"size": 0}, "chunk_size", "chunk size (0) must be at least 1"),
        ({"size": 64, "overlap": 64}, "overlap", "overlap (64) must be smaller than chunk size (64)"),
        ({"overlap": -1}, "overlap", "overlap (-1) must be at least 0"),
        ({"size": 10.5}, "chunk_size", "must be a whole number"),
        ({"tokenizer": "gpt2"}, "encoding", "encoding (gpt2) is not known"),
        ({"tokenizer": CharEstimate(0)}, "chars_per_token", "characters per token (0) must be greater than 0"),
        ({"tokenizer": CharEstimate(1000)}, "chars_per_token", "is too large"),
        ({"tokenizer": object()}, "tokenizer", "has no count(text) method"),
    ],
)
def test_configuration_is_validated_first(kwargs, field, message):
    settings = {"by": "headings", "size": 64, "overlap": 8} | kwargs
    with pytest.raises(RagchunkError) as caught:
        split("# Title\n\nSome text.", **settings)
    assert caught.value.field == field
    assert message in caught.value.message


def test_text_must_be_encodable_text():
    with pytest.raises(RagchunkError) as caught:
        split(b"bytes", size=8, overlap=0)
    assert caught.value.field == "text"
    with pytest.raises(RagchunkError, match="unpaired surrogate at offset 2") as caught:
        split("ab\ud800cd", size=8, overlap=0)
    assert caught.value.field == "text"


@pytest.mark.parametrize("text", ["", " ", "\n\n\t \r\n", "\u3000", "\ufeff", "\ufeff \n"])
@pytest.mark.parametrize("by", ["headings", "paragraphs", "sentences"])
def test_empty_text_has_no_chunks(text, by):
    result = split(text, by=by, size=16, overlap=4)
    assert result.chunks == []
    assert (result.stats.chunks, result.stats.total_tokens, result.stats.mean_tokens) == (0, 0, 0.0)


def test_split_result_names_its_settings():
    result = split("Hello.", by="sentences", size=10, overlap=2, tokenizer=CharEstimate(3.5))
    assert (result.tokenizer, result.by, result.size, result.overlap) == ("chars/3.5", "sentences", 10, 2)
    assert split("Hello.", size=10, overlap=2, tokenizer="o200k_base").tokenizer == "o200k_base"


def test_size_smaller_than_one_character_is_an_error_naming_the_size():
    with pytest.raises(RagchunkError) as caught:
        split("👨\u200d👩\u200d👧", size=1, overlap=0)
    assert caught.value.field == "chunk_size"
    assert re.fullmatch(r"chunk size \(1\) is too small for this text: the character U\+1F468 alone is \d tokens;"
                        r" enter at least \d", caught.value.message)
    with pytest.raises(RagchunkError, match="enter at least 2"):
        split("abc", size=1, overlap=0, tokenizer=CharEstimate(0.5))



# --- progress ------------------------------------------------------------------------------


def _progress_calls(text: str, **kwargs) -> tuple[list[tuple[int, int]], list]:
    calls: list[tuple[int, int]] = []
    chunks = split(text, progress=lambda done, total: calls.append((done, total)), **kwargs).chunks
    return calls, chunks


@pytest.mark.parametrize("path", DOCS[:3], ids=lambda p: p.name)
def test_progress_rises_to_the_end_in_at_most_a_hundred_steps(path):
    text = path.read_text(encoding="utf-8") * 3
    calls, chunks = _progress_calls(text, by="sentences", size=16, overlap=4)
    assert len(chunks) > 200  # more chunks than reports: the cap is exercised
    assert calls[-1] == (len(text), len(text))
    assert all(total == len(text) for _, total in calls)
    dones = [done for done, _ in calls[:-1]]
    assert dones == sorted(set(dones)) and all(0 < done < len(text) for done in dones)
    assert 50 <= len(dones) <= 100
    assert set(dones) <= {c.end for c in chunks}


def test_progress_reports_the_end_once_even_when_there_is_nothing_to_split():
    for text in ("", " \n\t "):
        calls, chunks = _progress_calls(text, size=16, overlap=4)
        assert (calls, chunks) == ([(len(text), len(text))], [])
    calls, _ = _progress_calls("One short sentence.", size=16, overlap=4)
    assert calls == [(19, 19)]


def test_progress_does_not_change_the_split():
    text = (DOCS[0]).read_text(encoding="utf-8")
    _, with_progress = _progress_calls(text, by="headings", size=64, overlap=8)
    assert with_progress == split(text, by="headings", size=64, overlap=8).chunks


def test_encoding_beside_the_markdown_scan_changes_nothing():
    # With two threads, a long text's Markdown is scanned on a second thread while CPython's
    # tiktoken encodes it; threads=1 takes the one-thread path.
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in DOCS * 2)
    assert len(text) >= sizing_module.PARALLEL_MIN_CHARS
    threads = []
    real_thread = sizing_module.threading.Thread

    def counting_thread(*args, **kwargs):
        threads.append(kwargs.get("name"))
        return real_thread(*args, **kwargs)

    sizing_module.threading.Thread = counting_thread
    try:
        parallel = split(text, by="headings", size=128, overlap=16, tokenizer="cl100k_base", threads=2)
        single = split(text, by="headings", size=128, overlap=16, tokenizer=get_tokenizer("cl100k_base"), threads=1)
    finally:
        sizing_module.threading.Thread = real_thread
    assert threads == ["ragchunk-markdown"]
    assert parallel.chunks == single.chunks and parallel.stats == single.stats


def test_token_ends_in_an_array_change_nothing(monkeypatch):
    # Long documents keep their token ends in a compact array instead of a list, made slice by slice.
    text = DOCS[0].read_text(encoding="utf-8")
    as_list = split(text, by="headings", size=64, overlap=8)
    tokenizer = get_tokenizer("cl100k_base")
    whole = TokenSizer(text, tokenizer).ends
    monkeypatch.setattr(bpe, "ARRAY_ENDS_FROM", 0)
    tokens = len(tokenizer.encode(text))
    for slice_size in (7, tokens - 1):  # many slices; a last slice of a single token
        monkeypatch.setattr(bpe, "_ENDS_SLICE", slice_size)
        sizer = TokenSizer(text, tokenizer)
        assert sizer.ends.typecode == "I"
        assert list(sizer.ends) == whole and whole[-1] == len(text)
    assert split(text, by="headings", size=64, overlap=8).chunks == as_list.chunks


def test_an_error_on_either_thread_reaches_the_caller(monkeypatch):
    class Broken(Exception):
        pass

    tokenizer = get_tokenizer("cl100k_base")
    text = "x" * sizing_module.PARALLEL_MIN_CHARS

    class BrokenEncode(type(tokenizer)):
        def encode(self, text):
            raise Broken(text[:5])

    broken = BrokenEncode(tokenizer.name, tokenizer._encoding, tokenizer._tables)
    with pytest.raises(Broken, match="xxxxx"):
        sizing_module.prepare(text, sizing_module.Sizing("cl100k_base", broken), threads=2)

    def broken_scan(text, **options):
        raise Broken("scan " + text[:3])

    monkeypatch.setattr(structure_module, "parse_blocks", broken_scan)
    with pytest.raises(Broken, match="scan xxx"):
        sizing_module.prepare(text, sizing_module.Sizing("cl100k_base", tokenizer), threads=2)


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "p50k_base", "r50k_base"])
def test_token_ends_made_piece_by_piece_are_those_of_one_encode(monkeypatch, encoding, compact):
    # The parallel path encodes a long text in pieces and turns each into token ends on
    # the Markdown thread; the ends (and so every count) must be those of one encode.
    if compact:
        monkeypatch.setattr(sizing_module, "_ARRAY_ENDS_FROM", 0)
    tokenizer = get_tokenizer(encoding)
    base = "\n\n".join(path.read_text(encoding="utf-8") for path in DOCS * 2)
    texts = [
        base,
        base.replace("\n", "\r\n"),  # CRLF line breaks
        "ünïcödé wörds, 日本語。 🙂\n" * 3000,  # every piece boundary after non-ASCII text
        "x" * sizing_module.PARALLEL_MIN_CHARS,  # no boundary at all: one piece
    ]
    for text in texts:
        assert len(text) >= sizing_module.PARALLEL_MIN_CHARS
        sizer, structure = sizing_module.prepare(text, sizing_module.Sizing(encoding, tokenizer), threads=2)
        one = TokenSizer(text, tokenizer)
        assert list(sizer.ends) == list(one.ends) and sizer.ends[-1] == len(text)
        assert (getattr(sizer.ends, "typecode", None) == "I") == compact
        assert structure == Structure.of(text)


def test_progress_exceptions_stop_the_split():
    class Cancelled(Exception):
        pass

    def cancel(done: int, total: int) -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        split("One. Two. Three. Four.", by="sentences", size=3, overlap=0, progress=cancel)


def test_progress_must_be_callable():
    with pytest.raises(RagchunkError) as caught:
        split("Some text.", size=16, overlap=4, progress=42)
    assert caught.value.field == "progress"
    assert "must be callable" in caught.value.message

# --- structure -------------------------------------------------------------------------

GUIDE = """# Guide

Intro to the guide.

## Install

Install it with the installer.

### Linux

Use the package manager. It is quick.

### Windows

Run the setup program.

## Use

Open the app and start working.
"""


def test_heading_paths_follow_the_outline():
    result = check(GUIDE, by="paragraphs", size=12, overlap=0)
    paths = {c.text.split("\n")[0]: c.heading_path for c in result.chunks}
    assert paths["### Linux"] == ("Guide", "Install", "Linux")
    assert paths["### Windows"] == ("Guide", "Install", "Windows")
    assert paths["## Use"] == ("Guide", "Use")
    assert all(c.heading == c.heading_path[-1] for c in result.chunks)


def test_sections_are_packed_whole_when_they_fit():
    result = check(GUIDE, by="headings", size=2000, overlap=0, siblings="pack")
    assert texts(result) == [GUIDE.strip()]
    result = check(GUIDE, by="headings", size=30, overlap=0, siblings="pack")
    for chunk in result.chunks:
        # No section is split between chunks unless it is bigger than the target.
        assert chunk.text.startswith("#"), chunk.text


def test_a_heading_travels_with_what_follows_it():
    for by in ("headings", "paragraphs", "sentences"):
        for size in (8, 12, 20, 40):
            result = check(GUIDE, by=by, size=size, overlap=0)
            for chunk in result.chunks[:-1]:
                last_line = chunk.text.rsplit("\n", 1)[-1]
                assert not last_line.startswith("#"), (by, size, chunk.text)


def test_paragraphs_are_never_merged_beyond_the_target():
    a, b, c = "One two three four five.", "Six seven eight nine ten.", "Eleven twelve."
    text = f"{a}\n\n{b}\n\n{c}"
    assert CL100K.count(f"{a}\n\n{b}") == 12 and CL100K.count(f"{a}\n\n{b}\n\n{c}") > 12
    assert CL100K.count(f"{b}\n\n{c}") == 10
    assert texts(check(text, by="paragraphs", size=9, overlap=0)) == [a, b, c]
    assert texts(check(text, by="paragraphs", size=11, overlap=0)) == [a, f"{b}\n\n{c}"]
    assert texts(check(text, by="paragraphs", size=12, overlap=0)) == [f"{a}\n\n{b}", c]


def test_a_cut_section_is_not_merged_with_the_next_one():
    big = " ".join(f"Sentence number {i} is here." for i in range(12))
    text = f"# A\n\n{big}\n\n# B\n\nShort."
    result = check(text, by="headings", size=40, overlap=0)
    assert texts(result)[-1] == "# B\n\nShort."


SIBLINGS = """# Guide

A short intro.

## Setup

Run setup.

## Install

Run the installer. Then restart.

### Linux

Use the package.
"""


def test_a_chunk_of_several_sections_is_under_the_path_they_share():
    chunk, = check(SIBLINGS, by="headings", size=512, overlap=0, siblings="pack").chunks
    assert chunk.sections == (("Guide",), ("Guide", "Setup"), ("Guide", "Install"), ("Guide", "Install", "Linux"))
    assert chunk.heading_path == ("Guide",) and chunk.heading == "Guide"
    # Siblings with no heading above them all: under none.
    chunk, = check("# Setext title\n\nSome words.\n\n# Install\n\nRun it.\n", size=512, overlap=0,
                   siblings="pack").chunks
    assert chunk.sections == (("Setext title",), ("Install",))
    assert (chunk.heading_path, chunk.heading, chunk.embed_text) == ((), "", "")


def test_the_context_line_names_only_the_shared_path():
    setup = " ".join(["The setup step one is here."] * 8)
    text = f"# Guide\n\n## Setup\n\n{setup}\n\nThen run setup.\n\n## Install\n\nRun the installer.\n"
    first, packed = check(text, by="paragraphs", size=64, overlap=0, context="headings", siblings="pack").chunks
    assert packed.text == "Then run setup.\n\n## Install\n\nRun the installer."
    assert packed.sections == (("Guide", "Setup"), ("Guide", "Install"))
    # Before: "Guide > Setup", a heading the install text is not under.
    assert (packed.heading_path, packed.embed_text) == (("Guide",), "Guide\n" + packed.text)
    # Alone, the end of the setup section is under its own heading.
    alone = check(text.replace("\n\n## Install\n\nRun the installer.", ""), by="paragraphs", size=64, overlap=0,
                  context="headings").chunks[1]
    assert (alone.sections, alone.embed_text) == ((("Guide", "Setup"),), "Guide > Setup\nThen run setup.")


def test_a_chunk_of_one_section_is_labelled_as_before():
    for by in ("headings", "paragraphs", "sentences"):
        for size in (8, 16, 40):
            for chunk in check(GUIDE, by=by, size=size, overlap=4).chunks:
                if len(chunk.sections) == 1:
                    first = _NONSPACE.search(GUIDE, chunk.content_start).start()
                    assert chunk.heading_path == Structure.of(GUIDE).path_at(first), chunk


def test_a_docx_made_from_markdown_labels_packed_sibling_sections_honestly():
    from ragchunk import SplitOptions, split_document

    data = (ROOT / "tests" / "data" / "docs" / "guide.docx").read_bytes()
    packed = SplitOptions(size=128, siblings="pack")
    first = split_document("guide.docx", data, packed).records()[0]
    # The document's title and its first section are siblings (both level 1) in one chunk.
    assert first["text"].startswith("# Field Guide to Chunking\n\nRagchunk Tests\n\n# Getting started\n\n")
    assert first["sections"] == [["Field Guide to Chunking"], ["Getting started"]]
    assert first["heading_path"] == [] and first["heading"] == "" and "embed_text" not in first
    second = split_document("guide.docx", data, packed).records()[1]
    # A section and its subsection: under the section.
    assert second["sections"] == [["Getting started", "Installing"], ["Getting started", "Installing", "Configuration file"]]
    assert second["heading_path"] == ["Getting started", "Installing"]


def test_sections_apart_keeps_each_section_to_itself():
    chunks = check(SIBLINGS, by="headings", size=512, overlap=0, siblings="apart").chunks
    assert [c.text for c in chunks] == ["# Guide\n\nA short intro.", "## Setup\n\nRun setup.",
                                        "## Install\n\nRun the installer. Then restart.", "### Linux\n\nUse the package."]
    assert [c.heading_path for c in chunks] == [("Guide",), ("Guide", "Setup"), ("Guide", "Install"),
                                                ("Guide", "Install", "Linux")]
    assert all(len(c.sections) == 1 for c in chunks)
    # A heading with no text of its own still travels with what follows it.
    chunk, = check("# Guide\n\n## Setup\n\nRun setup.\n", size=512, overlap=0, siblings="apart").chunks
    assert chunk.sections == (("Guide",), ("Guide", "Setup")) and chunk.heading_path == ("Guide",)


@pytest.mark.parametrize("by", ["headings", "paragraphs", "sentences"])
def test_sections_apart_on_real_documents(by):
    for doc in ("ws-README.md", "tiktoken-js-README.md"):
        text = (ROOT / "tests" / "data" / "md" / doc).read_text(encoding="utf-8")
        for size, overlap in ((64, 8), (256, 32)):
            packed = check(text, by=by, size=size, overlap=overlap, siblings="pack")
            apart = check(text, by=by, size=size, overlap=overlap, siblings="apart")
            assert len(apart.chunks) >= len(packed.chunks)
            if by == "headings" and size == 256:
                assert any(len(c.sections) > 1 for c in packed.chunks)


def test_siblings_is_checked():
    with pytest.raises(RagchunkError, match=r"siblings \(together\) is not known: choose one of pack, apart"):
        split("Text.", siblings="together")


def test_hash_inside_a_code_block_is_not_a_heading():
    text = "# Real\n\n```sh\n# not a heading\necho hi\n```\n\nAfter."
    result = check(text, by="paragraphs", size=10, overlap=0)
    assert all(c.heading_path == ("Real",) for c in result.chunks)


def test_a_long_list_is_cut_between_items():
    items = [f"- item number {i} has a few words" for i in range(10)]
    text = "\n".join(items)
    result = check(text, by="paragraphs", size=30, overlap=0)
    assert len(result.chunks) > 1
    for chunk in result.chunks:
        assert all(line in items for line in chunk.text.split("\n")), chunk.text


def test_a_long_code_block_is_cut_between_lines():
    lines = [f"print('line {i}')" for i in range(30)]
    text = "```python\n" + "\n".join(lines) + "\n```"
    result = check(text, by="headings", size=40, overlap=0)
    assert len(result.chunks) > 1
    for chunk in result.chunks:
        assert all(line in ["```python", "```", *lines] for line in chunk.text.split("\n")), chunk.text


def test_sentences_are_packed_greedily():
    text = "Dr. Smith arrived at 5 p.m. on Jan. 3. He left. Then he came back. It rained."
    result = check(text, by="sentences", size=16, overlap=0)
    assert texts(result) == ["Dr. Smith arrived at 5 p.m. on Jan. 3.", "He left. Then he came back. It rained."]
    result = check(text, by="sentences", size=19, overlap=0)
    assert texts(result) == ["Dr. Smith arrived at 5 p.m. on Jan. 3. He left.", "Then he came back. It rained."]


def test_a_long_sentence_is_cut_between_words():
    text = " ".join(["word"] * 50) + "."
    result = check(text, by="sentences", size=10, overlap=0)
    # Ten words are ten tokens; "word." is two and stays whole.
    assert [c.text.count("word") for c in result.chunks] == [10, 10, 10, 10, 9, 1]
    assert texts(result)[-1] == "word."


def test_plain_text_without_markdown():
    text = "First paragraph, plain.\nIt wraps here.\n\nSecond paragraph. Two sentences."
    result = check(text, by="paragraphs", size=12, overlap=0)
    assert texts(result) == ["First paragraph, plain.\nIt wraps here.", "Second paragraph. Two sentences."]
    assert all(c.heading_path == () and c.heading == "" for c in result.chunks)


# --- words bigger than a chunk -----------------------------------------------------------


@pytest.mark.parametrize(
    "word",
    [
        "https://example.com/" + "segment/" * 60,
        "a" * 3000,
        "👍🏽" * 40,
        "👨\u200d👩\u200d👧\u200d👦" * 12,
        "🇺🇦🇩🇪🇫🇷" * 30,
        "e\u0301" * 200,
        "नमस्ते" * 60,
        "x\r\n" * 1 + "y" * 500,
    ],
)
@pytest.mark.parametrize("tokenizer", ["cl100k_base", "o200k_base", CharEstimate(2)])
def test_a_giant_word_is_cut_at_grapheme_boundaries(word, tokenizer):
    text = f"Before it. {word} After it."
    count = counter_for(tokenizer)
    clusters = grapheme_spans(text)
    starts = [a for a, _ in clusters]
    result = check(text, by="sentences", size=12, overlap=3, tokenizer=tokenizer)
    for chunk in result.chunks:
        for pos in (chunk.start, chunk.end):
            if not is_boundary(text, pos):
                a, b = clusters[bisect_right(starts, pos) - 1]
                assert count(text[a:b]) > 12, (chunk, text[a:b])


def test_a_cluster_bigger_than_the_chunk_is_cut_between_code_points():
    family = "👨\u200d👩\u200d👧\u200d👦"
    assert CL100K.count(family) > 6
    result = check(family * 3, size=6, overlap=0)
    assert "".join(texts(result)) == family * 3


def test_glued_sentences_are_cut_after_their_end_mark():
    text = "日本語の文章です。" * 40
    result = check(text, by="sentences", size=20, overlap=0)
    assert len(result.chunks) > 1
    assert all(c.text.endswith("。") for c in result.chunks)


def test_glued_sentences_that_fit_stay_together():
    text = "Intro here.\n\n" + "短い文。次の文。"
    result = check(text, by="sentences", size=10, overlap=0)
    assert texts(result) == ["Intro here.", "短い文。次の文。"]


# --- overlap -----------------------------------------------------------------------------


def test_overlap_starts_at_a_sentence_when_one_fits():
    # 13 tokens, a blank line, then 6; the last sentence of the first paragraph is 6.
    text = "Alpha beta gamma. Delta epsilon. Zeta eta theta iota.\n\nKappa lambda mu nu."
    result = check(text, by="paragraphs", size=16, overlap=8)
    second = result.chunks[1]
    assert text[second.start : second.content_start] == "Zeta eta theta iota."
    assert second.overlap_tokens == CL100K.count("Zeta eta theta iota.")


def test_overlap_falls_back_to_a_word_start():
    text = "One very long sentence with many words in it that goes on.\n\nNext part."
    result = check(text, by="paragraphs", size=15, overlap=3)
    second = result.chunks[1]
    carried = text[second.start : second.content_start]
    # No sentence start within 3 tokens: the tail starts at a word ("goes" alone is 2 tokens).
    assert text[second.start - 1] == " " and carried == "on."
    assert second.overlap_tokens == 2


def test_overlap_is_shortened_to_keep_the_next_unit_whole():
    text = "Short one. Short two.\n\n" + "A paragraph of exactly enough words to fill it up."
    whole = CL100K.count("A paragraph of exactly enough words to fill it up.")
    result = check(text, by="paragraphs", size=whole + 1, overlap=6)
    assert new_content(result, text)[-1] == "A paragraph of exactly enough words to fill it up."
    assert result.chunks[-1].overlap_tokens <= 1


def test_a_chunk_that_opens_with_a_heading_carries_no_overlap():
    body = "One two three four five six. " * 30
    code = "echo hi\n" * 40
    text = f"# Guide\n\n{body}\n\n## Install\n\n{body}\n\n```sh\n{code}# not a heading\n{code}```\n"
    chunks = split(text, size=64, overlap=16, context="none").chunks
    opening = [c for c in chunks if text.startswith("## Install", c.content_start)]
    assert len(opening) == 1 and opening[0].start == opening[0].content_start and opening[0].overlap_tokens == 0
    # Inside a section, and at a "#" line of a code block, the tail is carried as before.
    inside = [c for c in chunks if c.overlap_tokens]
    assert len(inside) >= len(chunks) - 3
    comment = [c for c in chunks if text.startswith("# not a heading", c.content_start)]
    assert all(c.overlap_tokens > 0 for c in comment)


def test_a_chunk_that_opens_with_an_anchor_before_a_heading_carries_no_overlap():
    # Docs sites put an anchor (or a comment, or a rule) before a heading; the chunk that
    # opens with it opens the section, as one opening with the heading does.
    body = "One two three four five six. " * 30
    text = (f"# Guide\n\n{body}\n\n<a id=\"install\"></a>\n\n## Install\n\n{body}\n\n"
            f"<!-- usage -->\n\n## Use\n\n{body}\n\n---\n\n## End\n\n{body}\n")
    chunks = split(text, size=64, overlap=16, context="none").chunks
    openers = [c for c in chunks if text.startswith(("<a id", "<!--", "---", "## "), c.content_start)]
    assert [text[c.content_start:c.content_start + 5] for c in openers] == ["<a id", "## Us", "## En"]
    assert all(c.start == c.content_start and c.overlap_tokens == 0 for c in openers), openers
    # Elsewhere the tail is carried as before (a comment or rule ending a section stays with it).
    assert sum(c.overlap_tokens > 0 for c in chunks) == len(chunks) - 4


def test_a_comment_right_under_a_heading_is_that_headings_not_the_next_ones():
    """Node.js's docs put an API's "<!-- YAML ... -->" history just under its heading. Before,
    that comment was read as opening the next subsection: a piece of it was embedded under
    "new ReadableStream()" although it is the history of the class above."""
    history = "".join(f"  - version: v{n}.0.0\n    pr-url: https://github.com/nodejs/node/pull/{40000 + n}\n"
                      for n in range(14, 22))
    text = (f"## API\n\n### Class: `ReadableStream`\n\n<!-- YAML\nadded: v16.5.0\nchanges:\n{history}-->\n\n"
            f"#### `new ReadableStream()`\n\n{'Creates a new stream. ' * 20}\n")
    comment = (text.index("<!-- YAML"), text.index("-->") + 3)
    for size in (48, 64, 96):
        chunks = split(text, size=size, overlap=8, context="headings").chunks
        under = [c for c in chunks if comment[0] <= c.content_start < comment[1]]  # new content in the comment
        assert under and all(c.heading_path == ("API", "Class: `ReadableStream`") for c in under), size
        assert all(c.embed_text.startswith("API > Class: `ReadableStream`\n") for c in under if c.embed_text), size
    # An anchor between a section's text and the next heading still opens that heading's section.
    anchored = text.replace("#### ", '<a id="new"></a>\n\n#### ')
    assert '<a id="new">' in anchored and ("API", "Class: `ReadableStream`", "`new ReadableStream()`") in {
        c.heading_path for c in split(anchored, size=64, overlap=8).chunks if '<a id="new">' in c.text[:20]}


def test_no_overlap_when_zero():
    result = check(GUIDE, by="paragraphs", size=10, overlap=0)
    assert all(c.start == c.content_start and c.overlap_tokens == 0 for c in result.chunks)


def test_overlap_is_reported_real():
    result = check(GUIDE * 3, by="sentences", size=20, overlap=7, siblings="pack")
    assert any(0 < c.overlap_tokens < 7 for c in result.chunks)
    assert all(c.overlap_tokens <= 7 for c in result.chunks)


# --- sizers ------------------------------------------------------------------------------


def test_char_estimate_counts_characters():
    result = check(GUIDE, by="paragraphs", size=40, overlap=10, tokenizer=CharEstimate(4))
    assert all(c.tokens == -(-len(c.text) // 4) for c in result.chunks)
    assert result.tokenizer == "chars/4"


class CountOnly:
    """A tokenizer with nothing but a count (one token per word and per punctuation mark)."""

    name = "words"
    exact = True

    def count(self, text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text))


def test_any_tokenizer_with_a_count_works():
    tokenizer = CountOnly()
    result = split(GUIDE, by="sentences", size=9, overlap=3, tokenizer=tokenizer)
    assert_guarantees(GUIDE, result, 9, 3, tokenizer.count)
    assert result.tokenizer == "words"


def test_token_counts_are_exact_for_every_encoding():
    text = (ROOT / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")[:6000]
    for name in ("cl100k_base", "o200k_base", "p50k_base", "r50k_base"):
        check(text, by="headings", size=50, overlap=10, tokenizer=name)


# --- real documents ----------------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
@pytest.mark.parametrize(
    ("by", "size", "overlap", "tokenizer"),
    [
        ("headings", 128, 16, "cl100k_base"),
        ("headings", 512, 64, "o200k_base"),
        ("paragraphs", 64, 8, "cl100k_base"),
        ("sentences", 64, 8, "cl100k_base"),
        ("sentences", 16, 4, "r50k_base"),
        ("headings", 10, 3, "cl100k_base"),
        ("paragraphs", 100, 20, CharEstimate(4)),
        ("headings", 7, 2, CharEstimate(2.5)),
    ],
    ids=lambda v: str(v),
)
def test_guarantees_on_real_documents(path, by, size, overlap, tokenizer):
    check(path.read_text(encoding="utf-8"), by, size, overlap, tokenizer)


# --- hard inputs: all linear -------------------------------------------------------------

HARD = {
    "one long line": lambda n: "".join("abcdefghij/.-_"[(i * 7 + i // 13) % 14] for i in range(n)),
    "one repeated character": lambda n: "a" * n,
    "many headings": lambda n: "".join(f"{'#' * (1 + i % 6)} h{i}\n" for i in range(n // 8)),
    "unclosed fence": lambda n: "```\n" + "x = 1 # comment\n" * (n // 16),
    "crlf": lambda n: "Hello world. This is text.\r\n" * (n // 28),
    "cr": lambda n: "# T\r\rHello world. This is text.\r\r" * (n // 32),
    "bom, nul, special tokens": lambda n: "\ufeff" + "x\x00y <|endoftext|> z. " * (n // 20),
    "zwj emoji": lambda n: "👨\u200d👩\u200d👧\u200d👦 " * (n // 12),
    "rtl": lambda n: "שלום עולם. مرحبا بالعالم. " * (n // 26),
    "flags": lambda n: "🇺🇦" * (n // 2),
    "combining marks": lambda n: "e" + "\u0301" * n,
    "spaces": lambda n: "a" + " " * n + "b",
    "dots": lambda n: "." * n,
}


@pytest.mark.parametrize("name", list(HARD))
def test_hard_inputs_keep_the_guarantees(name):
    text = HARD[name](6_000)
    for by, size, overlap in (("headings", 64, 8), ("sentences", 16, 5)):
        check(text, by, size, overlap)
    check(text, "paragraphs", 40, 10, CharEstimate(3))


# The exact tokenizers of every family: OpenAI's BPE, BERT's WordPiece, XLM-R's Unigram.
FAMILIES = ["cl100k_base", "bert-base-uncased", "xlm-roberta"]


class _CountingTokenizer:
    """A registry tokenizer (``cl100k_base`` unless named) that adds up how many characters
    it was asked to encode or count; everything else is the tokenizer's own."""

    def __init__(self, name: str = "cl100k_base") -> None:
        self._inner = get_tokenizer(name)
        self.name = self._inner.name
        self.exact = True
        self.special_tokens = self._inner.special_tokens
        self.chars = 0

    def __getattr__(self, attribute):
        return getattr(self._inner, attribute)  # cut rules, and what the threaded encode asks of tiktoken

    def encode(self, text):
        self.chars += len(text)
        return self._inner.encode(text)

    def encode_with_offsets(self, text):
        self.chars += len(text)
        return self._inner.encode_with_offsets(text)

    def count(self, text):
        self.chars += len(text)
        return self._inner.count(text)


def _work_per_char(text: str, tokenizer: str = "cl100k_base") -> float:
    counting = _CountingTokenizer(tokenizer)
    split(text, by="headings", size=256, overlap=32, tokenizer=counting)
    return counting.chars / len(text)


@pytest.mark.parametrize("tokenizer", FAMILIES)
@pytest.mark.parametrize("name", ["one long line", "many headings", "unclosed fence", "combining marks", "flags", "crlf"])
def test_hard_inputs_are_tokenized_a_bounded_number_of_times(name, tokenizer):
    # Deterministic stand-in for "linear time": the tokenizer work per character must not
    # grow with the text (re-counting growing chunks would make it grow), and stays small.
    small, large = _work_per_char(HARD[name](60_000), tokenizer), _work_per_char(HARD[name](240_000), tokenizer)
    assert large <= small * 1.25 + 0.05, (small, large)
    assert large < 6, large


def test_the_work_counter_sees_every_character_encoded():
    """The counter counts what the tokenizer is asked for, through whichever method (a check that can fail)."""
    for name in FAMILIES:
        counting = _CountingTokenizer(name)
        counting.encode("abc"), counting.encode_with_offsets("de"), counting.count("f")
        assert counting.chars == 6 and counting.name == name
        split("One. Two. Three.", size=8, overlap=0, tokenizer=counting)
        assert counting.chars >= len("One. Two. Three."), name


EDGES_DOC = (ROOT / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8") * 4


@pytest.mark.parametrize("context", ["headings", "none"])
@pytest.mark.parametrize("tokenizer", FAMILIES)
def test_exact_counts_re_encode_only_chunk_edges(tokenizer, context):
    """After the one encode of the document, an exact chunk count reads the document's own
    tokens between the chunk's first and last cut and encodes only the two edges (and the
    context line once per heading path): what is encoded again stays well under one more
    encode of every chunk, which would be at least the document's length."""
    counting = _CountingTokenizer(tokenizer)
    result = split(EDGES_DOC, by="headings", size=128, overlap=16, tokenizer=counting, context=context)
    assert len(result.chunks) > 100
    assert context == "none" or any(c.embed_text and c.heading_path for c in result.chunks)
    again = counting.chars - len(EDGES_DOC)
    assert 0 <= again <= len(EDGES_DOC) / 2, again / len(EDGES_DOC)


# --- golden snapshots ----------------------------------------------------------------------


@pytest.mark.parametrize("doc", GOLDEN_DOCS)
@pytest.mark.parametrize(("by", "size", "overlap"), GOLDEN_SETTINGS)
def test_golden(doc, by, size, overlap):
    text = (ROOT / "tests" / "data" / "md" / doc).read_text(encoding="utf-8")
    got = to_jsonl(split(text, by=by, size=size, overlap=overlap, tokenizer="cl100k_base"))
    path = GOLDEN / f"{Path(doc).stem}.{by}-{size}-{overlap}.cl100k_base.jsonl"
    if os.environ.get("RAGCHUNK_REGEN_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8", newline="\n")
    assert path.is_file(), f"{path} is missing: run with RAGCHUNK_REGEN_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    if got != expected:
        old = expected.splitlines()
        new = got.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        pytest.fail(
            f"{path.name} differs from the split (first at chunk {first}; {len(old)} chunks before, {len(new)} now):"
            " review the change, then regenerate with RAGCHUNK_REGEN_GOLDEN=1"
        )


# --- command line ------------------------------------------------------------------------


class FakeStdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def run_cli(capsys, *argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(list(argv), out=out, stdin=FakeStdin(stdin) if stdin is not None else None)
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, out.getvalue(), captured.err


def test_cli_split_writes_the_same_jsonl_as_the_api(capsys, tmp_path):
    doc = DOCS[0]
    code, out, err = run_cli(capsys, "split", str(doc), "--by", "sentences", "--size", "64", "--overlap", "8")
    assert (code, err) == (0, "")
    text = doc.read_text(encoding="utf-8")
    assert out == to_jsonl(split(text, by="sentences", size=64, overlap=8), Document(str(doc), text))
    first = json.loads(out.splitlines()[0])
    # The first chunk opens with its own heading: no context line, no embed_text.
    assert list(first) == ["source", "id", "text", "heading", "heading_path", "tokens", "start", "end",
                           "content_start", "overlap_tokens", "tokenizer"]
    assert first["source"] == str(doc)


def test_cli_split_from_stdin_to_a_file_with_stats(capsys, tmp_path):
    target = tmp_path / "out.jsonl"
    data = GUIDE.encode()
    code, out, err = run_cli(capsys, "split", "-", "--size", "1,024", "--overlap", "0", "--chars-per-token", "3.5",
                             "-o", str(target), "--stats", stdin=data)
    assert (code, out) == (0, "")
    assert target.read_bytes().decode("utf-8") == to_jsonl(split(GUIDE, size=1024, overlap=0,
                                                                  tokenizer=CharEstimate(3.5)), Document("-", GUIDE))
    assert json.loads(target.read_text(encoding="utf-8").splitlines()[0])["tokenizer"] == "chars/3.5"
    assert err.startswith("chunks          5 (tokens by chars/3.5)\n")  # each section apart
    assert "overlap         0 tokens (0.0 % of the total)" in err


def test_cli_split_encoding(capsys):
    code, out, err = run_cli(capsys, "split", "-", "--size", "20", "--overlap", "4", "--encoding", "o200k_base",
                             stdin=GUIDE.encode())
    assert (code, err) == (0, "")
    assert out == to_jsonl(split(GUIDE, size=20, overlap=4, tokenizer="o200k_base"), Document("-", GUIDE))


def test_cli_split_writes_utf8_bytes_to_a_real_stdout():
    result = __import__("subprocess").run(
        [sys.executable, "-m", "ragchunk", "split", "-", "--size", "50", "--overlap", "0"],
        input="# Привет\r\n\r\nМир 👍🏽.".encode(), capture_output=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "pycore"), "PYTHONIOENCODING": "latin-1"},
    )
    assert result.returncode == 0, result.stderr
    line = result.stdout.decode("utf-8")
    assert line.endswith("\n") and line.count("\n") == 1
    assert json.loads(line)["text"] == "# Привет\r\n\r\nМир 👍🏽."


@pytest.mark.parametrize(
    ("argv", "flag", "fix"),
    [
        (["--size", "abc", "--overlap", "0"], "--size", "is not a number"),
        (["--size", "10", "--overlap", "10"], "--overlap", "lower the overlap"),
        (["--size", "10", "--overlap", "x"], "--overlap", "is not a number"),
        (["--size", "10", "--overlap", "0", "--by", "words"], "--by", "choose one of headings, paragraphs, sentences"),
        (["--size", "10", "--overlap", "0", "--chars-per-token", "0"], "--chars-per-token", "must be greater than 0"),
        (["--size", "10", "--overlap", "0", "--encoding", "gpt2"], "--encoding", "invalid choice"),
        (["--size", "10", "--overlap", "0", "--encoding", "cl100k_base", "--chars-per-token", "4"],
         "--chars-per-token", "not allowed with argument --encoding"),
        # Without --size the size is the library's 512.
        (["--overlap", "600"], "--overlap", "must be smaller than chunk size (512)"),
    ],
)
def test_cli_split_usage_errors(capsys, argv, flag, fix):
    code, out, err = run_cli(capsys, "split", "-", *argv, stdin="👨\u200d👩\u200d👧 text".encode())
    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ragchunk: error: "), err
    assert flag in lines[0] and fix in lines[0], lines[0]


def test_cli_split_without_overlap_repeats_an_eighth_of_the_size_like_the_library(capsys):
    doc = DOCS[0]
    code, out, err = run_cli(capsys, "split", str(doc), "--by", "sentences", "--size", "64")
    assert (code, err) == (0, "")
    text = doc.read_text(encoding="utf-8")
    assert out == to_jsonl(split(text, by="sentences", size=64), Document(str(doc), text))
    overlaps = [json.loads(line)["overlap_tokens"] for line in out.splitlines()]
    assert max(overlaps) == 8 and overlaps[0] == 0


def test_cli_split_a_size_too_small_for_a_document_names_it_and_the_flag(capsys):
    code, out, err = run_cli(capsys, "split", "-", "--size", "1", "--overlap", "0", stdin="👨\u200d👩\u200d👧 text".encode())
    assert (code, out) == (1, "")
    assert err.startswith("ragchunk: error: -: --size: chunk size (1) is too small for this text:") and "enter at least" in err
    assert err.count("\n") == 1


def test_cli_split_file_errors(capsys, tmp_path):
    missing = tmp_path / "missing.md"
    code, out, err = run_cli(capsys, "split", str(missing), "--size", "10", "--overlap", "0")
    assert (code, out, err) == (1, "", f"ragchunk: error: {missing} cannot be read: no such file or folder; check the path\n")
    code, out, err = run_cli(capsys, "split", "-", "--size", "10", "--overlap", "0", stdin=b" \n ")
    assert (code, out) == (1, "")
    assert err == ("ragchunk: error: standard input holds no document to split (skipped: 1 empty): ragchunk reads"
                   f" {readable_formats()}\n")
    code, out, err = run_cli(capsys, "split", "-", "--size", "10", "--overlap", "0", "-o",
                             str(tmp_path / "no" / "dir" / "x.jsonl"), stdin=b"text")
    assert code == 2 and err.startswith("ragchunk: error: -o: OUT (") and "check the path" in err
