"""reStructuredText -> Markdown: section titles, lists, literal and code blocks, tables, directives.

>>> source = '''Guide
... =====
...
... Install it::
...
...     pip install x
...
... Usage
... -----
...
... - one
... - two
...
... .. a comment that is dropped
... '''
>>> result = read(source.encode(), "guide.rst", ReadOptions())
>>> print(result.text, end="")
# Guide
<BLANKLINE>
Install it:
<BLANKLINE>
```
pip install x
```
<BLANKLINE>
## Usage
<BLANKLINE>
- one
- two
>>> result.anchors
((0, 'guide'), (45, 'usage'))

What is read, as docutils reads it where it matters for structure:

- section titles, underlined or over- and underlined; levels in the order their styles
  first appear (the first style is ``#``); a title whose style appears once and that
  comes first is also the document's title. A title's anchor is the internal target
  (``.. _name:``) just before it, else its docutils-style id (lowercase, other
  characters made ``-``);
- paragraphs; bullet and enumerated lists (nested by indentation; letters and roman
  numerals are numbered 1, 2, ...); definition lists (the term, then ``: definition``);
  field lists (``:Author: x`` as ``Author: x``); line blocks; block quotes;
- literal blocks after ``::`` and doctest blocks as fenced code (``.. highlight::`` sets
  their language); ``code``, ``code-block`` and ``sourcecode`` directives as fenced code
  with their language;
- grid and simple tables as pipe tables (cells spanning columns or rows are written in
  their first cell); a table that cannot be read so is kept as a fenced code block;
- other directives: their arguments and body are read as reStructuredText (admonitions,
  topics, figures' captions ...); ``toctree``, ``contents``, ``image``, ``include``,
  ``raw``, ``meta`` and similar bodies that are not prose are dropped, as are comments,
  substitution definitions and hyperlink targets; footnotes and citations keep their
  label (``[1] text``);
- inline markup as it reads (:func:`inline`): roles and hyperlink references as their
  text (code roles and ````literals```` as Markdown code, ``:rfc:``/``:pep:`` as "RFC n" /
  "PEP n"); emphasis is kept as it is written. As in docutils, such markup may run over
  the line breaks of its paragraph (up to four lines): a line break inside the text that
  is kept stays a line break, and one before a ``<target>`` goes with the target.

Bodies nest on an explicit stack (no recursion); past :data:`MAX_NESTING` levels a body
is written as plain paragraphs. Work is linear in the input.
"""

from __future__ import annotations

import re
import unicodedata

from .base import Extracted, ReadOptions
from .textio import decode_document
from .writer import MarkdownWriter, table_cell

__all__ = ["read"]

ENUMERATOR = re.compile(r"(?:\(?([0-9]{1,9}|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,9}|#)[.)]|\(([0-9]{1,9}|[a-zA-Z]|#)\))(?: +|$)")
FIELD = re.compile(r":([^:\s][^:]{0,200}):(?: +|$)")
SLUG_SEPARATORS = re.compile(r"[^a-z0-9]+")
DIRECTIVE = re.compile(r"\.\. +([A-Za-z0-9][A-Za-z0-9_.:+-]{0,60})::(?: +|$)")
TARGET = re.compile(r"\.\. +_([^:]{1,200}):(?: +|$)")
SUBSTITUTION = re.compile(r"\.\. +\|[^|]{1,200}\| ")
CITATION = re.compile(r"\.\. +\[([^\]\s]{1,60})\](?: +|$)")
GRID_BORDER = re.compile(r"\+(?:[-=]+\+)+")
SIMPLE_BORDER = re.compile(r"=+(?: +=+)*")

