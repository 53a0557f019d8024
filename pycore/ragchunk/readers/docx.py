"""Word documents (.docx, Office Open XML) -> Markdown: headings, lists, tables, code, notes.

>>> import io, zipfile
>>> body = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
...         '<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>Scope</w:t></w:r></w:p>'
...         '<w:p><w:r><w:t xml:space="preserve">Kept </w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del>'
...         '<w:ins><w:r><w:t>new</w:t></w:r></w:ins></w:p></w:body></w:document>')
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as z:
...     z.writestr("[Content_Types].xml", "<Types/>"); z.writestr("word/document.xml", body)
>>> print(read(buffer.getvalue(), "memo.docx", ReadOptions()).text, end="")
## Scope
<BLANKLINE>
Kept new

Headings come from paragraph styles: Title (level 1), Heading 1-9 (levels 1-6, deeper
ones at 6), any style based on them, and any paragraph or style with an outline level
(``w:outlineLvl``). Lists come from numbering (``w:numPr`` on the paragraph or its style):
nesting from the level, ordered or bullet from ``numbering.xml``'s number format, numbers
counted per list as Word counts them. Tables become pipe tables (merged cells left empty;
a one-column table becomes paragraphs; a table in a cell is flattened into the cell's
text). Code styles (Source Code, HTML Preformatted, Preformatted Text, Code) become
fenced code. Footnotes and endnotes are numbered ``[^1]`` where they are referenced and
written at the end under a ``# Footnotes`` / ``# Endnotes`` heading. Tracked deletions
(``w:del``, ``w:moveFrom``) are dropped and insertions kept; a field keeps its result, not
its instruction; hyperlinks keep their text; a text box keeps its paragraphs; table of
contents paragraphs (TOC styles) are dropped unless ``keep_boilerplate``. A heading's
anchor is the bookmark that starts just before it or in it (``_GoBack`` aside). The title is the
core properties' ``dc:title``, else the first Title paragraph; it is written as a ``#``
heading at the top when no level-1 heading exists.

Strict Open XML (Word's "Strict Open XML Document", namespaces under
``http://purl.oclc.org/ooxml/``) reads as the usual Transitional form: a part whose first
megabyte names a Strict namespace has its WordprocessingML, math and relationship names read
as the Transitional ones, and relationships are matched by the last segment of their type,
which both forms share.

Equations (OMML ``m:oMath``, ``m:oMathPara``) are kept where they stand as linear text:
their text in reading order, a superscript as ``base^sup`` and a subscript as ``base_sub``,
a fraction as ``num/den``, a root as ``√x`` (``n√x`` with a degree), an n-ary operator as
``∑_sub^sup body``, a function as ``sin θ``, delimiters with their characters (``(a|b)``
unless the equation names others), an accent after its letter, a matrix as ``a, b; c, d``
and an equation array's lines on lines of their own. A script, numerator, denominator or
radicand longer than one character and not all letters and digits is put in parentheses,
so ``E=mc^2`` but ``10^(-6)`` and ``(a+b)/2``. The invisible function application
(U+2061) becomes a space (``sin θ``); the other invisible operators are dropped.
Past :data:`MAX_MATH_NESTING` levels an equation's structure is read as plain text.

>>> math = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
...         'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><w:body><w:p>'
...         '<w:r><w:t xml:space="preserve">So </w:t></w:r><m:oMath><m:r><m:t>E=m</m:t></m:r>'
...         '<m:sSup><m:e><m:r><m:t>c</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup>'
...         '</m:oMath><w:r><w:t>.</w:t></w:r></w:p></w:body></w:document>')
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as z:
...     z.writestr("[Content_Types].xml", "<Types/>"); z.writestr("word/document.xml", math)
>>> print(read(buffer.getvalue(), "energy.docx", ReadOptions()).text, end="")
So E=mc^2.

Raises :class:`RagchunkError` (``field="file"``) for a password-protected document
(``docx_encrypted``), an old binary .doc (``doc_binary``), and anything :mod:`.safety`
refuses (corrupt or bomb ZIP, XML with entities, XML that is not well formed).
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Callable
from functools import partial

from ._math import INVISIBLE_OPERATORS, MAX_MATH_NESTING, grouped
from .base import Extracted, ReadOptions
from .safety import Archive, file_error, iter_entry, open_zip, parse_xml, read_entry, text_too_large
from .writer import HTML_SPACE, MarkdownWriter, collapse, table_cell

__all__ = ["read"]

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math}"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
# Strict Open XML's namespaces -> the Transitional ones every handler here is written for.
STRICT_NAMESPACES = (("http://purl.oclc.org/ooxml/wordprocessingml/main}", W),
                     ("http://purl.oclc.org/ooxml/officeDocument/math}", M),
                     ("http://purl.oclc.org/ooxml/officeDocument/relationships}", R))
STRICT_MARK = b"http://purl.oclc.org/ooxml/"
MC_FALLBACK = "http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
DC_TITLE = "http://purl.org/dc/elements/1.1/}title"
REL = "http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")

_CODE_STYLES = frozenset(("source code", "sourcecode", "html preformatted", "preformatted text", "code",
                          "code block", "macro text"))
_QUOTE_STYLES = frozenset(("block text", "quote", "intense quote"))
# Word's "List Bullet 2", "List Number 3" ...: a list level set by the style, not by ilvl.
_LEVELLED_LISTS = ("list bullet ", "list number ", "list continue ", "list ")
_SKIPPED_TEXT = frozenset((W + "del", W + "moveFrom", MC_FALLBACK, W + "instrText", W + "delInstrText"))
MAX_STYLE_CHAIN = 64
# OMML elements that lay out their arguments (rendered by _math_text) and the arguments.
_MATH_STRUCTURES = ("oMathPara", "sSup", "sSub", "sSubSup", "sPre", "f", "rad", "nary", "d", "func", "limLow",
                    "limUpp", "acc", "bar", "groupChr", "box", "borderBox", "phant", "eqArr", "m", "mr")
_MATH_ARGUMENTS = ("oMath", "e", "num", "den", "sup", "sub", "deg", "fName", "lim")
# Properties (their m:val) that change how a structure reads: n-ary and accent characters, delimiters.
_MATH_PROPERTIES = ("chr", "begChr", "endChr", "sepChr", "degHide")


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read a .docx (``kind="docx"``); see the module docstring.

    Raises:
        RagchunkError: ``docx_encrypted``, ``doc_binary``, ``docx_not_word`` and the
            archive and XML errors of :mod:`ragchunk.readers.safety`.
    """
    if data.startswith(OLE_SIGNATURE):
        if ENCRYPTED_STREAM in data:
            raise file_error(name, "docx_encrypted", "is protected by a password (Word stores such files "
                             "encrypted)", "open it in Word, remove the password (File > Info > Protect "
                             "Document) and save it again")
        raise file_error(name, "doc_binary", "is an old Word document (.doc), not a .docx",
                         "open it in Word or LibreOffice and save it as .docx")
    archive = open_zip(data, name, "docx")
    main = _main_part(archive)
    if main is None:
        raise file_error(name, "docx_not_word", "is a ZIP archive without a Word document in it (no "
                         "word/document.xml)", "save it from Word as .docx")
    rels = _relationships(archive, _rels_path(main))
    folder = posixpath.dirname(main)

    def part(kind: str, default: str) -> str | None:
        target = rels.get(kind)
        path = _resolve(folder, target) if target else default
        return path if archive.has(path) else None

    styles = _Styles(archive, part("styles", posixpath.join(folder, "styles.xml")), name)
    numbering = _Numbering(archive, part("numbering", posixpath.join(folder, "numbering.xml")), name)
    body = _Body(styles, numbering, options, name)
    _parse_part(archive, name, main, body.start, body.end, body.text)
    body.finish()
    out = body.out
    for kind, heading, mark in (("footnotes", "Footnotes", ""), ("endnotes", "Endnotes", "e")):
        order = body.notes[kind]
        path = part(kind, posixpath.join(folder, f"{kind}.xml"))
        if not order or path is None:
            continue
        notes = _Body(styles, numbering, options, name, collect=True)
        _parse_part(archive, name, path, notes.start, notes.end, notes.text)
        out.heading(1, heading)
        for note_id, number in order.items():
            text = collapse(" ".join(notes.collected.get(note_id, [])))
            if text:
                out.paragraph(f"[^{mark}{number}]: {text}")
    title = _core_title(archive, name) or body.title_text
    text = out.text()
    anchors = list(out.anchors)
    if title and out.top_headings == 0:
        prefix = "# " + collapse(title) + ("\n\n" if text else "\n")
        text = prefix + text
        anchors = [(offset + len(prefix), anchor) for offset, anchor in anchors]
    return Extracted(text, "docx", collapse(title), (), tuple(anchors), ())


