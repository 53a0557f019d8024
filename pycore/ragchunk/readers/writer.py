"""The Markdown every reader writes: blocks, headings with anchors, lists, quotes, fences, pipe tables.

Readers walk their format and call a :class:`MarkdownWriter`; it joins the blocks, puts list
markers and quote prefixes in front of their lines, escapes text that Markdown would read
as structure, and records the offset of each heading for :attr:`Extracted.anchors`. Items
of a list follow each other after one line break; the blocks inside one item or quote are
separated by a blank line (``>`` in a quote), so that each stays a block of its own.

>>> out = MarkdownWriter()
>>> out.heading(1, "Guide", "guide")
>>> out.open_list(ordered=False); out.open_item(); out.paragraph("# not a heading"); out.close_item()
>>> out.close_list(); out.code("x = 1", "python")
>>> print(out.text(), end="")
# Guide
<BLANKLINE>
- \\# not a heading
<BLANKLINE>
```python
x = 1
```
>>> out.anchors
[(0, 'guide')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.markdown import parse_blocks
from .safety import text_too_large

# HTML's white space (not Unicode's: a no-break space is text), collapsed as a browser does.
HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
BACKTICK_RUN = re.compile(r"`+")
# What an info string may hold after a fence: a language name, never a backtick or a space.
LANGUAGE_CHARS = re.compile(r"[^A-Za-z0-9_+#.-]+")

# First characters of a line that Markdown may read as structure (headings, quotes, lists,
# fences, rules, HTML blocks, tables); other lines are paragraph text whatever follows.
_MAYBE_STRUCTURE = frozenset("#>-+*_=`~<|:0123456789")
# Containers deeper than this are written at this depth: a prefix per level would make the
# output quadratic in the nesting of hostile input.
MAX_NESTING = 8


@dataclass(slots=True)
class _Container:
    """An open list item or block quote: what its blocks' lines start with."""

    first: str  # prefix of the first line of the item's first block ("- ", "3. ", "> ")
    rest: str  # prefix of every other line ("  ", "   ", "> ")
    fresh: bool  # no block written in the item yet
    group: int  # items of one outermost container are joined by single line breaks
    # The item's first block may follow the block before it after one line break: a next item
    # of its list, or a nested list or quote that can interrupt a paragraph ("1." can, "3." cannot).
    joins: bool = True


@dataclass(slots=True)
class _List:
    ordered: bool
    number: int
    group: int
    items: int = 0


def collapse(text: str) -> str:
    """``text`` with HTML white space runs made one space, and stripped.

    >>> collapse("  a\\n\\t b\\u00a0c ")
    'a b\\xa0c'
    """
    return HTML_SPACE.sub(" ", text).strip(" ")


def integer_attribute(value: str | None, default: int | None) -> int | None:
    """An integer attribute of markup (``start``, ``colspan``, ``selection``), or ``default`` when it is not one.

    >>> integer_attribute(" 3 ", 1), integer_attribute("x", 1), integer_attribute("12345678901", None)
    (3, 1, None)
    """
    if value is None:
        return default
    value = value.strip()
    digits = value[1:] if value[:1] in "+-" else value
    if not digits.isdigit() or not digits.isascii() or len(digits) > 10:
        return default
    return int(value)


def escape_line(line: str, continuation: bool = False) -> str:
    """``line`` with a backslash in front when Markdown would read it as structure.

    ``continuation`` says the line follows another line of the same paragraph, where a
    ``===`` line would make a setext heading and a ``|---|`` line a table.

    >>> escape_line("# x"), escape_line("1. x"), escape_line("10 apples"), escape_line("=", True)
    ('\\\\# x', '\\\\1. x', '10 apples', '\\\\=')
    """
    first = line[:1]
    if first not in _MAYBE_STRUCTURE or not first:
        return line
    if continuation and (first == "=" or (first in "-|:" and "|" in line)):
        return "\\" + line
    blocks = parse_blocks(line)
    if len(blocks) == 1 and blocks[0].kind == "paragraph":
        return line
    return "\\" + line


def fence_for(code: str) -> str:
    """A backtick fence longer than every backtick run in ``code`` (at least three).

    >>> fence_for("a ``` b"), fence_for("plain")
    ('````', '```')
    """
    longest = max((len(m) for m in BACKTICK_RUN.findall(code)), default=0)
    return "`" * max(3, longest + 1)