# Inline markup that reads as something else once rendered: interpreted text with a role
# (:mod:`email`, :rfc:`5322`, :ref:`Title <target>`), hyperlink references (`Python
# <https://python.org>`_, `word`_, word_) and inline literals (``x``). Bounded, no nesting.
# As in docutils, the text between the backticks may run over line breaks of its paragraph
# (here up to three: four lines, none empty) and has no white space before the closing
# backtick. Each line is one run of a bounded class ended by the line break, so the match
# stays linear. A reference name_ is one only when what follows may end inline markup in
# docutils (not ``NAME_<LANG>``).
INLINE = re.compile(
    r"(?<![\w`]):(?P<role>[A-Za-z][\w.+-]{0,40}(?::[\w.+-]{1,40})?):"
    r"`(?P<body>[^`\n]{1,400}(?:\n[^`\n]{1,400}){0,3})`(?<!\s`)"
    r"|``(?P<literal>[^`\n]{1,400}?(?:\n[^`\n]{1,400}?){0,3}?)``(?<!\s``)"
    r"|(?<![\w`])`(?P<ref>[^`\n]{1,400}(?:\n[^`\n]{1,400}){0,3})`(?<!\s`)__?(?!\w)"
    r"|(?<![\w`])(?P<word>[A-Za-z][\w.-]{0,80})__?(?![\w`<=+|~^$(\[{])"
)
# Roles whose text is code, as Sphinx shows them (the Python, C, C++ and JavaScript domains' and the standard ones).
_CODE_ROLES = frozenset((
    "mod", "class", "func", "meth", "attr", "exc", "data", "const", "obj", "type", "member", "var", "macro",
    "struct", "union", "enum", "enumerator", "option", "envvar", "command", "program", "file", "samp", "kbd",
    "code", "literal", "makevar", "mailheader", "mimetype", "regexp", "token", "keyword",
))

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_BULLETS = frozenset("-*+•‣⁃")
_CODE_DIRECTIVES = frozenset(("code", "code-block", "sourcecode", "ipython", "testcode", "doctest", "testoutput"))
_DROPPED_DIRECTIVES = frozenset((
    "toctree", "contents", "image", "include", "literalinclude", "raw", "meta", "sectnum", "section-numbering",
    "header", "footer", "target-notes", "index", "tabularcolumns", "default-role", "role", "highlight", "class",
    "title", "only", "autosummary", "automodule", "autoclass", "autofunction", "automethod", "currentmodule",
    "module", "code-include", "graphviz", "plot", "youtube", "replace", "unicode", "date", "compound",
))
MAX_NESTING = 8


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read a reStructuredText file (``kind="rst"``); see the module docstring.

    Raises:
        RagchunkError: the errors of :func:`ragchunk.readers.textio.decode_document` (binary file, too large).
    """
    decoded = decode_document(data, name)
    text = decoded.text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.expandtabs(8).rstrip() if "\t" in line else line.rstrip() for line in text.split("\n")]
    reader = _Reader(options.max_chars, name)
    reader.run(lines)
    title = reader.title if reader.title_style is not None and reader.styles_seen.get(reader.title_style) == 1 else ""
    return Extracted(reader.out.text(), "rst", title, (), tuple(reader.out.anchors), tuple(decoded.note_details))


def inline(text: str) -> str:
    """``text`` with reStructuredText's inline markup written as it reads: a code role and
    an inline literal as Markdown code, :rfc: and :pep: as "RFC n" and "PEP n", any other
    role and a hyperlink reference as its text (an explicit title as the title, ``~a.b``
    as ``b``). Emphasis and strong emphasis are Markdown already.

    >>> inline(":mod:`email` Package, :rfc:`5322`, :ref:`the guide <guide>` and ``x = 1``")
    '`email` Package, RFC 5322, the guide and `x = 1`'
    >>> inline("See `Python <https://python.org>`_, :meth:`~dict.get`, Python_ and snake_case.")
    'See Python, `get`, Python and snake_case.'

    Markup may run over line breaks (not over a blank line); a break in the kept text stays:

    >>> inline(":func:`open\\n<io.open>` and `Python\\ndocs <https://docs.python.org>`_")
    '`open` and Python\\ndocs'
    """
    if "`" not in text and "_" not in text:
        return text
    return INLINE.sub(_render, text)


def _render(match: re.Match[str]) -> str:
    role, body = match.group("role"), match.group("body")
    if body is None:
        literal, ref = match.group("literal"), match.group("ref")
        if literal is not None:
            return f"`{literal}`"
        if ref is not None:
            return _title(ref) or ref
        return match.group("word")
    name = role.rsplit(":", 1)[-1].lower()
    titled = _title(body)
    if titled:
        body = titled
    elif body[:1] in "~!":
        body = body[1:].rsplit(".", 1)[-1] if body[0] == "~" else body[1:]
    if name in ("rfc", "pep"):
        return f"{name.upper()} {body.split('#', 1)[0].strip()}"
    return f"`{body}`" if name in _CODE_ROLES else body


def _title(body: str) -> str:
    r"""The explicit title of ``Title <target>`` ("" when ``body`` has none): the target starts
    at the last ``<`` after white space, as a ``<`` inside it has none (``<CMAKE_<LANG>_FLAGS>``,
    ``<CMP\<NNNN\>>``).

    >>> _title("the policy\nguide <policy>"), _title("CMP0077\n<CMP\\<NNNN\\>>"), _title("a<b>")
    ('the policy\nguide', 'CMP0077', '')
    """
    if not body.endswith(">"):
        return ""
    at = max(body.rfind(" <"), body.rfind("\n<"))
    return body[:at].rstrip() if at > 0 else ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _adornment(line: str) -> str:
    """The character a line is made of when it is a title adornment (2+ of one punctuation mark), else ""."""
    if len(line) < 2 or line[0] not in _PUNCTUATION or line.strip(line[0]):
        return ""
    return line[0]


def _slug(title: str) -> str:
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii").lower()
    return SLUG_SEPARATORS.sub("-", ascii_title).strip("-")


def _block_end(lines: list[str], i: int, indent: int) -> int:
    """The index after the block from line ``i`` of lines blank or indented at least ``indent`` (trailing blanks excluded)."""
    j = i
    last = i
    n = len(lines)
    while j < n:
        line = lines[j]
        if line:
            if _indent(line) < indent:
                break
            last = j + 1
        j += 1
    return last


def _dedent(lines: list[str]) -> list[str]:
    width = min((_indent(line) for line in lines if line), default=0)
    return [line[width:] for line in lines]


class _Frame:
    """Lines being read, where reading is, and what to close when they are done."""

    __slots__ = ("lines", "i", "close", "list_kind", "literal")

    def __init__(self, lines: list[str], close: tuple[str, ...] = ()) -> None:
        self.lines = lines
        self.i = 0
        self.close = close  # writer calls to make at the end ("item", "quote", "list")
        self.list_kind = ""  # the open list in this frame: "bullet:-", "enum", or ""
        self.literal = False  # the latest paragraph ended with "::"


class _Reader:
    def __init__(self, max_chars: int | None = None, name: str = "") -> None:
        self.out = MarkdownWriter(max_chars, name)
        self.styles: list[tuple[str, bool]] = []
        self.styles_seen: dict[tuple[str, bool], int] = {}
        self.title = ""
        self.title_style: tuple[str, bool] | None = None
        self.pending_target = ""
        self.language = ""
        self.frames: list[_Frame] = []

    def run(self, lines: list[str]) -> None:
        self.frames = [_Frame(lines)]
        while self.frames:
            frame = self.frames[-1]
            lines = frame.lines
            while frame.i < len(lines) and not lines[frame.i]:
                frame.i += 1
            if frame.i >= len(lines):
                self.frames.pop()
                self.end_list(frame)
                for call in frame.close:
                    getattr(self.out, "close_" + call)()
                continue
            self.step(frame)

    def push(self, lines: list[str], close: tuple[str, ...] = ()) -> None:
        """Read ``lines`` next, as a nested body; past MAX_NESTING they are written as paragraphs."""
        if len(self.frames) > MAX_NESTING:
            text = "\n".join(line.strip() for line in lines if line.strip())
            self.out.paragraph(inline(text))
            for call in close:
                getattr(self.out, "close_" + call)()
            return
        self.frames.append(_Frame(lines, close))

    def end_list(self, frame: _Frame) -> None:
        if frame.list_kind:
            self.out.close_list()
            frame.list_kind = ""

    # --- one construct at frame.i ---------------------------------------------------
    def step(self, frame: _Frame) -> None:
        lines = frame.lines
        i = frame.i
        line = lines[i]
        n = len(lines)
        literal, frame.literal = frame.literal, False
        indent = _indent(line)
        if indent:
            end = _block_end(lines, i, 1)
            body = _dedent(lines[i:end])
            frame.i = end
            self.end_list(frame)
            if literal:
                self.out.code("\n".join(body), self.language)
            else:
                self.out.open_quote()
                self.push(body, ("quote",))
            return
        nxt = lines[i + 1] if i + 1 < n else ""
        # Titles: overlined, then underlined.
        char = _adornment(line)
        if char and i + 2 < n and lines[i + 1].strip() and _adornment(lines[i + 2]) == char and not _adornment(nxt):
            self.section(frame, lines[i + 1].strip(), (char, True))
            frame.i = i + 3
            return
        under = _adornment(nxt)
        if under and not char and len(nxt) >= min(len(line.strip()), 4) and line.strip():
            self.section(frame, line.strip(), (under, False))
            frame.i = i + 2
            return
        if char and len(line) >= 4 and not nxt:
            frame.i = i + 1  # a transition
            return
        if line.startswith(".."):
            self.explicit(frame)
            return
        if line.startswith(">>>"):
            end = i
            while end < n and lines[end]:
                end += 1
            self.end_list(frame)
            self.out.code("\n".join(lines[i:end]), "pycon")
            frame.i = end
            return
        if line.startswith("+") and GRID_BORDER.fullmatch(line):
            end = i
            while end < n and lines[end]:
                end += 1
            self.end_list(frame)
            self.grid_table(lines[i:end])
            frame.i = end
            return
        if line.startswith("=") and " " in line and SIMPLE_BORDER.fullmatch(line):
            end = self.simple_table_end(lines, i)
            self.end_list(frame)
            self.simple_table(lines[i:end])
            frame.i = end
            return
        item = self.list_marker(line, nxt)
        if item is not None:
            kind, width, number = item
            if frame.list_kind != kind:
                self.end_list(frame)
                self.out.open_list(kind == "enum", number or 1)
                frame.list_kind = kind
            end = _block_end(lines, i + 1, width)
            body = [line[width:]] + [text[width:] for text in lines[i + 1 : end]]
            frame.i = end
            self.out.open_item(number if kind == "enum" and number else None)
            self.push(body, ("item",))
            return
        self.end_list(frame)
        if line.startswith("| ") or line == "|":
            end = i
            while end < n and (lines[end].startswith("| ") or lines[end] == "|" or
                               (lines[end] and _indent(lines[end]) and end > i)):
                end += 1
            self.out.paragraph(inline("\n".join(text[2:].strip() for text in lines[i:end])))
            frame.i = end
            return
        field = FIELD.match(line)
        if field:
            end = _block_end(lines, i + 1, 1)
            value = " ".join([line[field.end():].strip()] + [text.strip() for text in lines[i + 1 : end] if text])
            self.out.paragraph(inline(f"{field.group(1)}: {value}".rstrip(": ").rstrip() if value else field.group(1)))
            frame.i = end
            return
        if nxt and _indent(nxt) and not line.endswith("::"):
            # A definition list item: the term, then its indented definition.
            end = _block_end(lines, i + 1, 1)
            group = self.out.new_group()
            self.out.paragraph(inline(line.strip()), group)
            self.out.open_item(marker=": ", group=group)
            self.push(_dedent(lines[i + 1 : end]), ("item",))
            frame.i = end
            return
        end = i
        while end < n and lines[end] and not _indent(lines[end]):
            if end > i and _adornment(lines[end]) and end + 1 < n and not lines[end + 1]:
                break
            end += 1
        paragraph = lines[i:end]
        frame.i = end
        last = paragraph[-1]
        if last.endswith("::"):
            frame.literal = True
            stripped = last[:-2].rstrip()
            if not stripped:
                paragraph = paragraph[:-1]
            elif last[-3:-2].isspace():
                paragraph[-1] = stripped
            else:
                paragraph[-1] = last[:-1]
        if paragraph:
            self.out.paragraph(inline("\n".join(paragraph)))

    def section(self, frame: _Frame, title: str, style: tuple[str, bool]) -> None:
        title = inline(title)
        if style not in self.styles_seen:
            self.styles.append(style)
        self.styles_seen[style] = self.styles_seen.get(style, 0) + 1
        level = self.styles.index(style) + 1
        if self.title_style is None and not self.out.position() and not self.out.headings:
            self.title, self.title_style = title, style
        self.end_list(frame)
        anchor = self.pending_target or _slug(title)
        self.pending_target = ""
        self.out.heading(level, title, anchor)

    def explicit(self, frame: _Frame) -> None:
        """An explicit markup block (``..``): directive, target, citation, substitution or comment."""
        lines = frame.lines
        i = frame.i
        line = lines[i]
        if line.strip() == ".." and (i + 1 >= len(lines) or not lines[i + 1]):
            frame.i = i + 1  # an empty comment: it ends here, and an indented block after it is a quote
            return
        end = _block_end(lines, i + 1, 1)
        frame.i = end
        body = _dedent(lines[i + 1 : end])
        self.end_list(frame)
        target = TARGET.match(line)
        if target:
            if not line[target.end():].strip() and not body:
                self.pending_target = _slug(target.group(1)) or target.group(1).strip()
            return
        citation = CITATION.match(line)
        if citation:
            text = " ".join([line[citation.end():].strip()] + [b.strip() for b in body if b.strip()]).strip()
            self.out.paragraph(inline(f"[{citation.group(1)}] {text}".rstrip()))
            return
        if SUBSTITUTION.match(line):
            return
        directive = DIRECTIVE.match(line)
        if directive is None:
            return  # a comment
        kind = directive.group(1).lower()
        argument = line[directive.end():].strip()
        # Options (":name: value") open the body; the content follows them.
        start = 0
        while start < len(body) and body[start].startswith(":") and FIELD.match(body[start]):
            start += 1
        content = body[start:]
        if kind == "highlight":
            self.language = argument.split()[0] if argument else ""
            return
        if kind in _CODE_DIRECTIVES:
            language = argument.split()[0] if argument else self.language
            self.out.code("\n".join(_dedent(content)), "pycon" if kind == "doctest" else language)
            return
        if kind in _DROPPED_DIRECTIVES:
            return
        if kind == "csv-table":
            if argument:
                self.out.paragraph(inline(argument))
            self.out.code("\n".join(content), "csv")
            return
        if kind == "math":
            self.out.code("\n".join(([argument] if argument else []) + content), "math")
            return
        if argument and kind != "figure":
            content = [argument, ""] + content if kind in ("admonition", "topic", "sidebar", "rubric", "table",
                                                           "list-table") else [argument] + content
        if content:
            self.push(content)

    def list_marker(self, line: str, nxt: str) -> tuple[str, int, int] | None:
        """(list kind, content column, number or 0) when ``line`` starts a list item."""
        first = line[:1]
        if first in _BULLETS and (len(line) == 1 or line[1] == " "):
            width = len(line) - len(line[1:].lstrip(" ")) if len(line) > 1 else 2
            return "bullet:" + first, max(width, 2), 0
        if not (first.isdigit() or first.isalpha() or first in "(#"):
            return None
        match = ENUMERATOR.match(line)
        if match is None:
            return None
        label = match.group(1) or match.group(2)
        if not label[0].isdigit() and label != "#" and nxt and not _indent(nxt) and ENUMERATOR.match(nxt) is None:
            return None  # "A. Smith said ..." is a sentence unless a list follows
        number = int(label) if label.isdigit() else 0
        width = match.end() if match.end() < len(line) else len(line) + 1
        return "enum", width, number

    # --- tables ---------------------------------------------------------------------
    def grid_table(self, lines: list[str]) -> None:
        border = lines[0]
        columns = [k for k, ch in enumerate(border) if ch == "+"]
        rows: list[list[str]] = []
        pieces: list[list[str]] | None = None
        for line in lines[1:]:
            if line.startswith("+") and GRID_BORDER.fullmatch(line):
                if pieces is not None:
                    rows.append([_cell(" ".join(p)) for p in pieces])
                pieces = None
                continue
            if not line.startswith("|") or len(columns) < 2:
                self.out.code("\n".join(lines))
                return
            if pieces is None:
                pieces = [[] for _ in columns[:-1]]
            for index in range(len(columns) - 1):
                cell = line[columns[index] + 1 : columns[index + 1]].strip(" |")
                if cell:
                    pieces[index].append(cell)
        if pieces is not None and any(pieces):
            rows.append([_cell(" ".join(p)) for p in pieces])
        if not rows:
            self.out.code("\n".join(lines))
            return
        self.out.table(rows)

    def simple_table_end(self, lines: list[str], i: int) -> int:
        """The index after a simple table starting at border line ``i``: its last border before a blank line."""
        borders = 0
        j = i
        n = len(lines)
        end = i + 1
        while j < n:
            line = lines[j]
            if line.startswith("=") and SIMPLE_BORDER.fullmatch(line):
                borders += 1
                end = j + 1
                if borders >= 2 and (j + 1 >= n or not lines[j + 1]):
                    return end
            elif not line and borders >= 2:
                return end
            j += 1
        return max(end, j)

    def simple_table(self, lines: list[str]) -> None:
        border = lines[0]
        spans = _runs(border)
        rows: list[list[str]] = []
        for line in lines[1:]:
            if not line:
                continue
            if line.startswith("=") and SIMPLE_BORDER.fullmatch(line):
                continue
            cells = []
            for index, (start, _end) in enumerate(spans):
                stop = spans[index + 1][0] if index + 1 < len(spans) else len(line)
                cells.append(line[start:stop].strip())
            if rows and not cells[0] and len(spans) > 1:
                rows[-1] = [(a + " " + b).strip() for a, b in zip(rows[-1], cells)]
            else:
                rows.append(cells)
        if not rows:
            return
        self.out.table([[_cell(cell) for cell in row] for row in rows])


def _cell(text: str) -> str:
    """A table cell's text for a pipe table (reStructuredText's escaped ``\\|`` is a plain pipe there)."""
    return table_cell(inline(text.replace("\\|", "|")))


def _runs(border: str) -> list[tuple[int, int]]:
    """(start, end) of each run of ``=`` in a simple table's border."""
    runs = []
    start = -1
    for index, char in enumerate(border + " "):
        if char == "=" and start < 0:
            start = index
        elif char != "=" and start >= 0:
            runs.append((start, index))
            start = -1
    return runs
