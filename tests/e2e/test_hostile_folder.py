"""A folder of hostile documents in the splitter (issue 36): every file gets its row, the good
files around them are split as the library splits them, each refused file says why in the
page's language, and nothing reaches the page as an error (the ``page`` fixture fails on one).

The hostile files are the unit tests' builders (tests/unit/hostile_files.py), made small.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pages import SplitterPage, number, wait_language
from ragchunk import SplitOptions, split_corpus
from ragchunk.cli.files import find_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
import hostile_files as h  # noqa: E402

GOOD = {"a.md": b"# A\n\nThe first good file.", "z.md": b"# Z\n\nThe last good file."}
HOSTILE = {
    "rot13.html": h.meta_charset("rot13"),
    "cp037.html": h.meta_charset("cp037"),
    "digits.ipynb": h.notebook_nbformat_digits(5_000),
    "dtd.epub": h.epub_with_dtd(),
    "nested.html": h.nested(2_000),
    "bomb.pdf": h.pdf_flate_bomb(20_000_000),
    "loop.pdf": h.pdf_parent_loop(),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "docs"
    root.mkdir()
    for name, data in {**GOOD, **HOSTILE}.items():
        (root / name).write_bytes(data)
    return root


def notes_by_source(splitter: SplitterPage) -> dict[str, list[str]]:
    return {row[0]: row[1:] for row in splitter.rows("#documents-body tr")}


def test_a_folder_of_hostile_files_splits_the_good_ones_and_names_each_refusal(page, folder):
    found, problems = find_files([str(folder)])
    assert not problems
    results = {r.source: r for r in split_corpus(
        ((f.source, f.path.read_bytes()) for f in found), SplitOptions(size=512, overlap=64, tokenizer="cl100k_base"))}
    refused = {source for source, r in results.items() if r.error or r.skipped}
    # What the library itself does with them: the PDFs, the DTD and the huge number are refused.
    assert {"digits.ipynb", "dtd.epub", "bomb.pdf", "loop.pdf"} <= refused
    assert not {"a.md", "z.md"} & refused

    splitter = SplitterPage(page).open()
    splitter.choose_folder(folder)
    shown = notes_by_source(splitter)
    assert set(shown) == set(results)
    for source, r in results.items():
        chars, tokens, chunks, _largest, note = shown[source]
        if source in refused:
            assert note.strip() and (chars, tokens, chunks) == ("—", "—", "—"), (source, shown[source])
        else:
            assert (number(chars), number(tokens), number(chunks)) == (r.chars, r.tokens, r.chunks), source
    english = {source: shown[source][-1] for source in refused}
    assert "Traceback" not in " ".join(english.values())

    for lang in ("ru", "hi"):
        splitter.open(query=f"?lang={lang}")
        wait_language(page, lang)
        splitter.choose_folder(folder)
        translated = notes_by_source(splitter)
        assert set(translated) == set(results)
        for source in refused:
            note = translated[source][-1]
            assert note.strip() and note != english[source], (lang, source, note)
