"""Markdown (or plain text) -> the ordered structural blocks a splitter cuts between.

The structural splitter cuts a document at the largest boundary that fits: heading
sections, then blocks, then sentences, then words. This module finds the blocks: headings,
paragraphs, code blocks, tables, lists, block quotes, HTML blocks and thematic breaks.

>>> text = "# Guide\\n\\nIntro text.\\n\\n## Install\\n\\n```sh\\n# not a heading\\n```\\n"
>>> [(b.kind, text[b.start:b.end]) for b in parse_blocks(text)]  # doctest: +NORMALIZE_WHITESPACE
[('heading', '# Guide'), ('paragraph', 'Intro text.'), ('heading', '## Install'),
 ('code', '```sh\\n# not a heading\\n```')]
>>> heading_paths(parse_blocks(text))[-1]
('Guide', 'Install')

The rules follow CommonMark and GFM tables where they matter for cutting, and stay
pragmatic elsewhere: inline syntax is never parsed, and lists, quotes, tables and HTML
blocks are kept whole (``list_items`` gives the cut points inside a list).

Guarantees, for any string:

- offsets are code-point offsets into the text as given (``\\r\\n``, ``\\r`` and a
  leading BOM are not rewritten away);
- every non-whitespace character, except a leading BOM, lies in exactly one block;
- blocks are in order, do not overlap, and ``text[b.start:b.end]`` has no surrounding
  whitespace (in the sense of ``str.strip``);
- the work is linear in the length of the text: one pass over the lines, and no regular
  expression that can backtrack.

Where the rules had to choose:

- a setext heading's title joins its lines with single spaces;
- a heading's title is its text as a reader sees it (unless the text comes from a reader
  of another format, see :func:`parse_blocks`): a link is its text, an autolink its
  address; images (badges, logos) are left out, unless the title has nothing else (then
  their alt text); HTML tags and comments are left out and backslash escapes undone (not
  inside code spans); emphasis marks stay;
- an indented (4+ columns) run of lines is a code block, as in CommonMark, except when
  it runs straight into unindented paragraph text: plain text that indents a paragraph's
  first line stays one paragraph;
- table rows are the lines after the delimiter row that contain ``|`` and start no other
  block (GFM would also take rows without a pipe);
- adjacent lists with different markers (``-`` then ``*``, ``1.`` then ``1)``) are
  separate blocks, as CommonMark makes them separate lists; an ordered item interrupts a
  paragraph only when numbered 1, so "in\\n1984. we" stays a paragraph;
- HTML blocks follow CommonMark's seven start conditions; a lone tag on a line (the
  seventh) is recognised by a simple test: one ``<``, one ``>``, nothing after.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from typing import NamedTuple

from ..errors import RagchunkError
from .frontmatter import FRONT_MATTER_OPENINGS, head_lines, scan_front_matter

__all__ = ["BLOCK_KINDS", "Block", "front_matter", "heading_paths", "item_lists", "list_items", "parse_blocks"]

BLOCK_KINDS: tuple[str, ...] = (
    "front_matter",
    "heading",
    "paragraph",
    "code",
    "table",
    "list",
    "quote",
    "html",
    "rule",
)


class Block(NamedTuple):
    """One structural block of a document, located by code-point offsets.

    ``start`` is the offset of the block's first non-whitespace character and ``end`` the
    offset just past its last one. ``level`` (1-6) and ``title`` are set for headings only.

    >>> text = "Install\\n-------\\n"
    >>> block = parse_blocks(text)[0]
    >>> block
    Block(kind='heading', start=0, end=15, level=2, title='Install')
    >>> text[block.start:block.end]
    'Install\\n-------'

    A named tuple: a document has thousands of blocks, and a tuple is made several times
    faster than a frozen dataclass instance.
    """

    kind: str
    start: int
    end: int
    level: int = 0
    title: str = ""


# Every whitespace character (none lies above U+3000), and "" for the end of a line.
_SPACE_OR_END = frozenset(chr(c) for c in range(0x3001) if chr(c).isspace()) | frozenset([""])
# A line whose first character is not in this set is paragraph text (or continues one);
# it lets the common case skip every other test. Whitespace is listed because it may
# indent a block or make the line blank.
_SPECIAL_FIRST = frozenset("#`~>-*_+=|:<0123456789") | _SPACE_OR_END

# Bounded quantifiers only: nothing here can backtrack more than a few characters.
_ORDERED_MARKER = re.compile(r"([0-9]{1,9})[.)]")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")

# CommonMark's HTML block start conditions 1 (raw text, ends at a closing tag) and 6
# (block-level tag, ends at a blank line).
_HTML_RAW_TAGS = frozenset(["pre", "script", "style", "textarea"])
_HTML_BLOCK_TAGS = frozenset(
    """address article aside base basefont blockquote body caption center col colgroup
    dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset
    h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav
    noframes ol optgroup option p param search section summary table tbody td tfoot th
    thead title tr track ul""".split()
)
_HTML_BLANK_END = ""
# First characters (after indentation) of a list line that may matter to _scan_list: list
# markers, rules and the leaf blocks that interrupt a paragraph. A line starting with
# anything else is text.
_LIST_MARKUP_FIRST = frozenset("-*_+0123456789>#`~<")
# First characters of a heading, fence, rule or HTML block (see _opens_leaf).
_LEAF_FIRST = frozenset("#`~<-*_")
# After "- ", "* " or "+ ", a character outside this set makes the line a plain bullet item
# with text: no rule, no table row, no setext underline, no leaf block in the item, so its
# item's text may continue lazily (what _is_rule, _list_marker and _item_start would say).
_NOT_PLAIN_ITEM_TEXT = _LEAF_FIRST | _SPACE_OR_END
_BULLETS = frozenset("-*+")

# A list item's (content column offset from the marker, marker key, number, content).
# The key is the bullet character or the ordered delimiter: CommonMark starts a new list
# when it changes. Bullets have number -1.
_Marker = tuple[int, str, int, str]


def parse_blocks(text: str, *, markdown_titles: bool = True) -> list[Block]:
    """Split Markdown or plain text into its ordered top-level blocks.

    With ``markdown_titles`` a heading's title is what a reader of the rendered Markdown
    sees (see the module docstring); without it, its characters as written: the text of a
    reader of another format (HTML, PDF ...), whose headings hold no Markdown syntax, so
    that ``<div>: the element`` stays as it is.

    >>> text = "Title\\n=====\\n\\nSome *text*\\nwrapped.\\n\\n- a\\n- b\\n\\n---\\n"
    >>> [(b.kind, b.level, b.title, text[b.start:b.end]) for b in parse_blocks(text)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('heading', 1, 'Title', 'Title\\n====='),
     ('paragraph', 0, '', 'Some *text*\\nwrapped.'),
     ('list', 0, '', '- a\\n- b'),
     ('rule', 0, '', '---')]

    Plain text comes back as paragraphs split at blank lines. An empty or all-whitespace
    text gives ``[]``. Nothing is raised for any string.
    """
    lines, starts = _split_lines(text, at_start=True)
    blocks: list[Block] = []
    append = blocks.append
    make = tuple.__new__  # Block(...) without the Python-level __new__: half the cost
    found = scan_front_matter(lines)
    scanned = _scan(lines, 0 if found is None else found[2] + 1)
    if found is not None:
        scanned.insert(0, found)
    for kind, first, last, level, title in scanned:
        # Strip only lines that have the whitespace: stripping copies the (maybe long) line.
        head = lines[first]
        start = starts[first]
        if head[:1].isspace():
            start += len(head) - len(head.lstrip())
        tail = lines[last]
        end = starts[last] + (len(tail.rstrip()) if tail[-1:].isspace() else len(tail))
        if markdown_titles and kind == "heading":
            title = _plain_title(title)
        append(make(Block, (kind, start, end, level, title)))
    return blocks


def heading_paths(blocks: Iterable[Block]) -> list[tuple[str, ...]]:
    """For each block, the titles of the headings in force there, outermost first.

    A heading's own path ends with its title. Skipped levels leave no empty entries, and a
    heading closes every open heading of the same or a deeper level.

    >>> text = "# Guide\\n\\n### Linux\\n\\nx\\n\\n## Install\\n\\ny\\n"
    >>> heading_paths(parse_blocks(text))  # doctest: +NORMALIZE_WHITESPACE
    [('Guide',), ('Guide', 'Linux'), ('Guide', 'Linux'), ('Guide', 'Install'),
     ('Guide', 'Install')]

    Blocks before the first heading get ``()``; an empty heading leaves no empty entry:

    >>> heading_paths(parse_blocks("# Guide\\n\\n### Linux\\n\\n##\\n\\nz\\n"))[-1]
    ('Guide',)
    """
    levels: list[int] = []
    titles: list[str] = []
    path: tuple[str, ...] = ()
    paths: list[tuple[str, ...]] = []
    append = paths.append
    for kind, _, _, level, title in blocks:
        if kind == "heading":
            while levels and levels[-1] >= level:
                levels.pop()
                titles.pop()
            levels.append(level)
            titles.append(title)
            # An empty heading ("##" alone) still closes the deeper ones but names nothing.
            path = tuple(filter(None, titles))
        append(path)
    return paths


def list_items(text: str, block: Block) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of the top-level items of a list block.

    Items are trimmed like blocks; together they run from ``block.start`` to
    ``block.end``, and nested lists stay inside their parent item, so a list too big for
    one chunk can be cut between items.

    >>> text = "- one\\n  - one.a\\n\\n- two\\n"
    >>> [text[s:e] for s, e in list_items(text, parse_blocks(text)[0])]
    ['- one\\n  - one.a', '- two']

    ``block`` must be a ``"list"`` block that ``parse_blocks(text)`` returned; the work is
    linear in the block's length, not the text's.

    Raises:
        RagchunkError: ``block`` is not a list block of ``text``.
    """
    if block.kind != "list":
        raise RagchunkError(
            "block",
            f"block.kind ({block.kind!r}) must be 'list': pass a list block from parse_blocks(text)",
        )
    # A list marker is indented at most 3 columns (and a BOM may precede it), so its line
    # starts within a few characters: looking further back would make many calls quadratic.
    low = max(0, block.start - 8)
    line_start = max(text.rfind("\n", low, block.start), text.rfind("\r", low, block.start)) + 1
    marker = None
    if line_start or not low:
        lines, starts = _split_lines(text[line_start : block.end], at_start=line_start == 0)
        col, rest = _leading(lines[0])
        if col <= 3 and line_start + starts[0] + len(lines[0]) - len(rest) == block.start:
            marker = _list_marker(rest, col)
    if marker is None:
        raise RagchunkError(
            "block",
            f"block (start {block.start}) does not start a list item in text: "
            "pass a list block from parse_blocks(text)",
        )
    firsts: list[int] = []
    _scan_list(lines, 0, col, marker, firsts)
    spans = []
    for index, first in enumerate(firsts):
        last = firsts[index + 1] - 1 if index + 1 < len(firsts) else len(lines) - 1
        while _is_blank(lines[last]):
            last -= 1
        head = lines[first]
        start = line_start + starts[first] + len(head) - len(head.lstrip())
        spans.append((start, line_start + starts[last] + len(lines[last].rstrip())))
    return spans


