"""EPUB books -> Markdown: the chapters in spine order, each under its title, through the HTML reader.

>>> import io, zipfile
>>> opf = ('<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/">'
...        '<metadata><dc:title>Tiny Book</dc:title></metadata><manifest>'
...        '<item id="c1" href="one.xhtml" media-type="application/xhtml+xml"/></manifest>'
...        '<spine><itemref idref="c1"/></spine></package>')
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as z:
...     z.writestr("mimetype", "application/epub+zip")
...     z.writestr("META-INF/container.xml", '<container><rootfiles><rootfile full-path="book.opf"/></rootfiles></container>')
...     z.writestr("book.opf", opf)
...     z.writestr("one.xhtml", '<html><body><p id="p">No heading here.</p></body></html>')
>>> book = read(buffer.getvalue(), "tiny.epub", ReadOptions())
>>> print(book.text, end="")
# one.xhtml
<BLANKLINE>
No heading here.
>>> book.title, book.anchors
('Tiny Book', ((0, 'one.xhtml'),))

A chapter's title comes from the navigation document (EPUB 3) or the NCX (EPUB 2): the
first entry that points into the chapter's file; else it is the chapter's first heading;
else the file name. When the chapter opens with a heading that says it, and no later
heading of the chapter is as high, the chapter is written as it is. When its first heading
says the title but a page number or a short epigraph comes before it, or a later heading is as
high, that heading becomes the chapter's ``#`` heading, above the short text, and the later
headings move one level down. Otherwise its title is written as a ``#`` heading and the
chapter's headings move one level down. Either way the title is in the heading path of
every chunk of the chapter, once. Chapters with
no text (a cover image, a navigation page) are left out. Anchors are
``"<chapter href>#<id>"`` for headings with an id and ``"<chapter href>"`` for a title
the reader wrote; hrefs are as the package document lists them. The book's title is the
package's first ``dc:title``.

Raises :class:`RagchunkError` (``field="file"``) for a book without a package document
(``epub_no_package``) and for what :mod:`.safety` refuses (corrupt or bomb ZIP, XML with
entities, XML that is not well formed).
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from urllib.parse import unquote

from ..text.markdown import parse_blocks
from .base import Extracted, ReadOptions, boilerplate_note
from .html import convert_chapter, decode_html, toc_links
from .safety import Archive, file_error, open_zip, parse_xml, read_entry, text_too_large
from .writer import collapse

__all__ = ["read"]

OPF = "http://www.idpf.org/2007/opf}"
DC_TITLE = "http://purl.org/dc/elements/1.1/}title"
# The most text before a chapter's title heading that the heading is moved above (a page number, an epigraph's line).
PREAMBLE_CHARS = 200
CONTAINER_ROOTFILE = "urn:oasis:names:tc:opendocument:xmlns:container}rootfile"
NCX = "http://www.daisy.org/z3986/2005/ncx/}"
# A DOCTYPE with an internal subset ("<!DOCTYPE html [ ... ]>"): entity declarations live there.
DTD_SUBSET = re.compile(r"<!DOCTYPE[^>\[]{0,1024}\[", re.IGNORECASE)
_CHAPTER_TYPES = frozenset(("application/xhtml+xml", "text/html", "application/xml", "text/xml"))


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read an EPUB book (``kind="epub"``); see the module docstring.

    Raises:
        RagchunkError: ``epub_no_package`` and the archive and XML errors of :mod:`.safety`.
    """
    archive = open_zip(data, name, "epub")
    opf_path = _package_path(archive)
    if opf_path is None:
        raise file_error(name, "epub_no_package", "is not an EPUB book (it has no package document, "
                         "META-INF/container.xml names none)", "export it again as .epub")
    package = _Package(read_entry(archive, opf_path), name, opf_path)
    folder = posixpath.dirname(opf_path)
    titles = _toc_titles(archive, package, folder, name)
    parts: list[str] = []
    size = 0
    anchors: list[tuple[int, str]] = []
    notes: list[dict] = []
    dropped = 0
    for idref in package.spine:
        item = package.manifest.get(idref)
        if item is None:
            continue
        href, media_type, _ = item
        if media_type not in _CHAPTER_TYPES:
            continue
        path = _resolve(folder, href)
        if not archive.has(path):
            continue
        raw = read_entry(archive, path)
        text, decode_notes = decode_html(raw, f"{name}: {href}")
        if DTD_SUBSET.search(text, 0, 4096):
            # The HTML reader would read the declarations as text ("]>") and leave "&xxe;" as it is.
            raise file_error(name, "xml_entities", f"has an XML part ({path}) that declares entities, which documents"
                             " never need and attacks use", "save it again from the program that made it", part=path)
        notes.extend(decode_notes)
        prefix = href.split("#", 1)[0]
        chapter, first = convert_chapter(text, name, options, xml=True, anchor_prefix=prefix + "#")
        for note in chapter.notes:
            if note["code"] == "boilerplate_dropped":
                dropped += note["params"]["count"]
            else:
                notes.append(note)
        if not chapter.text.strip():
            continue
        title = titles.get(path) or first or posixpath.basename(prefix)
        body, chapter_anchors = chapter.text, list(chapter.anchors)
        says_title = bool(first) and _same(first, title)
        alone = says_title and _opens_alone(body)
        titled = says_title and not alone and _title_heading(body, chapter_anchors)
        if titled:
            body, chapter_anchors = titled
        elif not alone:
            if first:
                body, chapter_anchors = _demote(body, chapter_anchors)
            heading = "# " + title.replace("\n", " ") + "\n\n"
            chapter_anchors = [(0, prefix)] + [(offset + len(heading), anchor) for offset, anchor in chapter_anchors]
            body = heading + body
        if parts:
            parts.append("\n")
            size += 1
        anchors.extend((size + offset, anchor) for offset, anchor in chapter_anchors)
        parts.append(body)
        size += len(body)
        if size > options.max_chars:
            raise text_too_large(name, options.max_chars)
    if dropped:
        notes.append(boilerplate_note(name, dropped))
    return Extracted("".join(parts), "epub", package.title, (), tuple(anchors), tuple(notes))


