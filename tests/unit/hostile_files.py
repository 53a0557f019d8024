"""Hostile documents built at run time, at any size: the cases of issue 36 and their kin.

Each builder returns the bytes of one file (or makes a folder), so tests run them small and
``bench/bench_readers.py --hostile`` runs them big. Nothing here reads the network or a
fixture: what a case is stays visible in its builder.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
import zlib

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

# --- HTML ------------------------------------------------------------------------------------


def meta_charset(label: str, body: str = "Hello world. This page is plain.") -> bytes:
    """A page that declares ``label`` (rot13, zlib, utf-7, cp037 ...) but is written in UTF-8."""
    return f'<meta charset="{label}"><title>T</title><p>{body}</p>'.encode()


def xml_encoding(label: str, body: str = "Hello world.") -> bytes:
    """XHTML whose XML declaration names ``label``."""
    return f'<?xml version="1.0" encoding="{label}"?><html><body><p>{body}</p></body></html>'.encode()


def nested(levels: int, shape: str = "<ul><li>item") -> bytes:
    """``shape`` opened ``levels`` times and never closed (1.3 MB at 100,000 levels of a list)."""
    return (shape * levels).encode()


# Nesting shapes of HTML that a reader keeps a stack for: each must be read in linear time.
NESTING_SHAPES = {
    "unclosed lists": "<ul><li>item",
    "ordered lists": "<ol><li>item",
    "closed-later lists": "<ul><li>",
    "quotes": "<blockquote>q",
    "divs": "<div>d",
    "definition lists": "<dl><dt>t<dd>d",
    "tables": "<table><tr><td>c",
    "sections": "<section><h2>h</h2>",
    "inline": "<b><i>x",
    "lists in quotes": "<blockquote><ul><li>x",
}

# --- notebooks -------------------------------------------------------------------------------


def notebook(cells: list[dict] | None = None, **top: object) -> bytes:
    body = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells or [
        {"cell_type": "markdown", "source": "# Notes\n\nSome text.", "metadata": {}}]}
    body.update(top)
    return json.dumps(body).encode()


def notebook_nbformat_digits(digits: int) -> bytes:
    """A notebook whose ``nbformat`` is a number of ``digits`` digits (past Python's int limit)."""
    cells = json.dumps([{"cell_type": "markdown", "source": "# A\n\ntext", "metadata": {}}])
    return ('{"nbformat": ' + "9" * digits + ', "metadata": {}, "cells": ' + cells + "}").encode()


def notebook_big_output(chars: int) -> bytes:
    """A notebook whose only big part is one output string of ``chars`` characters (dropped when read)."""
    return notebook([
        {"cell_type": "markdown", "source": "# Results\n\nThe run below.", "metadata": {}},
        {"cell_type": "code", "source": "print(data)", "metadata": {}, "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "x" * chars}]},
    ])


# --- DOCX, EPUB ------------------------------------------------------------------------------


def docx_of_text(chars: int, paragraph: int = 10_000) -> bytes:
    """A Word document whose document.xml holds about ``chars`` characters of text; it deflates
    about 150:1, under the ratio check, so only a bound on what comes out stops it."""
    words = random.Random(36)
    vocabulary = [f"w{n:x}" for n in range(4096)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w") as handle:
            handle.write(f'<?xml version="1.0"?><w:document xmlns:w="{W_NS}"><w:body>'.encode())
            for _ in range(max(1, chars // paragraph)):
                # A little text that does not repeat, then much that does: about 150:1 in all.
                fresh = " ".join(words.choice(vocabulary) for _ in range(paragraph // 400))
                run = fresh + " word" * ((paragraph - len(fresh)) // 5)
                handle.write(f"<w:p><w:r><w:t>{run}</w:t></w:r></w:p>".encode())
            handle.write(b"</w:body></w:document>")
    return buffer.getvalue()


def epub(chapters: dict[str, str]) -> bytes:
    """An EPUB of XHTML ``chapters`` (file name -> text) in spine order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml",
                         '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                         'version="1.0"><rootfiles><rootfile full-path="content.opf" '
                         'media-type="application/oebps-package+xml"/></rootfiles></container>')
        items = "".join(f'<item id="c{i}" href="{n}" media-type="application/xhtml+xml"/>' for i, n in enumerate(chapters))
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
        archive.writestr("content.opf", f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                         f'version="3.0"><metadata/><manifest>{items}</manifest><spine>{spine}</spine></package>')
        for name, text in chapters.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def epub_with_dtd() -> bytes:
    """An EPUB whose chapter declares an entity in its DTD (an XXE attempt)."""
    return epub({"c1.xhtml": '<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
                             '<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>One</h1><p>&xxe;</p>'
                             '</body></html>'})


# --- PDF -------------------------------------------------------------------------------------


def pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF of ``objects`` (object i+1 is ``objects[i]``, without ``obj``/``endobj``)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def _stream(data: bytes, filters: bytes = b"") -> bytes:
    extra = b" /Filter " + filters if filters else b""
    return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _page_objects(pages: int, contents: int, parent: int = 2, font: int = 3) -> bytes:
    return (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >>"
            b" /Contents %d 0 R >>") % (parent, font, contents)


def text_content(lines: int) -> bytes:
    """A page's content stream that shows ``lines`` lines of words (about 60 bytes a line)."""
    return b"".join(b"BT /F1 10 Tf 72 %d Td (Line %d of the words on this page.) Tj ET\n" % (700 - (i % 60) * 11, i)
                    for i in range(lines))


def pdf_shared_stream(pages: int, stream_bytes: int) -> bytes:
    """``pages`` pages that all draw one deflated content stream of ``stream_bytes`` bytes."""
    content = text_content(max(1, stream_bytes // 60))
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
               _FONT,
               _stream(zlib.compress(content, 9), b"/FlateDecode")]
    objects += [_page_objects(pages, 4) for _ in range(pages)]
    return pdf(objects)


def pdf_flate_bomb(inflated: int) -> bytes:
    """One page whose content stream inflates to ``inflated`` bytes of spaces."""
    bomb = zlib.compress(b" " * inflated, 9)
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", _FONT,
                _stream(bomb, b"/FlateDecode"), _page_objects(1, 4)])


def pdf_filter(filters: bytes, data: bytes) -> bytes:
    """One page whose content stream is ``data`` under ``filters`` (``/Foo``, ``[/A /B]``)."""
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", _FONT,
                _stream(data, filters), _page_objects(1, 4)])


def pdf_parent_loop() -> bytes:
    """A page tree whose /Pages node lists itself among its kids."""
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [2 0 R 5 0 R] /Count 2 >>", _FONT,
                _stream(text_content(3)), _page_objects(1, 4)])


def pdf_text(lines: int = 5) -> bytes:
    """A plain one-page PDF with ``lines`` lines of text."""
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>", _FONT,
                _stream(text_content(lines)), _page_objects(1, 4)])