def item_lists(text: str, start: int, end: int) -> list[list[tuple[int, int]]]:
    """The lists nested in the list item ``text[start:end]`` (``start`` at its marker, as
    :func:`list_items` gives it), each as the ``(start, end)`` spans of its items.

    The item's lines are read without the item's indentation, as CommonMark reads a list
    item's content, so a list nested at any depth is found at the next level down.

    >>> text = "- When defining a parser:\\n  - add tags.\\n  - define models.\\n\\n  More text.\\n- Next"
    >>> [[text[s:e] for s, e in found] for found in item_lists(text, 0, text.index("\\n- Next"))]
    [['- add tags.', '- define models.']]

    A list on the item's first line, a tab in the indentation or a line indented less than
    the item's content (a lazy continuation line) gives ``[]``: the item is then cut as text.
    """
    line_end = text.find("\n", start, end)
    if line_end < 0:
        return []
    newline = text.rfind("\n", 0, start)
    # Only a "\r" after the last "\n" can end the line before: searched there, not back to 0.
    line_start = max(newline, text.rfind("\r", newline + 1, start)) + 1
    if "\t" in text[line_start:start] or text[line_start:start].strip():
        return []
    marker = _list_marker(text[start:line_end], start - line_start)
    if marker is None or not marker[3] or "\t" in text[start:start + marker[0]]:
        return []
    indent = start - line_start + marker[0]
    # The item's content without its indentation; ``origins[i]`` is where line i starts in ``text``.
    lines = text[start + marker[0]:end].split("\n")
    pos = start + marker[0] + len(lines[0]) + 1  # where the line being read starts in text
    origins = [start + marker[0]]
    kept = [lines[0]]
    for line in lines[1:]:
        if line.strip():
            if len(line) - len(line.lstrip(" ")) < indent:
                return []
            kept.append(line[indent:])
            origins.append(pos + indent)
        else:
            kept.append("")
            origins.append(pos + len(line))
        pos += len(line) + 1
    inner = "\n".join(kept)
    starts = list(accumulate((len(line) + 1 for line in kept[:-1]), initial=0))

    def outer(pos: int) -> int:
        index = bisect_right(starts, pos) - 1
        return origins[index] + pos - starts[index]

    found = []
    for block in parse_blocks(inner):
        if block.kind == "list" and block.start >= len(kept[0]):
            found.append([(outer(s), outer(e)) for s, e in list_items(inner, block)])
    return found


