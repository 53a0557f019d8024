"""From the text runs of PDF pages to Markdown: lines, headings, paragraphs, lists, pages.

Pure functions of :class:`~ragchunk.readers._pdf_text.Run` lists (no pypdf here), so the
rules are tested on their own:

>>> from ragchunk.readers._pdf_text import FontInfo, Run
>>> fonts = [FontInfo("Serif", False), FontInfo("Serif-Bold", True)]
>>> page = [Run("Rivers", 72, 140, 700, 24, 1), Run("Water runs down to the sea and the hills", 72, 400, 660, 12, 0),
...         Run("are high. A spring is a source of exam-", 72, 402, 645, 12, 0),
...         Run("ple water.", 72, 130, 630, 12, 0), Run("7", 300, 306, 40, 10, 0)]
>>> print(layout([page], fonts).text)
# Rivers
<BLANKLINE>
Water runs down to the sea and the hills are high. A spring is a source of example water.

Lines are grouped from runs on one baseline in stream order (the order the producer
wrote them, which is the reading order for the tools that matter here: Chromium, Word,
LaTeX). Lines repeated at the top or bottom of most pages (three at least), and page
numbers alone on the top or bottom line, are dropped when they sit in a narrow band at
the page's edge and do not go on from a paragraph above them (see
:func:`drop_running_lines`). Headings come from the outline when one is given,
otherwise from size and weight. Paragraphs are rebuilt from line gaps, indentation and
short last lines; a page or column break joins lines while the sentence goes on.

All work is linear in the number of runs (the few per-page windows are bounded).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..text.markdown import parse_blocks
from ._pdf_text import FontInfo, Run

__all__ = ["Layout", "Line", "OutlineEntry", "drop_contents", "drop_running_lines", "layout", "lines_of"]

# "3", "- 3 -", "Page 3", "Page 3 of 10", "3 / 10", "iv": a page number alone on a line.
# Bounded quantifiers and no nesting: it cannot backtrack.
PAGE_NUMBER = re.compile(
    r"(?:page |p\. |pg\. )?[-–—]? ?([0-9]{1,6}|[ivxlcdm]{1,8}) ?[-–—]?(?: ?(?:of|/) ?[0-9]{1,6})?",
    re.IGNORECASE,
)
# A list item's marker: a bullet, "3." / "3)", "(a)" / "(iv)", "a)" ... then a space.
LIST_MARKER = re.compile(r"(?:[•◦▪▫‣⁃●○■□∙·*–-]|[0-9]{1,3}[.)]|\([0-9A-Za-z]{1,4}\)|[a-z]\)) ")
# Digit runs, for comparing running headers whose page number changes.
DIGITS = re.compile(r"[0-9]+")
# A page number at the start or end of a running header ("Chapter 2: Handling 3", "4 Libtasn1"),
# before or after other words (each pattern bounded, tried where it can match only).
_LEADING_NUMBER = re.compile(r"([0-9]{1,5}) (?=\S)")
_TRAILING_NUMBER = re.compile(r"(?<=\S) ([0-9]{1,5})\Z")
# A table-of-contents entry ends with four or more leader dots and a page number (looked
# for in the line's last characters only, so a long line costs no more than a short one),
# after a title with a letter in it.
_TOC_TAIL = re.compile(r"(?<![.·…])(?<![.·…] )(?:[.·…] ?){4,}+ ?(?:[0-9]{1,5}|[ivxlcdm]{1,8})\Z", re.IGNORECASE)
_TOC_TAIL_CHARS = 64
_LETTER = re.compile(r"[^\W\d_]")
_TOC_TITLES = frozenset(("contents", "tableofcontents", "содержание", "оглавление", "विषयसूची", "अनुक्रमणिका"))
# How many entries make a page's dotted lines a table of contents.
_TOC_MIN_ENTRIES = 3
# A section number before a heading's words ("2.1 ", "A.3. ", "Chapter 4: "), which an outline may leave out.
_SECTION_NUMBER = re.compile(r"(?:(?:chapter|section|appendix|part) )?(?:[0-9]{1,3}|[A-Z])(?:\.[0-9]{1,3}){0,4}[.:]? ",
                             re.IGNORECASE)

# A sentence ends with one of these, maybe followed by closing quotes or brackets.
_TERMINAL = frozenset(".!?…。！？:")
_CLOSERS = "\"'”’»)]"
# Hyphens a line may end with when a word is broken across lines. A soft hyphen
# (U+00AD) or Unicode hyphen (U+2010) is a discretionary break; an ASCII hyphen is
# taken as one before a lowercase letter.
_BREAK_HYPHENS = frozenset("\u00ad\u2010")
_ORDERED = frozenset("0123456789")
_ROMAN_LETTERS = frozenset("ivxlcdm")
_ROMAN = (("m", 1000), ("cm", 900), ("d", 500), ("cd", 400), ("c", 100), ("xc", 90), ("l", 50), ("xl", 40),
          ("x", 10), ("ix", 9), ("v", 5), ("iv", 4), ("i", 1))
# Share of pages (with text) on which a top or bottom line must recur to be a running
# header or footer, and the fewest pages that makes; how many lines from each edge are
# looked at, and the share of the page's height at the top and at the bottom they must be in.
_RUNNING_SHARE = 0.5
_RUNNING_PAGES = 3
_EDGE_LINES = 2
_EDGE_BAND = 0.15
# The outer share of the page's height (its margin) that a running line of a document of
# two pages must be in.
_MARGIN_BAND = 0.06
# How many lines before and after a line are looked at for the column's right edge.
_WINDOW = 6
_MAX_HEADING_CHARS = 120
_MAX_HEADING_WORDS = 16


class Line(NamedTuple):
    """A line of text: baseline start and end, baseline ``y``, dominant ``size``,
    ``bold`` when nearly all its characters are bold."""

    text: str
    x0: float
    x1: float
    y: float
    size: float
    bold: bool


class OutlineEntry(NamedTuple):
    """A bookmark: its title, depth (1 = top), 0-based page index and the y it points at
    in display space (None when the destination gives none)."""

    title: str
    level: int
    page: int
    top: float | None


class Layout(NamedTuple):
    """The Markdown, its ``(offset, page)`` pairs, the number of pages with text, and how
    many table-of-contents lines were left out."""

    text: str
    pages: tuple[tuple[int, int], ...]
    pages_with_text: int
    toc_lines: int = 0


def lines_of(runs: Iterable[Run], fonts: Sequence[FontInfo]) -> list[Line]:
    """Group runs into lines: a run stays on the line while its baseline is within half
    its size and it does not jump back left by more than its size.

    >>> fonts = [FontInfo("F", False)]
    >>> [l.text for l in lines_of([Run("Hel", 0, 15, 10, 10, 0), Run("lo", 15, 25, 10, 10, 0),
    ...                            Run("world", 28, 50, 10, 10, 0), Run("next", 0, 20, -2, 10, 0)], fonts)]
    ['Hello world', 'next']
    """
    lines: list[Line] = []
    group: list[Run] = []
    for run in runs:
        if group:
            last = group[-1]
            if abs(run.y - group[0].y) <= 0.5 * min(run.size, group[0].size) and run.x0 >= last.x1 - run.size:
                group.append(run)
                continue
            line = _make_line(group, fonts)
            if line is not None:
                lines.append(line)
        group = [run]
    if group:
        line = _make_line(group, fonts)
        if line is not None:
            lines.append(line)
    return lines


def _clean(text: str) -> str:
    """The line's text: control characters out, each whitespace run one space, soft
    hyphens dropped except one that ends the line (a word broken there), which replaces
    the hyphen glyph drawn for it.

    >>> _clean("Exam\\u00adple  gla\\u00ad\\u2010"), _clean("a\\x00b\\tc")
    ('Example gla\xad', 'a b c')
    """
    if not text.isprintable():
        text = "".join([c if c.isprintable() or c.isspace() or c == "\u00ad" else " " for c in text])
    text = " ".join(text.split())
    if "\u00ad" in text:
        broken = text.rstrip("-\u2010").endswith("\u00ad")
        text = text.replace("\u00ad", "")
        if broken:
            text = text.rstrip("-\u2010") + "\u00ad"
    return text


def _make_line(group: list[Run], fonts: Sequence[FontInfo]) -> Line | None:
    parts: list[str] = []
    sizes: Counter[float] = Counter()
    bold = chars = 0
    previous: Run | None = None
    for run in group:
        text = run.text
        if previous is not None and parts:
            gap = run.x0 - previous.x1
            if gap > 0.15 * run.size and not parts[-1][-1:].isspace() and not text[:1].isspace():
                parts.append(" ")
        parts.append(text)
        visible = len(text) - text.count(" ")
        sizes[round(run.size * 2) / 2] += visible
        chars += visible
        if fonts[run.font].bold:
            bold += visible
        if text.strip():
            previous = run
    text = _clean("".join(parts))
    if not text.replace("\u00ad", ""):
        return None
    visible_runs = [run for run in group if run.text.strip()]
    first, last = visible_runs[0], visible_runs[-1]
    size = sizes.most_common(1)[0][0] if sizes else first.size
    return Line(text, first.x0, last.x1, first.y, size, chars > 0 and bold >= 0.9 * chars)


def _roman_value(word: str) -> int:
    """The value of a canonical lowercase roman numeral, or 0."""
    value, rest = 0, word
    for letters, amount in _ROMAN:
        while rest.startswith(letters):
            value += amount
            rest = rest[len(letters):]
    if rest or not value:
        return 0
    canonical, left = "", value
    for letters, amount in _ROMAN:
        while left >= amount:
            canonical += letters
            left -= amount
    return value if canonical == word else 0


def is_page_number(text: str) -> bool:
    """True for a line that is only a page number ("3", "- 3 -", "Page 3 of 10", "iv").

    >>> [is_page_number(t) for t in ("12", "Page 3 of 10", "— 4 —", "xiv", "mild", "3 apples")]
    [True, True, True, True, False, False]
    """
    match = PAGE_NUMBER.fullmatch(text)
    if match is None:
        return False
    number = match.group(1)
    return number.isdigit() or 0 < _roman_value(number.lower()) <= 100


def _running_key(text: str) -> str:
    words = DIGITS.sub("#", text.casefold()).split()
    return " ".join("#" if _ROMAN_LETTERS.issuperset(word) and _roman_value(word) else word for word in words)


def drop_running_lines(pages: list[list[Line]], heights: Sequence[float | None] | None = None) -> list[list[Line]]:
    """The pages without running headers and footers and page numbers.

    Only one of the top or bottom two lines of a page, in the band at that edge (the top
    or bottom 15% of the page's height, ``heights[i]`` when given, else of the span of the
    document's text), can be a running line:

    - one whose text (digits and roman numerals ignored) recurs at that edge, in the band,
      on at least half of the pages with text and on three pages at least, or on every
      page of a document of two pages with text within the outer 6% of the page (its
      margin), in the size it has there most often (the title that a header repeats stays
      on page 1);
    - a page number alone on a page's top or bottom line;
    - a page's top or bottom line that holds the page's printed number at its start or
      end when another such line at that edge has its size (a header that names the
      chapter: "Chapter 2: Handling 3", "Chapter 3: Utilities 6"; a heading "3 Results"
      that starts page 3 is larger than the headers). A printed number is the page's own
      when most numbered edge lines agree on the distance between the two.

    A line that goes on from the body line just above it (close below it, the same size,
    overlapping it across: one paragraph or block) is kept, unless it is a page number
    alone; a body line is one that is kept and whose text is not in the edge band of
    three pages or more (as the first line of a footer of three lines is). So a document that
    repeats a paragraph at the foot of some pages loses none of it.

    >>> pages = [[Line("Field notes", 72, 130, 730, 9, False), Line(body, 72, 300, 700, 11, False),
    ...           Line(str(n), 300, 306, 40, 9, False)] for n, body in enumerate(("Rain.", "Snow.", "Hail."), 1)]
    >>> [[line.text for line in lines] for lines in drop_running_lines(pages, [792] * 3)]
    [['Rain.'], ['Snow.'], ['Hail.']]
    >>> [[line.text for line in lines] for lines in drop_running_lines(pages[:2], [792] * 2)]
    [['Field notes', 'Rain.'], ['Field notes', 'Snow.']]
    """
    edges: list[tuple[set[int], set[int]]] = []
    # Pages on which a text recurs at an edge: among the edge lines, anywhere in the band,
    # and among the edge lines in the page's margin.
    counts: Counter[tuple[int, str]] = Counter()
    banded: Counter[tuple[int, str]] = Counter()
    margins: Counter[tuple[int, str]] = Counter()
    sizes: dict[tuple[int, str], Counter[float]] = defaultdict(Counter)
    page_keys: list[dict[int, str]] = []  # the texts of each page's lines in a band
    for lines, (low, high) in zip(pages, _page_spans(pages, heights)):
        order = sorted(range(len(lines)), key=lambda i: -lines[i].y)
        band, margin = _EDGE_BAND * (high - low), _MARGIN_BAND * (high - low)
        in_bands = (
            {i for i, line in enumerate(lines) if line.y + line.size >= high - band},
            {i for i, line in enumerate(lines) if line.y <= low + band},
        )
        keys_of = {i: _running_key(lines[i].text) for i in in_bands[0] | in_bands[1]}
        page_keys.append(keys_of)
        top = in_bands[0].intersection(order[:_EDGE_LINES])
        bottom = in_bands[1].intersection(order[-_EDGE_LINES:])
        edges.append((top, bottom))
        for side, indices in enumerate((top, bottom)):
            for key in {keys_of[i] for i in in_bands[side]}:
                banded[side, key] += 1
            keys = {i: keys_of[i] for i in indices}
            for key in set(keys.values()):
                counts[side, key] += 1
            outer = {key for i, key in keys.items()
                     if (lines[i].y + lines[i].size >= high - margin if side == 0 else lines[i].y <= low + margin)}
            for key in outer:
                margins[side, key] += 1
            for i, key in keys.items():
                sizes[side, key][round(lines[i].size * 2) / 2] += 1
    # A running line keeps its size: the same words set larger (the title on page 1 that
    # the header repeats) are not the header.
    usual = {key: found.most_common(1)[0][0] for key, found in sizes.items()}
    with_text = sum(1 for lines in pages if lines)
    needed = max(_RUNNING_PAGES, int(with_text * _RUNNING_SHARE + 0.999))
    everywhere = max(2, with_text)
    numbered = _numbered_headers(pages, with_text, edges)
    kept: list[list[Line]] = []
    for index, (lines, (top, bottom)) in enumerate(zip(pages, edges)):
        if not lines:
            kept.append(lines)
            continue
        ys = [line.y for line in lines]
        highest, lowest = max(ys), min(ys)
        drop = set(numbered.get(index, ()))
        for side, indices in enumerate((top, bottom)):
            for i in indices:
                line = lines[i]
                key = (side, _running_key(line.text))
                recurs = counts[key] >= needed or margins[key] >= everywhere
                if recurs and abs(line.size - usual[key]) <= 0.15 * usual[key]:
                    drop.add(i)
                elif line.y in (highest, lowest) and len(lines) > 1 and is_page_number(line.text):
                    drop.add(i)
        if drop:
            keys_of = page_keys[index]
            running = {i for i, key in keys_of.items() if max(banded[0, key], banded[1, key]) >= _RUNNING_PAGES}
            drop = _without_continued(lines, drop, running)
        kept.append([line for i, line in enumerate(lines) if i not in drop] if drop else lines)
    return kept


def _page_spans(pages: list[list[Line]], heights: Sequence[float | None] | None) -> list[tuple[float, float]]:
    """For each page, the lowest and highest y of its box: (0, its height) when known, else
    the span of the document's text."""
    tops = [line.y + line.size for lines in pages for line in lines]
    span = (min(line.y for lines in pages for line in lines), max(tops)) if tops else (0.0, 0.0)
    spans: list[tuple[float, float]] = []
    for index in range(len(pages)):
        height = heights[index] if heights is not None and index < len(heights) else None
        spans.append((0.0, height) if height is not None and height > 0 else span)
    return spans


def _without_continued(lines: list[Line], drop: set[int], running: set[int]) -> set[int]:
    """``drop`` without the lines that go on from the kept body line just above them (see
    :func:`drop_running_lines`); a line in ``running`` (its text recurs in the band of
    other pages) is not body."""
    order = sorted(range(len(lines)), key=lambda i: -lines[i].y)
    dropped = set(drop)
    for rank, i in enumerate(order):
        line = lines[i]
        if i not in dropped or is_page_number(line.text):
            continue
        above = next((j for j in reversed(order[:rank]) if lines[j].y > line.y + 0.5 * line.size), None)
        if above is None or above in dropped or above in running:
            continue
        other = lines[above]
        size = max(line.size, other.size)
        if (other.y - line.y <= 1.6 * size and abs(other.size - line.size) <= 0.15 * size
                and other.x0 < line.x1 and line.x0 < other.x1):
            dropped.discard(i)
    return dropped


def _numbered_headers(
    pages: list[list[Line]], with_text: int, edges: list[tuple[set[int], set[int]]]
) -> dict[int, list[int]]:
    """Page index -> the indices of its top and bottom lines that are running headers
    holding the printed page number (see :func:`drop_running_lines`); ``edges`` holds each
    page's top and bottom lines in their bands."""
    found: list[tuple[int, int, int, float, int]] = []  # page, line, side, size, offset
    for page, lines in enumerate(pages):
        if len(lines) < 2:
            continue
        ys = [line.y for line in lines]
        for side, y in enumerate((max(ys), min(ys))):
            i = ys.index(y)
            if i not in edges[page][side]:
                continue
            text = lines[i].text
            match = _LEADING_NUMBER.match(text) or _TRAILING_NUMBER.search(text, max(0, len(text) - 7))
            if match is None:
                continue
            number = match.group(1)
            offset = page + 1 - int(number)
            if offset >= 0:
                found.append((page, i, side, round(lines[i].size * 2) / 2, offset))
    if not found:
        return {}
    offset, agreeing = Counter(item[4] for item in found).most_common(1)[0]
    if agreeing < max(3, with_text // 4):
        return {}
    recurring = Counter((side, size) for _, _, side, size, at in found if at == offset)
    headers: dict[int, list[int]] = defaultdict(list)
    for page, i, side, size, at in found:
        if at == offset and recurring[side, size] >= 2:
            headers[page].append(i)
    return headers


def drop_contents(pages: list[list[Line]]) -> tuple[list[list[Line]], int]:
    """The pages without their table-of-contents lines, and how many there were.

    A line is a table-of-contents entry when it ends with four or more leader dots and a
    page number, on a page with at least three such lines; the page's "Contents" or
    "Table of Contents" title goes with them. The headings themselves come again in the body.

    >>> page = [Line("Contents", 72, 140, 700, 14, True), Line("1 Rivers . . . . . . 1", 72, 400, 680, 11, False),
    ...         Line("2 Lakes . . . . . . . 4", 72, 400, 666, 11, False), Line("3 Seas. . . . . . . 9", 72, 400, 652, 11, False),
    ...         Line("Wait.... 5 more", 72, 400, 600, 11, False)]
    >>> kept, dropped = drop_contents([page])
    >>> [line.text for line in kept[0]], dropped
    (['Wait.... 5 more'], 4)
    """
    kept: list[list[Line]] = []
    dropped = 0
    for lines in pages:
        entries = {i for i, line in enumerate(lines) if _is_contents_entry(line.text)}
        if len(entries) < _TOC_MIN_ENTRIES:
            kept.append(lines)
            continue
        entries.update(i for i, line in enumerate(lines) if _norm(line.text) in _TOC_TITLES)
        dropped += len(entries)
        kept.append([line for i, line in enumerate(lines) if i not in entries])
    return kept, dropped


def _is_contents_entry(text: str) -> bool:
    """True for "2.1 Naming . . . . . 3": a title, leader dots, a page number."""
    at = max(0, len(text) - _TOC_TAIL_CHARS)
    # A slice, not a start position: the pattern's look-behind must not see a leader run
    # that goes on before the characters looked at.
    tail = _TOC_TAIL.search(text[at:])
    return tail is not None and _LETTER.search(text, 0, at + tail.start()) is not None


def _norm(text: str) -> str:
    return "".join([c for c in text.casefold() if c.isalnum()])


def _outline_marks(pages: list[list[Line]], outline: Sequence[OutlineEntry]) -> dict[int, dict[int, tuple]]:
    """For each page, line index -> ("heading", level, title, lines taken) or
    ("insert", level, title) (a bookmark whose title is on no line: a heading before it)."""
    targets: dict[int, list[OutlineEntry]] = defaultdict(list)
    for entry in outline:
        if 0 <= entry.page < len(pages) and _norm(entry.title):
            targets[entry.page].append(entry)
    marks: dict[int, dict[int, tuple]] = {}
    for page, entries in targets.items():
        lines = pages[page]
        index: dict[str, list[tuple[int, int]]] = defaultdict(list)
        # The same lines without a leading section number: an outline may say "Naming"
        # for the line "2.2 Naming".
        unnumbered: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i in range(len(lines)):
            joined = ""
            number = _SECTION_NUMBER.match(lines[i].text)
            bare = _norm(lines[i].text[number.end():]) if number else ""
            for span in range(3):
                if i + span >= len(lines):
                    break
                part = _norm(lines[i + span].text)
                joined += part
                index[joined].append((i, span + 1))
                if number:
                    bare += part if span else ""
                    unnumbered[bare].append((i, span + 1))
        page_marks: dict[int, tuple] = {}
        taken: set[int] = set()
        for entry in entries:
            title = " ".join(entry.title.replace("\u00ad", "").split())
            key = _norm(title)
            found = []
            for hits in (index.get(key, ()), unnumbered.get(key, ())):
                found = [hit for hit in hits if not taken.intersection(range(hit[0], hit[0] + hit[1]))]
                if found:
                    break
            if found:
                if entry.top is not None:
                    found.sort(key=lambda hit: abs(lines[hit[0]].y + lines[hit[0]].size - entry.top))
                start, count = found[0]
                taken.update(range(start, start + count))
                # The words as the page shows them (the outline may drop a space at a wrap).
                shown = _join_lines([line.text for line in lines[start:start + count]]).removesuffix("\u00ad")
                page_marks[start] = ("heading", entry.level, shown, count)
                continue
            at = 0
            if entry.top is not None:
                at = next((i for i, line in enumerate(lines) if line.y + line.size <= entry.top + 1), len(lines))
            while at in page_marks or at in taken:
                at += 1
            page_marks.setdefault(at, ("insert", entry.level, title))
        marks[page] = page_marks
    return marks


def _font_marks(pages: list[list[Line]], body: float) -> dict[int, dict[int, tuple]]:
    """Headings by size and weight: lines larger than the body or bold, and short."""
    candidates: list[tuple[int, int, int, float, bool]] = []  # page, first line, count, size, bold
    for page, lines in enumerate(pages):
        i = 0
        while i < len(lines):
            line = lines[i]
            if not _looks_like_heading(line, body):
                i += 1
                continue
            j = i + 1
            text_len = len(line.text)
            while (
                j < len(lines)
                and lines[j].size == line.size
                and lines[j].bold == line.bold
                and 0 < lines[j - 1].y - lines[j].y <= 1.6 * line.size
                and _looks_like_heading(lines[j], body)
                and text_len + len(lines[j].text) <= _MAX_HEADING_CHARS
            ):
                text_len += len(lines[j].text) + 1
                j += 1
            candidates.append((page, i, j - i, line.size, line.bold))
            i = j
    styles = sorted({(size, bold) for _, _, _, size, bold in candidates}, key=lambda s: (-s[0], not s[1]))
    level_of = {style: min(rank + 1, 6) for rank, style in enumerate(styles)}
    marks: dict[int, dict[int, tuple]] = defaultdict(dict)
    for page, first, count, size, bold in candidates:
        title = _join_lines([line.text for line in pages[page][first:first + count]])
        marks[page][first] = ("heading", level_of[size, bold], title, count)
    return marks


def _looks_like_heading(line: Line, body: float) -> bool:
    text = line.text
    if len(text) > _MAX_HEADING_CHARS or len(text.split()) > _MAX_HEADING_WORDS:
        return False
    if not any(c.isalpha() for c in text) or LIST_MARKER.match(text):
        return False
    if text[-1:] in ",;":
        return False
    return line.size >= body * 1.15 or (line.bold and line.size >= body * 0.95)


def _glue(before: str, after: str) -> tuple[str, int]:
    """How line ``after`` joins line ``before``: (separator, characters to drop from the
    end of ``before``).

    A soft hyphen at the end is a discretionary break: dropped, the word joined. An ASCII
    or Unicode hyphen after a letter joins a word going on in lowercase ("exam-" "ple"),
    and is kept before anything else ("Anglo-" "Saxon").

    >>> _glue("exam\\u00ad", "ple"), _glue("exam-", "ple"), _glue("Anglo-", "Saxon"), _glue("a", "b")
    (('', 1), ('', 1), ('', 0), (' ', 0))
    """
    end = before[-1:]
    if end == "\u00ad":
        return "", 1
    if (end == "-" or end == "\u2010") and len(before) >= 2 and before[-2].isalpha():
        return ("", 1) if after[:1].islower() else ("", 0)
    return " ", 0


def _join_lines(texts: list[str]) -> str:
    out = ""
    for text in texts:
        if out:
            separator, drop = _glue(out, text)
            out = out[: len(out) - drop] + separator
        out += text
    return out


def _sentence_open(text: str) -> bool:
    """True when ``text`` does not end a sentence."""
    end = text.rstrip(_CLOSERS)[-1:]
    return end not in _TERMINAL


def _mode(values: Iterable[float], default: float) -> float:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else default


class _Writer:
    """Builds the Markdown one block at a time, with the page map.

    A block is a heading, a paragraph (one line of text) or a list item; items of one
    kind of list follow each other after a single newline, every other block after a
    blank line.
    """

    def __init__(self) -> None:
        self.out: list[str] = []
        self.pos = 0
        self.pages: list[tuple[int, int]] = []
        self.pending_page = 0  # a page whose first text is still to be written
        self.kind = ""  # "", "para", "item" or "heading"
        self.marker = ""  # an item's marker ("- ", "3. "), a heading's "## "
        self.segments: list[str] = []
        self.length = 0
        self.marks: list[tuple[int, int]] = []  # (offset in the block's text, page); -1: the block's start
        self.list_key = ""  # the kind of list the last block was an item of ("-" or "1"), or ""
        self.first_line: Line | None = None
        self.lines = 0
        self.right = 0.0  # the furthest line end in the block

    def open(self, kind: str, marker: str, line: Line | None) -> None:
        self.close()
        self.kind, self.marker, self.first_line = kind, marker, line

    def add(self, text: str) -> None:
        segments = self.segments
        if segments:
            separator, drop = _glue(segments[-1], text)
            if drop:
                segments[-1] = segments[-1][:-drop]
                self.length -= drop
            if separator:
                segments.append(separator)
                self.length += len(separator)
        if self.pending_page:
            self.marks.append((self.length if segments else -1, self.pending_page))
            self.pending_page = 0
        segments.append(text)
        self.length += len(text)
        self.lines += 1

    def widen(self, line: Line, column_change: bool) -> None:
        """Count ``line`` (just added) in the right edge of the block's current column."""
        self.right = line.x1 if column_change else max(self.right, line.x1)

    def close(self) -> None:
        if not self.kind:
            return
        content = "".join(self.segments).removesuffix("\u00ad")
        marker = self.marker
        key = ""
        if self.kind == "para" and not _stays_paragraph(content):
            marker = "\\"
        elif self.kind == "item":
            key = "1" if marker[:1] in _ORDERED else "-"
        separator = "" if not self.out else "\n" if key and key == self.list_key else "\n\n"
        self.list_key = key
        start = self.pos + len(separator)
        for offset, page in self.marks:
            at = start if offset < 0 else start + len(marker) + offset
            if self.pages and self.pages[-1][0] == at:
                self.pages[-1] = (at, page)
            else:
                self.pages.append((at, page))
        block = separator + marker + content
        self.out.append(block)
        self.pos += len(block)
        self.kind, self.marker, self.segments, self.length, self.marks = "", "", [], 0, []
        self.lines, self.first_line, self.right = 0, None, 0.0

    def finish(self) -> tuple[str, tuple[tuple[int, int], ...]]:
        self.close()
        return "".join(self.out), tuple(self.pages)


def _stays_paragraph(text: str) -> bool:
    """True when the splitter reads ``text`` (one line) as a paragraph, not other markup."""
    if text[:1].isalnum() and not text[:1].isdigit():
        return True
    blocks = parse_blocks(text)
    return len(blocks) == 1 and blocks[0].kind == "paragraph"


def _item_marker(text: str) -> tuple[str, str] | None:
    """(Markdown marker, rest) when ``text`` starts with a list marker, else None."""
    match = LIST_MARKER.match(text)
    if match is None:
        return None
    mark, rest = match.group(0).strip(), text[match.end():].lstrip()
    if not rest:
        return None
    if mark[0] in _ORDERED:
        return mark + " ", rest
    if len(mark) > 1:
        return "- ", mark + " " + rest
    return "- ", rest


def _right_edge(lines: list[Line], i: int, block_right: float) -> float:
    """The right edge of the text line ``i`` belongs to: the furthest end among the lines
    of its block so far (``block_right``), itself, and the lines that follow it closely
    with its size and left edge (the rest of its paragraph or column)."""
    line = lines[i]
    edge = max(block_right, line.x1)
    below = line
    for j in range(i + 1, min(len(lines), i + 1 + _WINDOW)):
        other = lines[j]
        drop = below.y - other.y
        if abs(other.size - line.size) > 0.15 * line.size or not 0 < drop <= 1.6 * max(line.size, other.size):
            break
        if abs(other.x0 - line.x0) <= 1.5 * line.size:
            edge = max(edge, other.x1)
        below = other
    return edge


def _ends_early(lines: list[Line], i: int, following: Line, block_right: float) -> bool:
    """True when line ``i`` stops short of its column although the first word of
    ``following`` would have fitted after it: the author ended the line there."""
    line = lines[i]
    if line.text[-1:] in "-\u2010\u00ad":
        return False
    room = _right_edge(lines, i, block_right) - line.x1
    if following.y < line.y and abs(following.x0 - line.x0) <= 3 * line.size:
        room = max(room, following.x1 - line.x1)
    width = following.x1 - following.x0
    char = width / max(1, len(following.text))
    first_word = following.text.split(" ", 1)[0]
    return room > char * (len(first_word) + 1.5)


def layout(
    pages: list[list[Run]] | list[list[Line]],
    fonts: Sequence[FontInfo],
    outline: Sequence[OutlineEntry] = (),
    lines_given: bool = False,
    keep_contents: bool = False,
    heights: Sequence[float | None] | None = None,
) -> Layout:
    """The Markdown of the given pages (runs in stream order, or lines when
    ``lines_given``), headings from ``outline`` when it is not empty; a table of contents
    is left out unless ``keep_contents`` (see :func:`drop_contents`); ``heights`` (None
    where unknown) places the bands running headers and footers are looked for in (see
    :func:`drop_running_lines`).

    Empty pages add nothing (not even a page mark).
    """
    page_lines = pages if lines_given else [lines_of(runs, fonts) for runs in pages]  # type: ignore[arg-type]
    page_lines = drop_running_lines(page_lines, heights)  # type: ignore[arg-type]
    toc_lines = 0
    if not keep_contents:
        page_lines, toc_lines = drop_contents(page_lines)
    sizes: Counter[float] = Counter()
    for lines in page_lines:
        for line in lines:
            sizes[round(line.size * 2) / 2] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    leading = _mode(
        (
            round(lines[k - 1].y - lines[k].y, 1)
            for lines in page_lines
            for k in range(1, len(lines))
            if abs(lines[k].size - body) <= 0.05 * body
            and abs(lines[k - 1].size - body) <= 0.05 * body
            and 0 < lines[k - 1].y - lines[k].y < 2.5 * body
        ),
        1.2 * body,
    )
    marks = _outline_marks(page_lines, outline) if outline else _font_marks(page_lines, body)
    writer = _Writer()
    previous: tuple[list[Line], int] | None = None  # the page lines and index of the last line written
    pages_with_text = 0
    for page_index, lines in enumerate(page_lines):
        page_marks = marks.get(page_index, {})
        if not lines and not page_marks:
            continue
        pages_with_text += 1 if lines else 0
        writer.pending_page = page_index + 1
        skip = 0
        for i in range(len(lines) + 1):
            mark = page_marks.get(i)
            if mark is not None and mark[0] == "insert":
                writer.open("heading", "#" * mark[1] + " ", None)
                writer.add(mark[2])
                writer.close()
                previous = None
            if i == len(lines):
                break
            if skip:
                skip -= 1
                continue
            line = lines[i]
            if mark is not None and mark[0] == "heading":
                writer.open("heading", "#" * mark[1] + " ", line)
                writer.add(mark[2])
                writer.close()
                skip = mark[3] - 1
                previous = None
                continue
            item = _item_marker(line.text)
            if item is not None:
                writer.open("item", item[0], line)
                writer.add(item[1])
                writer.widen(line, True)
                previous = (lines, i)
                continue
            if writer.kind in ("para", "item") and previous is not None:
                same_page = previous[0] is lines
                if _continues(previous, (lines, i), writer, leading, same_page):
                    before = previous[0][previous[1]]
                    writer.add(line.text)
                    writer.widen(line, not same_page or line.y >= before.y)
                    previous = (lines, i)
                    continue
            writer.open("para", "", line)
            writer.add(line.text)
            writer.widen(line, True)
            previous = (lines, i)
    text, page_map = writer.finish()
    return Layout(text, page_map, pages_with_text, toc_lines)


def _continues(
    previous: tuple[list[Line], int], current: tuple[list[Line], int], writer: _Writer, leading: float, same_page: bool
) -> bool:
    """True when the current line goes on with the open paragraph or item."""
    lines_p, p = previous
    lines_n, n = current
    before, line = lines_p[p], lines_n[n]
    if abs(line.size - before.size) > 0.12 * before.size or line.bold != before.bold and len(line.text) < 40:
        if not (_sentence_open(before.text) and abs(line.size - before.size) <= 0.12 * before.size):
            return False
    drop = before.y - line.y
    if not same_page or drop <= 0 or drop > 3 * max(leading, before.size):
        # A new page or column: the sentence decides, then a short line or an indent.
        if _sentence_open(before.text):
            return True
        if same_page and drop > 0:
            return False  # a wide gap down the same column after a full stop
        if _ends_early(lines_p, p, line, writer.right):
            return False
        neighbours = lines_n[max(0, n - _WINDOW): n + _WINDOW + 1]
        usual = _mode((round(other.x0) for other in neighbours), line.x0)
        return line.x0 <= usual + 0.8 * line.size
    if drop > 1.35 * leading + 0.5 and drop > 1.35 * before.size:
        return False
    first = writer.first_line
    if first is not None and writer.lines >= 2:
        if line.x0 > before.x0 + 0.8 * line.size:
            return False
        if line.x0 < before.x0 - 0.8 * line.size:
            return False
    elif first is not None and writer.kind == "item" and line.x0 < first.x0 + 0.3 * line.size:
        return False
    if _ends_early(lines_p, p, line, writer.right):
        return False
    return True