def _parse_part(archive: Archive, name: str, path: str, start: Callable[[str, dict[str, str]], None],
                end: Callable[[str], None], text: Callable[[str], None] | None = None) -> None:
    """:func:`parse_xml` over one part; in a Strict Open XML part, names come as the Transitional ones.

    A part is Strict when its first piece names a Strict namespace (the root element declares
    them); a Transitional part is parsed with no work per element added.
    """
    pieces = iter_entry(archive, path)
    first = next(pieces, b"")
    if STRICT_MARK in first:
        start, end = _transitional(start, end)
    parse_xml(itertools.chain((first,), pieces), name, path, start, end, text)


def _transitional(start: Callable[[str, dict[str, str]], None], end: Callable[[str], None]
                  ) -> tuple[Callable[[str, dict[str, str]], None], Callable[[str], None]]:
    """``start`` and ``end`` handlers that are given Strict tag and attribute names as Transitional ones."""
    names: dict[str, str] = {}

    def transitional(tag: str) -> str:
        found = names.get(tag)
        if found is None:
            found = tag
            for strict, usual in STRICT_NAMESPACES:
                if tag.startswith(strict):
                    found = usual + tag[len(strict):]
                    break
            names[tag] = found
        return found

    def strict_start(tag: str, attrs: dict[str, str]) -> None:
        start(transitional(tag), {transitional(key): value for key, value in attrs.items()} if attrs else attrs)

    def strict_end(tag: str) -> None:
        end(transitional(tag))

    return strict_start, strict_end