def _split_lines(text: str, at_start: bool) -> tuple[list[str], list[int]]:
    """The lines of ``text`` and the offset of each line's start in ``text`` (plus one more).

    ``\\r\\n``, ``\\r`` and ``\\n`` all end a line. A ``\\r\\n`` is read as `` \\n`` and a lone
    ``\\r`` as ``\\n``: the same length, so offsets still index the original, and a
    trailing space changes no rule here. A BOM at the start of the text (``at_start``) is
    left out of the first line instead of being read as content or indentation.

    >>> _split_lines("\\ufeffa\\r\\nb\\rc", at_start=True)
    (['a ', 'b', 'c'], [1, 4, 6, 8])
    """
    base = 0
    if at_start and text.startswith("\ufeff"):
        text = text[1:]
        base = 1
    if "\r" in text:
        text = text.replace("\r\n", " \n").replace("\r", "\n")
    lines = text.split("\n")
    return lines, list(accumulate(map((1).__add__, map(len, lines)), initial=base))


def _is_blank(line: str) -> bool:
    return not line or line.isspace()


def _leading(line: str) -> tuple[int, str]:
    """The indentation in columns (tabs stop every 4) and the rest of the line.

    >>> _leading("  \\t- x")
    (4, '- x')
    """
    rest = line.lstrip(" \t")
    width = len(line) - len(rest)
    if "\t" not in line[:width]:
        return width, rest
    col = 0
    for char in line[:width]:
        col = col + 4 - col % 4 if char == "\t" else col + 1
    return col, rest


