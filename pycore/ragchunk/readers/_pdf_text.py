"""The text a PDF page shows: runs of glyphs with their place, size and font.

pypdf parses the content stream and the fonts (encodings, ToUnicode maps, widths); this
module follows the text state itself (matrices, Tc/Tw/Tz/TL/Ts, q/Q, form XObjects,
marked content) so each shown string comes out with its start and end on the page.
pypdf's own ``extract_text`` gives neither ends nor ``/ActualText`` (Chromium writes a soft
hyphen as a space glyph whose ActualText is U+00AD), and its layout mode re-multiplies a
growing matrix chain inside every TJ array.

The work is linear in the number of operators: a matrix product per text operator, a
dictionary look-up per glyph, a bounded number of form XObject invocations per page.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from typing import Any, NamedTuple

from ._pdf_ops import operations

__all__ = ["ContentBudget", "FontCache", "FontInfo", "PageText", "Run", "TooMuchContent", "display_matrix", "page_text"]

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# Form XObjects may nest and repeat: a page that invokes more than this many (or nests
# deeper) is read without the rest of its forms rather than taking unbounded work.
MAX_FORM_CALLS = 2_000
MAX_FORM_DEPTH = 12
# Decoded content one page may draw (its streams and forms together): a page of dense text
# is ~100 KB; a stream drawn again by every page (400 pages of one 4.5 MB stream) is work
# that grows with pages times size, from a file of a few kilobytes.
MAX_PAGE_CONTENT = 16 * 1024 * 1024


class TooMuchContent(Exception):
    """A page's content (``page``) or the file's (``file``) is past its budget (:class:`ContentBudget`)."""

    def __init__(self, scope: str, drawn: int, limit: int) -> None:
        super().__init__(scope)
        self.scope = scope
        self.drawn = drawn
        self.limit = limit


class ContentBudget:
    """The decoded content bytes a PDF may draw: :data:`MAX_PAGE_CONTENT` per page, ``total`` in all.

    >>> budget = ContentBudget(100)
    >>> budget.start_page(); budget.take(60); budget.start_page(); budget.take(60)
    Traceback (most recent call last):
    ...
    ragchunk.readers._pdf_text.TooMuchContent: file
    """

    def __init__(self, total: int, page: int = MAX_PAGE_CONTENT) -> None:
        self.total = total
        self.page_limit = page
        self.drawn = 0
        self.on_page = 0

    def start_page(self) -> None:
        self.on_page = 0

    def take(self, size: int) -> None:
        self.drawn += size
        self.on_page += size
        if self.drawn > self.total:
            raise TooMuchContent("file", self.drawn, self.total)
        if self.on_page > self.page_limit:
            raise TooMuchContent("page", self.on_page, self.page_limit)
# Weight names that mark a bold face in a font's /BaseFont (after the subset prefix).
_BOLD_WORDS = ("bold", "black", "heavy", "semibold", "demibold", "demi", "extrabold", "ultrabold")
_FORCE_BOLD = 1 << 18


class FontInfo(NamedTuple):
    """What the layout needs to know of a font: its name and whether it is bold."""

    name: str
    bold: bool


class Run(NamedTuple):
    """One shown string: text, baseline start ``x0``/end ``x1`` and ``y`` in display space
    (points, y up), effective font ``size`` in points and ``font`` (index into
    :attr:`PageText.fonts`)."""

    text: str
    x0: float
    x1: float
    y: float
    size: float
    font: int


class PageText(NamedTuple):
    """The runs of one page in content-stream order, how many characters of text in
    another direction than the page's were left out, the page's height and the matrix
    from user space to the page's reading frame (see :func:`page_text`)."""

    runs: list[Run]
    skipped_chars: int
    height: float
    matrix: Matrix = IDENTITY


def _mult(m: Matrix, n: Matrix) -> Matrix:
    """The matrix product ``m × n`` (PDF row-vector convention: apply m, then n)."""
    a, b, c, d, e, f = m
    na, nb, nc, nd, ne, nf = n
    return (
        a * na + b * nc,
        a * nb + b * nd,
        c * na + d * nc,
        c * nb + d * nd,
        e * na + f * nc + ne,
        e * nb + f * nd + nf,
    )


def _numbers(operands: list[Any], count: int) -> tuple[float, ...] | None:
    """The first ``count`` operands as floats, or None when they are not all numbers."""
    if len(operands) < count:
        return None
    try:
        return tuple(float(value) for value in operands[:count])
    except (TypeError, ValueError):
        return None


