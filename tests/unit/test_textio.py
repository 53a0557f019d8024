"""ragchunk.readers.textio: file bytes -> text, refusing files that are not text."""

from __future__ import annotations

import gzip
import io
import sqlite3
import struct
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ragchunk import NotTextError, RagchunkError, decode_document
from ragchunk.readers import textio
from ragchunk.readers.textio import SIGNATURES, Document, check_text, sniff_binary, sniff_kind

ROOT = Path(__file__).resolve().parents[2]

# Everything a person can type except control characters, and no BOM character in front.
PRINTABLE = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\t\n\r"), max_size=200)


def test_utf8():
    text = "Привет, мир! नमस्ते 👍🏽 日本語\n"
    document = decode_document(text.encode("utf-8"))
    assert document == Document(text, [], 0)


def test_utf8_bom_is_dropped():
    document = decode_document(b"\xef\xbb\xbf" + "# Заголовок\n".encode())
    assert document.text == "# Заголовок\n"
    assert document.notes == [] and document.replaced == 0


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_with_bom(codec):
    text = "Привет, мир! 👍🏽 plain ASCII too"
    bom = {"utf-16": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[codec]
    document = decode_document(bom + text.encode(codec), "notes.txt")
    assert document.text == text
    assert document.notes == ["notes.txt was decoded as UTF-16"]


@pytest.mark.parametrize(
    ("data", "text", "replaced"),
    [
        (b"caf\xe9", "caf\ufffd", 1),
        (b"caf\xe9 cr\xe8me", "caf\ufffd cr\ufffdme", 2),
        (b"\xe2\x82 end", "\ufffd end", 1),  # a truncated 3-byte sequence is one maximal subpart
        (b"ok \xc3\x28", "ok \ufffd(", 1),
        (b"x\xed\xa0\x80y", "x\ufffd\ufffd\ufffdy", 3),  # an encoded surrogate is three bad bytes
        (b"smile \xf0\x9f\x98!", "smile \ufffd!", 1),
        ("already \ufffd here ".encode() + b"\xff", "already \ufffd here \ufffd", 1),
    ],
)
def test_invalid_utf8_is_replaced_and_counted(data, text, replaced):
    document = decode_document(data, "notes.txt")
    assert document.text == text
    assert document.replaced == replaced
    plural = "sequence was" if replaced == 1 else "sequences were"
    assert document.notes == [
        f"notes.txt is not valid UTF-8: {replaced} invalid byte {plural} replaced with \ufffd"
    ]


def test_default_name_in_notes():
    assert decode_document(b"caf\xe9").notes[0].startswith("the file is not valid UTF-8")


def signature_sample(magic: bytes, offset: int) -> bytes:
    return (b"\x00\x00\x00\x18" + bytes(offset))[:offset] + magic + bytes(range(256))


@pytest.mark.parametrize(("magic", "offset", "kind", "what"), SIGNATURES, ids=[what for _, _, _, what in SIGNATURES])
def test_every_signature_is_refused(magic, offset, kind, what):
    with pytest.raises(NotTextError) as caught:
        decode_document(signature_sample(magic, offset), "upload.bin")
    assert caught.value.field == "file"
    message = str(caught.value)
    assert f"upload.bin is {what}, not text" in message
    assert "export it as .txt or .md" in message
    assert isinstance(caught.value, RagchunkError)
    assert caught.value.code == "not_text"
    assert caught.value.params == {"name": "upload.bin", "kind": kind, "what": what}


def test_every_kind_is_one_description():
    """The page translates a kind (web/i18n: filekind.<kind>): one kind, one description."""
    described = {}
    for _, _, kind, what in SIGNATURES:
        assert described.setdefault(kind, what) == what


def test_notes_and_errors_carry_codes_for_the_page():
    decoded = decode_document(b"caf\xe9 and caf\xe9", "old.txt")
    assert decoded.note_details == [
        {"code": "not_utf8", "params": {"name": "old.txt", "count": 2}, "message": decoded.notes[0]}
    ]
    utf16 = decode_document(b"\xff\xfe" + "hi".encode("utf-16-le"), "")
    assert utf16.notes == ["the file was decoded as UTF-16"]
    assert utf16.note_details[0]["code"] == "utf16" and utf16.note_details[0]["params"] == {"name": ""}
    with pytest.raises(RagchunkError) as caught:
        check_text(" \n")
    assert caught.value.to_json() == {
        "field": "text", "message": "text is empty: paste some text or drop a file", "code": "text_empty", "params": {}
    }
    with pytest.raises(NotTextError) as binary:
        decode_document(b"ab\x00cd")
    assert binary.value.params["kind"] == "binary_nul" and str(binary.value).startswith("the file is a binary file")


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"%PDF-1.7\n% only printable bytes follow\n", "a PDF document"),
        (b"GIF89a printable", "a GIF image"),
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    ],
)
def test_signatures_need_no_binary_tail(data, what):
    assert sniff_binary(data) == what


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"hello\x00world", "a binary file (it contains NUL bytes)"),
        (b"\x00", "a binary file (it contains NUL bytes)"),
        ("Привет".encode("utf-16-le"), "a binary file"),  # no NUL, but mostly control bytes
        (bytes([1, 2, 3, 4, 5, 6, 7, 8]) * 10, "a binary file"),
    ],
)
def test_binary_content_is_refused(data, what):
    with pytest.raises(NotTextError) as caught:
        decode_document(data)
    assert caught.value.field == "file"
    assert f"the file is {what}, not text" in str(caught.value)