def _atx(rest: str) -> tuple[int, str] | None:
    """(level, title) when ``rest`` (indentation removed) is an ATX heading, else None.

    >>> _atx("## Install ##"), _atx("#hashtag"), _atx("####### seven"), _atx("#")
    ((2, 'Install'), None, None, (1, ''))
    """
    after = rest.lstrip("#")
    level = len(rest) - len(after)
    if level > 6 or (after and after[0] not in " \t"):
        return None
    title = after.strip()
    closed = title.rstrip("#")
    if not closed:
        return level, ""
    if closed[-1] in " \t":
        return level, closed.rstrip()
    return level, title


def _fence_open(rest: str) -> tuple[str, int] | None:
    """(fence character, length) when ``rest`` opens a fenced code block, else None.

    >>> _fence_open("```python"), _fence_open("~~~~"), _fence_open("``inline``")
    (('`', 3), ('~', 4), None)
    """
    char = rest[:1]
    if char != "`" and char != "~":
        return None
    info = rest.lstrip(char)
    length = len(rest) - len(info)
    if length < 3 or (char == "`" and "`" in info):
        return None
    return char, length


def _closes_fence(rest: str, char: str, length: int) -> bool:
    """True when ``rest`` (indentation removed) closes a fence of ``char`` * ``length``."""
    if rest[:1] != char:
        return False
    after = rest.lstrip(char)
    return len(rest) - len(after) >= length and (not after or after.isspace())


def _is_rule(rest: str) -> bool:
    """True for a thematic break: 3+ of one of ``-*_``, spaces allowed between.

    >>> _is_rule("- - -"), _is_rule("***"), _is_rule("--"), _is_rule("-- x")
    (True, True, False, False)
    """
    char = rest[:1]
    if char not in ("-", "*", "_"):
        return False
    # lstrip stops at the first other character, so "- item" is rejected at once.
    tail = rest.lstrip(char + " \t")
    if tail and not tail.isspace():
        return False
    return rest.count(char) >= 3


def _is_setext_underline(rest: str, char: str) -> bool:
    body = rest.rstrip()
    return bool(body) and not body.strip(char)


def _list_marker(rest: str, col: int) -> _Marker | None:
    """The list item marker that starts ``rest`` (found at column ``col``), or None.

    >>> _list_marker("- item", 0), _list_marker("10) ten", 0), _list_marker("-x", 0)
    ((2, '-', -1, 'item'), (4, ')', 10, 'ten'), None)
    >>> _list_marker("1.", 0), _list_marker("-      code", 0)
    ((3, '.', 1, ''), (2, '-', -1, '     code'))
    """
    char = rest[:1]
    if char == "-" or char == "+" or char == "*":
        width, key, number = 1, char, -1
    elif "0" <= char <= "9":
        match = _ORDERED_MARKER.match(rest)
        if match is None:
            return None
        width, key, number = match.end(), rest[match.end() - 1], int(match.group(1))
    else:
        return None
    tail = rest[width:]
    if tail and tail[0] not in " \t":
        return None
    body = tail.lstrip(" \t")
    if not body or body.isspace():
        return width + 1, key, number, ""
    gap = len(tail) - len(body)
    if "\t" in tail[:gap]:
        start = column = col + width
        for char in tail[:gap]:
            column = column + 4 - column % 4 if char == "\t" else column + 1
        gap = column - start
    if gap <= 4:
        return width + gap, key, number, body
    # Five or more spaces make the content an indented code block one column in; the
    # content keeps its indentation so nothing reads it as a fence or as paragraph text.
    return width + 1, key, number, tail[1:]