def _rels_path(part: str) -> str:
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", base + ".rels")


def _resolve(folder: str, target: str) -> str:
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(folder, target)).lstrip("/")


def _relationships(archive: Archive, path: str) -> dict[str, str]:
    """Relationship type (its last path segment: ``styles``, ``footnotes`` ...) -> target, of one part."""
    found: dict[str, str] = {}
    if not archive.has(path):
        return found

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == REL and attrs.get("TargetMode") != "External":
            kind = attrs.get("Type", "").rsplit("/", 1)[-1]
            found.setdefault(kind, attrs.get("Target", ""))

    parse_xml(read_entry(archive, path), archive.name, path, start)
    return found


def _main_part(archive: Archive) -> str | None:
    target = _relationships(archive, "_rels/.rels").get("officeDocument")
    if target:
        path = _resolve("", target)
        if archive.has(path):
            return path
    return "word/document.xml" if archive.has("word/document.xml") else None


def _core_title(archive: Archive, name: str) -> str:
    target = _relationships(archive, "_rels/.rels").get("core-properties")
    path = _resolve("", target) if target else "docProps/core.xml"
    if not archive.has(path):
        return ""
    parts: list[str] = []
    depth = [0]

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == DC_TITLE:
            depth[0] += 1

    def end(tag: str) -> None:
        if tag == DC_TITLE:
            depth[0] -= 1

    def text(data: str) -> None:
        if depth[0] > 0:
            parts.append(data)

    parse_xml(read_entry(archive, path), name, path, start, end, text)
    return collapse("".join(parts))