@pytest.mark.parametrize(
    "text",
    ["MZ is a region code", "MZ", "BMW makes cars", "BM\nsecond line", "BMI and MZ\n" * 3, "BM\x1b[1mbold\x1b[0m"],
)
def test_text_starting_like_bmp_or_exe_stays_text(text):
    assert decode_document(text.encode("utf-8")).text == text


@pytest.mark.parametrize(
    "text",
    [
        "ID3 tags hold the title and the artist of an MP3 file.\n",
        "RIFF is the container format of WAV and AVI files.\n",
        "The ftyp box opens every MP4 file.\n",
    ],
)
def test_text_starting_like_other_printable_signatures_stays_text(text):
    # Real ID3, RIFF and MP4 headers carry binary size fields right after the magic.
    assert decode_document(text.encode("utf-8")).text == text


def test_real_bmp_and_exe_headers_are_still_refused():
    with pytest.raises(NotTextError, match="a BMP image"):
        decode_document(b"BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00")
    with pytest.raises(NotTextError, match="a Windows executable"):
        decode_document(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00")


def test_a_few_control_characters_are_still_text():
    text = "Title\x0c\nbody with a form feed, a tab\t and an escape \x1b[0m\n" * 5
    assert decode_document(text.encode()).text == text


def test_too_large(monkeypatch):
    monkeypatch.setattr(textio, "MAX_DOCUMENT_BYTES", 10)
    assert decode_document(b"0123456789").text == "0123456789"
    with pytest.raises(RagchunkError) as caught:
        decode_document(b"0123456789A", "big.txt")
    assert caught.value.field == "file"
    assert str(caught.value) == "big.txt is too large (11 bytes): the limit is 10 bytes; split it first"


def test_too_large_is_checked_before_sniffing(monkeypatch):
    monkeypatch.setattr(textio, "MAX_DOCUMENT_BYTES", 4)
    with pytest.raises(RagchunkError, match="too large"):
        decode_document(b"%PDF-1.7")


@pytest.mark.parametrize("text", ["", " ", "\n\t  \r\n", "\u3000\u00a0"])
def test_check_text_refuses_empty_text(text):
    with pytest.raises(RagchunkError) as caught:
        check_text(text)
    assert caught.value.field == "text"
    assert str(caught.value) == "text is empty: paste some text or drop a file"


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("a\ud800b", "a\ufffdb"),
        ("\udfff end", "\ufffd end"),
        ("pair \ud83d\ude00", "pair \ufffd\ufffd"),
        ("fine 👍🏽", "fine 👍🏽"),
        ("x", "x"),
    ],
)
def test_check_text_replaces_lone_surrogates(text, clean):
    result = check_text(text)
    assert result == clean
    result.encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(PRINTABLE)