def _html_start(rest: str, in_paragraph: bool) -> str | None:
    """How an HTML block starting at ``rest`` ends, or None if it is not one.

    The result is the text whose appearance on a line closes the block (matched
    case-insensitively for closing tags), or ``""`` for "at the next blank line".
    A lone tag on a line (CommonMark's condition 7) cannot interrupt a paragraph.

    >>> _html_start("<!-- note", False), _html_start("<div class='x'>", False)
    ('-->', '')
    >>> _html_start("<span>inline</span> text", False), _html_start("<https://x.org>", False)
    (None, None)
    """
    if rest.startswith("<!--"):
        return "-->"
    if rest.startswith("<?"):
        return "?>"
    if rest.startswith("<![CDATA["):
        return "]]>"
    if rest.startswith("<!") and rest[2:3].isascii() and rest[2:3].isalpha():
        return ">"
    match = _TAG_NAME.match(rest)
    if match is None:
        return None
    name = match.group(1).lower()
    after = rest[match.end() : match.end() + 1]
    closing = rest[1] == "/"
    if name in _HTML_RAW_TAGS and not closing and after in ("", " ", "\t", ">"):
        return f"</{name}>"
    if name in _HTML_BLOCK_TAGS and (
        after in ("", " ", "\t", ">") or rest.startswith("/>", match.end())
    ):
        return _HTML_BLANK_END
    if in_paragraph or after not in ("", " ", "\t", ">", "/"):
        return None
    body = rest.rstrip()
    if body.endswith(">") and body.count("<") == 1 and body.count(">") == 1:
        return _HTML_BLANK_END
    return None


def _opens_leaf(rest: str) -> bool:
    """True when ``rest`` starts a heading, fence, rule or HTML block.

    Such a line ends a paragraph, so the line after it cannot be a lazy continuation.
    """
    char = rest[:1]
    if char == "#":
        return _atx(rest) is not None
    if char == "`" or char == "~":
        return _fence_open(rest) is not None
    if char == "<":
        return _html_start(rest, True) is not None
    return _is_rule(rest)


def _interrupts_paragraph(rest: str) -> bool:
    """True when a line indented at most 3 columns ends the paragraph above it.

    Only bullet items and ordered items numbered 1, with content, interrupt: this keeps
    "in\\n1984. text" a paragraph.
    """
    char = rest[:1]
    if char == ">" or _opens_leaf(rest):
        return True
    if char in ("-", "+", "*") or "0" <= char <= "9":
        marker = _list_marker(rest, 0)
        return marker is not None and bool(marker[3]) and marker[2] in (-1, 1)
    return False


def _is_lazy_text(content: str) -> bool:
    """True when a container's line ``content`` lets the next line continue it lazily."""
    return bool(content) and not content.isspace() and not _opens_leaf(content)


def _table_columns(header: str, delimiter: str) -> bool:
    """True when ``delimiter`` is a GFM delimiter row with as many cells as ``header``.

    >>> _table_columns("| a | b |", "|---|:--:|"), _table_columns("a | b", "---")
    (True, False)
    """
    row = delimiter.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    cells = row.split("|")
    for cell in cells:
        cell = cell.strip()
        if cell.startswith(":"):
            cell = cell[1:]
        if cell.endswith(":"):
            cell = cell[:-1]
        if not cell or cell.strip("-"):
            return False
    head = header.strip()
    count = head.count("|") - head.count("\\|") + 1
    if head.startswith("|"):
        count -= 1
    if len(head) > 1 and head.endswith("|") and not head.endswith("\\|"):
        count -= 1
    return count == len(cells)


def front_matter(text: str) -> Block | None:
    """The front-matter block at the start of ``text`` (YAML ``---`` or TOML ``+++``), or None.

    Only the first lines are read (at most 2,000), so this is cheap on a long text.

    >>> front_matter("+++\\ntitle = \\"Notes\\"\\n+++\\nBody").title
    'Notes'
    """
    if not text.startswith(FRONT_MATTER_OPENINGS):
        return None
    lines, starts = _split_lines(head_lines(text), at_start=True)
    found = scan_front_matter(lines)
    if found is None:
        return None
    last = found[2]
    return Block("front_matter", starts[0], starts[last] + len(lines[last].rstrip()), 0, found[4])