def table_cell(text: str) -> str:
    """Cell text for a pipe table: one line, pipes escaped.

    >>> table_cell("a | b\\nc")
    'a \\\\| b c'
    """
    return collapse(text).replace("|", "\\|")


class MarkdownWriter:
    """Builds the Markdown text of one document, block by block (see the module docstring).

    Offsets given out (:meth:`heading`'s anchors, :meth:`position`) are code-point offsets
    into :meth:`text`.
    """

    def __init__(self, limit: int | None = None, name: str = "") -> None:
        # At most ``limit`` characters may be written (checked at each block: a reader stops
        # early); past it, text_too_large names ``name``.
        self.limit = limit
        self.name = name
        self._parts: list[str] = []
        self._size = 0
        self._group = -1  # group of the latest block; -1: none or a top-level block
        self._groups = 0
        self.anchors: list[tuple[int, str]] = []
        self.headings = 0
        self.top_headings = 0  # level-1 headings written
        self._containers: list[_Container] = []
        # Containers that have written nothing yet are always the innermost ones (a block
        # makes every open one written): they start at this index. Kept as an index, so a
        # block costs the same at any depth (100,000 unclosed list items are linear).
        self._fresh_from = 0
        self._lists: list[_List] = []

    # --- containers -----------------------------------------------------------------
    def open_list(self, ordered: bool, start: int = 1) -> None:
        """Begin a list; its items come from :meth:`open_item`."""
        group = self._containers[0].group if self._containers else self._new_group()
        self._lists.append(_List(ordered, max(0, min(start, 999_999_999)), group))

    def close_list(self) -> None:
        if self._lists:
            self._lists.pop()

    def open_item(self, value: int | None = None, marker: str | None = None, group: int | None = None) -> None:
        """Begin an item of the innermost list (a bullet item when no list is open).

        ``value`` renumbers an ordered item; ``marker`` replaces the marker (a definition's
        ``": "``, with the ``group`` of its term so the two are joined by one line break).
        """
        current = self._lists[-1] if self._lists else None
        if group is None and current is not None:
            group = current.group
        joins = True
        if current is not None:
            current.items += 1
        if marker is None:
            if current is not None and current.ordered:
                if value is not None:
                    current.number = max(0, min(value, 999_999_999))
                marker = f"{current.number}. "
                joins = current.items > 1 or current.number == 1
                current.number = min(current.number + 1, 999_999_999)
            else:
                marker = "- "
        self._push(marker, " " * len(marker), group, joins)

    def close_item(self) -> None:
        if self._containers:
            self._containers.pop()
            self._fresh_from = min(self._fresh_from, len(self._containers))

    def open_quote(self) -> None:
        self._push("> ", "> ")

    close_quote = close_item

    def _push(self, first: str, rest: str, group: int | None = None, joins: bool = True) -> None:
        if self._containers:
            group = self._containers[0].group
        elif group is None:
            group = self._new_group()
        self._fresh_from = min(self._fresh_from, len(self._containers))
        self._containers.append(_Container(first, rest, True, group, joins))

    def _new_group(self) -> int:
        self._groups += 1
        return self._groups

    def in_container(self) -> bool:
        """True inside a list item or a quote (where a heading cannot be one)."""
        return bool(self._containers)

    def new_group(self) -> int:
        """A group id for :meth:`paragraph` (blocks of one group are joined by one line break)."""
        return self._new_group()

    # --- blocks ---------------------------------------------------------------------
    def _prefixes(self) -> tuple[str, str]:
        containers = self._containers
        if not containers:
            return "", ""
        fresh_from = self._fresh_from
        depth = len(containers)
        shown = range(depth) if depth <= MAX_NESTING else [*range(MAX_NESTING - 1), depth - 1]
        # An item that has written nothing yet shows its marker (also an outer item whose
        # first content is a nested list: "- - x").
        first = "".join(containers[i].first if i >= fresh_from else containers[i].rest for i in shown)
        rest = "".join(containers[i].rest for i in shown)
        self._fresh_from = depth
        return first, rest

    def _emit(self, lines: list[str], group: int | None = None) -> int:
        """Write one block of ``lines`` (already escaped) with the container prefixes.

        Blocks of one group are joined by one line break where a new item (or a nested list
        or quote) begins; a block that goes on in an item or quote already written to
        follows a blank line, so that Markdown reads it as a block of its own:

        >>> out = MarkdownWriter(); out.open_list(ordered=False)
        >>> out.open_item(); out.paragraph("a"); out.open_quote(); out.paragraph("q"); out.paragraph("r")
        >>> out.close_quote(); out.paragraph("b"); out.close_item(); out.open_item(); out.paragraph("c")
        >>> print(out.text(), end="")
        - a
          > q
          >
          > r
        <BLANKLINE>
          b
        - c
        """
        containers = self._containers
        joined = containers[self._fresh_from].joins if self._fresh_from < len(containers) else not containers
        first, rest = self._prefixes()
        if group is None:
            group = containers[0].group if containers else -1
        body = first + lines[0]
        if len(lines) > 1:
            stripped = rest.rstrip()
            body += "".join("\n" + (rest + line if line else stripped) for line in lines[1:])
        if self._parts:
            if group != -1 and group == self._group:
                sep = "\n" if joined else "\n" + rest.rstrip() + "\n"
            else:
                sep = "\n\n"
            self._parts.append(sep)
            self._size += len(sep)
        start = self._size + len(first)
        self._parts.append(body)
        self._size += len(body)
        if self.limit is not None and self._size > self.limit:
            raise text_too_large(self.name, self.limit)
        self._group = group
        return start

    def paragraph(self, text: str, group: int | None = None) -> None:
        """A paragraph of ``text`` (line breaks kept, every line escaped); nothing when blank."""
        lines = [line for line in text.split("\n") if line]
        if not lines:
            return
        lines = [escape_line(line, index > 0) for index, line in enumerate(lines)]
        self._emit(lines, group)

    def raw(self, markdown: str) -> None:
        """Markdown written as it is (a notebook's Markdown cell); nothing when blank."""
        if markdown.strip():
            self._emit(markdown.split("\n"))

    def heading(self, level: int, title: str, anchor: str = "") -> None:
        """An ATX heading (level clamped to 1-6); inside a container it is written as a paragraph.

        >>> out = MarkdownWriter(); out.heading(9, "Tips #"); out.heading(2, "C#"); out.text()
        '###### Tips \\\\#\\n\\n## C#\\n'
        """
        title = collapse(title)
        if not title:
            return
        if self._containers:
            self.paragraph(title)
            return
        level = max(1, min(level, 6))
        closed = title.rstrip("#")
        if closed != title and (not closed or closed[-1] in " \t"):
            # A "#" run after a space would be read as the heading's closing sequence ("C#" is safe).
            title = title[:-1] + "\\#"
        start = self._emit(["#" * level + " " + title], -1)
        self.headings += 1
        if level == 1:
            self.top_headings += 1
        if anchor:
            self.anchors.append((start, anchor))

    def code(self, code: str, language: str = "") -> None:
        """A fenced code block (the fence longer than any backtick run in ``code``)."""
        code = code.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
        if not code.strip():
            return
        fence = fence_for(code)
        info = LANGUAGE_CHARS.sub("", language)[:40]
        self._emit([fence + info, *code.split("\n"), fence])

    def table(self, rows: list[list[str]]) -> None:
        """A pipe table whose first row is the header; cells are already :func:`table_cell` text."""
        width = max((len(row) for row in rows), default=0)
        if not width:
            return
        lines = []
        for index, row in enumerate(rows):
            cells = row + [""] * (width - len(row))
            lines.append("| " + " | ".join(cells) + " |")
            if index == 0:
                lines.append("|" + " --- |" * width)
        self._emit(lines)

    # --- result ---------------------------------------------------------------------
    def mark(self) -> tuple[int, int, int, int, int, int]:
        """The writer's position, for :meth:`truncate` (to drop what an element wrote)."""
        return len(self._parts), self._size, self._group, len(self.anchors), self.headings, self.top_headings

    def truncate(self, mark: tuple[int, int, int, int, int, int]) -> None:
        parts, self._size, self._group, anchors, self.headings, self.top_headings = mark
        del self._parts[parts:]
        del self.anchors[anchors:]

    def head_since(self, mark: tuple[int, int, int, int, int, int], size: int) -> str:
        """At least the first ``size`` characters written since :meth:`mark` (fewer when less was written)."""
        parts = self._parts
        index = mark[0]
        found: list[str] = []
        length = 0
        while index < len(parts) and length < size:
            found.append(parts[index])
            length += len(parts[index])
            index += 1
        return "".join(found)

    def position(self) -> int:
        return self._size

    def text(self) -> str:
        """The Markdown written so far, ending with one line break ("" when nothing was written)."""
        return "".join(self._parts) + "\n" if self._parts else ""
