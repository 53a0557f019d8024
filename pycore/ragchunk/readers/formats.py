"""Which reader a document needs (by signature, then extension, then content), and reading it.

>>> reader_for("notes.md", b"# Hi"), reader_for("page", b"<!DOCTYPE html><p>x"), reader_for("a.pdf", b"%PDF-1.7")
('markdown', 'html', 'pdf')
>>> read_document(b"<h1>Hi</h1><p>there", "page.html").text
'# Hi\\n\\nthere\\n'

Signatures come first, so a renamed file is still read as what it is: ``%PDF-`` is a PDF; a
ZIP whose first entry is the ``mimetype`` ``application/epub+zip`` (or that holds
``META-INF/container.xml``) is an EPUB, one with ``[Content_Types].xml`` and ``word/`` a
Word document (a damaged one by the names in its entries' headers, so it is said damaged); an OLE file that holds an ``EncryptedPackage`` is a password-protected
Word document (the DOCX reader says so). Then the extension, then the content: a file that
starts (after a BOM and white space) with ``<!doctype html``, ``<html`` or an XML
declaration followed by ``<html`` is HTML. Everything else is text, which
:func:`ragchunk.readers.textio.decode_document` refuses when it is binary.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable

from ..errors import RagchunkError
from ..settings import MAX_DOCUMENT_BYTES
from .base import Extracted, ReadOptions
from .safety import file_error
from .textio import sniff_kind

__all__ = ["KINDS", "read_document", "reader_for", "readable_formats"]

# kind -> module of this package that reads it
KINDS: dict[str, str] = {
    "html": "html",
    "epub": "epub",
    "docx": "docx",
    "ipynb": "notebook",
    "rst": "rst",
    "markdown": "text",
    "text": "text",
    "pdf": "pdf",
}
EXTENSIONS: dict[str, str] = {
    ".html": "html", ".htm": "html", ".xhtml": "html", ".xht": "html", ".shtml": "html",
    ".epub": "epub",
    ".docx": "docx", ".docm": "docx", ".dotx": "docx", ".dotm": "docx",
    ".ipynb": "ipynb",
    ".rst": "rst", ".rest": "rst",
    ".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".mkd": "markdown", ".mkdn": "markdown",
    ".mdx": "markdown",
    ".txt": "text", ".text": "text",
    ".pdf": "pdf",
}
# kind -> what a person calls it, in the order messages list them (every kind of KINDS).
NAMES: dict[str, str] = {
    "markdown": "Markdown",
    "text": "text",
    "html": "HTML",
    "pdf": "PDF",
    "docx": "Word",
    "epub": "EPUB",
    "ipynb": "Jupyter notebooks",
    "rst": "reStructuredText",
}
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED = "EncryptedPackage".encode("utf-16-le")
_EPUB_MIMETYPE = b"mimetypeapplication/epub+zip"
SNIFF = 1024


def readable_formats() -> str:
    """What ragchunk reads, for a message: each kind of :data:`KINDS` by name, with the first
    of its :data:`EXTENSIONS` (text is read under any name).

    >>> readable_formats()  # doctest: +NORMALIZE_WHITESPACE
    'Markdown (.md), text (.txt, or any file of text), HTML (.html), PDF (.pdf), Word (.docx),
    EPUB (.epub), Jupyter notebooks (.ipynb) and reStructuredText (.rst)'
    """
    said = []
    for kind, name in NAMES.items():
        first = next(extension for extension, of in EXTENSIONS.items() if of == kind)
        said.append(f"{name} ({first}{', or any file of text' if kind == 'text' else ''})")
    return ", ".join(said[:-1]) + " and " + said[-1]


def reader_for(name: str, data: bytes) -> str:
    """The kind of reader (a key of :data:`KINDS`) for a document named ``name`` with bytes ``data``.

    >>> reader_for("report", b"PK\\x03\\x04" + bytes(26) + b"mimetypeapplication/epub+zip")
    'epub'
    >>> reader_for("x.ipynb", b"{}"), reader_for("README", b"plain words")
    ('ipynb', 'text')
    """
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(_OLE) and (_ENCRYPTED in data or name.lower().endswith((".docx", ".docm"))):
        return "docx"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        zipped = _zip_kind(data)
        if zipped:
            return zipped
    dot = name.rfind(".")
    if dot >= 0:
        kind = EXTENSIONS.get(name[dot:].lower())
        if kind:
            return kind
    head = data[:SNIFF]
    for bom in (b"\xef\xbb\xbf",):
        head = head.removeprefix(bom)
    head = head.lstrip(b" \t\r\n\x0c").lower()
    if head.startswith((b"<!doctype html", b"<html")) or (head.startswith(b"<?xml") and b"<html" in head):
        return "html"
    return "text"


def _zip_kind(data: bytes) -> str | None:
    """"epub" or "docx" for a ZIP that is one (by its first entry, then its directory), else None.

    A damaged one has no directory to read, but the names in its first entries' headers can
    still say what it is (as :func:`ragchunk.readers.textio.sniff_kind` reads them): its reader then
    says it is damaged, rather than it being refused as a document that is not text.
    """
    if data[30:58] == _EPUB_MIMETYPE:
        return "epub"
    import zipfile  # here: the first count of a pasted text needs no zip reader

    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, KeyError, IndexError):
        sniffed = sniff_kind(data)
        return sniffed[0] if sniffed and sniffed[0] in KINDS else None
    entries = set(names)
    if "META-INF/container.xml" in entries and ("mimetype" in entries or any(n.endswith(".opf") for n in names)):
        return "epub"
    if "[Content_Types].xml" in entries and any(n.startswith("word/") for n in names):
        return "docx"
    return None


def read_document(data: bytes, name: str = "", options: ReadOptions | None = None) -> Extracted:
    """Read any supported document: :func:`reader_for` picks the reader, which makes the :class:`Extracted`.

    Raises:
        RagchunkError: ``file_too_large`` above :data:`ragchunk.settings.MAX_DOCUMENT_BYTES`,
            ``pdf_unsupported`` when this build has no PDF reader, every error of the
            chosen reader (each one names the file, what is wrong and the fix), and
            ``reader_failed`` for any other exception the reader meets (:func:`reader_failed`).
        MemoryError: the document needs more memory than there is (the caller says so).
    """
    options = options or ReadOptions()
    if len(data) > MAX_DOCUMENT_BYTES:
        # The same sentence as ragchunk.readers.textio's, so the page says it alike for every format.
        raise RagchunkError("file", f"{name or 'the file'} is too large ({len(data):,} bytes): the limit is "
                            f"{MAX_DOCUMENT_BYTES:,} bytes; split it first", "file_too_large",
                            {"name": name, "size": len(data), "limit": MAX_DOCUMENT_BYTES})
    kind = reader_for(name, data)
    read = _reader(kind, name)
    try:
        return read(data, name, options)
    except (RagchunkError, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - one bad file must fail alone, whatever its reader met
        raise reader_failed(name, kind, err) from err


def reader_failed(name: str, kind: str, err: BaseException) -> RagchunkError:
    """``reader_failed``: the reader of ``kind`` met something it does not handle in ``name``.

    The file fails alone (the run goes on); the message names the exception, cut short, so
    that a report of it can be acted on.

    >>> print(reader_failed("a.html", "html", LookupError("unknown encoding: rot13")).message)  # doctest: +ELLIPSIS
    a.html could not be read by the HTML reader (LookupError: unknown encoding: rot13): it is damaged or unusual; ...
    """
    detail = f"{type(err).__name__}: {err}"
    detail = detail if len(detail) <= 200 else detail[:199] + "…"
    shown = "notebook" if kind == "ipynb" else NAMES.get(kind, kind)
    return file_error(name, "reader_failed", f"could not be read by the {shown} reader ({detail})",
                      "it is damaged or unusual; save it again from the program that made it, or report it to"
                      " ragchunk with the file", kind=kind, format=shown, detail=detail)


def _reader(kind: str, name: str) -> Callable[[bytes, str, ReadOptions], Extracted]:
    module_name = f"{__package__}.{KINDS[kind]}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        raise file_error(name, "pdf_unsupported" if kind == "pdf" else "format_unsupported",
                         f"is a {kind.upper()} document, and this build of ragchunk has no {kind.upper()} reader",
                         "export it as text, Markdown or HTML, or use a build with that reader", kind=kind,
                         format=kind.upper()) from None
    return module.read