def _scan(lines: list[str], first: int = 0) -> list[tuple[str, int, int, int, str]]:
    """The blocks of ``lines`` from line ``first`` on, as (kind, first line, last line, level, title)."""
    out: list[tuple[str, int, int, int, str]] = []
    emit = out.append
    special = _SPECIAL_FIRST
    n = len(lines)
    para = -1  # first line of the open paragraph, -1 when none is open
    i = first
    while i < n:
        line = lines[i]
        if line[:1] not in special:
            if para < 0:
                para = i
            i += 1
            continue
        if not line or line.isspace():
            if para >= 0:
                emit(("paragraph", para, i - 1, 0, ""))
                para = -1
            i += 1
            continue
        if line[0].isspace():
            col, rest = _leading(line)
        else:
            col, rest = 0, line
        if col >= 4:
            if para < 0:
                code_last, para_first, nxt = _scan_indented(lines, i)
                if code_last >= 0:
                    emit(("code", i, code_last, 0, ""))
                para = para_first
                i = nxt
            else:
                i += 1
            continue
        char = rest[0]
        if char not in special:
            if para < 0:
                para = i
            i += 1
            continue
        if char in _BULLETS and rest[1:2] == " " and rest[2:3] not in _NOT_PLAIN_ITEM_TEXT:
            # A plain bullet item with text ("- word"): it starts a list, even in a paragraph.
            if para >= 0:
                emit(("paragraph", para, i - 1, 0, ""))
                para = -1
            last = _scan_list(lines, i, col, (2, char, -1, rest[2:]), None)
            emit(("list", i, last, 0, ""))
            i = last + 1
            continue
        if char == "#":
            heading = _atx(rest)
            if heading is not None:
                if para >= 0:
                    emit(("paragraph", para, i - 1, 0, ""))
                    para = -1
                emit(("heading", i, i, heading[0], heading[1]))
                i += 1
                continue
        elif char == "`" or char == "~":
            fence = _fence_open(rest)
            if fence is not None:
                if para >= 0:
                    emit(("paragraph", para, i - 1, 0, ""))
                    para = -1
                last, nxt = _scan_fence(lines, i, fence[0], fence[1])
                emit(("code", i, last, 0, ""))
                i = nxt
                continue
        elif char == ">":
            if para >= 0:
                emit(("paragraph", para, i - 1, 0, ""))
                para = -1
            last = _scan_quote(lines, i)
            emit(("quote", i, last, 0, ""))
            i = last + 1
            continue
        elif char == "<":
            end = _html_start(rest, para >= 0)
            if end is not None:
                if para >= 0:
                    emit(("paragraph", para, i - 1, 0, ""))
                    para = -1
                last = _scan_html(lines, i, end)
                emit(("html", i, last, 0, ""))
                i = last + 1
                continue
        elif char == "=":
            if para >= 0 and _is_setext_underline(rest, "="):
                emit(("heading", para, i, 1, _setext_title(lines, para, i)))
                para = -1
                i += 1
                continue
        else:
            if (
                para >= 0
                and (char == "|" or char == "-" or char == ":")
                and "|" in rest
                and _table_columns(lines[i - 1], rest)
            ):
                if para < i - 1:
                    emit(("paragraph", para, i - 2, 0, ""))
                para = -1
                last = _scan_table(lines, i)
                emit(("table", i - 1, last, 0, ""))
                i = last + 1
                continue
            if char == "-" and para >= 0 and _is_setext_underline(rest, "-"):
                emit(("heading", para, i, 2, _setext_title(lines, para, i)))
                para = -1
                i += 1
                continue
            if _is_rule(rest):
                if para >= 0:
                    emit(("paragraph", para, i - 1, 0, ""))
                    para = -1
                emit(("rule", i, i, 0, ""))
                i += 1
                continue
            marker = _list_marker(rest, col)
            if marker is not None and (para < 0 or (marker[3] and marker[2] in (-1, 1))):
                if para >= 0:
                    emit(("paragraph", para, i - 1, 0, ""))
                    para = -1
                last = _scan_list(lines, i, col, marker, None)
                emit(("list", i, last, 0, ""))
                i = last + 1
                continue
        if para < 0:
            para = i
        i += 1
    if para >= 0:
        emit(("paragraph", para, n - 1, 0, ""))
    return out


def _setext_title(lines: list[str], first: int, underline: int) -> str:
    """The title of a setext heading: its paragraph lines, stripped and joined by spaces."""
    return " ".join(line.strip() for line in lines[first:underline])


