"""Every error and note code the core or the page can produce has its sentence in all three
catalogs, and the English sentence, filled from the params, is the core's own message.

Codes are found in the source (an AST walk of pycore/ragchunk, a scan of web/**/*.js), so a
new code without a catalog entry fails here, not in front of a Russian reader.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import ragchunk
from catalog import LANGS, catalog, english, render
from ragchunk.api import Workspace
from ragchunk.calculator import plan
from ragchunk.errors import RagchunkError
from ragchunk.evaluate import Question, evaluate, read_questions
from ragchunk.options import SplitOptions, check_context
from ragchunk.readers import safety
from ragchunk.readers.formats import read_document

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"[a-z][a-z0-9_]+")
# Codes whose `reason` param the page says in its own words (web/ui/errors.js: reason.<code>.<reason>).
REASONS = {"zip_corrupt": safety.ZIP_DAMAGE}


def _constant(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value):
        return node.value
    return None


def _choices(node: ast.AST | None) -> list[str]:
    """The code literals an argument can be: "a", or "a" if ... else "b"."""
    if isinstance(node, ast.IfExp):
        return _choices(node.body) + _choices(node.orelse)
    return [code] if (code := _constant(node)) else []


def core_codes() -> dict[str, set[str]]:
    """{"error.<code>" | "note.<code>" | "any.<code>": {where}} for every code literal in the core."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "pycore" / "ragchunk").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            keys: list[str] = []
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name.endswith("Error") and len(node.args) >= 3:
                    keys = ["error." + code for code in _choices(node.args[2])]
                elif name == "file_error" and len(node.args) >= 2:
                    keys = ["error." + code for code in _choices(node.args[1])]
                elif name == "_note" and node.args:
                    keys = ["note." + code for code in _choices(node.args[0])]
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        keys += [("note." if name == "_note" else "error.") + c for c in _choices(keyword.value)]
            elif isinstance(node, ast.Dict):
                names = [_constant(k) for k in node.keys]
                if "code" in names and "params" in names:
                    keys = ["note." + code for code in _choices(node.values[names.index("code")])]
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "code" for t in node.targets):
                keys = ["any." + code for code in _choices(node.value)]  # an error's or a note's
            for key in keys:
                found.setdefault(key, set()).add(f"{where}:{node.lineno}")
    return found


def page_codes() -> set[str]:
    """Codes the page's own JavaScript raises ({code: "..."} and pageError(field, "..."))."""
    codes = set()
    for path in (ROOT / "web").rglob("*.js"):
        text = path.read_text(encoding="utf-8")
        codes |= {f"error.{c}" for c in re.findall(r"\bcode: \"([a-z][a-z0-9_]+)\"", text)}
        codes |= {f"error.{c}" for c in re.findall(r"pageError\(\"[a-z_]+\", \"([a-z][a-z0-9_]+)\"", text)}
    return codes


def test_the_walk_finds_the_codes_it_should():
    found = core_codes()
    for key in ("error.not_text", "error.pdf_corrupt", "error.zip_bomb", "any.chunk_size_over_model",
                "any.chunk_size_over_model_prefix", "error.pdf_unsupported", "note.boilerplate_dropped", "note.pdf_rotated_text",
                "note.not_utf8"):
        assert key in found, key
    assert {"error.archive_bomb", "error.text_empty", "error.overlap_not_smaller"} <= page_codes()
    assert len(found) > 60


@pytest.mark.parametrize("lang", LANGS)
def test_every_code_has_a_sentence_in_every_language(lang):
    words = catalog(lang)
    def known(key: str) -> bool:
        kind, _, code = key.partition(".")
        return key in words or (kind == "any" and (f"error.{code}" in words or f"note.{code}" in words))

    missing = {key: sorted(where)[0] for key, where in core_codes().items() if not known(key)}
    missing |= {key: "web" for key in page_codes() if key not in words}
    reasons = {f"reason.{code}.{reason}" for code, said in REASONS.items() for reason in said}
    missing |= {key: "reason" for key in reasons - set(words)}
    assert not missing, f"web/i18n/{lang}.json lacks {missing}"