def _number(operands: list[Any], default: float) -> float:
    values = _numbers(operands, 1)
    return default if values is None else values[0]


class _Font:
    """A pypdf font prepared for decoding and measuring strings."""

    __slots__ = ("index", "encoding", "table", "cmap", "_cmap_items", "widths", "default", "space", "space_width",
                 "two_byte", "usable")

    def __init__(self, font: Any, index: int) -> None:
        self.index = index
        self.encoding = font.encoding if isinstance(font.encoding, str) else None
        # Byte -> character and character -> text as str.translate tables: C speed per glyph.
        table = {} if self.encoding else font.encoding
        self.table = {code: value for code, value in table.items() if isinstance(code, int) and 0 <= code < 256}
        cmap = font.character_map
        self.cmap = {ord(key): value for key, value in cmap.items() if isinstance(key, str) and len(key) == 1}
        if len(self.cmap) != len(cmap):
            # Keys longer than one character (multi-byte codes pypdf keeps whole): look up one by one.
            self.cmap = None
        self._cmap_items = cmap
        self.widths = font.character_widths
        self.default = font.character_widths.get("default", 500)
        self.space = font.space_char
        self.space_width = font.space_width
        self.two_byte = font.sub_type == "Type0"
        self.usable = font.interpretable

    def decode(self, data: bytes) -> tuple[str, float, int, int]:
        """(text, width in text space units per unit of font size, glyph count, count of
        single-byte spaces, which word spacing widens)."""
        if self.encoding is not None:
            try:
                raw = data.decode(self.encoding, "surrogatepass")
            except UnicodeDecodeError:
                raw = data.decode(self.encoding, "replace")
            chars = raw
        else:
            raw = data.decode("latin-1")
            chars = raw.translate(self.table)
        if self.cmap is not None:
            text = chars.translate(self.cmap)
        else:
            cmap = self._cmap_items
            text = "".join([cmap.get(char, char) for char in chars])
        width = sum(map(self.widths.get, raw, repeat(self.default)))
        spaces = 0 if self.two_byte else data.count(b" ")
        if self.space != " " and self.space in raw:
            width += raw.count(self.space) * (self.space_width - self.widths.get(self.space, self.default))
        return text, width / 1000.0, len(raw), spaces


def _font_info(font: Any) -> FontInfo:
    name = font.name.split("+", 1)[-1] if isinstance(font.name, str) else ""
    lower = name.lower().replace("-", "").replace(",", "").replace("_", "")
    descriptor = font.font_descriptor
    weight = descriptor.weight
    try:
        heavy = float(weight) >= 600
    except (TypeError, ValueError):
        heavy = isinstance(weight, str) and weight.lower() in _BOLD_WORDS
    try:
        forced = bool(int(descriptor.flags) & _FORCE_BOLD)
    except (TypeError, ValueError):
        forced = False
    return FontInfo(name, heavy or forced or any(word in lower for word in _BOLD_WORDS))


class FontCache:
    """pypdf fonts of one document, built once per font object and shared by its pages.

    ``infos`` lists every font met so far; a :class:`Run`'s ``font`` indexes it;
    ``failures`` counts fonts pypdf could not read (their text is lost).
    """

    def __init__(self) -> None:
        self.infos: list[FontInfo] = []
        self.failures = 0
        self._by_key: dict[Any, _Font | None] = {}

    def get(self, ref: Any) -> _Font | None:
        from pypdf.generic import DictionaryObject, IndirectObject
        from pypdf.generic._font import Font

        key = (ref.idnum, ref.generation) if isinstance(ref, IndirectObject) else id(ref)
        if key in self._by_key:
            return self._by_key[key]
        font = None
        try:
            resource = ref.get_object()
            if isinstance(resource, DictionaryObject):
                pypdf_font = Font.from_font_resource(resource)
                font = _Font(pypdf_font, len(self.infos))
                self.infos.append(_font_info(pypdf_font))
        except Exception:  # a damaged font loses its text, not the page
            font = None
            self.failures += 1
        # Inline font dictionaries have no stable id beyond this page: keep only references.
        if isinstance(ref, IndirectObject):
            self._by_key[key] = font
        return font