# Inline syntax a heading's title drops (one line; no pattern backtracks over more than a
# bracket's or a tag's contents). An escaped "[" opens no link.
_IMAGE = re.compile(r"(?<!\\)!\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
_LINK = re.compile(r"(?<!\\)\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|[^<>\s@]+@[^<>\s@]+)>")
_INLINE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_TICKS = re.compile(r"`+")
_HOLE = "\ue000"  # a private-use character: where a code span was (see _plain_text)
_HOLES = re.compile(_HOLE + "([0-9]+)" + _HOLE)


def _plain_title(title: str) -> str:
    """A heading's title as a reader sees it (see the module docstring). Images (badges,
    logos) are left out, unless nothing else is there: then they are their alt text.

    >>> _plain_title("[2.23.0](https://github.com/o/r/compare/v2.22.0...v2.23.0) (2023-09-11)")
    '2.23.0 (2023-09-11)'
    >>> _plain_title('<a name="search"></a> Search'), _plain_title("cssesc [![Build](https://x/b.svg)](https://x)")
    ('Search', 'cssesc')
    >>> _plain_title("![ws logo](logo.png)"), _plain_title("The `<div>` tag, \\\\*not\\\\* [a][ref] <https://x.org> <!-- c -->")
    ('ws logo', 'The `<div>` tag, *not* a https://x.org')
    """
    if "[" not in title and "<" not in title and "\\" not in title:
        return title
    return _plain_text(_IMAGE.sub("", title)) or _plain_text(_IMAGE.sub(r"\1", title))


def _plain_text(title: str) -> str:
    """``title`` with its links as their text and :func:`_plain_inline` applied, code spans kept as written."""
    spans: list[str] = []
    if _HOLE not in title:
        # Each code span becomes a numbered hole, so that nothing inside it is read as a
        # link or a tag, while a link's text may still hold one.
        parts = []
        pos = 0
        for ticks in _TICKS.finditer(title):
            if ticks.start() < pos:
                continue
            close = _closing_ticks(title, ticks.end(), ticks.end() - ticks.start())
            if close >= 0:
                parts.append(f"{title[pos:ticks.start()]}{_HOLE}{len(spans)}{_HOLE}")
                spans.append(title[ticks.start():close])
                pos = close
        parts.append(title[pos:])
        title = "".join(parts)
    for _ in range(3):  # a link inside a link's text: [[a](b)](c)
        title, changed = _LINK.subn(r"\1", title)
        if not changed:
            break
    title = _plain_inline(title)
    if spans:
        title = _HOLES.sub(lambda hole: spans[int(hole.group(1))], title)
    return " ".join(title.split())


def _plain_inline(text: str) -> str:
    """``text`` (no code span in it) without HTML, autolinks' brackets or backslash escapes."""
    return _ESCAPED.sub(r"\1", _INLINE_TAG.sub("", _AUTOLINK.sub(r"\1", _without_comments(text))))


def _without_comments(text: str) -> str:
    """``text`` without its HTML comments (an unclosed one stays text), in one pass."""
    parts = []
    pos = 0
    while (start := text.find("<!--", pos)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        parts.append(text[pos:start])
        pos = end + 3
    parts.append(text[pos:])
    return "".join(parts)


def _closing_ticks(text: str, pos: int, width: int) -> int:
    """The end of the first run of exactly ``width`` backticks at or after ``pos``, or -1."""
    for ticks in _TICKS.finditer(text, pos):
        if ticks.end() - ticks.start() == width:
            return ticks.end()
    return -1


def _scan_indented(lines: list[str], i: int) -> tuple[int, int, int]:
    """Read an indented code block at line ``i``: (last code line, paragraph start, next).

    Plain text often indents a paragraph's first line. When the indented lines run
    straight into unindented paragraph text, the last run of them opens that paragraph
    instead of being code (CommonMark would make it code); the first two results are -1
    when there is no code block or no paragraph.
    """
    n = len(lines)
    last = i  # last non-blank line read so far
    run = i  # first line of the run that follows the latest blank line
    before = -1  # last non-blank line before that run
    blank = False
    j = i + 1
    while j < n:
        line = lines[j]
        if not line or line.isspace():
            blank = True
        else:
            col, rest = _leading(line)
            if col < 4:
                if not blank and not _interrupts_paragraph(rest):
                    return before, run, j
                break
            if blank:
                before, run, blank = last, j, False
            last = j
        j += 1
    return last, -1, last + 1


def _scan_fence(lines: list[str], i: int, char: str, length: int) -> tuple[int, int]:
    """Read the fenced code block opened at line ``i``: (last non-blank line, next line).

    An unclosed fence runs to the end of the text.
    """
    n = len(lines)
    j = i + 1
    while j < n:
        line = lines[j]
        # A closing fence is indented at most 3 spaces: its character is in the first 4.
        if char in line[:4]:
            rest = line.lstrip(" ")
            if rest[:1] == char and len(line) - len(rest) <= 3 and _closes_fence(rest, char, length):
                return j, j + 1
        j += 1
    return _last_non_blank(lines, n - 1), n


def _last_non_blank(lines: list[str], j: int) -> int:
    while _is_blank(lines[j]):
        j -= 1
    return j


def _scan_quote(lines: list[str], i: int) -> int:
    """The last line of the block quote starting at line ``i``.

    The quote runs over ``>`` lines and the lazy continuation lines of their paragraphs,
    and ends at a blank line.
    """
    n = len(lines)
    lazy = False
    j = i
    while j < n:
        line = lines[j]
        if not line or line.isspace():
            break
        col, rest = _leading(line)
        if col <= 3 and rest[:1] == ">":
            lazy = _is_lazy_text(rest.lstrip("> \t"))
        elif not lazy or (col <= 3 and _interrupts_paragraph(rest)):
            break
        j += 1
    return j - 1


def _scan_html(lines: list[str], i: int, end: str) -> int:
    """The last line of the HTML block starting at line ``i`` that ``end`` closes."""
    n = len(lines)
    if end == _HTML_BLANK_END:
        j = i + 1
        while j < n and not _is_blank(lines[j]):
            j += 1
        return j - 1
    fold = end.startswith("</")
    for j in range(i, n):
        line = lines[j]
        if end in (line.lower() if fold and "<" in line else line):
            return j
    return _last_non_blank(lines, n - 1)


def _scan_table(lines: list[str], i: int) -> int:
    """The last row of the table whose delimiter row is line ``i``.

    Rows are the following lines that contain ``|`` and start no other block.
    """
    n = len(lines)
    j = i + 1
    while j < n:
        line = lines[j]
        if "|" not in line:
            break
        col, rest = _leading(line)
        if col <= 3 and _interrupts_paragraph(rest):
            break
        j += 1
    return j - 1


def _scan_list(
    lines: list[str], i: int, col: int, marker: _Marker, items: list[int] | None
) -> int:
    """The last line of the list whose first item marker is at line ``i``, column ``col``.

    Follows CommonMark's container rules closely enough for cutting: a line belongs to
    the list when it is indented to an open item's content, starts a sibling item with the
    same marker kind, or lazily continues an item's paragraph; blank lines inside are kept
    while the list goes on. Fences inside items are tracked so their contents cannot end
    the list. The first line of each top-level item is appended to ``items``.
    """
    key = marker[1]
    stack = [col + marker[0]]  # content columns of the open items, innermost last
    if items is not None:
        items.append(i)
    fence, lazy = _item_start(marker[3])
    owner = stack[0]  # content column of the item that holds the open fence
    n = len(lines)
    last = i
    j = i + 1
    markup = _LIST_MARKUP_FIRST
    while j < n:
        line = lines[j]
        if not line or line.isspace():
            lazy = False
            j += 1
            continue
        rest = line.lstrip(" \t")
        lcol = len(line) - len(rest)
        if lcol and "\t" in line[:lcol]:
            lcol = _leading(line)[0]
        if fence is not None:
            if lcol >= owner:
                if lcol - owner <= 3 and rest[:1] == fence[0] and _closes_fence(rest, fence[0], fence[1]):
                    fence = None
                last = j
                j += 1
                continue
            # A line left of the item's content ends the item, and the fence with it.
            fence = None
        depth = bisect_right(stack, lcol)
        if rest[0] not in markup:
            # Text that can start no marker, rule or leaf block: only laziness decides.
            if depth:
                if not lazy:
                    del stack[depth:]
                    if lcol - stack[-1] < 4:
                        fence = None
                        owner = stack[-1]
                        lazy = True
            elif not lazy:
                break
            last = j
            j += 1
            continue
        if depth:
            if lcol - stack[depth - 1] >= 4:
                if not lazy:
                    del stack[depth:]
            elif _is_rule(rest):
                del stack[depth:]
                lazy = False
            else:
                sub = _list_marker(rest, lcol)
                if sub is not None and (not lazy or (sub[3] and sub[2] in (-1, 1))):
                    del stack[depth:]
                    stack.append(lcol + sub[0])
                    fence, lazy = _item_start(sub[3])
                    owner = stack[-1]
                elif not lazy or _interrupts_paragraph(rest):
                    del stack[depth:]
                    fence = _fence_open(rest)
                    owner = stack[-1]
                    lazy = fence is None and _is_lazy_text(rest)
            last = j
            j += 1
            continue
        if lcol <= 3:
            if rest[0] == key and rest[1:2] == " " and rest[2:3] not in _NOT_PLAIN_ITEM_TEXT:
                # The common sibling "- text" (see _NOT_PLAIN_ITEM_TEXT).
                stack = [lcol + 2]
                if items is not None:
                    items.append(j)
                fence, lazy, owner = None, True, lcol + 2
                last = j
                j += 1
                continue
            if _is_rule(rest):
                break
            sub = _list_marker(rest, lcol)
            if sub is not None and sub[1] == key:
                stack = [lcol + sub[0]]
                if items is not None:
                    items.append(j)
                fence, lazy = _item_start(sub[3])
                owner = stack[0]
                last = j
                j += 1
                continue
            if not lazy or _interrupts_paragraph(rest):
                break
        elif not lazy:
            break
        last = j
        j += 1
    return last


def _item_start(content: str) -> tuple[tuple[str, int] | None, bool]:
    """(open fence, lazy) for the content on a list item's marker line."""
    char = content[:1]
    if char == " " or char == "\t":
        return None, False
    if char not in _LEAF_FIRST:
        return None, bool(content) and not content.isspace()
    fence = _fence_open(content)
    return fence, fence is None and _is_lazy_text(content)
