"""The one algorithm: pack units greedily into full chunks, cut a unit only where it cannot fit.

Units of the packed level (see :mod:`.structure`) go into the open chunk while it stays
within its budget. A unit that does not fit in the room left, but fits a chunk on its
own, starts the next chunk: a block that fits is never cut. A unit too big for any chunk
is cut where it stands: its children (sentences, items, lines, then words) continue the
open chunk, so the chunk before it is filled up to the budget, and the open chunk after
its last piece goes on with the units that follow. Sections are the exception, so that a
chunk mixes two sections only where it would otherwise be small: a section too big for a
chunk starts a new chunk and its last piece ends one, unless that chunk holds less than
a quarter of its budget (then it is filled from, or goes on into, the neighbouring units).
With sections kept apart (``siblings="apart"``) not even then: a chunk ends where its
section does, and a unit that holds several sections is cut into them.

Spans are packed word by word or line by line. A span of words is cut at the last word
end that fits, or, when the second half of the chunk has one, after the last sentence
mark there (``.`` ``!`` ``?`` and the full stops of other scripts, before whitespace,
even where no sentence starts, as in all-lowercase text), else at the last line end there,
else after the last ``;`` or ``:``, else after the last ``,``. Only a single word bigger
than a chunk is cut inside, at a grapheme-cluster boundary (after a glued sentence end
such as ``。`` when there is one in the second half of the piece). Every chunk after the
first starts with a tail of the previous one (:mod:`.overlap`), unless it opens a section
(``headings``: where its heading, or markup without text before that heading, starts);
when the next unit does not fit together with that tail, a shorter tail is taken, down
to none, before the unit is cut finer. A word cut into pieces carries no overlap.

Packing uses the sizer's estimates; every chunk (and its overlap) is counted exactly once
before it is emitted, and a chunk whose exact count exceeds its budget is shrunk (shorter
tail, its last piece of words ended earlier, last unit dropped, or its unit cut finer) and
counted again; each step removes something, so this ends. The budget of a chunk is
``budget(content_start)``: the chunk size, less whatever a prefix at that place will cost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator

from ..errors import RagchunkError
from ..text.graphemes import floor_boundary
from ..text.structure import LINES, WORDS, Unit, UnitTree, is_sectional
from .overlap import Tails
from .sizing import Sizer

__all__ = ["DEFAULT_SIBLINGS", "Packer", "SIBLINGS_CHOICES"]

#: What a chunk does with the small sections around it: ``pack`` them in while they fit
#: (a chunk may then hold several sibling sections, under the path they share), or keep
#: each ``apart`` (a chunk holds one section's text; a small section stays a small chunk).
SIBLINGS_CHOICES: tuple[str, ...] = ("pack", "apart")
# The default: on the Python FAQ (bench/bench_sections.py, BM25, 138 questions, k = 5) apart
# found as many answers (recall within each other's 95 % interval at every size) with up to
# 2.4x the IoU and about half the tokens read at 512 (973 against 1,842 per question).
DEFAULT_SIBLINGS = "apart"

# On the work stack: the text is done, close the chunk.
_CLOSE = None
# On the work stack: the pieces of a cut section are done, close the chunk unless it is small.
_SECTION_END = ()
# The ``block`` of a piece of words or lines that does not start its unit (no sentence starts there).
_CONTINUED = -2
# A chunk under this share of its budget is small: sections may share it.
_SMALL = 4
# How many answers of apart() are remembered before they are forgotten all at once.
_OWNERS_LIMIT = 1 << 12

_WORD = re.compile(r"\S+")
_NONSPACE = re.compile(r"\S")
_SPACE = re.compile(r"\s")
# Where a too-long word is best cut: after a sentence end that needs no space (CJK, Hindi).
_GLUED_END = re.compile(r"[。！？｡।॥!?][」』）】〕〉》\"'”’»)\]]*")

# Where a span of words is best cut, best first: after a sentence mark, at a line end, after
# a colon or semicolon, after a comma (each before whitespace). One mark, then closers: no
# backtracking over runs.
_CLAUSE_END = re.compile(r"(?P<stop>[.!?…。！？｡।॥])[\"')\]’”»」』）]*(?=\s)|(?P<line>\S)(?=[ \t]*[\r\n])"
                         r"|(?P<semi>[;:])(?=\s)|(?P<comma>,)(?=\s)")
_CLAUSE_KINDS = ("stop", "line", "semi", "comma")

# emit(start, content_start, end, tokens, overlap_tokens) -> True when the caller wants a step to end there
Emit = Callable[[int, int, int, int, int], bool]


class _Open:
    """The chunk being filled (``budget``: the most tokens it may hold)."""

    __slots__ = ("budget", "content_start", "end", "start", "tail", "units")

    def __init__(self, start: int, content_start: int, end: int, units: list, tail: int | None, budget: int) -> None:
        self.start = start
        self.content_start = content_start
        self.end = end
        self.units = units
        self.tail = tail
        self.budget = budget


class Packer:
    """One run of the algorithm over one text's units; chunks go to ``emit`` in order.

    :meth:`run` is a generator: it yields (nothing) after a chunk for which ``emit``
    returned True, so the caller can report progress or stop between steps.
    """

    def __init__(self, text: str, tree: UnitTree, sizer: Sizer, budget: Callable[[int], int], overlap: int,
                 emit: Emit, check: Callable[[int, int, int, int], bool] | None = None,
                 headings: Collection[int] = (), apart: Callable[[int, int], tuple[int, int]] | None = None) -> None:
        self.text = text
        # apart(start, end): the sections of the span's first text and of its end (see
        # Structure.owners_of), given when each section is kept to chunks of its own. The
        # open chunk and a unit put back after a close are asked about again and again.
        self.apart = None if apart is None else _remembered(apart)
        # check(start, content_start, end, tokens): a last word on a chunk within its budget
        # (its embedding text, prefix and all, must fit the size too).
        self.check = check
        self.tree = tree
        self.sizer = sizer
        self.budget = budget
        self.overlap = overlap
        self.tails = Tails(text, sizer, overlap, headings)
        self.emit_chunk = emit
        self.cur: _Open | None = None
        self.due = False

    # -- driver ---------------------------------------------------------------------------

    def run(self) -> Iterator[None]:
        fits = self.sizer.fits
        children = self.tree.children
        stack: list = [_CLOSE, *reversed(self.tree.top())]
        while stack:
            if self.due:
                self.due = False
                yield
            unit = stack.pop()
            if unit is _CLOSE or unit is _SECTION_END:
                if unit is _SECTION_END and self._small():
                    continue
                rest = self._close()
                if rest:  # dropped units still belong to this parent: close again after them
                    stack.append(unit)
                    stack.extend(reversed(rest))
                continue
            cur = self.cur
            if self.apart is not None:
                first, last = self.apart(unit[0], unit[1])
                if cur is not None and first != self.apart(cur.start, cur.end)[1]:
                    # Another section: the open chunk ends here, however small.
                    stack.append(unit)
                    stack.extend(reversed(self._close()))
                    continue
                if first != last and unit[2] < WORDS:
                    # It holds several sections: each goes to chunks of its own.
                    stack.extend(reversed(children(unit)))
                    continue
            if unit[2] >= WORDS:
                if cur is None:
                    yield from self._pack_span(unit[0], unit[1], unit[2], True, unit[3] != _CONTINUED, unit[4])
                elif not self._fill(unit, stack):
                    stack.append(unit)
                    stack.extend(reversed(self._close()))
                continue
            if cur is not None:
                if fits(cur.start, unit[1], cur.budget):
                    cur.units.append(unit)
                    cur.end = unit[1]
                    continue
                sectional = is_sectional(unit)
                if self._fits_alone(unit) or (sectional and not self._small()):
                    stack.append(unit)
                    stack.extend(reversed(self._close()))
                    continue
                # Too big for any chunk: cut where it stands, its first pieces fill this chunk.
                if sectional:
                    stack.append(_SECTION_END)
                stack.extend(reversed(children(unit)))
                continue
            if not self._open(unit):
                if is_sectional(unit):
                    stack.append(_SECTION_END)
                stack.extend(reversed(children(unit)))

    def _small(self) -> bool:
        """Whether the open chunk holds at most a quarter of its budget (True when none is open)."""
        cur = self.cur
        return cur is None or self.sizer.fits(cur.start, cur.end, cur.budget // _SMALL)

    def _fits_alone(self, unit: Unit) -> bool:
        """Whether ``unit`` fits a chunk of its own (the exact count decides near the budget)."""
        sizer = self.sizer
        size = self.budget(unit[0])
        if sizer.fits(unit[0], unit[1], size):
            return True
        return sizer.fits(unit[0], unit[1], size + 2 + size // 64) and sizer.exact(unit[0], unit[1]) <= size

    def _fill(self, unit: Unit, stack: list) -> bool:
        """Continue the open chunk with the first words or lines of span ``unit``; False when not even one fits."""
        cur, text = self.cur, self.text
        s, e, level = unit[0], unit[1], unit[2]
        first_end = _first_end(text, s, e, level, unit[4])
        aim = self.sizer.reach(cur.start, cur.budget, e)
        if aim < first_end:
            return False
        end = self._cut(cur.start, cur.budget, aim, first_end, e, level)
        cur.units.append(_piece(s, end, level, unit[3], unit[4]))
        cur.end = end
        after = _next_start(text, end, e)
        if after < e:
            stack.append(_piece(after, e, level, _CONTINUED))
        return True

    def _open(self, unit: Unit) -> bool:
        """Start a chunk with ``unit`` and the longest tail that fits with it; False if none fits."""
        sizer = self.sizer
        size = self.budget(unit[0])
        # Near the target the estimate may be a token or two high: ask the exact count.
        if not sizer.fits(unit[0], unit[1], size) and (
            not sizer.fits(unit[0], unit[1], size + 2 + size // 64) or sizer.exact(unit[0], unit[1]) > size
        ):
            return False
        tail = self.tails.choose(unit[1], size)
        if tail is None:
            self.cur = _Open(unit[0], unit[0], unit[1], [unit], None, size)
        else:
            self.cur = _Open(tail, self.tails.prev_end, unit[1], [unit], tail, size)
        return True

    def _close(self) -> list:
        """Count the open chunk exactly and emit it, shrinking it first if it is too big.

        Returns what must be packed next, in document order: units dropped from the end of
        the chunk, or the children of its single unit (then a close) when that unit alone
        is too big.
        """
        cur = self.cur
        if cur is None:
            return []
        self.cur = None
        exact, size, overlap = self.sizer.exact, cur.budget, self.overlap
        dropped: list = []
        while True:
            units = cur.units
            overlap_tokens = 0
            if cur.tail is not None:
                overlap_tokens = exact(cur.start, cur.content_start)
                if overlap_tokens > overlap:
                    self._shorten(cur)
                    continue
            tokens = exact(cur.start, cur.end)
            if tokens <= size and self._accepts(cur.start, cur.content_start, cur.end, tokens):
                self._emit(cur.start, cur.content_start, cur.end, tokens, overlap_tokens,
                           [u[0] for u in units if u[3] != _CONTINUED])
                dropped.reverse()
                return dropped
            if cur.tail is not None:
                self._shorten(cur)
            elif units[-1][2] >= WORDS and self._end_earlier(cur, tokens, dropped):
                continue
            elif len(units) > 1:
                dropped.append(units.pop())
                cur.end = units[-1][1]
            elif units[0][2] >= WORDS:
                # One word or line: packed again on its own, where exact counts decide.
                dropped.reverse()
                return [units[0], *dropped]
            else:
                dropped.reverse()
                end = [_SECTION_END] if is_sectional(units[0]) else []
                return [*self.tree.children(units[0]), *end, *dropped]

    def _end_earlier(self, cur: _Open, tokens: int, dropped: list) -> bool:
        """End the chunk's last piece of words or lines at least one segment earlier (the rest
        goes to ``dropped``); False when that piece is a single word or line."""
        text = self.text
        s, e, level, mark, glued = cur.units[-1][:5]
        first_end = _first_end(text, s, e, level, glued)
        if first_end >= e:
            return False
        aim = min(e - 1, self.sizer.reach(cur.start, max(1, 2 * cur.budget - tokens), e))
        end = self._cut(cur.start, cur.budget, aim, first_end, e, level)
        cur.units[-1] = _piece(s, end, level, mark, glued)
        cur.end = end
        dropped.append(_piece(_next_start(text, end, e), e, level, _CONTINUED))
        return True

    def _shorten(self, cur: _Open) -> None:
        """Replace the chunk's tail with the next shorter one (or none)."""
        tail = self.tails.choose(cur.end, cur.budget, after=cur.tail + 1)
        cur.tail = tail
        if tail is None:
            cur.start = cur.content_start = cur.units[0][0]
        else:
            cur.start = tail

    def _accepts(self, start: int, content_start: int, end: int, tokens: int) -> bool:
        return self.check is None or self.check(start, content_start, end, tokens)

    def _emit(self, start: int, content_start: int, end: int, tokens: int, overlap_tokens: int,
              unit_starts: list[int]) -> None:
        self.tails.remember(start, end, unit_starts)
        if self.emit_chunk(start, content_start, end, tokens, overlap_tokens):
            self.due = True

    # -- spans: word by word, line by line, piece by piece ----------------------------------

    def _pack_span(self, s: int, e: int, level: int, leave_open: bool = False, starts_unit: bool = False,
                   glued: int = -1) -> Iterator[None]:
        """Pack ``text[s:e]`` by words (``WORDS``) or lines (``LINES``), jumping by estimate.

        With ``leave_open`` the last piece (counted and accepted) stays the open chunk, for
        the units after the span; ``starts_unit``: ``s`` starts its unit (a sentence start);
        ``glued``: where the headings glued to the start of the span end (see :func:`_first_end`).
        """
        text, sizer, overlap, tails = self.text, self.sizer, self.overlap, self.tails
        est, exact = sizer.est, sizer.exact
        pos = s
        while pos < e:
            size = self.budget(pos)
            lead = glued if pos == s else -1
            first_end = _first_end(text, pos, e, level, lead)
            tail = tails.choose(first_end, size)
            start = pos if tail is None else tail
            if tail is None and est(pos, first_end) > size:
                # Estimates are off by a token or two at the edges: only an exact count
                # may decide that a word is too big to stay whole.
                if exact(pos, first_end) > size:
                    if lead > pos and level == LINES:
                        # A fence, a table header or headings and the line after them do not
                        # fit together: that line is cut into words, the first of them glued.
                        yield from self._glued_words(pos, first_end, starts_unit and pos == s, lead)
                        pos = _next_start(text, first_end, e)
                        continue
                    if lead > pos:
                        # Headings and the first word after them do not fit together:
                        # a word is cut only when it alone is too big, so they part.
                        glued = -1
                        continue
                    yield from self._too_big(pos, first_end, level)
                    pos = _next_start(text, first_end, e)
                    continue
                end = first_end
            else:
                end = self._cut(start, size, sizer.reach(start, size, e), first_end, e, level)
            while True:
                overlap_tokens = 0
                if tail is not None:
                    overlap_tokens = exact(tail, tails.prev_end)
                    if overlap_tokens > overlap:
                        tail = tails.choose(end, size, after=tail + 1)
                        start = pos if tail is None else tail
                        continue
                tokens = exact(start, end)
                content_start = pos if tail is None else tails.prev_end
                if tokens <= size and self._accepts(start, content_start, end, tokens):
                    first = starts_unit and pos == s
                    if leave_open and end >= e:
                        piece = _piece(pos, end, level, -1 if first else _CONTINUED, glued if pos == s else -1)
                        self.cur = _Open(start, content_start, end, [piece], tail, size)
                        return
                    self._emit(start, content_start, end, tokens, overlap_tokens, [pos] if first else [])
                    if self.due:
                        self.due = False
                        yield
                    break
                if end > first_end:
                    # Aim below by the excess; always at least one segment less.
                    aim = min(end - 1, sizer.reach(start, max(1, 2 * size - tokens), e))
                    end = self._cut(start, size, aim, first_end, e, level)
                elif tail is not None:
                    tail = tails.choose(end, size, after=tail + 1)
                    start = pos if tail is None else tail
                elif lead > pos and level == LINES:
                    yield from self._glued_words(pos, first_end, starts_unit and pos == s, lead)
                    break
                elif lead > pos:
                    glued = end = -1
                    break
                else:
                    yield from self._too_big(pos, first_end, level)
                    break
            if end >= 0:
                pos = _next_start(text, end, e)

    def _cut(self, start: int, budget: int, aim: int, first_end: int, e: int, level: int) -> int:
        """Where a chunk from ``start`` ends inside the span whose next segment ends at ``first_end``:
        the last word or line end at or before ``aim``, or for words a better cut in the
        second half of the chunk (see the module docstring)."""
        text = self.text
        end = _segment_end_before(text, aim, first_end, e, level)
        if level != WORDS or end >= e:
            return end
        floor = max(first_end, self.sizer.reach(start, budget // 2, e))
        if floor >= end:
            return end
        best: dict[str, int] = {}
        for found in _CLAUSE_END.finditer(text, floor, end + 1):
            best[found.lastgroup] = found.end()
        for kind in _CLAUSE_KINDS:
            if kind in best:
                return best[kind]
        return end

    def _glued_words(self, s: int, e: int, starts_unit: bool, glued: int) -> Iterator[None]:
        """The first line of a span of lines with what is glued to it (``glued``: where that
        ends), packed word by word: the glued part never ends a chunk alone (before, an
        opening fence whose first line of code was longer than a chunk was a chunk of its own)."""
        yield from self._pack_span(s, e, WORDS, False, starts_unit, glued)

    def _too_big(self, s: int, e: int, level: int) -> Iterator[None]:
        """One line or one word that is bigger than a chunk on its own."""
        if level == LINES and _SPACE.search(self.text, s, e):
            yield from self._pack_span(s, e, WORDS)
        else:
            yield from self._pieces(s, e)

    def _pieces(self, s: int, e: int) -> Iterator[None]:
        """Cut one word bigger than a chunk at grapheme boundaries; pieces carry no overlap."""
        text, sizer = self.text, self.sizer
        est, exact = sizer.est, sizer.exact
        pos = s
        while pos < e:
            size = self.budget(pos)
            if est(pos, e) <= size:
                tokens = exact(pos, e)
                if tokens <= size and self._accepts(pos, pos, e, tokens):
                    self._emit(pos, pos, e, tokens, 0, [])
                    return
            cut = self._piece_end(pos, sizer.reach(pos, size, e), e)
            while True:
                tokens = exact(pos, cut)
                if tokens <= size and self._accepts(pos, pos, cut, tokens):
                    break
                aim = min(cut - 1, sizer.reach(pos, max(1, 2 * size - tokens), e))
                boundary = floor_boundary(text, aim, pos)
                cut = boundary if boundary > pos else aim
                if cut <= pos:
                    self._refuse(pos, size)
            self._emit(pos, pos, cut, tokens, 0, [])
            if self.due:
                self.due = False
                yield
            pos = cut

    def _piece_end(self, pos: int, aim: int, e: int) -> int:
        """Where to end a piece that starts at ``pos``: a grapheme boundary at or before ``aim``."""
        text = self.text
        aim = max(aim, pos + 1)
        half = pos + (aim - pos) // 2
        glued = None
        for glued in _GLUED_END.finditer(text, half, aim):  # noqa: B007 (the last match is wanted)
            pass
        if glued is not None and glued.end() < e and floor_boundary(text, glued.end(), pos) == glued.end():
            return glued.end()
        cut = floor_boundary(text, aim, pos)
        # A single cluster bigger than the chunk: cut between its code points.
        return cut if cut > pos else aim

    def _refuse(self, pos: int, size: int) -> None:
        char = self.text[pos]
        need = self.sizer.exact(pos, pos + 1)
        raise RagchunkError(
            "chunk_size",
            f"chunk size ({size:,}) is too small for this text: the character U+{ord(char):04X} alone is"
            f" {need:,} tokens; enter at least {need:,}",
            "chunk_size_below_character",
            {"chunk_size": size, "char": f"U+{ord(char):04X}", "need": need},
        )


def _piece(start: int, end: int, level: int, mark: int, glued: int = -1) -> Unit:
    """A piece of a span of words or lines; ``mark`` is ``_CONTINUED`` when it does not start
    its unit, ``glued`` the end of the headings glued to its start (else -1)."""
    return tuple.__new__(Unit, (start, end, level, mark, glued, (), None))


def _remembered(owners: Callable[[int, int], tuple[int, int]]) -> Callable[[int, int], tuple[int, int]]:
    """``owners`` with its answers remembered (about half the questions repeat one)."""
    found: dict[tuple[int, int], tuple[int, int]] = {}

    def remembered(start: int, end: int) -> tuple[int, int]:
        key = (start, end)
        answer = found.get(key)
        if answer is None:
            if len(found) >= _OWNERS_LIMIT:
                found.clear()
            answer = found[key] = owners(start, end)
        return answer

    return remembered


def _first_end(text: str, pos: int, e: int, level: int, glued: int) -> int:
    """End of the first segment of a span from ``pos``: its first word or line, or, when
    headings glued to it end at ``glued``, those headings and the word or line after them
    (a chunk never ends on a heading, nor inside one)."""
    if glued > pos:
        pos = _next_start(text, glued, e)
        if pos >= e:
            return e
    return _segment_end(text, pos, e, level)


def _segment_end(text: str, pos: int, e: int, level: int) -> int:
    """End of the word or line (trimmed) that starts at ``pos``."""
    if level == WORDS:
        return _WORD.match(text, pos, e).end()
    stop = _line_break(text, pos, e)
    return pos + len(text[pos:stop].rstrip())


def _line_break(text: str, pos: int, e: int) -> int:
    newline = text.find("\n", pos, e)
    ret = text.find("\r", pos, newline if newline >= 0 else e)
    if ret >= 0:
        return ret
    return newline if newline >= 0 else e


def _segment_end_before(text: str, aim: int, low: int, e: int, level: int) -> int:
    """The last word or line end in ``[low, aim]`` (``low`` is one); ``e`` ends the span."""
    if aim >= e:
        return e
    if aim <= low:
        return low
    if level == WORDS:
        if not text[aim].isspace() and not text[aim - 1].isspace():
            aim = _last_space(text, aim, low) + 1  # inside a word: back to its start
    else:
        aim = max(text.rfind("\n", low, aim + 1), text.rfind("\r", low, aim + 1))
    if aim <= low:
        return low
    return low + len(text[low:aim].rstrip())


def _last_space(text: str, pos: int, low: int) -> int:
    """Index of the last whitespace character in ``text[low:pos]``, or ``low - 1``."""
    width = 64
    while True:
        a = max(low, pos - width)
        found = _SPACE.search(text[a:pos][::-1])
        if found is not None:
            return pos - 1 - found.start()
        if a == low:
            return low - 1
        width *= 4


def _next_start(text: str, pos: int, e: int) -> int:
    found = _NONSPACE.search(text, pos, e)
    return found.start() if found else e
