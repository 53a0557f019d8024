"""The structure a text is cut by: its Markdown blocks as an ordered tree of units.

Levels, coarsest first: heading sections (a heading and everything up to the next heading
of the same or a higher level, nested) → blocks (paragraph, code, table, list, quote,
HTML, rule, heading line) → list items, the lines of a paragraph whose lines are
paragraphs, or sentences (paragraphs, quotes, items, such lines) → spans packed word by
word, or line by line (code, tables, HTML). A run of heading lines is glued to the unit
it introduces, so a chunk never ends on a heading.

Markup without text never makes a chunk of its own: a rule, a heading with no title, a
block of HTML tags and comments only (``<a name="x"></a>``, ``<p align="center">``,
``<!-- end -->``), or a section made of nothing else. Such a block travels with the unit
after it, as a heading does, except a block of closing tags only (``</div>``), which
joins the unit before it; markup with nothing after it joins the unit before it too.
Markup right after a heading line (Node.js's ``<!-- YAML … -->`` histories) stays with that
heading: when the two are too big to be glued to the text after them, they are a unit of
their own, so the chunk ends on the markup, not on the heading. A table inside a list item
or a block quote is cut between its rows, as a top-level table is.

A paragraph's lines are paragraphs of their own when its lines are not hard-wrapped
prose: they average at least :data:`UNWRAPPED_LINE` characters (longer than any wrap
width), or at least half of its line breaks follow a sentence end. Plain text that puts
one paragraph on each line (exports, wikitext, logs) is then cut between its paragraphs
first, as a blank line would have it; a wrapped paragraph keeps being cut between sentences.
Among such lines a title — shorter than :data:`TITLE_LINE` characters and ending no
sentence (``= = Plot = =``, ``Revenue by segment``, ``The options are:``) — goes with the
line after it, as a heading goes with what it introduces: a chunk never ends on one.

:class:`Structure` is what a text's Markdown gives once (blocks, heading paths, section
ends); :class:`UnitTree` turns it into units for one ``by`` and one size, and answers
:meth:`UnitTree.children` when a unit must be cut finer. The packer (:mod:`.packer`)
knows units only by their span and their level.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import NamedTuple

from .markdown import Block, heading_paths, item_lists, list_items, parse_blocks
from .segmentation import sentence_spans

__all__ = ["BY_CHOICES", "GLUE", "LINES", "SECTION", "Structure", "TAIL", "UNWRAPPED_LINE", "Unit", "UnitTree",
           "WORDS", "is_sectional", "shared_path"]

BY_CHOICES: tuple[str, ...] = ("headings", "paragraphs", "sentences")
# Blocks that are markup only and travel with the unit after them.
_STICKY_KINDS = frozenset(("heading", "rule"))
# Blocks that may be nothing but HTML tags and comments (an inline anchor is a paragraph).
_TAG_KINDS = frozenset(("html", "paragraph"))
# One HTML tag from its "<" (comments are found with str.find: a lazy pattern backtracks).
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t\r\n/][^<>]*)?>")
# What a line of a list or quote starts with before its content: indentation, quote marks, an item marker.
_CONTAINER = re.compile(r"[ \t>]*(?:(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)?")
# One cell of a GFM delimiter row, trimmed: dashes with optional colons (see _is_delimiter).
_DELIMITER_CELL = re.compile(r":?-+:?")

# Unit levels. Levels below WORDS hold units; WORDS and LINES are spans the packer fills
# word by word or line by line.
SECTION = 0
BLOCK = 1
ITEM = 2
SENTENCE = 3
GLUE = 4
TAIL = 5  # a unit with markup after it (a rule closing a section): the markup goes with its last piece
WORDS = 6
LINES = 7

# Mean characters per line from which a paragraph's line breaks are taken for paragraph
# breaks: prose wrapped by hand or by an editor stays under about 100.
UNWRAPPED_LINE = 160
# A line of such a paragraph shorter than this that ends no sentence is a title (see above).
# (bench/bench_retrieval.py, default settings, all questions, IoU / recall before -> after:
# 128: 7.60 / 81.9 -> 7.69 / 82.6; 256: 4.38 / 92.4 -> 4.45 / 92.7; 512: 2.37 / 97.1 -> 2.38 / 97.1.)
TITLE_LINE = 80
# How many lists deep a nested list item is still a unit of its own (see UnitTree._item_parts).
NESTED_LIST_DEPTH = 8
# The last character of a line that ends a sentence (closing quotes and brackets after one).
_SENTENCE_END_CHARS = frozenset(".!?…。！？｡।॥\"'”’»)]")


class Unit(NamedTuple):
    """One unit: the code-point span of its trimmed text, its level, and what its children are made of.

    ``block`` is the index of its (first) block and ``stop`` the index after its last one
    (sections; for a span of words or lines, where the headings glued to its start end); ``heads`` and ``inner`` are set for a ``GLUE`` unit: the heading units it
    glues and the unit they introduce; a ``TAIL`` unit is ``inner`` followed by markup up
    to ``end``. Made with ``tuple.__new__`` on hot paths: a split
    of a long text makes hundreds of thousands.
    """

    start: int
    end: int
    level: int
    block: int = -1
    stop: int = -1
    heads: tuple = ()
    inner: Unit | None = None


def _unit(start: int, end: int, level: int, block: int = -1, stop: int = -1, heads: tuple = (),
          inner: Unit | None = None) -> Unit:
    return tuple.__new__(Unit, (start, end, level, block, stop, heads, inner))


def _joined(piece: list[Unit]) -> Unit:
    """The units of ``piece`` as one: its last unit with the others glued before it."""
    if len(piece) == 1:
        return piece[0]
    return _unit(piece[0].start, piece[-1].end, GLUE, heads=tuple(piece[:-1]), inner=piece[-1])


def is_sectional(unit: Unit) -> bool:
    """Whether ``unit`` is a heading section, or a section with headings or markup glued to it.

    >>> is_sectional(_unit(0, 9, SECTION)), is_sectional(_unit(0, 9, GLUE, inner=_unit(4, 9, SECTION)))
    (True, True)
    >>> is_sectional(_unit(0, 9, BLOCK, 0))
    False
    """
    while unit[2] in (GLUE, TAIL):
        unit = unit[6]
    return unit[2] == SECTION


class Structure(NamedTuple):
    """The Markdown blocks of a text and what the splitter derives from them.

    Front matter (YAML ``---`` or TOML ``+++`` at the very start) is metadata, not content:
    it is kept apart (``front_matter``) and never packed; its ``title`` becomes the root of
    every heading path when the document has no level-1 heading of its own.
    """

    blocks: list[Block]
    paths: list[tuple[str, ...]]  # heading path in force at each block
    block_starts: list[int]
    section_end: list[int]  # see _section_ends
    front_matter: Block | None = None
    title: str = ""
    # Every table, top-level or inside a list or quote: (start, end of its delimiter row, end, header lines).
    tables: tuple[tuple[int, int, int, str], ...] = ()
    # Where sections start: each heading's first character, and that of the markup without
    # text right before it (an anchor, a comment, a rule), which opens the section with it.
    section_starts: frozenset[int] = frozenset()
    # For each block, the index of the heading whose own section it is in (-1 before the
    # first heading; markup that opens a section, that heading's): ascending.
    owners: tuple[int, ...] = ()

    @classmethod
    def of(cls, text: str, markdown_titles: bool = True) -> Structure:
        """Parse ``text`` (Markdown or plain; ``markdown_titles``: see :func:`ragchunk.text.markdown.parse_blocks`).

        >>> Structure.of("# A\\n\\nText.\\n\\n## B\\n\\nMore.").paths
        [('A',), ('A',), ('A', 'B'), ('A', 'B')]
        >>> Structure.of("---\\ntitle: Guide\\n---\\nIntro.\\n\\n## Use\\n\\nText.").paths
        [('Guide',), ('Guide', 'Use'), ('Guide', 'Use')]
        >>> text = "Intro.\\n\\n<a id=\\"use\\"></a>\\n\\n## Use\\n\\nText. <b>x</b>\\n\\n</div>\\n\\n## End\\n"
        >>> structure = Structure.of(text)
        >>> sorted(text[i:i + 6] for i in structure.section_starts), structure.paths
        (['## End', '## Use', '<a id='], [(), ('Use',), ('Use',), ('Use',), ('Use',), ('End',)])
        """
        blocks = parse_blocks(text, markdown_titles=markdown_titles)
        front = blocks[0] if blocks and blocks[0].kind == "front_matter" else None
        if front is not None:
            blocks = blocks[1:]
        paths = heading_paths(blocks)
        headings = [index for index, kind in enumerate(map(itemgetter(0), blocks)) if kind == "heading"]
        # Markup without text right before a heading (an anchor) opens its section: its path.
        starts = set()
        owners = []
        for first, heading in _section_openers(text, blocks, headings):
            owners.extend([owners[-1] if owners else -1] * (first - len(owners)))
            owners.extend([heading] * (heading + 1 - first))
            if first < heading:
                paths[first:heading] = [paths[heading]] * (heading - first)
                starts.update(block.start for block in blocks[first:heading])
            starts.add(blocks[heading].start)
        owners.extend([owners[-1] if owners else -1] * (len(blocks) - len(owners)))
        title = front.title if front is not None else ""
        if title and not any(b.kind == "heading" and b.level == 1 for b in blocks):
            paths = [(title, *path) for path in paths]
        return cls(blocks, paths, list(map(itemgetter(1), blocks)), _section_ends(blocks, headings), front, title,
                   _tables(text, blocks), frozenset(starts), tuple(owners))

    def path_at(self, offset: int) -> tuple[str, ...]:
        """The heading path in force at code-point ``offset`` (before the first block: the
        front matter's title as the root, or ``()``)."""
        block = bisect_right(self.block_starts, offset) - 1
        if block >= 0:
            return self.paths[block]
        return (self.title,) if self.title and self.paths and self.paths[0][:1] == (self.title,) else ()

    def sections_in(self, start: int, end: int) -> tuple[tuple[str, ...], ...]:
        """The heading paths of the sections ``text[start:end]`` holds, in order, each once
        where it repeats (``start``: the span's first non-whitespace character).

        >>> text = "# A\\n\\nIntro.\\n\\n## B\\n\\nText.\\n\\n## C\\n\\nMore."
        >>> Structure.of(text).sections_in(0, len(text))
        (('A',), ('A', 'B'), ('A', 'C'))
        >>> Structure.of(text).sections_in(text.index("Text"), len(text))
        (('A', 'B'), ('A', 'C'))
        """
        first = bisect_right(self.block_starts, start) - 1
        if first < 0:
            found = [self.path_at(start)]
            first = 0
        else:
            found = [self.paths[first]]
        paths, owners = self.paths, self.owners
        last = bisect_left(self.block_starts, end)
        # Blocks of one section share their path: only where the section changes is a path read.
        index = first
        while index < last:
            owner = owners[index]
            path = paths[index]
            if path != found[-1]:
                found.append(path)
            index = bisect_right(owners, owner, index, last)
        return tuple(found)

    def owners_of(self, start: int, end: int) -> tuple[int, int]:
        """The sections (see ``owners``) of the first and the last block of ``text[start:end]``
        that are not heading lines (nor markup opening a section): equal when the span's text is one section's
        (a heading line introduces what follows it, so leading ones are not counted).

        >>> text = "# A\\n\\nIntro.\\n\\n## B\\n\\nText."
        >>> structure = Structure.of(text)
        >>> structure.owners_of(0, len(text)), structure.owners_of(0, 11), structure.owners_of(13, len(text))
        ((0, 2), (0, 0), (2, 2))
        """
        starts = self.block_starts
        first = max(bisect_right(starts, start) - 1, 0)
        last = bisect_left(starts, end) - 1
        if last < 0:
            return -1, -1
        blocks = self.blocks
        opening = self.section_starts
        while first < last and (blocks[first][0] == "heading" or blocks[first][1] in opening):
            first += 1
        # Nor trailing ones, nor the markup that opens a section: at the end of a span (an
        # empty heading, an anchor before the next heading) they join what precedes them.
        while last > first and (blocks[last][0] == "heading" or blocks[last][1] in opening):
            last -= 1
        return self.owners[first], self.owners[last]


def shared_path(paths: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """The longest path every one of ``paths`` starts with: the headings a chunk that holds
    those sections is under (``()`` for none, or for sections with no heading in common).

    >>> shared_path([("Guide", "Install"), ("Guide", "Use")]), shared_path([("Setext title",), ("Install",)])
    (('Guide',), ())
    """
    shared: tuple[str, ...] | None = None
    for path in paths:
        if shared is None:
            shared = path
            continue
        if path[:len(shared)] != shared:
            keep = 0
            for a, b in zip(shared, path):
                if a != b:
                    break
                keep += 1
            shared = shared[:keep]
    return shared or ()


def _section_openers(text: str, blocks: list[Block], headings: list[int]) -> Iterator[tuple[int, int]]:
    """(first, heading) for each heading (``headings``: their indexes): ``blocks[first:heading]``
    is the markup without text (rules, tags and comments that open elements) right before it, often empty.

    A comment right after a heading is that heading's: Node.js's docs put each API's
    ``<!-- YAML … -->`` history just under its heading, before the first subsection.
    """
    for heading in headings:
        first = heading
        while first > 0 and (blocks[first - 1].kind == "rule" or (
                blocks[first - 1].kind in _TAG_KINDS
                and markup_direction(text, blocks[first - 1].start, blocks[first - 1].end) == "open")):
            first -= 1
        if 0 < first < heading and blocks[first - 1].kind == "heading":
            while first < heading and text.startswith("<!--", blocks[first].start):
                first += 1
        yield first, heading


def _tables(text: str, blocks: list[Block]) -> tuple[tuple[int, int, int, str], ...]:
    """Each table as (start, end of its delimiter row, end, its header and delimiter rows).

    A table inside a list item or a block quote is found on the lines' content (quote marks,
    indentation and an item marker removed); its header lines are given without them.

    >>> text = "> | a | b |\\n> |---|---|\\n> | 1 | 2 |\\n"
    >>> _tables(text, parse_blocks(text))
    ((2, 23, 35, '| a | b |\\n|---|---|'),)
    """
    found = []
    for kind, start, end, _, _ in blocks:
        if kind == "table":
            first = text.find("\n", start, end)
            header_end = text.find("\n", first + 1, end) if first >= 0 else -1
            if header_end >= 0:
                found.append((start, header_end, end, text[start:header_end].rstrip()))
        elif (kind == "list" or kind == "quote") and text.find("|", start, end) >= 0:
            # A table's header row holds a pipe: most lists and quotes have none.
            found.extend(_nested_tables(text, start, end))
    return tuple(found)


def _is_delimiter(row: str) -> bool:
    """Whether ``row`` (trimmed) is a GFM delimiter row: cells of dashes with optional colons
    between pipes, the outer pipes optional. (Cell by cell: one pattern over the whole row
    would backtrack over runs of spaces.)

    >>> [_is_delimiter(row) for row in ("|---|:-:|", "--- | ---:", "-", "| x |", "||", "-||-")]
    [True, True, True, False, False, False]
    """
    inner = row[1:] if row.startswith("|") else row
    if inner.endswith("|"):
        inner = inner[:-1]
    return all(_DELIMITER_CELL.fullmatch(cell.strip(" \t")) for cell in inner.split("|"))


def _nested_tables(text: str, start: int, end: int) -> list[tuple[int, int, int, str]]:
    """The tables among the lines of a list or quote (see :func:`_tables`)."""
    lines = []  # (content start, content end, line end) of each line
    pos = start
    while pos < end:
        stop = text.find("\n", pos, end)
        if stop < 0:
            stop = end
        content = _CONTAINER.match(text, pos, stop).end()
        lines.append((content, pos + len(text[pos:stop].rstrip()), stop))
        pos = stop + 1
    found = []
    index = 0
    while index + 1 < len(lines):
        head, delimiter = lines[index], lines[index + 1]
        if ("|" in text[head[0]:head[1]] and _is_delimiter(text[delimiter[0]:delimiter[1]])
                and "|" in text[head[0]:head[1]] + text[delimiter[0]:delimiter[1]]):
            last = index + 1
            while last + 1 < len(lines) and "|" in text[lines[last + 1][0]:lines[last + 1][1]]:
                last += 1
            header = text[head[0]:head[1]] + "\n" + text[delimiter[0]:delimiter[1]]
            found.append((head[0], delimiter[2], max(lines[last][1], head[0]), header))
            index = last + 1
        else:
            index += 1
    return found


def markup_direction(text: str, start: int, end: int) -> str:
    """Whether ``text[start:end]`` is only HTML tags and comments: "close" when all its tags
    close elements (it goes with what precedes), "open" otherwise, "" when it holds text.

    >>> [markup_direction(t, 0, len(t)) for t in ('<a name="x"></a>', "</div>\\n</p>", "<!-- end -->", "<b>Hi</b>")]
    ['open', 'close', 'open', '']
    """
    pos = start
    closing = True
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return "close" if closing else "open"
        if text.startswith("<!--", pos, end):
            stop = text.find("-->", pos + 4, end)
            if stop < 0:
                return ""
            closing = False
            pos = stop + 3
            continue
        tag = _TAG.match(text, pos, end)
        if tag is None:
            return ""
        closing = closing and text[pos + 1] == "/"
        pos = tag.end()


def _section_ends(blocks: list[Block], headings: list[int]) -> list[int]:
    """For each heading block (``headings``: their indexes), the index of the first block
    after its section (others: 0)."""
    ends = [0] * len(blocks)
    open_headings: list[int] = []
    for index in headings:
        level = blocks[index].level
        while open_headings and blocks[open_headings[-1]].level >= level:
            ends[open_headings.pop()] = index
        open_headings.append(index)
    for index in open_headings:
        ends[index] = len(blocks)
    return ends


class UnitTree:
    """The units of one text for one ``by``: :meth:`top` to start, :meth:`children` to cut finer.

    ``est(s, e)`` estimates tokens (the sizer's); ``glue_limit`` is how many tokens of a
    run of heading lines may be glued to what follows (half a chunk).
    """

    def __init__(self, text: str, structure: Structure, by: str, est: Callable[[int, int], int],
                 glue_limit: int, apart: bool = False) -> None:
        self.text = text
        # Sections kept apart: a section's intro is not glued to its first subsection's heading.
        self.apart = apart
        self.by = by
        self.est = est
        self.glue_limit = glue_limit
        self.blocks = structure.blocks
        self.section_end = structure.section_end
        self.tables = structure.tables
        self.table_starts = [table[0] for table in structure.tables]
        self._markup_of: dict[int, str] = {}

    def top(self) -> list[Unit]:
        """The units packed first: sections, blocks or sentences, as ``by`` says."""
        blocks = self.blocks
        if self.by == "headings":
            units = []
            first_heading = next((i for i, b in enumerate(blocks) if b.kind == "heading"), len(blocks))
            if first_heading:
                units.append(self._section(0, first_heading))
            index = first_heading
            while index < len(blocks):
                units.append(self._section(index, self.section_end[index]))
                index = self.section_end[index]
            return self._glue(units)
        if self.by == "paragraphs":
            return self._glue([_unit(b.start, b.end, BLOCK, i) for i, b in enumerate(blocks)])
        units = []
        for index, block in enumerate(blocks):
            if block.kind in ("paragraph", "quote", "list") and not self._block_markup(index):
                units.extend(self._sentences(block.start, block.end))
            else:
                units.append(_unit(block.start, block.end, BLOCK, index))
        return self._glue(units)

    def _section(self, first: int, stop: int) -> Unit:
        return _unit(self.blocks[first].start, self.blocks[stop - 1].end, SECTION, first, stop)

    def children(self, unit: Unit) -> list[Unit]:
        """The units one level finer than ``unit``; never just ``unit`` itself again."""
        while True:
            kids = self._kids(unit)
            if len(kids) == 1 and kids[0].level < WORDS and kids[0].start == unit.start and kids[0].end == unit.end:
                unit = kids[0]
                continue
            return kids

    def _kids(self, unit: Unit) -> list[Unit]:
        start, end, level = unit.start, unit.end, unit.level
        if level == SECTION:
            blocks = self.blocks
            units = []
            index, stop = unit.block, unit.stop
            if blocks[index].kind == "heading":
                units.append(_unit(blocks[index].start, blocks[index].end, BLOCK, index))
                index += 1
            while index < stop:
                if blocks[index].kind == "heading":
                    units.append(self._section(index, self.section_end[index]))
                    index = self.section_end[index]
                else:
                    units.append(_unit(blocks[index].start, blocks[index].end, BLOCK, index))
                    index += 1
            return self._glue(units)
        if level == BLOCK:
            block_kind = self.blocks[unit.block].kind
            if block_kind == "quote":
                return self._around_tables(start, end, self._prose)
            if block_kind == "paragraph":
                return self._prose(start, end)
            if block_kind == "list":
                return [_unit(s, e, ITEM) for s, e in list_items(self.text, self.blocks[unit.block])]
            if block_kind in ("code", "table"):
                return self._block_lines(block_kind, start, end)
            if block_kind == "html":
                return [_unit(start, end, LINES)]
            return [_unit(start, end, WORDS)]
        if level == ITEM:
            depth = unit.block + 1  # an item's block is its depth in nested lists (-1: a top-level item)
            return self._around_tables(start, end, lambda s, e: self._item_parts(s, e, depth))
        if level == SENTENCE:
            return [_unit(start, end, WORDS)]
        if level == TAIL:
            # The markup goes with the last child of what it follows.
            kids = self.children(unit.inner)
            last = kids[-1]
            if last.level >= WORDS:
                # Its last word or line and the markup are one unit: the markup is never cut off alone.
                seg = self._last_segment(last)
                if seg <= max(last.start, last.stop):
                    return [*kids[:-1], _unit(last.start, end, last.level, last.block, last.stop)]
                before = last.start + len(self.text[last.start:seg].rstrip())
                return [*kids[:-1], _unit(last.start, before, last.level, last.block, last.stop),
                        _unit(seg, end, SENTENCE)]
            return [*kids[:-1], _unit(last.start, end, TAIL, inner=last)]
        # GLUE: the headings go with the first child of what they introduce.
        kids = self.children(unit.inner)
        first = kids[0]
        if first.level >= WORDS:
            # A span of words or lines whose first segment holds the headings (stop: their end,
            # or the end of what the span glues to its first line itself, a fence or a table header).
            return [_unit(start, first.end, first.level, first.block, max(unit.heads[-1].end, first.stop)), *kids[1:]]
        if first.level == GLUE:
            return [_unit(start, first.end, GLUE, heads=unit.heads + first.heads, inner=first.inner), *kids[1:]]
        return [_unit(start, first.end, GLUE, heads=unit.heads, inner=first), *kids[1:]]

    def _block_lines(self, kind: str, start: int, end: int) -> list[Unit]:
        """A code block or table as a span of lines, cut between lines, never leaving markup
        alone: a table's header row goes with its delimiter row, a fence's opening line with
        the first line of code and its closing line with the last.

        >>> text = "```js\\nconst a = 1;\\nconst b = 2;\\n```"
        >>> tree = UnitTree(text, Structure.of(text), "paragraphs", len, 8)
        >>> [(text[u.start:u.end], u.level == LINES, text[u.start:max(u.stop, u.start)]) for u in tree._block_lines("code", 0, len(text))]
        [('```js\\nconst a = 1;', True, '```js'), ('const b = 2;\\n```', False, '')]
        """
        text = self.text
        if kind == "table":
            index = bisect_right(self.table_starts, start) - 1
            found = index >= 0 and self.tables[index][2] >= end
            return [_unit(start, end, LINES, -1, self._header_row_end(start, self.tables[index][1]) if found else -1)]
        if not text.startswith(("```", "~~~"), start):
            return [_unit(start, end, LINES)]  # indented code: every line is code
        opening = text.find("\n", start, end)
        last = max(text.rfind("\n", start, end), text.rfind("\r", start, end)) + 1
        closing = text[last:end].strip()
        if opening < 0 or last <= opening or not closing or closing.strip(closing[0]):
            return [_unit(start, end, LINES, -1, start + len(text[start:opening].rstrip()) if opening > 0 else -1)]
        body = start + len(text[start:last].rstrip())  # the code, without the closing fence
        span = _unit(start, body, LINES, -1, start + len(text[start:opening].rstrip()))
        seg = self._last_segment(span)
        if seg <= span.stop or not text[span.stop:seg].strip():
            return [_unit(start, end, SENTENCE)]  # one line of code: the block is one unit
        before = start + len(text[start:seg].rstrip())
        return [_unit(start, before, LINES, -1, span.stop), _unit(seg, end, SENTENCE)]

    def _header_row_end(self, start: int, delimiter_end: int) -> int:
        """Where a table's header row ends (its delimiter row ends at ``delimiter_end``): glued
        there, the two rows are one segment, never cut apart."""
        text = self.text
        at = max(text.rfind("\n", start, delimiter_end), text.rfind("\r", start, delimiter_end))
        return start + len(text[start:at].rstrip()) if at > start else -1

    def _last_segment(self, span: Unit) -> int:
        """Where the last word (``WORDS``) or line (``LINES``) of a span starts."""
        text, start, end = self.text, span.start, span.end
        pos = end
        if span.level == WORDS:
            while pos > start and not text[pos - 1].isspace():
                pos -= 1
            return pos
        pos = max(text.rfind("\n", start, end), text.rfind("\r", start, end)) + 1
        while pos < end and text[pos].isspace():
            pos += 1
        return max(pos, start)

    def _prose(self, start: int, end: int) -> list[Unit]:
        lines = self._paragraph_lines(start, end)
        if lines:
            return lines
        return self._item_text(start, end)

    def _item_parts(self, start: int, end: int, depth: int = 0) -> list[Unit]:
        """A list item's units: its text around the lists nested in it (sentences, or words),
        and each nested item whole, so an item that fits a chunk is never cut by sentences.
        Items more than :data:`NESTED_LIST_DEPTH` lists deep are cut as text: each level
        reads its item's lines once, so the work stays linear in a list nested 2,000 deep.

        >>> text = "- Lead sentence one. Lead two:\\n  - Nested one. It has two.\\n  - Nested two.\\n\\n  After."
        >>> tree = UnitTree(text, Structure.of(text), "paragraphs", len, 8)
        >>> [(text[u.start:u.end], u.level) for u in tree._item_parts(0, len(text))]
        [('- Lead sentence one.', 3), ('Lead two:', 3), ('- Nested one. It has two.', 2), ('- Nested two.', 2), ('After.', 6)]
        """
        lists = item_lists(self.text, start, end) if depth < NESTED_LIST_DEPTH else []
        if not lists:
            return self._item_text(start, end)
        text = self.text
        units: list[Unit] = []
        pos = start
        for items in lists:
            lead = text[pos:items[0][0]].rstrip()
            if lead.strip():
                skip = len(lead) - len(lead.lstrip())
                units.extend(self._item_text(pos + skip, pos + len(lead)))
            units.extend(_unit(a, b, ITEM, depth) for a, b in items)
            pos = items[-1][1]
        rest = text[pos:end]
        if rest.strip():
            units.extend(self._item_text(pos + len(rest) - len(rest.lstrip()), end))
        return units

    def _item_text(self, start: int, end: int) -> list[Unit]:
        sentences = self._sentences(start, end)
        return sentences if len(sentences) > 1 else [_unit(start, end, WORDS)]

    def _around_tables(self, start: int, end: int, finer: Callable[[int, int], list[Unit]]) -> list[Unit]:
        """``finer``'s units of ``text[start:end]``, with each table inside it one span of lines (cut between rows)."""
        index = bisect_right(self.table_starts, start) - 1
        if index < 0 or self.tables[index][2] <= start:
            index += 1
        units: list[Unit] = []
        pos = start
        tables = self.tables
        while index < len(tables) and tables[index][0] < end:
            a, _, b, _ = tables[index]
            # The span starts where the header's line does (its quote marks with it).
            a = max(self.text.rfind("\n", start, a) + 1, start)
            a, b = a + len(self.text[a:b]) - len(self.text[a:b].lstrip()), min(b, end)
            between = self.text[pos:a]
            if between.strip():  # trimmed at both ends: a unit starts and ends on text
                skip = len(between) - len(between.lstrip())
                units.extend(finer(pos + skip, pos + len(between.rstrip())))
            units.append(_unit(a, b, LINES, -1, self._header_row_end(a, tables[index][1])))
            pos = b
            index += 1
        if not units:
            return finer(start, end)
        rest = self.text[pos:end]
        if rest.strip():
            skip = len(rest) - len(rest.lstrip())
            units.extend(finer(pos + skip, end))
        return units

    def _paragraph_lines(self, s: int, e: int) -> list[Unit]:
        """The lines of ``text[s:e]`` as units when they are paragraphs (see the module docstring), else ``[]``.

        >>> text = "First paragraph, one line.\\nSecond one.\\nThird."
        >>> [text[u.start:u.end] for u in UnitTree(text, Structure.of(text), "paragraphs", len, 8)._paragraph_lines(0, len(text))]
        ['First paragraph, one line.', 'Second one.', 'Third.']
        >>> titled = "= = Plot = =\\nThe story begins. It ends.\\nLast line."
        >>> [titled[u.start:u.end] for u in UnitTree(titled, Structure.of(titled), "paragraphs", len, 8)._paragraph_lines(0, len(titled))]
        ['= = Plot = =\\nThe story begins. It ends.', 'Last line.']
        >>> wrapped = "A sentence that goes\\non over two lines. And\\nanother."
        >>> UnitTree(wrapped, Structure.of(wrapped), "paragraphs", len, 8)._paragraph_lines(0, len(wrapped))
        []
        """
        text = self.text
        spans: list[tuple[int, int]] = []
        pos = s
        while pos < e:
            stop = text.find("\n", pos, e)
            if stop < 0:
                stop = e
            a, b = pos, stop
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if b > a:
                spans.append((a, b))
            pos = stop + 1
        if len(spans) < 2:
            return []
        breaks = len(spans) - 1
        after_end = sum(1 for _, b in spans[:-1] if text[b - 1] in _SENTENCE_END_CHARS)
        if 2 * after_end < breaks and e - s < UNWRAPPED_LINE * len(spans):
            return []
        # A title line goes with the line after it (a run of them with the first line that is not one).
        joined: list[tuple[int, int]] = []
        for a, b in reversed(spans):
            if joined and b - a < TITLE_LINE and text[b - 1] not in _SENTENCE_END_CHARS:
                joined[-1] = (a, joined[-1][1])
            else:
                joined.append((a, b))
        return [_unit(a, b, ITEM) for a, b in reversed(joined)]

    def _sentences(self, s: int, e: int) -> list[Unit]:
        """Sentence units of ``text[s:e]``; sentences with no whitespace between are one unit."""
        text = self.text
        units: list[Unit] = []
        for a, b in sentence_spans(text[s:e]):
            a += s
            b += s
            if units and units[-1].end == a:
                units[-1] = _unit(units[-1].start, b, SENTENCE)
            else:
                units.append(_unit(a, b, SENTENCE))
        return units

    def _sticky(self, unit: Unit) -> bool:
        """A heading line, or a block that is only markup (a rule): it goes with what follows."""
        return unit[2] == BLOCK and self.blocks[unit[3]][0] in _STICKY_KINDS

    def _markup(self, unit: Unit) -> str:
        """"open" or "close" for a block or section of markup without text (see the module
        docstring; "close": closing tags only), "" for anything else."""
        level = unit[2]
        if level == BLOCK:
            found = self._markup_of.get(unit[3])
            return self._block_markup(unit[3]) if found is None else found
        if level != SECTION:
            return ""
        # A block with text ends the question: a section's first block is usually its heading.
        closing = True
        for index in range(unit.block, unit.stop):
            markup = self._block_markup(index)
            if not markup:
                return ""
            closing = closing and markup == "close"
        return "close" if closing and unit.stop > unit.block else "open"

    def _block_markup(self, index: int) -> str:
        found = self._markup_of.get(index)
        if found is None:
            block = self.blocks[index]
            found = ""
            if block.kind == "rule" or (block.kind == "heading" and not block.title):
                found = "open"
            elif block.kind in _TAG_KINDS and self.est(block.start, block.end) <= 3 * self.glue_limit // 2:
                found = markup_direction(self.text, block.start, block.end)
            self._markup_of[index] = found
        return found

    def _glue(self, units: list[Unit]) -> list[Unit]:
        """Join each run of heading lines (and rules) to the unit after it, so a chunk never
        ends on one; a short section intro between a heading and a subsection joins the run.

        An intro (a block of at most half the glue limit right after the run, before a
        subsection) would otherwise close a small chunk of its own whenever the subsection
        has to be cut: it travels with the subsection's first piece, as its heading does.
        Only as many of the run's last pieces (see :meth:`_pieces`) as fill ``glue_limit``
        are joined: a run of thousands of headings must not become one unit that can never
        be placed whole. A piece left out is a unit of its own.
        """
        out: list[Unit] = []
        heads: list[Unit] = []
        limit = self.glue_limit
        est = self.est
        for index, unit in enumerate(units):
            markup = self._markup(unit)
            if markup == "close" and out and not heads:
                last = out.pop()
                out.append(_unit(last.start, unit.end, TAIL, inner=last))
                continue
            if markup or self._sticky(unit) or (
                heads and not self.apart and unit.level == BLOCK and index + 1 < len(units)
                and units[index + 1].level == SECTION and est(unit.start, unit.end) <= limit // 2
            ):
                heads.append(unit)
                continue
            if heads:
                pieces = self._pieces(heads)
                keep = len(pieces)
                while keep and est(pieces[keep - 1][0].start, heads[-1].end) <= limit:
                    keep -= 1
                if keep == len(pieces) and len(pieces[-1]) == 1 and self._markup(heads[-1]):
                    keep -= 1  # markup (at most three quarters of a chunk) is never left alone
                out.extend(_joined(piece) for piece in pieces[:keep])
                glued = [head for piece in pieces[keep:] for head in piece]
                if glued:
                    unit = _unit(glued[0].start, unit.end, GLUE, heads=tuple(glued), inner=unit)
                heads = []
            out.append(unit)
        if heads and out and all(self._markup(h) for h in heads):
            # Markup at the very end (a closing rule, an empty heading) joins the unit before it.
            last = out.pop()
            out.append(_unit(last.start, heads[-1].end, TAIL, inner=last))
        else:
            out.extend(_joined(piece) for piece in self._pieces(heads))
        return out

    def _pieces(self, heads: list[Unit]) -> list[list[Unit]]:
        """A run of headings cut where it may be trimmed: a heading line with the markup right
        after it is one piece, any other unit a piece of its own.

        Node.js's API docs put a ``<!-- YAML … -->`` history under each heading. Trimmed unit
        by unit, a history that filled the glue limit went with the text and its heading was
        left alone to close a chunk (chunks of those docs ending on a heading: by headings at
        64 tokens, 110 of 24,369; by paragraphs at 128, 393 of 10,990; as pieces, 2 and 5).
        Left out whole, the heading and its history close the chunk together, and the text
        starts the next one.

        >>> text = "## Use\\n\\n<!-- YAML\\nadded: v1\\n-->\\n\\n---\\n\\n### Run\\n\\nText."
        >>> tree = UnitTree(text, Structure.of(text), "paragraphs", lambda s, e: e - s, 40)
        >>> heads = [_unit(b.start, b.end, BLOCK, i) for i, b in enumerate(tree.blocks[:-1])]
        >>> [[text[u.start:u.end][:6] for u in piece] for piece in tree._pieces(heads)]
        [['## Use', '<!-- Y', '---'], ['### Ru']]
        """
        pieces: list[list[Unit]] = []
        for head in heads:
            if pieces and self._markup(head) and self._sticky(pieces[-1][0]) and not self._markup(pieces[-1][0]):
                pieces[-1].append(head)
            else:
                pieces.append([head])
        return pieces
