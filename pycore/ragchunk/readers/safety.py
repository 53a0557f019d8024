"""Reading untrusted containers safely: ZIP archives within limits, XML without entities.

Office files and EPUB books are ZIP archives of XML. A hostile one can be a zip bomb (a few
kilobytes that inflate to gigabytes), hold thousands of entries, overlap its entries, or
carry XML with entity declarations (the "billion laughs" expansion, external entities that
name local files or URLs). Everything here refuses those with one :class:`RagchunkError`
(``field="file"``) before the work or the memory grows:

- :func:`open_zip` checks the archive's directory: entry count, declared sizes, overlapping
  or out-of-range entries, encryption, compression methods other than stored and deflate
  (the only two both CPython and Pyodide always have);
- :func:`read_entry` inflates an entry in pieces of :data:`PIECE` bytes, counting what it
  really gets (a forged header does not help): past :data:`MAX_RATIO` times the compressed
  size, or :data:`MAX_TOTAL` bytes for the whole archive, it stops;
- :func:`parse_xml` feeds expat piece by piece and refuses any entity declaration, so no
  entity is ever expanded or fetched (expat itself never opens files or URLs).

>>> import io, zipfile
>>> buffer = io.BytesIO()
>>> with zipfile.ZipFile(buffer, "w") as z:
...     z.writestr("a.xml", "<a>hi</a>")
>>> archive = open_zip(buffer.getvalue(), "x.docx", "docx")
>>> events = []
>>> parse_xml(read_entry(archive, "a.xml"), "x.docx", "a.xml", start=lambda n, a: events.append(n))
>>> events
['a']
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import zipfile

from ..errors import RagchunkError

MAX_ENTRIES = 20_000
# Bytes inflated from one archive, all entries read together: ten times the biggest real
# books and reports seen, far below what would exhaust a browser tab's memory.
MAX_TOTAL = 512 * 1024 * 1024
# Inflated / compressed size of one entry. XML compresses well (5-20 x, 100 x for very
# repetitive tables); deflate cannot exceed ~1032 x, which only bombs approach.
MAX_RATIO = 200
# Below this many inflated bytes the ratio is not checked: tiny entries have huge ratios.
RATIO_FLOOR = 1024 * 1024
PIECE = 1024 * 1024

# zipfile.ZIP_STORED and ZIP_DEFLATED: zipfile itself is imported only when an archive is opened
# (a pasted text's first count should not load it, and its bz2 and lzma, in the page).
_METHODS = {0, 8}


def file_error(name: str, code: str, problem: str, fix: str, **params: Any) -> RagchunkError:
    """A :class:`RagchunkError` on field ``file``: "<name> <problem>: <fix>".

    >>> str(file_error("a.docx", "zip_corrupt", "is damaged", "save it again"))
    'a.docx is damaged: save it again'
    """
    label = name or "the file"
    return RagchunkError("file", f"{label} {problem}: {fix}", code, {"name": name, **params})


def text_too_large(name: str, limit: int) -> RagchunkError:
    """``text_too_large``: reading ``name`` gave more than ``limit`` characters, and stopped there.

    >>> print(text_too_large("big.docx", 1000).message)
    big.docx holds more than 1,000 characters of text, the most one document may give: split it into smaller files, or raise the limit (--max-chars on the command line, max_chars in Python)
    """
    return RagchunkError("file", f"{name or 'the file'} holds more than {limit:,} characters of text, the most one"
                         " document may give: split it into smaller files, or raise the limit (--max-chars on the"
                         " command line, max_chars in Python)", "text_too_large", {"name": name, "limit": limit})


class Archive:
    """An opened ZIP archive and the running count of bytes inflated from it."""

    def __init__(self, zip_file: zipfile.ZipFile, name: str, kind: str) -> None:
        self.zip = zip_file
        self.name = name
        self.kind = kind
        self.inflated = 0
        self.entries = {info.filename: info for info in zip_file.infolist()}

    def has(self, entry: str) -> bool:
        return entry in self.entries


# Why a document's ZIP container is refused (``reason``), each said in our words: zipfile's
# ("Bad magic number for central directory", "File is not a zip file") mean nothing to the
# person who made the document. The page says them from web/i18n (reason.zip_corrupt.<reason>).
ZIP_DAMAGE = {
    "empty": "it is empty",
    "not_zip": "it is not a ZIP archive, which every {format} file is",
    "damaged": "its ZIP container is damaged or cut short",
    "overlap": "entries of its ZIP container overlap at {entry}",
    "beyond_end": "an entry of its ZIP container lies beyond the end of the file",
    "part_damaged": "its part {entry} is damaged and cannot be unpacked",
}


def _corrupt(name: str, kind: str, reason: str, entry: str | None = None) -> RagchunkError:
    """``zip_corrupt`` for ``reason`` (a key of :data:`ZIP_DAMAGE`), with ``entry`` when it names a member.

    >>> _corrupt("a.epub", "epub", "part_damaged", "OEBPS/a.xhtml").params["detail"]
    'its part OEBPS/a.xhtml is damaged and cannot be unpacked'
    """
    params = {"kind": kind, "format": kind.upper(), "reason": reason} | ({} if entry is None else {"entry": entry})
    detail = ZIP_DAMAGE[reason].format(**params)
    return file_error(name, "zip_corrupt", f"is not a readable {kind.upper()} file ({detail})",
                      f"open it in the program that made it and save it again as .{kind}", detail=detail, **params)


def open_zip(data: bytes, name: str, kind: str) -> Archive:
    """Open ``data`` as a ZIP archive of a ``kind`` document (``"docx"``, ``"epub"``), checking its directory.

    Raises:
        RagchunkError: ``zip_corrupt`` (not a ZIP, truncated, overlapping entries),
            ``zip_too_many_entries``, ``zip_bomb`` (declared sizes beyond the limits),
            ``zip_encrypted``, ``zip_method`` (a compression other than deflate).
    """
    import zipfile

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, KeyError, IndexError):
        raise _corrupt(name, kind, _unopened(data)) from None
    if len(infos) > MAX_ENTRIES:
        raise file_error(name, "zip_too_many_entries", f"holds {len(infos):,} files, more than the {MAX_ENTRIES:,} "
                         f"a {kind.upper()} document may hold", "check that it is the right file",
                         entries=len(infos), limit=MAX_ENTRIES, format=kind.upper())
    spans = []
    for info in infos:
        if info.flag_bits & 0x1:
            raise file_error(name, "zip_encrypted", "is encrypted", "save an unprotected copy and use that",
                             entry=info.filename)
        if info.compress_type not in _METHODS:
            raise file_error(name, "zip_method", f"uses a compression method ({info.compress_type}) "
                             "that cannot be read (only stored and deflate can)", f"save it again as .{kind}",
                             method=info.compress_type, kind=kind)
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise _bomb(name, info.filename)
        spans.append((info.header_offset, info.header_offset + 30 + len(info.orig_filename) + info.compress_size,
                       info.filename))
    spans.sort()
    for (_, end, entry), (next_start, _, _) in zip(spans, spans[1:]):
        # Entries that share bytes are how the smallest zip bombs multiply their output.
        if next_start < end:
            raise _corrupt(name, kind, "overlap", entry)
    if spans and spans[-1][0] > len(data):
        raise _corrupt(name, kind, "beyond_end")
    return Archive(archive, name, kind)


def _unopened(data: bytes) -> str:
    """Why ``data`` does not open as a ZIP archive (a :data:`ZIP_DAMAGE` reason): empty, not a ZIP at all, or damaged.

    >>> _unopened(b""), _unopened(b"plain words"), _unopened(b"PK\x03\x04" + bytes(9))
    ('empty', 'not_zip', 'damaged')
    """
    if not data:
        return "empty"
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "not_zip"
    return "damaged"


def _bomb(name: str, entry: str) -> RagchunkError:
    return file_error(name, "zip_bomb", f"inflates far beyond its size ({entry} grows more than {MAX_RATIO} "
                      f"times, or the whole past {MAX_TOTAL // 2**20:,} MiB)",
                      "it is not a normal document; check where it came from", entry=entry, ratio=MAX_RATIO,
                      limit=MAX_TOTAL, limit_mib=MAX_TOTAL // 2**20)


def _bad_zip() -> type[Exception]:
    import zipfile

    return zipfile.BadZipFile


def iter_entry(archive: Archive, entry: str) -> Iterator[bytes]:
    """The inflated bytes of ``entry`` in pieces of at most :data:`PIECE` bytes, within the limits.

    Raises:
        RagchunkError: ``zip_missing_part`` when there is no such entry, ``zip_bomb`` past
            the limits, ``zip_corrupt`` when the data does not inflate.
    """
    info = archive.entries.get(entry)
    if info is None:
        raise file_error(archive.name, "zip_missing_part", f"has no {entry}, which every "
                         f"{archive.kind.upper()} file has", f"save it again as .{archive.kind}", part=entry,
                         kind=archive.kind, format=archive.kind.upper())
    got = 0
    try:
        with archive.zip.open(info) as stream:
            while True:
                piece = stream.read(PIECE)
                if not piece:
                    break
                got += len(piece)
                archive.inflated += len(piece)
                if archive.inflated > MAX_TOTAL or (got > RATIO_FLOOR and got > MAX_RATIO * max(info.compress_size, 1)):
                    raise _bomb(archive.name, entry)
                yield piece
    except RagchunkError:
        raise
    except (_bad_zip(), zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError):
        raise _corrupt(archive.name, archive.kind, "part_damaged", entry) from None


def read_entry(archive: Archive, entry: str) -> bytes:
    """All the inflated bytes of ``entry`` (see :func:`iter_entry` for the limits and errors)."""
    return b"".join(iter_entry(archive, entry))


def parse_xml(
    pieces: Iterable[bytes] | bytes,
    name: str,
    part: str,
    start: Callable[[str, dict[str, str]], None] | None = None,
    end: Callable[[str], None] | None = None,
    text: Callable[[str], None] | None = None,
) -> None:
    """Run expat over ``pieces`` calling ``start(tag, attrs)``, ``end(tag)`` and ``text(data)``.

    Tags and attribute names are ``"namespace}local"`` (or ``local`` without a namespace),
    as expat gives them: no conversion per element (the DOCX reader meets millions). A document with an entity declaration (internal or external)
    is refused, so no entity is expanded or fetched. Work and memory are linear in the input;
    nesting depth is only a count for expat and the handlers keep their own stacks.

    >>> parse_xml(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', "b.docx", "word/document.xml")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: b.docx has an XML part (word/document.xml) that declares entities, which documents never need and attacks use: save it again from the program that made it

    Raises:
        RagchunkError: ``xml_entities`` for an entity declaration, ``xml_invalid`` for XML
            that is not well formed (with the line and the column, both from 1).
    """
    from xml.parsers import expat  # here: plain text and Markdown never load the XML parser

    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.ordered_attributes = False

    def refuse(*_args: object) -> None:
        raise file_error(name, "xml_entities", f"has an XML part ({part}) that declares entities, which documents "
                         "never need and attacks use", "save it again from the program that made it", part=part)

    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    if start is not None:
        parser.StartElementHandler = start
    if end is not None:
        parser.EndElementHandler = end
    if text is not None:
        parser.CharacterDataHandler = text
    if isinstance(pieces, (bytes, bytearray)):
        pieces = [bytes(pieces[i : i + PIECE]) for i in range(0, len(pieces), PIECE)] or [b""]
    try:
        for piece in pieces:
            parser.Parse(piece, False)
        parser.Parse(b"", True)
    except expat.ExpatError as err:
        # expat counts columns from 0; editors, and so the message, from 1.
        raise file_error(name, "xml_invalid", f"has a part ({part}) that is not well-formed XML (line {err.lineno:,},"
                         f" column {err.offset + 1:,})", "save it again from the program that made it", part=part,
                         line=err.lineno, column=err.offset + 1) from None