def test_printable_utf8_text_survives(text):
    assume(text and not text.startswith("\ufeff"))
    assume(not any(text.encode().startswith(magic) for magic, offset, _, _ in SIGNATURES if offset == 0))
    document = decode_document(text.encode("utf-8"))
    assert document.text == text
    assert document.notes == [] and document.replaced == 0


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=100).filter(lambda t: not t.startswith("\x00")))
def test_any_text_with_a_utf16_bom_survives(text):
    # A first character U+0000 would make the BOM FF FE 00 00, UTF-32's.
    assert decode_document(text.encode("utf-16")).text == text


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=100))
def test_any_text_with_a_utf32_bom_survives(text):
    for codec in ("utf-32", "utf-32-be"):
        data = ("\ufeff" + text).encode(codec) if codec.endswith("be") else text.encode(codec)
        document = decode_document(data, "u.txt")
        assert document.text == text
        assert document.notes == ["u.txt was decoded as UTF-32"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", ["Привет мир. Вторая строка.\n", "नमस्ते दुनिया। यह एक परीक्षण है।\n",
                                  "Καλημέρα κόσμε, δεύτερη γραμμή.\n"])
def test_utf16_without_a_bom_in_other_alphabets_is_text(codec, text):
    document = decode_document(text.encode(codec), "notes.txt")
    assert document.text == text
    assert document.notes == ["notes.txt was decoded as UTF-16"]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_are_refused_by_name(data):
    try:
        document = decode_document(data)
    except NotTextError as err:
        assert err.field == "file"
        assert "not text" in str(err)
    else:
        assert len(document.notes) <= 1
        if document.notes and "UTF-8" in document.notes[0]:
            assert 0 < document.replaced <= document.text.count("\ufffd")
        else:
            assert document.replaced == 0
        if not document.notes:
            assert document.text == data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")


# --- real files of every common kind (made here with the standard library) ---------------


def _zip(names: dict[str, bytes], stored_first: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (name, data) in enumerate(names.items()):
            kind = zipfile.ZIP_STORED if stored_first and index == 0 else zipfile.ZIP_DEFLATED
            archive.writestr(name, data, compress_type=kind)
    return buffer.getvalue()


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(14))) + chunk(b"IEND", b"")


def _sqlite(tmp: Path) -> bytes:
    path = tmp / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("create table notes (body text)")
        db.execute("insert into notes values ('plain words inside a database')")
    return path.read_bytes()


def _tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        data = b"# README\n\nplain text inside a tar archive\n"
        info = tarfile.TarInfo("README.md")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


OFFICE = b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'