@pytest.mark.parametrize("code", REASONS)
def test_the_english_reasons_are_the_core_details(code):
    words = catalog("en")
    assert {reason: words.get(f"reason.{code}.{reason}") for reason in REASONS[code]} == REASONS[code]


def refusal(call) -> RagchunkError:
    with pytest.raises(RagchunkError) as caught:
        call()
    return caught.value


CASES = {
    "unknown model": lambda: SplitOptions(model="no-such-model"),
    "model size": lambda: SplitOptions(model="all-MiniLM-L6-v2", size=300),
    "model size with prefix": lambda: SplitOptions(model="e5-base-v2", size=510, prefix=True, overlap=0),
    "prefix without a model": lambda: SplitOptions(prefix=True),
    "tokenizer and model": lambda: SplitOptions(model="bge-m3", tokenizer="cl100k_base"),
    "context": lambda: check_context("everything"),
    "corpus": lambda: plan(10**9, 512, 64, documents=10**9),
    "pdf": lambda: read_document(b"%PDF-1.7\n" + bytes(100), "a.pdf"),
    "not a notebook": lambda: read_document(b'{"cells": 3}', "n.ipynb"),
    "notebook json": lambda: read_document(b'{"cells": [', "n.ipynb"),
    "notebook depth": lambda: read_document(b"[" * 5000, "n.ipynb"),
    "old word": lambda: read_document(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "w.docx"),
    "unnamed pdf": lambda: read_document(b"%PDF-1.7\n" + bytes(100), ""),
    "damaged docx": lambda: read_document(b"PK\x03\x04" + bytes(200), "d.docx"),
    "questions empty": lambda: read_questions("", "q.txt"),
    "questions shape": lambda: read_questions("id,text\n1,x\n", "q.csv"),
    "questions json": lambda: read_questions("{oops\n", "q.jsonl"),
    "questions no question": lambda: read_questions('{"answers": []}\n', "q.jsonl"),
    "questions answers": lambda: read_questions('{"question": "q", "answers": [1]}\n', "q.jsonl"),
    "questions references": lambda: read_questions("question,references,corpus_id\nq,oops,a\n", "q.csv"),
    "questions not text": lambda: read_questions(b"\xff\xfe\x00q", "q.txt"),
    "retriever": lambda: evaluate([("a.md", "Text.")], [Question("1", "q")], retrievers=("tfidf",)),
    "no questions": lambda: evaluate([("a.md", "Text.")], []),
    "answers nowhere": lambda: evaluate([("a.md", "Text.")], [Question("1", "q", ("absent",))], sizes=(16,)),
    "settings": lambda: evaluate([("a.md", "Text.")], [Question("1", "q")], sizes=range(8, 60, 4)),
    "grid by": lambda: evaluate([("a.md", "Text.")], [Question("1", "q")], by=("chapters",)),
}


@pytest.mark.parametrize("case", CASES)
def test_the_english_sentence_is_the_core_message(case):
    error = refusal(CASES[case])
    assert error.code, case
    assert english(error) == error.message


def test_an_unknown_request_is_said_from_the_catalog():
    reply = Workspace().handle("frobnicate", "{}")
    [error] = json.loads(reply)["errors"]
    assert render(f"error.{error['code']}", error["params"]) == error["message"]


def test_plural_notes_read_as_the_core_says_them():
    one = {"code": "boilerplate_dropped", "params": {"name": "a.html", "count": 1}}
    many = {"code": "boilerplate_dropped", "params": {"name": "a.html", "count": 1200}}
    assert english(one) == "a.html: 1 navigation, header, footer or table-of-contents element was left out " \
                           "(--keep-boilerplate on the command line, keep_boilerplate in Python, keeps them)"
    assert english(many).startswith("a.html: 1,200 navigation") and "elements were" in english(many)
    page = ragchunk.readers.formats.read_document(
        b"<html><body><nav>menu</nav><main><h1>T</h1><p>Body text here.</p></main></body></html>", "p.html")
    notes = [n for n in page.notes if n["code"] == "boilerplate_dropped"]
    assert notes and english(notes[0]) == notes[0]["message"]