class _State:
    """The graphics state parts that matter to text; q/Q copies it."""

    __slots__ = ("ctm", "font", "size", "tc", "tw", "tz", "tl", "ts")

    def __init__(self, ctm: Matrix) -> None:
        self.ctm = ctm
        self.font: _Font | None = None
        self.size = 0.0
        self.tc = 0.0
        self.tw = 0.0
        self.tz = 1.0
        self.tl = 0.0
        self.ts = 0.0

    def copy(self) -> _State:
        other = _State(self.ctm)
        other.font, other.size, other.tc, other.tw = self.font, self.size, self.tc, self.tw
        other.tz, other.tl, other.ts = self.tz, self.tl, self.ts
        return other


def display_matrix(page: Any) -> tuple[Matrix, float, float]:
    """The matrix from user space to upright display space (y up, origin at the lower left
    of the crop box) after the page's /Rotate, and the display width and height."""
    try:
        box = [float(v) for v in page.cropbox]
    except (TypeError, ValueError, KeyError, AttributeError):
        box = [0.0, 0.0, 612.0, 792.0]
    left, bottom, right, top = min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])
    try:
        rotation = int(page.rotation) % 360
    except (TypeError, ValueError, AttributeError):
        rotation = 0
    shift: Matrix = (1.0, 0.0, 0.0, 1.0, -left, -bottom)
    width, height = right - left, top - bottom
    # /Rotate 90 turns the page a quarter clockwise as shown: the turn that makes text
    # running upwards read left to right.
    if rotation == 90:
        return _mult(shift, _turn(1, width, height)), height, width
    if rotation == 180:
        return _mult(shift, _turn(2, width, height)), width, height
    if rotation == 270:
        return _mult(shift, _turn(3, width, height)), height, width
    return shift, width, height


def _turn(direction: int, width: float, height: float) -> Matrix:
    """The matrix that turns a ``width`` × ``height`` box (origin at its lower left) so
    that text running ``direction`` quarter turns counter-clockwise from left-to-right
    (1: upwards, 2: right-to-left upside down, 3: downwards) runs left to right, origin
    again at the lower left.

    >>> _turn(1, 600, 800)[:4], _turn(3, 600, 800)[:4]
    ((0.0, -1.0, 1.0, 0.0), (0.0, 1.0, -1.0, 0.0))
    """
    if direction == 1:
        return (0.0, -1.0, 1.0, 0.0, 0.0, width)
    if direction == 2:
        return (-1.0, 0.0, 0.0, -1.0, width, height)
    if direction == 3:
        return (0.0, 1.0, -1.0, 0.0, height, 0.0)
    return IDENTITY


def _direction(a: float, b: float) -> int | None:
    """The quarter turns (0-3) counter-clockwise from left-to-right of a baseline whose
    direction is ``(a, b)``, or None when it is slanted (more than about half a degree
    off an axis)."""
    if a > 0 and abs(b) <= 0.01 * a:
        return 0
    if b > 0 and abs(a) <= 0.01 * b:
        return 1
    if a < 0 and abs(b) <= -0.01 * a:
        return 2
    if b < 0 and abs(a) <= -0.01 * b:
        return 3
    return None


def _actual_text(properties: Any) -> str | None:
    """The /ActualText of a BDC property dictionary (inline), decoded, or None."""
    from pypdf.generic import create_string_object

    value = properties.get("/ActualText") if isinstance(properties, dict) else None
    if not isinstance(value, bytes):
        return None
    try:
        return str(create_string_object(value))
    except (ValueError, TypeError, UnicodeDecodeError):
        return None