def binary_samples(tmp: Path) -> dict[str, tuple[bytes, str]]:
    """``{file name: (bytes, kind)}``: real files of the kinds people drop by mistake."""
    samples = {
        "report.pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n", "pdf"),
        "photo.png": (_png(), "png"),
        "photo.jpg": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + bytes(64), "jpeg"),
        "anim.gif": (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,"
                     b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;", "gif"),
        "image.webp": (b"RIFF\x24\x00\x00\x00WEBPVP8L\x18\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00",
                       "webp"),
        "notes.zip": (_zip({"notes.md": b"# Notes\n" * 50, "more.txt": b"text " * 80}), "zip"),
        "letter.docx": (_zip({"[Content_Types].xml": OFFICE, "_rels/.rels": b"<Relationships/>",
                              "word/document.xml": b"<w:document/>"}), "docx"),
        "table.xlsx": (_zip({"[Content_Types].xml": OFFICE, "xl/workbook.xml": b"<workbook/>"}), "xlsx"),
        "book.epub": (_zip({"mimetype": b"application/epub+zip", "OEBPS/a.xhtml": b"<html/>"}, stored_first=True),
                      "epub"),
        "notes.md.gz": (gzip.compress(b"# Title\n\nplain text, compressed\n" * 20), "gzip"),
        "archive.7z": (b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(range(48)), "7z"),
        "backup.tar": (_tar(), "tar"),
        "python": (Path(sys.executable).resolve().read_bytes()[:16384], "elf"),
        "setup.exe": (b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00\xb8" + bytes(40) + b"PE\x00\x00", "exe"),
        "tool": (b"\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x02\x00\x00\x00" + bytes(32), "macho"),
        "tiktoken_bg.wasm": (
            (ROOT / "node_modules" / "tiktoken" / "lite" / "tiktoken_bg.wasm").read_bytes()[:16384], "wasm"),
        "data.sqlite": (_sqlite(tmp), "sqlite"),
        "font.woff2": (b"wOF2\x00\x01\x00\x00\x00\x00\x1a\x2c\x00\x0b" + bytes(40), "woff2"),
    }
    fonts = sorted(Path("/usr/share/fonts").rglob("*.ttf"))
    if fonts:
        samples["font.ttf"] = (fonts[0].read_bytes()[:16384], "ttf")
    else:
        samples["font.ttf"] = (b"\x00\x01\x00\x00\x00\x0f\x00\x80\x00\x03\x00\x70GDEF" + bytes(64), "ttf")
    return samples


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return binary_samples(tmp_path_factory.mktemp("samples"))


SAMPLE_NAMES = ["report.pdf", "photo.png", "photo.jpg", "anim.gif", "image.webp", "notes.zip", "letter.docx",
                "table.xlsx", "book.epub", "notes.md.gz", "archive.7z", "backup.tar", "python", "setup.exe", "tool",
                "tiktoken_bg.wasm", "data.sqlite", "font.woff2", "font.ttf"]


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_real_files_are_refused_and_named(samples, name):
    data, kind = samples[name]
    with pytest.raises(NotTextError) as caught:
        decode_document(data, name)
    what = dict((k, w) for _, _, k, w in SIGNATURES) | {k: w for _, k, w in textio.ZIP_KINDS}
    assert caught.value.params == {"name": name, "kind": kind, "what": what[kind]}
    assert str(caught.value) == f"{name} is {what[kind]}, not text: export it as .txt or .md and drop that instead"


def test_every_real_sample_is_listed(samples):
    assert sorted(samples) == sorted(SAMPLE_NAMES)


def test_a_zip_without_office_parts_stays_a_zip_archive():
    assert sniff_kind(_zip({"word.md": b"word/ appears only in a name"}))[0] in ("zip", "docx")
    assert sniff_kind(_zip({"a.txt": b"x"}))[0] == "zip"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_text(codec):
    text = "# Notes from Windows\r\n\r\nPlain ASCII and Ünïcödé, tabs\tand form feeds\x0c.\r\n" * 20
    document = decode_document(text.encode(codec), "notes.txt")
    assert document.text == text
    assert document.notes == ["notes.txt was decoded as UTF-16"]


@pytest.mark.parametrize(
    "data",
    [
        "Hi\x01there".encode("utf-16-le"),  # a control character: not text
        b"a\x00b\x00c",  # odd length
        b"\x00\x00\x00\x00",  # NUL characters only
    ],
)
def test_utf16_look_alikes_stay_binary(data):
    with pytest.raises(NotTextError):
        decode_document(data)


@pytest.mark.parametrize("text", ["WEBP is Google's image format, RIFF-based.\n", "OTTO the cat\n", "8BPS\n",
                                  "ttcf\n", "x" * 257 + "ustar is the tar format\n"])
def test_text_that_starts_like_new_weak_signatures_stays_text(text):
    assert decode_document(text.encode()).text == text


def test_empty_file_is_empty_text():
    # An empty file decodes to "" (nothing to refuse); the API then says the text is empty.
    assert decode_document(b"", "empty.md").text == ""


def test_nul_bytes_in_half_the_even_places_are_not_utf16():
    # "wo\0rd \0 ": NULs only at even offsets, but in half of them: binary, not UTF-16 text.
    with pytest.raises(NotTextError) as caught:
        decode_document(b"wo\x00rd \x00 " * 100)
    assert caught.value.params["kind"] == "binary_nul"