class _Styles:
    """Paragraph styles: each one's heading level, code and TOC flags and numbering, through ``basedOn``."""

    def __init__(self, archive: Archive, path: str | None, name: str) -> None:
        self.raw: dict[str, dict] = {}
        self.resolved: dict[str, tuple[int, bool, bool, tuple[str, int] | None, bool, bool]] = {}
        self.default = ""
        if path is None:
            return
        current: dict | None = None
        in_ppr = 0

        def start(tag: str, attrs: dict[str, str]) -> None:
            nonlocal current, in_ppr
            if tag == W + "style":
                if attrs.get(W + "type", "paragraph") == "paragraph":
                    current = {"id": attrs.get(W + "styleId", ""), "name": "", "based": "", "outline": None,
                               "num": None, "ilvl": 0}
                    if attrs.get(W + "default") in ("1", "true", "on"):
                        self.default = current["id"]
                return
            if current is None:
                return
            value = attrs.get(W + "val", "")
            if tag == W + "name":
                current["name"] = value
            elif tag == W + "basedOn":
                current["based"] = value
            elif tag == W + "pPr":
                in_ppr += 1
            elif in_ppr and tag == W + "outlineLvl":
                current["outline"] = _int(value)
            elif in_ppr and tag == W + "numId":
                current["num"] = value
            elif in_ppr and tag == W + "ilvl":
                current["ilvl"] = _int(value) or 0

        def end(tag: str) -> None:
            nonlocal current, in_ppr
            if tag == W + "style" and current is not None:
                self.raw.setdefault(current["id"], current)
                current = None
            elif tag == W + "pPr" and in_ppr:
                in_ppr -= 1

        _parse_part(archive, name, path, start, end)

    def resolve(self, style_id: str) -> tuple[int, bool, bool, tuple[str, int] | None, bool, bool]:
        """(heading level or 0, code, table of contents, (numId, ilvl) or None, is Title, quote) of a style."""
        style_id = style_id or self.default
        found = self.resolved.get(style_id)
        if found is not None:
            return found
        chain = []
        seen = set()
        current = self.raw.get(style_id)
        while current is not None and current["id"] not in seen and len(chain) < MAX_STYLE_CHAIN:
            seen.add(current["id"])
            chain.append(current)
            current = self.raw.get(current["based"]) if current["based"] else None
        level, code, toc, num, title, quote = 0, False, False, None, False, False
        level_set = num_set = False
        list_level = 0
        for style in chain:  # the style itself first, then what it is based on
            name = style["name"].strip().lower() or style["id"].lower()
            if not level_set:
                outline = style["outline"]
                if outline is not None:
                    level, level_set = (outline + 1 if 0 <= outline <= 8 else 0), True
                elif name == "title":
                    level, level_set, title = 1, True, True
                elif name.startswith("heading ") and name[8:].strip().isdigit():
                    level, level_set = int(name[8:].strip()), True
                elif name.startswith("heading") and name[7:].isdigit():
                    level, level_set = int(name[7:]), True
            if name in _CODE_STYLES:
                code = True
            if name in _QUOTE_STYLES:
                quote = True
            if not list_level:
                for prefix in _LEVELLED_LISTS:
                    if name.startswith(prefix) and name[len(prefix):].isdigit():
                        list_level = max(0, min(int(name[len(prefix):]) - 1, 8))
                        break
            if name.startswith("toc") and (name[3:4] in (" ", "") or name[3:].isdigit()) or name == "table of figures":
                toc = True
            if not num_set and style["num"] is not None:
                num, num_set = ((style["num"], style["ilvl"]) if style["num"] != "0" else None), True
        if num is not None and list_level and not num[1]:
            num = (num[0], list_level)
        found = (min(level, 9), code, toc, num, title, quote)
        self.resolved[style_id] = found
        return found


class _Numbering:
    """numId -> per level (ilvl) whether the list is ordered and where it starts, from numbering.xml."""

    def __init__(self, archive: Archive, path: str | None, name: str) -> None:
        self.abstract: dict[str, dict[int, tuple[str, int]]] = {}
        self.nums: dict[str, str] = {}
        if path is None:
            return
        abstract: dict[int, tuple[str, int]] | None = None
        level: list | None = None
        num: str | None = None

        def start(tag: str, attrs: dict[str, str]) -> None:
            nonlocal abstract, level, num
            value = attrs.get(W + "val", "")
            if tag == W + "abstractNum":
                abstract = self.abstract.setdefault(attrs.get(W + "abstractNumId", ""), {})
            elif tag == W + "lvl" and abstract is not None:
                level = [_int(attrs.get(W + "ilvl", "0")) or 0, "decimal", 1]
            elif tag == W + "numFmt" and level is not None:
                level[1] = value
            elif tag == W + "start" and level is not None:
                level[2] = _int(value) or 0
            elif tag == W + "num":
                num = attrs.get(W + "numId", "")
            elif tag == W + "abstractNumId" and num is not None:
                self.nums[num] = value

        def end(tag: str) -> None:
            nonlocal abstract, level, num
            if tag == W + "lvl" and level is not None and abstract is not None:
                abstract.setdefault(level[0], (level[1], level[2]))
                level = None
            elif tag == W + "abstractNum":
                abstract = None
            elif tag == W + "num":
                num = None

        _parse_part(archive, name, path, start, end)

    def format(self, num_id: str, ilvl: int) -> tuple[str, int]:
        """(number format, start) of a list level; ("bullet", 1) when numbering.xml does not say."""
        levels = self.abstract.get(self.nums.get(num_id, ""), {})
        return levels.get(ilvl, ("bullet", 1))


