"""Jupyter notebooks (.ipynb, nbformat 4 and 3) -> Markdown: Markdown cells as they are, code fenced.

>>> import json
>>> nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"language": "python"}},
...       "cells": [{"cell_type": "markdown", "source": ["# Counts\\n", "Text."], "metadata": {}},
...                 {"cell_type": "code", "source": "print(1)", "outputs": [{"text": "1"}], "metadata": {}}]}
>>> print(read(json.dumps(nb).encode(), "n.ipynb", ReadOptions()).text, end="")
# Counts
Text.
<BLANKLINE>
```python
print(1)
```

Code cells are fenced with the notebook's language (``metadata.kernelspec.language``, else
``metadata.language_info.name``, else nbformat 3's per-cell ``language``); outputs are
left out. Raw cells are written as text, escaped so that they cannot start Markdown
structure; nbformat 3 heading cells become headings. The title is ``metadata.title`` (or
nbformat 3's ``metadata.name``) when the notebook has one. A Markdown cell that leaves a
code fence open is closed at the end of the cell, so it cannot swallow the cells after it.

Raises :class:`RagchunkError` (``field="file"``): ``notebook_invalid`` when the file is
not JSON, ``notebook_too_deep`` for JSON nested deeper than
any notebook (a parser would run out of stack), ``not_a_notebook`` for JSON that is not a
notebook.
"""

from __future__ import annotations

import json
import re

from ..text.markdown import parse_blocks
from .base import Extracted, ReadOptions
from .safety import file_error
from .textio import decode_document
from .writer import MarkdownWriter

__all__ = ["read"]

# A JSON string (skipped whole: brackets inside do not count) or a bracket. Linear, and in
# constant memory: the string body is unrolled and possessive (``*+``), so the engine keeps
# no backtracking state per character (``(?:[^"\\]|\\.)*`` kept ~113 bytes per character
# of a string, and a 60 MB output ran out of memory).
JSON_NESTING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[\[\]{}]', re.DOTALL)
# Numbers in a notebook are counts and versions; json would refuse one past Python's
# 4,300-digit limit with a ValueError of its own.
MAX_NUMBER_DIGITS = 100
MAX_DEPTH = 64  # notebooks nest about 6 deep; outputs with JSON data a few more


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read a notebook (``kind="ipynb"``); see the module docstring.

    Raises:
        RagchunkError: ``notebook_invalid``, ``notebook_too_deep``, ``not_a_notebook``,
            and :func:`ragchunk.readers.textio.decode_document`'s errors.
    """
    decoded = decode_document(data, name)
    text = decoded.text.lstrip("\ufeff")
    _check_depth(text, name)
    try:
        notebook = json.loads(text, parse_int=lambda digits: _integer(digits, name))
    except json.JSONDecodeError:
        # Neither err.msg nor its position: both changed in Python 3.13 (a trailing comma is
        # reported at the comma), and CPython and the page must say the same.
        raise file_error(name, "notebook_invalid", "is not valid JSON (it is cut short or was edited by hand)",
                         "save the notebook again from Jupyter") from None
    cells, language, title = _cells(notebook, name)
    out = MarkdownWriter(options.max_chars, name)
    for cell in cells:
        kind = cell.get("cell_type")
        source = _source(cell.get("source", cell.get("input", "")))
        if not source.strip():
            continue
        if kind == "markdown":
            out.raw(_close_fences(source.strip("\n")))
        elif kind == "code":
            out.code(source, language or str(cell.get("language") or ""))
        elif kind == "heading":
            level = cell.get("level", 1)
            out.heading(level if isinstance(level, int) else 1, source)
        else:
            out.paragraph(source.strip("\n"))
    return Extracted(_no_surrogates(out.text()), "ipynb", title, (), (), tuple(decoded.note_details))


def _check_depth(text: str, name: str) -> None:
    depth = 0
    for match in JSON_NESTING.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            if depth > MAX_DEPTH:
                raise file_error(name, "notebook_too_deep", f"is JSON nested more than {MAX_DEPTH} levels deep, "
                                 "which no notebook is", "check that it is the right file", limit=MAX_DEPTH)
        elif token == "]" or token == "}":
            depth -= 1


def _integer(digits: str, name: str) -> int:
    """A JSON integer of the notebook; one longer than :data:`MAX_NUMBER_DIGITS` is refused.

    >>> _integer("4", "n.ipynb")
    4
    """
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise file_error(name, "notebook_number_too_long", f"holds a number of {len(digits):,} digits, which no"
                         " notebook holds", "check that it is the right file, or save the notebook again from"
                         " Jupyter", digits=len(digits))
    return int(digits)


def _not_notebook(name: str, why: str) -> Exception:
    return file_error(name, "not_a_notebook", f"is JSON but not a Jupyter notebook ({why})",
                      "drop the .ipynb file that Jupyter saved", why=why)


def _cells(notebook: object, name: str) -> tuple[list[dict], str, str]:
    """(cells, language, title) of nbformat 4 or 3."""
    if not isinstance(notebook, dict):
        raise _not_notebook(name, f"its top level is a {type(notebook).__name__}, not an object")
    metadata = notebook.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    if isinstance(notebook.get("cells"), list):
        cells = notebook["cells"]
    elif isinstance(notebook.get("worksheets"), list):
        cells = []
        for sheet in notebook["worksheets"]:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                cells.extend(sheet["cells"])
    else:
        raise _not_notebook(name, "it has no cells")
    if "nbformat" not in notebook and not all(isinstance(c, dict) and "cell_type" in c for c in cells):
        raise _not_notebook(name, "it has no nbformat and its cells have no cell_type")
    cells = [cell for cell in cells if isinstance(cell, dict)]
    language = ""
    kernel = metadata.get("kernelspec")
    info = metadata.get("language_info")
    if isinstance(kernel, dict) and isinstance(kernel.get("language"), str):
        language = kernel["language"]
    elif isinstance(info, dict) and isinstance(info.get("name"), str):
        language = info["name"]
    title = metadata.get("title") or metadata.get("name") or ""
    return cells, language, title.strip() if isinstance(title, str) else ""


def _source(source: object) -> str:
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def _close_fences(markdown: str) -> str:
    """``markdown`` with a closing fence added when its last block is a code fence left open."""
    markdown = markdown.replace("\r\n", "\n").replace("\r", "\n")
    blocks = parse_blocks(markdown)
    if blocks and blocks[-1].kind == "code":
        last = markdown[blocks[-1].start : blocks[-1].end]
        opener = last.split("\n", 1)[0].lstrip()
        char = opener[:1]
        if char in ("`", "~"):
            run = len(opener) - len(opener.lstrip(char))
            closing = last.rsplit("\n", 1)[-1].strip() if "\n" in last else ""
            if not (len(closing) >= run and not closing.strip(char)):
                return markdown + "\n" + char * run
    return markdown


def _no_surrogates(text: str) -> str:
    """``text`` with lone surrogates (JSON's ``"\\ud800"``) made U+FFFD, which the splitter requires."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)