def _demote(markdown: str, anchors: list[tuple[int, str]]) -> tuple[str, list[tuple[int, str]]]:
    """``markdown`` with every heading one level lower (``#`` -> ``##``; ``######`` stays), anchors moved along.

    >>> _demote("# A\\n\\ntext\\n\\n## B\\n", [(0, "a"), (11, "b")])
    ('## A\\n\\ntext\\n\\n### B\\n', [(0, 'a'), (12, 'b')])
    """
    pieces = []
    at = 0
    inserted_at: list[int] = []  # offsets (in ``markdown``) where a "#" goes in
    for block in parse_blocks(markdown):
        if block.kind == "heading" and block.level < 6:
            pieces.append(markdown[at : block.start])
            pieces.append("#")
            at = block.start
            inserted_at.append(block.start)
    pieces.append(markdown[at:])
    # An anchor at a heading's start stays at its start: count the insertions before it.
    shifted = [(offset + bisect_left(inserted_at, offset), anchor) for offset, anchor in anchors]
    return "".join(pieces), shifted


def _title_heading(markdown: str, anchors: list[tuple[int, str]]) -> tuple[str, list[tuple[int, str]]] | None:
    """The chapter's first heading, which says its title, made the chapter's ``#`` heading: moved
    before a short preamble (a page number, a line of epigraph: at most :data:`PREAMBLE_CHARS`),
    every later heading one level down; None when the preamble is longer. So the title heads
    every chunk of the chapter once, not once as written by the reader and again as the
    chapter's own heading.

    >>> _title_heading("169\\n\\n## Tales\\n\\n170\\n\\n## Notes\\n", [(5, "c#t")])
    ('# Tales\\n\\n169\\n\\n170\\n\\n### Notes\\n', [(0, 'c#t')])
    """
    heading = next(block for block in parse_blocks(markdown) if block.kind == "heading")
    preamble = markdown[: heading.start].strip()
    if len(preamble) > PREAMBLE_CHARS:
        return None
    line = "# " + markdown[heading.start : heading.end].lstrip("#").strip() + "\n\n"
    rest = heading.end + len(markdown[heading.end :]) - len(markdown[heading.end :].lstrip("\n"))
    lead = len(markdown) - len(markdown.lstrip())
    rest_text, rest_anchors = _demote(markdown[rest:], [(o - rest, a) for o, a in anchors if o >= rest])
    before = line + (preamble + "\n\n" if preamble else "")
    moved = [(len(line) + max(0, min(o - lead, len(preamble))), a) for o, a in anchors if o < heading.start]
    titled = [(0, a) for o, a in anchors if heading.start <= o < rest]
    return before + rest_text, titled + moved + [(len(before) + o, a) for o, a in rest_anchors]


def _opens_alone(markdown: str) -> bool:
    """True when ``markdown`` starts with its first heading and no later heading is as high:
    that heading then heads every chunk of the chapter."""
    levels = [block.level for block in parse_blocks(markdown) if block.kind == "heading"]
    return markdown.startswith("#") and all(level > levels[0] for level in levels[1:])


def _same(a: str, b: str) -> bool:
    return collapse(a).casefold() == collapse(b).casefold()