class _Paragraph:
    __slots__ = ("style", "outline", "num", "ilvl", "pieces")

    def __init__(self) -> None:
        self.style = ""
        self.outline: int | None = None
        self.num: str | None = None
        self.ilvl: int | None = None
        self.pieces: list[str] = []


class _Table:
    __slots__ = ("rows", "row", "cell", "span", "merged")

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.span = 1
        self.merged = False


class _Math:
    """One open OMML element that is read as a piece of an equation: a structure or an argument."""

    __slots__ = ("kind", "parts", "args", "props")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[str] = []  # text and the pieces inside, in reading order
        self.args: list[tuple[str, str]] = []  # (kind, text) of each piece inside
        self.props: dict[str, str] = {}


class _Body:
    """The handlers for one XML part of paragraphs: the document (written out) or the notes (collected)."""

    def __init__(self, styles: _Styles, numbering: _Numbering, options: ReadOptions, name: str,
                 collect: bool = False) -> None:
        self.styles = styles
        self.numbering = numbering
        self.keep = options.keep_boilerplate
        self.name = name
        self.collect = collect
        self.collected: dict[str, list[str]] = {}
        self.note_id: str | None = None
        self.out = MarkdownWriter(options.max_chars, name)
        # Text seen in the part, written or not yet (one paragraph can be the whole file).
        self.seen = 0
        self.max_chars = options.max_chars
        self.paragraphs: list[_Paragraph] = []
        self.tables: list[_Table] = []
        self.skip = 0  # open elements whose text is not the document's (deletions, fallbacks)
        self.fields: list[bool] = []  # per open field: True while in its result
        self.in_text = False
        self.ppr = 0
        self.notes: dict[str, dict[str, int]] = {"footnotes": {}, "endnotes": {}}
        self.code: list[str] = []  # the lines of consecutive code paragraphs
        self.levels: list[bool] = []  # open list levels (ordered?)
        self.counters: dict[tuple[str, int], int] = {}
        self.title_text = ""
        self.bookmark = ""  # the latest bookmark since the last block: a heading's anchor
        self.math: list[_Math] = []  # the open pieces of an equation
        self.math_deeper = 0  # open pieces past MAX_MATH_NESTING, read as plain text
        self._handlers()

    # --- events ---------------------------------------------------------------------
    # One dict look-up per element: a long document has millions of them, and most (runs,
    # their properties) need nothing.
    def start(self, tag: str, attrs: dict[str, str]) -> None:
        handler = self._starts.get(tag)
        if handler is not None:
            handler(attrs)

    def end(self, tag: str) -> None:
        handler = self._ends.get(tag)
        if handler is not None:
            handler()

    def _handlers(self) -> None:
        skip = {tag: self._skip_start for tag in _SKIPPED_TEXT}
        self._starts = {**skip, **{W + local: getattr(self, "_start_" + local) for local in (
            "t", "p", "pPr", "pStyle", "outlineLvl", "numId", "ilvl", "tab", "ptab", "br", "cr", "noBreakHyphen",
            "fldChar", "footnoteReference", "endnoteReference", "tbl", "tr", "tc", "gridSpan", "vMerge",
            "footnote", "endnote", "bookmarkStart")}}
        self._ends = {**{tag: self._skip_end for tag in _SKIPPED_TEXT}, **{W + local: getattr(self, "_end_" + local)
                      for local in ("t", "pPr", "p", "tc", "tr", "tbl", "footnote", "endnote")}}
        for local in _MATH_STRUCTURES + _MATH_ARGUMENTS:
            self._starts[M + local] = partial(self._math_open, local)
            self._ends[M + local] = self._math_close
        for local in _MATH_PROPERTIES:
            self._starts[M + local] = partial(self._math_property, local)
        self._starts[M + "t"], self._ends[M + "t"] = self._start_t, self._end_t

    def _skip_start(self, attrs: dict[str, str]) -> None:
        self.skip += 1

    def _skip_end(self) -> None:
        self.skip -= 1

    def _start_t(self, attrs: dict[str, str]) -> None:
        self.in_text = True

    def _end_t(self) -> None:
        self.in_text = False

    def _start_p(self, attrs: dict[str, str]) -> None:
        self.paragraphs.append(_Paragraph())

    def _end_p(self) -> None:
        if self.paragraphs:
            self.paragraph(self.paragraphs.pop())

    def _start_pPr(self, attrs: dict[str, str]) -> None:  # noqa: N802 (the element's name)
        if self.paragraphs:
            self.ppr += 1

    def _end_pPr(self) -> None:  # noqa: N802
        self.ppr = max(0, self.ppr - 1)

    def _property(self, attrs: dict[str, str]) -> tuple[_Paragraph | None, str]:
        if self.ppr and self.paragraphs:
            return self.paragraphs[-1], attrs.get(W + "val", "")
        return None, ""

    def _start_pStyle(self, attrs: dict[str, str]) -> None:  # noqa: N802
        paragraph, value = self._property(attrs)
        if paragraph is not None:
            paragraph.style = value

    def _start_outlineLvl(self, attrs: dict[str, str]) -> None:  # noqa: N802
        paragraph, value = self._property(attrs)
        if paragraph is not None:
            paragraph.outline = _int(value)

    def _start_numId(self, attrs: dict[str, str]) -> None:  # noqa: N802
        paragraph, value = self._property(attrs)
        if paragraph is not None:
            paragraph.num = value

    def _start_ilvl(self, attrs: dict[str, str]) -> None:
        paragraph, value = self._property(attrs)
        if paragraph is not None:
            paragraph.ilvl = _int(value)

    def _piece(self, piece: str) -> None:
        """Text a run element stands for (a tab, a break), unless it is deleted or a field's instruction."""
        if self.paragraphs and not self.ppr and not self.skip and not (self.fields and not self.fields[-1]):
            (self.math[-1].parts if self.math else self.paragraphs[-1].pieces).append(piece)

    def _math_open(self, kind: str, attrs: dict[str, str]) -> None:
        if len(self.math) >= MAX_MATH_NESTING:
            self.math_deeper += 1
        else:
            self.math.append(_Math(kind))

    def _math_close(self) -> None:
        if self.math_deeper:
            self.math_deeper -= 1
            return
        if not self.math:
            return
        piece = self.math.pop()
        text = _math_text(piece)
        if self.math:
            parent = self.math[-1]
            parent.parts.append(text)
            parent.args.append((piece.kind, text))
        else:
            self._piece(text.translate(INVISIBLE_OPERATORS))

    def _math_property(self, name: str, attrs: dict[str, str]) -> None:
        if self.math:
            self.math[-1].props[name] = attrs.get(M + "val", "")

    def _start_tab(self, attrs: dict[str, str]) -> None:
        self._piece("\t")

    _start_ptab = _start_tab

    def _start_br(self, attrs: dict[str, str]) -> None:
        self._piece(" " if attrs.get(W + "type") == "page" else "\n")

    _start_cr = _start_br

    def _start_noBreakHyphen(self, attrs: dict[str, str]) -> None:  # noqa: N802
        self._piece("-")

    def _start_fldChar(self, attrs: dict[str, str]) -> None:  # noqa: N802
        kind = attrs.get(W + "fldCharType", "")
        if kind == "begin":
            self.fields.append(False)
        elif kind == "separate" and self.fields:
            self.fields[-1] = True
        elif kind == "end" and self.fields:
            self.fields.pop()

    def _reference(self, attrs: dict[str, str], kind: str, mark: str) -> None:
        if self.collect or not self.paragraphs or self.skip:
            return
        order = self.notes[kind]
        number = order.setdefault(attrs.get(W + "id", ""), len(order) + 1)
        self.paragraphs[-1].pieces.append(f"[^{mark}{number}]")

    def _start_footnoteReference(self, attrs: dict[str, str]) -> None:  # noqa: N802
        self._reference(attrs, "footnotes", "")

    def _start_endnoteReference(self, attrs: dict[str, str]) -> None:  # noqa: N802
        self._reference(attrs, "endnotes", "e")

    def _start_bookmarkStart(self, attrs: dict[str, str]) -> None:  # noqa: N802
        name = attrs.get(W + "name", "")
        if name and name != "_GoBack" and not self.bookmark and not self.tables:
            self.bookmark = name

    def _start_tbl(self, attrs: dict[str, str]) -> None:
        self.tables.append(_Table())

    def _end_tbl(self) -> None:
        if self.tables:
            self.table(self.tables.pop())

    def _start_tr(self, attrs: dict[str, str]) -> None:
        if self.tables:
            self.tables[-1].row = []

    def _end_tr(self) -> None:
        if self.tables:
            table = self.tables[-1]
            if table.row:
                table.rows.append(table.row)
            table.row = None

    def _start_tc(self, attrs: dict[str, str]) -> None:
        if self.tables:
            table = self.tables[-1]
            table.cell, table.span, table.merged = [], 1, False
            if table.row is None:
                table.row = []

    def _end_tc(self) -> None:
        if self.tables:
            table = self.tables[-1]
            if table.cell is not None and table.row is not None:
                table.row.append("" if table.merged else table_cell(" ".join(table.cell)))
                table.row.extend([""] * (table.span - 1))
            table.cell = None

    def _start_gridSpan(self, attrs: dict[str, str]) -> None:  # noqa: N802
        if self.tables:
            self.tables[-1].span = max(1, min(_int(attrs.get(W + "val", "1")) or 1, 64))

    def _start_vMerge(self, attrs: dict[str, str]) -> None:  # noqa: N802
        if self.tables:
            self.tables[-1].merged = attrs.get(W + "val", "continue") != "restart"

    def _start_footnote(self, attrs: dict[str, str]) -> None:
        if self.collect:
            self.note_id = attrs.get(W + "id") if attrs.get(W + "type", "normal") == "normal" else None

    _start_endnote = _start_footnote

    def _end_footnote(self) -> None:
        self.note_id = None

    _end_endnote = _end_footnote

    def text(self, data: str) -> None:
        if self.in_text and not self.skip and self.paragraphs and not (self.fields and not self.fields[-1]):
            self.seen += len(data)
            if self.seen > self.max_chars:
                raise text_too_large(self.name, self.max_chars)
            (self.math[-1].parts if self.math else self.paragraphs[-1].pieces).append(data)

    # --- blocks ---------------------------------------------------------------------
    def paragraph(self, paragraph: _Paragraph) -> None:
        raw = "".join(paragraph.pieces)
        level, code, toc, num, is_title, quote = self.styles.resolve(paragraph.style)
        if paragraph.outline is not None:
            level = paragraph.outline + 1 if 0 <= paragraph.outline <= 8 else 0
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(raw)
            return
        if self.collect:
            if self.note_id is not None:
                self.collected.setdefault(self.note_id, []).append(raw)
            return
        if toc and not self.keep:
            return
        if code:
            self.end_lists()
            self.code.extend(raw.replace("\r", "\n").split("\n"))
            return
        self.end_code()
        text = "\n".join(filter(None, (HTML_SPACE.sub(" ", line).strip(" ") for line in raw.split("\n"))))
        if not text:
            return
        bookmark, self.bookmark = self.bookmark, ""
        if level:
            self.end_lists()
            if is_title and not self.title_text:
                self.title_text = collapse(text)
            self.out.heading(level, text.replace("\n", " "), bookmark)
            return
        if paragraph.num is not None:
            num = (paragraph.num, paragraph.ilvl or 0) if paragraph.num != "0" else None
        elif num is not None and paragraph.ilvl is not None:
            num = (num[0], paragraph.ilvl)
        if num is not None:
            fmt, start = self.numbering.format(num[0], num[1])
            if fmt != "none":
                self.list_item(num[0], num[1], fmt != "bullet", start, text)
                return
        self.end_lists()
        if quote:
            self.out.open_quote()
            self.out.paragraph(text)
            self.out.close_quote()
            return
        self.out.paragraph(text)

    def list_item(self, num_id: str, ilvl: int, ordered: bool, start: int, text: str) -> None:
        out = self.out
        ilvl = max(0, min(ilvl, 8))
        depth = min(ilvl, len(self.levels))  # a level deeper than one below its parent is written there
        while len(self.levels) > depth + 1:
            out.close_item()
            out.close_list()
            self.levels.pop()
        if len(self.levels) == depth + 1:
            out.close_item()
            if self.levels[-1] != ordered:
                out.close_list()
                out.open_list(ordered)
                self.levels[-1] = ordered
        else:
            out.open_list(ordered)
            self.levels.append(ordered)
        # Word counts on across the lists (w:num) that share one abstract numbering.
        key = (self.numbering.nums.get(num_id, num_id), ilvl)
        number = self.counters.get(key, start - 1) + 1
        self.counters[key] = number
        for deeper in range(ilvl + 1, 9):
            self.counters.pop((key[0], deeper), None)
        out.open_item(number if ordered else None)
        out.paragraph(text)

    def end_lists(self) -> None:
        while self.levels:
            self.out.close_item()
            self.out.close_list()
            self.levels.pop()

    def end_code(self) -> None:
        if self.code:
            code, self.code = "\n".join(self.code), []
            self.out.code(code)

    def table(self, table: _Table) -> None:
        if table.row:
            table.rows.append(table.row)
        rows = [row for row in table.rows if any(row)]
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(" ; ".join(" ".join(c for c in row if c) for row in rows))
            return
        if self.collect:
            if self.note_id is not None:
                self.collected.setdefault(self.note_id, []).extend(" ".join(row) for row in rows)
            return
        self.end_code()
        self.end_lists()
        if max((len(row) for row in rows), default=0) <= 1:
            for row in rows:
                for cell in row:
                    self.out.paragraph(cell.replace("\\|", "|"))
            return
        self.out.table(rows)

    def finish(self) -> None:
        while self.paragraphs:
            self.paragraph(self.paragraphs.pop())
        self.end_code()
        self.end_lists()


