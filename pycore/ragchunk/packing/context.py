"""Context that is counted: the lines a chunk is embedded with, inside the chunk's budget.

A chunk's text stays the verbatim slice of its document; its *embedding text* adds, on
lines before it, what a reader of the chunk alone would miss:

- with ``context="headings"``, its heading path as one line (``Guide > Install > Linux``;
  a chunk that opens with a heading gets the path above that heading); a chunk whose text
  holds several sections (small sections packed together) gets the path they all share,
  so the line never names a heading part of the text is not under; a path too long for a
  quarter of the size is shortened from the outside in;
- the header row (and delimiter row) of a table when the chunk is a piece of a table cut
  between rows after its first piece, since such a piece reads as bare cells: a table
  inside a list item or a block quote too (its header lines without the quote marks or
  indentation). The header is carried whenever it fits with the piece's first row (the
  piece then holds fewer rows); only a piece whose first row does not fit the size with
  the header too is embedded without it.

Those lines cost tokens, so the packer is given a smaller budget for the chunk's text
(:meth:`Context.budget`), and every chunk's embedding text is counted exactly before the
chunk is kept (:meth:`Context.fits`): ``embed_tokens`` never exceeds the size. Peers either
leave such a prefix out of the budget or fail when it grows too long.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from ..text.structure import Structure, shared_path

__all__ = ["CONTEXT_CHOICES", "DEFAULT_CONTEXT", "Context"]

CONTEXT_CHOICES: tuple[str, ...] = ("none", "headings")
# The default: on bench/bench_retrieval.py, headings in the text a chunk is indexed by raise
# both IoU and recall where a text has headings, and change nothing where it has none.
DEFAULT_CONTEXT = "headings"
PATH_SEPARATOR = " > "
_NONSPACE = re.compile(r"\S")


class Context:
    """The embedding-text prefixes of one text's chunks and what they cost.

    ``count`` is the sizer's exact count of any string, ``next_cut`` the tokenizer's cut
    rule (or None): where a prefix ends at a cut of the embedding text, the embedding text
    costs the prefix plus the chunk, with no second count of the chunk. With
    ``spaces_outside`` (a tokenizer whose tokens never cover whitespace, whose cuts come
    just before it) a cut before the prefix's closing line break does as well.
    """

    def __init__(self, text: str, structure: Structure, size: int, headings: bool, count: Callable[[str], int],
                 next_cut: Callable[[str, int, int], int | None] | None, spaces_outside: bool = False) -> None:
        self.text = text
        self.structure = structure
        self.size = size
        self.headings = headings
        self.count = count
        self.next_cut = next_cut
        self.spaces_outside = spaces_outside
        self._cost: dict[str, int] = {}
        self._lines: dict[tuple[str, ...], str] = {}
        self._heading_lines: dict[int, str] = {}
        self._line_paths: dict[int, tuple[str, ...]] = {}  # the path each of _heading_lines names
        self._budgets: dict[int, int] = {}  # budget() by the key of _heading_line, without tables
        # The packer's last check and the record of a chunk ask for the same embedding text.
        self._last_embed: tuple[tuple[int, int, int, int], tuple[str, int]] | None = None
        self._last_sections: tuple[int, int, tuple[tuple[str, ...], ...]] = (-1, -1, ())
        self._table_starts = [table[0] for table in structure.tables]
        # Without a heading path (asked for, and some block under one) and without tables no
        # chunk has a prefix: the packer asks ~4 times a chunk. Heading context is the default,
        # so a text without headings must not pay for the path lookups.
        has_paths = headings and any(structure.paths)
        self._none = not has_paths and not structure.tables

    def prefix(self, pos: int, start: int = -1, end: int = -1) -> str:
        """The lines before the chunk whose new content starts at ``pos`` ("" when none), ending in a line break.

        With the chunk's span ``text[start:end]``, the heading line names only the path
        every section of that span shares; without it (a budget asked before the chunk's
        end is known) the line of the path at ``pos``, which is never shorter.
        """
        if self._none:
            return ""
        line = self._heading_line(pos) if self.headings else ""
        if line and start >= 0:
            line = self._shared_line(pos, start, end, line)
        header = self._table_header(pos) if self._table_starts else ""
        if header:
            with_header = line + header + "\n"
            if self.cost(with_header) + self._row_cost(pos) <= self.size:
                return with_header
        return line

    def _heading_line(self, pos: int) -> str:
        """The heading-path line (with its line break) of a chunk whose new content starts at ``pos``, or ""."""
        structure = self.structure
        index = bisect_right(structure.block_starts, pos) - 1
        at_start = index >= 0 and structure.block_starts[index] == pos
        # The line depends only on the block and on whether the chunk opens it: chunks share it.
        key = 2 * index + at_start
        found = self._heading_lines.get(key)
        if found is None:
            path = structure.path_at(pos)
            if at_start:
                block = structure.blocks[index]
                if block.kind == "heading" and block.title:
                    path = path[:-1]  # the chunk opens with its own heading: the line names what is above it
            line = self._path_line(path)
            found = self._heading_lines[key] = line + "\n" if line else ""
            self._line_paths[key] = path
        return found

    def _shared_line(self, pos: int, start: int, end: int, line: str) -> str:
        """The heading line of a chunk ``text[start:end]`` whose new content starts at ``pos``
        (``line``: the line at ``pos``): the path shared by it and every section the text holds."""
        structure = self.structure
        sections = self.sections(start, end)
        if len(sections) == 1:
            return line
        index = bisect_right(structure.block_starts, pos) - 1
        key = 2 * index + (index >= 0 and structure.block_starts[index] == pos)
        path = shared_path((self._line_paths[key], *sections))
        shared = self._path_line(path)
        return shared + "\n" if shared else ""

    def sections(self, start: int, end: int) -> tuple[tuple[str, ...], ...]:
        """The heading paths of the sections ``text[start:end]`` holds (see
        :meth:`ragchunk.text.structure.Structure.sections_in`); the last span's are remembered,
        since the packer's check and the chunk's record ask for the same span in turn."""
        last = self._last_sections
        if last[0] == start and last[1] == end:
            return last[2]
        found = self.structure.sections_in(_first_nonspace(self.text, start, end), end)
        self._last_sections = (start, end, found)
        return found

    def cost(self, prefix: str) -> int:
        """The tokens ``prefix`` adds (remembered: chunks share their prefixes)."""
        if not prefix:
            return 0
        found = self._cost.get(prefix)
        if found is None:
            found = self._cost[prefix] = self.count(prefix)
        return found

    def budget(self, pos: int) -> int:
        """The most tokens the text of a chunk starting at ``pos`` may have, its prefix aside."""
        if self._none:
            return self.size
        if not self._table_starts or not self._table_header(pos):
            # The prefix is the heading line alone: its budget is remembered with it.
            return self._heading_budget(pos) if self.headings else self.size
        return self.size - self.cost(self.prefix(pos))

    def _heading_budget(self, pos: int) -> int:
        structure = self.structure
        index = bisect_right(structure.block_starts, pos) - 1
        key = 2 * index + (index >= 0 and structure.block_starts[index] == pos)
        found = self._budgets.get(key)
        if found is None:
            found = self._budgets[key] = self.size - self.cost(self._heading_line(pos))
        return found

    def embed(self, content_start: int, start: int, end: int, tokens: int) -> tuple[str, int]:
        """The embedding text of chunk ``text[start:end]`` (``tokens`` tokens) and its exact count ("" and 0 without a prefix)."""
        if self._none:
            return "", 0
        key = (content_start, start, end, tokens)
        if self._last_embed is not None and self._last_embed[0] == key:
            return self._last_embed[1]
        found = self._embed(content_start, start, end, tokens)
        self._last_embed = (key, found)
        return found

    def _embed(self, content_start: int, start: int, end: int, tokens: int) -> tuple[str, int]:
        first = _first_nonspace(self.text, content_start, end)
        prefix = self.prefix(first, start, end)
        if not prefix:
            return "", 0
        embedded = prefix + self.text[start:end]
        at = len(prefix)
        if self.next_cut is not None:
            # The prefix ends in a line break: with tokens that leave whitespace out, a cut
            # just before it splits the count as well as one just after it.
            low = at - 1 if self.spaces_outside else at
            cut = self.next_cut(embedded, low, min(len(embedded), at + 3))
            if cut is not None and low <= cut <= at:
                return embedded, self.cost(prefix) + tokens
        return embedded, self.count(embedded)

    def fits(self, start: int, content_start: int, end: int, tokens: int) -> bool:
        """Whether the chunk's embedding text stays within the size (the packer's last check)."""
        return self.embed(content_start, start, end, tokens)[1] <= self.size

    def _path_line(self, path: tuple[str, ...]) -> str:
        found = self._lines.get(path)
        if found is None:
            limit = self.size // 4
            kept = list(path)  # heading paths hold no empty title (markdown.heading_paths)
            # Shortened from the outside in: the nearest headings say the most about the chunk.
            while kept and self.cost(PATH_SEPARATOR.join(kept) + "\n") > limit:
                kept.pop(0)
            found = self._lines[path] = PATH_SEPARATOR.join(kept)
        return found

    def _table_header(self, pos: int) -> str:
        """The header lines of the table whose rows ``pos`` is in, past its first piece ("" elsewhere)."""
        index = bisect_right(self._table_starts, pos) - 1
        if index < 0:
            return ""
        _start, header_end, end, header = self.structure.tables[index]
        if pos >= end or pos <= header_end:
            return ""  # the first piece holds its header itself
        return header

    def _row_cost(self, pos: int) -> int:
        """The tokens of the line (a table row) that ``pos`` is in, from ``pos``."""
        end = self.text.find("\n", pos)
        return self.cost(self.text[pos : end if end >= 0 else len(self.text)].rstrip())


def _first_nonspace(text: str, start: int, end: int) -> int:
    found = _NONSPACE.search(text, start, end)
    return found.start() if found else start