class _Interpreter:
    """Reads the text operators of one page (and its forms) into runs."""

    def __init__(self, reader: Any, fonts: FontCache, budget: ContentBudget | None = None) -> None:
        self.reader = reader
        self.fonts = fonts
        self.budget = budget
        # Runs and visible characters by direction (see _direction), in the frame where
        # that direction reads left to right; the page keeps the direction of most text.
        self.runs: tuple[list[Run], ...] = ([], [], [], [])
        self.chars = [0, 0, 0, 0]
        self.frames: tuple[Matrix, ...] = (IDENTITY,) * 4
        self.skipped = 0
        self.form_calls = 0
        self.forms_open: set[Any] = set()
        # Marked content: a stack of ActualText strings (None for spans without one);
        # while the innermost ActualText is pending, glyphs shown are replaced by it.
        self.marks: list[list[Any] | None] = []

    def page(self, page: Any) -> PageText:
        from pypdf.generic import ArrayObject, StreamObject

        display, width, height = display_matrix(page)
        self.frames = tuple(_turn(direction, width, height) for direction in range(4))
        contents = page.get("/Contents")
        contents = contents.get_object() if contents is not None else None
        # A stream is a dictionary, and an empty one is falsy: test the type.
        if isinstance(contents, StreamObject):
            parts = [contents]
        elif isinstance(contents, ArrayObject):
            parts = [part for part in (item.get_object() for item in contents) if isinstance(part, StreamObject)]
        else:
            return PageText([], 0, height, display)
        if self.budget is not None:
            self.budget.start_page()
        data = b"\n".join([self._data(part) for part in parts])
        for part in parts:
            # pypdf keeps each decoded stream beside the encoded one; a page is read once, so
            # dropping it keeps memory to the file's size rather than its decompressed size.
            if getattr(part, "decoded_self", None) is not None:
                part.decoded_self = None
        resources = page.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        self.run_ops(operations(data), resources, _State(display), 0)
        chars = self.chars
        direction = max(range(4), key=lambda turn: (chars[turn], -turn))
        skipped = self.skipped + sum(chars) - chars[direction]
        frame_height = height if direction % 2 == 0 else width
        return PageText(self.runs[direction], skipped, frame_height, _mult(display, self.frames[direction]))

    def _data(self, stream: Any) -> bytes:
        """The decoded bytes of a content stream or form, counted against the budget."""
        data = stream.get_data()
        if self.budget is not None:
            self.budget.take(len(data))
        return data

    def _font_resource(self, resources: Any, name: Any) -> _Font | None:
        try:
            font_dict = resources["/Font"].get_object()
            ref = font_dict.raw_get(name)
        except (KeyError, TypeError, AttributeError):
            return None
        return self.fonts.get(ref)

    def show(self, data: bytes, state: _State, tm: Matrix) -> Matrix:
        """Show one string at text matrix ``tm``; returns the text matrix after it."""
        font = state.font
        if font is None or not font.usable:
            return tm
        text, width, glyphs, spaces = font.decode(data)
        size = state.size
        advance = (width * size + state.tc * glyphs + state.tw * spaces) * state.tz
        after = (tm[0], tm[1], tm[2], tm[3], tm[4] + advance * tm[0], tm[5] + advance * tm[1])
        text_space = _mult(tm, state.ctm)
        scale = size * state.tz
        direction = _direction(scale * text_space[0], scale * text_space[1])
        if direction is None:
            # Slanted text: its lines cannot be read left to right in any frame of the page.
            self.skipped += len(text.strip())
            return after
        if direction:
            text_space = _mult(text_space, self.frames[direction])
        ma, mb, mc, md, me, mf = text_space
        # The glyphs' matrix (font size, scaling, rise applied) and the advance, unrolled.
        a, b, c, d = scale * ma, scale * mb, size * mc, size * md
        x0 = state.ts * mc + me
        y = state.ts * md + mf
        if a <= 0 or abs(b) > 0.01 * a or abs(c) > 0.01 * abs(d) or d == 0:
            # Sheared or flattened glyphs: not a line to read.
            self.skipped += len(text.strip())
            return after
        runs = self.runs[direction]
        x1 = x0 + advance * ma
        mark = self.marks[-1] if self.marks else None
        if mark is not None:
            if mark[1]:
                # ActualText replaces the glyphs: once, at the first string of the span.
                mark[1] = False
                replacement = mark[0]
                # An invisible replacement (a soft hyphen) takes no room on the line.
                end = x1 if replacement.strip("\u00ad") else x0
                runs.append(Run(replacement, x0, end, y, abs(d), font.index))
                self.chars[direction] += len(replacement.strip())
            elif runs and mark[0].strip("\u00ad"):
                last = runs[-1]
                runs[-1] = last._replace(x1=max(last.x1, x1))
            return after
        if text:
            runs.append(Run(text, x0, x1, y, abs(d), font.index))
            self.chars[direction] += len(text.strip())
        return after

    def run_ops(self, ops: Iterable[tuple[list[Any], str]], resources: Any, state: _State, depth: int) -> None:
        stack: list[_State] = []
        tm = lm = IDENTITY
        for operands, operator in ops:
            if operator == "Tj" or operator == "'" or operator == '"':
                if operator != "Tj":
                    if operator == '"' and len(operands) >= 3:
                        state.tw = _number(operands[0:1], state.tw)
                        state.tc = _number(operands[1:2], state.tc)
                        operands = operands[2:]
                    lm = tm = _mult((1.0, 0.0, 0.0, 1.0, 0.0, -state.tl), lm)
                if operands and isinstance(operands[0], bytes):
                    tm = self.show(operands[0], state, tm)
            elif operator == "TJ":
                if operands and isinstance(operands[0], list):
                    for item in operands[0]:
                        if isinstance(item, bytes):
                            tm = self.show(item, state, tm)
                        elif isinstance(item, (int, float)) and not isinstance(item, bool):
                            shift = -float(item) / 1000.0 * state.size * state.tz
                            tm = _mult((1.0, 0.0, 0.0, 1.0, shift, 0.0), tm)
            elif operator == "Td" or operator == "TD":
                values = _numbers(operands, 2)
                if values is not None:
                    if operator == "TD":
                        state.tl = -values[1]
                    lm = tm = _mult((1.0, 0.0, 0.0, 1.0, values[0], values[1]), lm)
            elif operator == "Tm":
                values = _numbers(operands, 6)
                if values is not None:
                    lm = tm = values  # type: ignore[assignment]
            elif operator == "T*":
                lm = tm = _mult((1.0, 0.0, 0.0, 1.0, 0.0, -state.tl), lm)
            elif operator == "BT":
                tm = lm = IDENTITY
            elif operator == "Tf":
                if len(operands) >= 2:
                    state.font = self._font_resource(resources, operands[0]) if resources is not None else None
                    state.size = _number(operands[1:2], state.size)
            elif operator == "Tc":
                state.tc = _number(operands, state.tc)
            elif operator == "Tw":
                state.tw = _number(operands, state.tw)
            elif operator == "Tz":
                state.tz = _number(operands, state.tz * 100.0) / 100.0
            elif operator == "TL":
                state.tl = _number(operands, state.tl)
            elif operator == "Ts":
                state.ts = _number(operands, state.ts)
            elif operator == "q":
                stack.append(state.copy())
            elif operator == "Q":
                if stack:
                    state = stack.pop()
            elif operator == "cm":
                values = _numbers(operands, 6)
                if values is not None:
                    state.ctm = _mult(values, state.ctm)  # type: ignore[arg-type]
            elif operator == "BDC" or operator == "BMC":
                text = _actual_text(operands[1]) if operator == "BDC" and len(operands) >= 2 else None
                self.marks.append([text, True] if text is not None else (self.marks[-1] if self.marks else None))
            elif operator == "EMC":
                if self.marks:
                    self.marks.pop()
            elif operator == "Do" and operands and isinstance(operands[0], str) and resources is not None:
                self.form(operands[0], resources, state, depth)

    def form(self, name: Any, resources: Any, state: _State, depth: int) -> None:
        from pypdf.generic import IndirectObject

        try:
            ref = resources["/XObject"].get_object().raw_get(name)
        except (KeyError, TypeError, AttributeError):
            return
        key = (ref.idnum, ref.generation) if isinstance(ref, IndirectObject) else id(ref)
        if depth >= MAX_FORM_DEPTH or key in self.forms_open or self.form_calls >= MAX_FORM_CALLS:
            return
        form = ref.get_object()
        try:
            if form.get("/Subtype") != "/Form":
                return
        except AttributeError:
            return
        self.form_calls += 1
        inner = state.copy()
        values = _numbers(list(form.get("/Matrix", [])), 6)
        if values is not None:
            inner.ctm = _mult(values, inner.ctm)  # type: ignore[arg-type]
        own = form.get("/Resources")
        own = own.get_object() if own is not None else resources
        self.forms_open.add(key)
        try:
            self.run_ops(operations(self._data(form)), own, inner, depth + 1)
        finally:
            self.forms_open.discard(key)


def page_text(reader: Any, page: Any, fonts: FontCache, budget: ContentBudget | None = None) -> PageText:
    """The runs of text on ``page`` of ``reader`` (a pypdf ``PdfReader``), in stream order.

    The page is read in the direction most of its text runs (by characters; upright as
    displayed on a tie): text drawn upright on a page whose /Rotate turns it sideways, or
    turned on the page to fill a landscape sheet, is read as the lines it forms. Text in any
    other direction (a vertical label in the margin) and slanted text are left out and
    counted in ``skipped_chars``. ``height`` and ``matrix`` describe that reading frame:
    y goes up the lines, the origin is the frame's lower left corner.

    ``budget`` (shared by the pages of one file) bounds the decoded content drawn.

    Raises whatever pypdf raises for a damaged page, and :class:`TooMuchContent`; the
    caller turns them into an error.
    """
    return _Interpreter(reader, fonts, budget).page(page)