def _math_text(piece: _Math) -> str:
    """The linear text of one piece of an equation (see the module docstring), its pieces inside read already.

    >>> fraction = _Math("f"); fraction.args = [("num", "a+b"), ("den", "2")]
    >>> _math_text(fraction)
    '(a+b)/2'
    """
    kind = piece.kind
    # A structure without arguments is one at MAX_MATH_NESTING: the text inside was read into it.
    if kind in _MATH_ARGUMENTS or not piece.args or kind in ("bar", "groupChr", "box", "borderBox", "phant"):
        return "".join(piece.parts)
    first: dict[str, str] = {}
    for name, text in piece.args:
        first.setdefault(name, text)
    base = first.get("e", "")
    if kind == "sSup":
        return base + "^" + grouped(first.get("sup", ""))
    if kind == "sSub":
        return base + "_" + grouped(first.get("sub", ""))
    if kind == "sSubSup":
        return base + "_" + grouped(first.get("sub", "")) + "^" + grouped(first.get("sup", ""))
    if kind == "sPre":
        return "_" + grouped(first.get("sub", "")) + "^" + grouped(first.get("sup", "")) + base
    if kind == "f":
        return grouped(first.get("num", "")) + "/" + grouped(first.get("den", ""))
    if kind == "rad":
        degree = "" if piece.props.get("degHide", "off") not in ("off", "0", "false") else first.get("deg", "")
        return degree + "√" + grouped(base)
    if kind == "nary":
        sub, sup = first.get("sub", ""), first.get("sup", "")
        return (piece.props.get("chr") or "∫") + ("_" + grouped(sub) if sub else "") + \
            ("^" + grouped(sup) if sup else "") + (" " + base if base else "")
    if kind == "d":
        props = piece.props
        separator = props.get("sepChr", "|")
        return props.get("begChr", "(") + separator.join(text for name, text in piece.args if name == "e") + \
            props.get("endChr", ")")
    if kind == "func":
        name = first.get("fName", "")
        return name + (base if base.startswith("(") else " " + base)
    if kind == "limLow":
        return base + "_" + grouped(first.get("lim", ""))
    if kind == "limUpp":
        return base + "^" + grouped(first.get("lim", ""))
    if kind == "acc":
        return base + piece.props.get("chr", "\u0302")
    if kind in ("eqArr", "oMathPara"):
        return "\n".join(text for _, text in piece.args)
    if kind == "m":
        return "; ".join(text for name, text in piece.args if name == "mr")
    if kind == "mr":
        return ", ".join(text for name, text in piece.args if name == "e")
    return "".join(piece.parts)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() and value.isascii() and len(value) < 10 else None