def _resolve(folder: str, href: str) -> str:
    href = unquote(href.split("#", 1)[0])
    return posixpath.normpath(posixpath.join(folder, href)).lstrip("/")


def _package_path(archive: Archive) -> str | None:
    if archive.has("META-INF/container.xml"):
        found: list[str] = []

        def start(tag: str, attrs: dict[str, str]) -> None:
            if tag.rsplit("}", 1)[-1] == "rootfile" and attrs.get("full-path"):
                if not found and attrs.get("media-type", "application/oebps-package+xml").endswith("package+xml"):
                    found.append(attrs["full-path"])

        parse_xml(read_entry(archive, "META-INF/container.xml"), archive.name, "META-INF/container.xml", start)
        if found and archive.has(found[0].lstrip("/")):
            return found[0].lstrip("/")
    # A book whose container is missing or wrong: its one package document, if it has one.
    packages = [entry for entry in archive.entries if entry.endswith(".opf")]
    return packages[0] if len(packages) == 1 else None


class _Package:
    """The package document: title, manifest (id -> href, media type, properties), spine, NCX id."""

    def __init__(self, data: bytes, name: str, path: str) -> None:
        self.title = ""
        self.manifest: dict[str, tuple[str, str, str]] = {}
        self.spine: list[str] = []
        self.ncx = ""
        title: list[str] = []
        in_title = [0]

        def start(tag: str, attrs: dict[str, str]) -> None:
            local = tag.rsplit("}", 1)[-1]
            if tag == DC_TITLE and not self.title and not title:
                in_title[0] += 1
            elif local == "item":
                item_id = attrs.get("id", "")
                self.manifest.setdefault(item_id, (attrs.get("href", ""), attrs.get("media-type", "").lower(),
                                                   attrs.get("properties", "")))
            elif local == "itemref":
                self.spine.append(attrs.get("idref", ""))
            elif local == "spine":
                self.ncx = attrs.get("toc", "")

        def end(tag: str) -> None:
            if tag == DC_TITLE and in_title[0]:
                in_title[0] -= 1
                self.title = collapse("".join(title))

        def text(data: str) -> None:
            if in_title[0]:
                title.append(data)

        parse_xml(data, name, path, start, end, text)


def _toc_titles(archive: Archive, package: _Package, folder: str, name: str) -> dict[str, str]:
    """Chapter path -> title: the first table of contents entry pointing into it."""
    entries: list[tuple[str, str]] = []  # (href relative to the TOC's folder, label)
    toc_folder = folder
    nav = next((item for item in package.manifest.values() if "nav" in item[2].split()), None)
    if nav is not None and archive.has(_resolve(folder, nav[0])):
        path = _resolve(folder, nav[0])
        text, _ = decode_html(read_entry(archive, path), name)
        entries = toc_links(text)
        toc_folder = posixpath.dirname(path)
    if not entries:
        ncx = package.manifest.get(package.ncx) or next(
            (item for item in package.manifest.values() if item[1] == "application/x-dtbncx+xml"), None)
        if ncx is not None and archive.has(_resolve(folder, ncx[0])):
            path = _resolve(folder, ncx[0])
            entries = _ncx_entries(read_entry(archive, path), name, path)
            toc_folder = posixpath.dirname(path)
    titles: dict[str, str] = {}
    for href, label in entries:
        if label and href and "://" not in href:
            titles.setdefault(_resolve(toc_folder, href), label)
    return titles


def _ncx_entries(data: bytes, name: str, path: str) -> list[tuple[str, str]]:
    """(src, label) of an NCX's navigation points, in document order (a point's label precedes its children)."""
    entries: list[tuple[str, str]] = []
    labels: list[list[str]] = []  # per open navPoint, its label's text
    in_text = [0]
    pending: list[list] = []  # per open navPoint: [label, src, written]

    def start(tag: str, attrs: dict[str, str]) -> None:
        if tag == NCX + "navPoint":
            pending.append(["", "", False])
            labels.append([])
        elif tag == NCX + "text" and pending:
            in_text[0] += 1
        elif tag == NCX + "content" and pending:
            pending[-1][1] = attrs.get("src", "")
            pending[-1][0] = collapse("".join(labels[-1]))
            entries.append((pending[-1][1], pending[-1][0]))

    def end(tag: str) -> None:
        if tag == NCX + "navPoint" and pending:
            pending.pop()
            labels.pop()
        elif tag == NCX + "text" and in_text[0]:
            in_text[0] -= 1

    def text(data: str) -> None:
        if in_text[0] and labels:
            labels[-1].append(data)

    parse_xml(data, name, path, start, end, text)
    return entries
