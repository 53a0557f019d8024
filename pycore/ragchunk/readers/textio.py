"""Bytes of a dropped or named file -> text, refusing files that are not text."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NotTextError, RagchunkError
from ..settings import MAX_DOCUMENT_BYTES

# (magic bytes, offset, kind, what the file is); checked before anything else. The kind is a
# stable id the page translates (web/i18n: filekind.<kind>).
SIGNATURES: tuple[tuple[bytes, int, str, str], ...] = (
    (b"%PDF-", 0, "pdf", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", 0, "png", "a PNG image"),
    (b"\xff\xd8\xff", 0, "jpeg", "a JPEG image"),
    (b"GIF87a", 0, "gif", "a GIF image"),
    (b"GIF89a", 0, "gif", "a GIF image"),
    (b"WEBP", 8, "webp", "a WebP image"),
    (b"RIFF", 0, "riff", "a RIFF media file (WAV or AVI)"),
    (b"II*\x00", 0, "tiff", "a TIFF image"),
    (b"MM\x00*", 0, "tiff", "a TIFF image"),
    (b"\x00\x00\x01\x00", 0, "ico", "an icon file"),
    (b"8BPS", 0, "psd", "a Photoshop image"),
    (b"BM", 0, "bmp", "a BMP image"),
    (b"PK\x03\x04", 0, "zip", "a ZIP archive (or a .docx, .xlsx, .pptx, .epub, .jar)"),
    (b"PK\x05\x06", 0, "zip_empty", "an empty ZIP archive"),
    (b"\x1f\x8b", 0, "gzip", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", 0, "7z", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", 0, "rar", "a RAR archive"),
    (b"BZh", 0, "bzip2", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", 0, "xz", "an XZ archive"),
    (b"(\xb5/\xfd", 0, "zstd", "a Zstandard archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, "ms_office", "an old Microsoft Office document (.doc, .xls, .ppt)"),
    (b"\x7fELF", 0, "elf", "a Linux executable"),
    (b"\xcf\xfa\xed\xfe", 0, "macho", "a macOS executable"),
    (b"\xce\xfa\xed\xfe", 0, "macho", "a macOS executable"),
    (b"\xfe\xed\xfa\xcf", 0, "macho", "a macOS executable"),
    (b"\xfe\xed\xfa\xce", 0, "macho", "a macOS executable"),
    (b"\xca\xfe\xba\xbe", 0, "java_class", "a Java class file or a macOS universal executable"),
    (b"MZ", 0, "exe", "a Windows executable"),
    (b"\x00asm", 0, "wasm", "a WebAssembly module"),
    (b"SQLite format 3\x00", 0, "sqlite", "an SQLite database"),
    (b"ID3", 0, "mp3", "an MP3 audio file"),
    (b"OggS", 0, "ogg", "an Ogg media file"),
    (b"fLaC", 0, "flac", "a FLAC audio file"),
    (b"ftyp", 4, "mp4", "an MP4/MOV video or HEIC image"),
    (b"\x1aE\xdf\xa3", 0, "matroska", "a Matroska/WebM video"),
    (b"wOFF", 0, "woff", "a WOFF font"),
    (b"wOF2", 0, "woff2", "a WOFF2 font"),
    (b"\x00\x01\x00\x00", 0, "ttf", "a TrueType font"),
    (b"OTTO", 0, "otf", "an OpenType font"),
    (b"ttcf", 0, "ttc", "a TrueType font collection"),
    (b"ustar", 257, "tar", "a tar archive"),
)
# ZIP files that are documents: (bytes near the start, kind, what). Office files list
# their parts (word/, xl/, ppt/) in the first entries; EPUB and OpenDocument begin with
# a stored "mimetype" entry.
ZIP_KINDS: tuple[tuple[bytes, str, str], ...] = (
    (b"mimetypeapplication/epub+zip", "epub", "an EPUB book"),
    (b"mimetypeapplication/vnd.oasis.opendocument", "odf", "an OpenDocument file (.odt, .ods, .odp)"),
    (b"word/", "docx", "a Word document (.docx)"),
    (b"xl/", "xlsx", "an Excel workbook (.xlsx)"),
    (b"ppt/", "pptx", "a PowerPoint presentation (.pptx)"),
)
ZIP_SNIFF_BYTES = 65536
# Signatures that also begin ordinary text ("BMW ...", "ID3 tags ..."): binary bytes must follow.
WEAK_SIGNATURES = frozenset({b"BM", b"MZ", b"ID3", b"RIFF", b"ftyp", b"OggS", b"fLaC", b"BZh", b"wOFF", b"wOF2",
                             b"WEBP", b"8BPS", b"OTTO", b"ttcf", b"ustar"})
SNIFF_BYTES = 8192


@dataclass(frozen=True, slots=True)
class Document:
    """Decoded text plus what a person should know about the decoding."""

    text: str
    notes: list[str] = field(default_factory=list)
    replaced: int = 0
    # The notes as {code, params, message}, for the page to translate (same order as notes).
    note_details: list[dict] = field(default_factory=list)


def sniff_binary(data: bytes) -> str | None:
    """What a file is when it is clearly not text, else ``None``.

    >>> sniff_binary(b"%PDF-1.7 ..."), sniff_binary(b"# Title\\n"), sniff_binary(b"ab\\x00cd")
    ('a PDF document', None, 'a binary file (it contains NUL bytes)')
    """
    found = sniff_kind(data)
    return None if found is None else found[1]


def sniff_kind(data: bytes) -> tuple[str, str] | None:
    """``(kind, what)`` of a file that is clearly not text, else ``None``.

    >>> sniff_kind(b"%PDF-1.7 ...")
    ('pdf', 'a PDF document')
    """
    return _sniff(data)[0]


def _sniff(data: bytes) -> tuple[tuple[str, str] | None, str | None]:
    """(:func:`sniff_kind`'s answer, the text of UTF-16 data without a BOM, decoded once)."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", UTF32_BE_BOM)):
        return None, None
    for magic, offset, kind, what in SIGNATURES:
        if data[offset : offset + len(magic)] == magic and (magic not in WEAK_SIGNATURES or _binary_tail(data)):
            if kind == "zip":
                return _zip_kind(data) or (kind, what), None
            return (kind, what), None
    binary = _binary_tail(data)
    bare_utf16 = _utf16_without_bom(data, other_alphabets=binary)
    if bare_utf16 is not None:
        return None, bare_utf16
    if binary:
        if b"\x00" in data[:SNIFF_BYTES]:
            return ("binary_nul", "a binary file (it contains NUL bytes)"), None
        return ("binary", "a binary file"), None
    return None, None


def _zip_kind(data: bytes) -> tuple[str, str] | None:
    """The document kind of a ZIP file (.docx, .xlsx, .epub ...), else None (a plain archive)."""
    head = data[:ZIP_SNIFF_BYTES]
    if head[30:38] == b"mimetype":
        for marker, kind, what in ZIP_KINDS:
            if head.startswith(marker, 30):
                return kind, what
    if b"[Content_Types].xml" in head:
        for marker, kind, what in ZIP_KINDS[2:]:
            if marker in head:
                return kind, what
    return None


def _utf16_without_bom(data: bytes, other_alphabets: bool = True) -> str | None:
    """The text of UTF-16 bytes without a BOM (Latin text: nearly every other byte NUL), else None.

    Windows tools write such files; they are text, not binary. The decoded text must be
    valid UTF-16 with no control characters but tab, line breaks and form feed. With
    ``other_alphabets`` (for data that does not read as text otherwise: NUL or control
    bytes), also the text of one other alphabet, whose high bytes take a few values.

    >>> _utf16_without_bom("Hi\\n".encode("utf-16-le")), _utf16_without_bom(b"ab\\x00cd")
    ('Hi\\n', None)
    >>> _utf16_without_bom("Привет, мир.".encode("utf-16-be"))
    'Привет, мир.'
    """
    if len(data) < 2 or len(data) % 2 or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    head = data[:SNIFF_BYTES]
    low, high = head[0::2], head[1::2]
    for zeros, other, codec in ((high, low, "utf-16-le"), (low, high, "utf-16-be")):
        # Latin text in UTF-16 has a NUL high byte in (nearly) every character; binary data rarely does.
        latin = zeros.count(0) * 10 >= len(zeros) * 9 > 0 and other.count(0) == 0
        # Text of another alphabet (Cyrillic, Greek, Devanagari ...) has high bytes of a few values
        # (its block's, and 0 for spaces and digits) and low bytes of many.
        alphabet = other_alphabets and len(zeros) >= 8 and len(set(zeros)) <= 4 < len(set(other))
        if latin or alphabet:
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                return None
            head_text = text[:SNIFF_BYTES]
            if any(ch < " " and ch not in "\t\n\r\x0c" for ch in head_text):
                return None
            if alphabet and not latin and 2 * sum(ch.isalpha() or ch.isspace() for ch in head_text) < len(head_text):
                return None
            return text
    return None


# UTF-32 byte order marks. The little-endian one is also UTF-16's followed by U+0000: a UTF-16
# text that starts with a NUL character reads as UTF-32 when its length allows.
UTF32_LE_BOM = b"\xff\xfe\x00\x00"
UTF32_BE_BOM = b"\x00\x00\xfe\xff"

# Control bytes that text does not hold (tab, line breaks, form feed and escape aside).
_CONTROL_BYTES = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 27))


def _binary_tail(data: bytes) -> bool:
    head = data[:SNIFF_BYTES]
    if b"\x00" in head:
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return bool(head) and controls * 10 > len(head)


def decode_document(data: bytes, name: str = "the file") -> Document:
    """Decode a file's bytes as UTF-8 (or UTF-16, or UTF-32 with a BOM) text.

    Invalid UTF-8 is replaced with U+FFFD and said in ``notes``; a binary file raises
    :class:`NotTextError` naming what it looks like. An empty ``name`` reads "the file"
    in the English message and stays empty in the error's params (the page names it).

    >>> decode_document("привет".encode()).text
    'привет'
    >>> decode_document(b"caf\\xe9").notes
    ['the file is not valid UTF-8: 1 invalid byte sequence was replaced with \\ufffd']
    """
    label = name or "the file"
    if len(data) > MAX_DOCUMENT_BYTES:
        raise RagchunkError(
            "file",
            f"{label} is too large ({len(data):,} bytes): the limit is {MAX_DOCUMENT_BYTES:,} bytes; split it first",
            "file_too_large",
            {"name": name, "size": len(data), "limit": MAX_DOCUMENT_BYTES},
        )
    found, bare_utf16 = _sniff(data)
    if found:
        kind, what = found
        raise NotTextError(
            "file",
            f"{label} is {what}, not text: export it as .txt or .md and drop that instead",
            "not_text",
            {"name": name, "kind": kind, "what": what},
        )
    if data.startswith((UTF32_LE_BOM, UTF32_BE_BOM)) and not len(data) % 4:
        note = f"{label} was decoded as UTF-32"
        return Document(data.decode("utf-32", errors="replace"), [note],
                        note_details=[{"code": "utf32", "params": {"name": name}, "message": note}])
    if bare_utf16 is not None:
        note = f"{label} was decoded as UTF-16"
        return Document(bare_utf16, [note], note_details=[{"code": "utf16", "params": {"name": name}, "message": note}])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        note = f"{label} was decoded as UTF-16"
        return Document(data.decode("utf-16", errors="replace"), [note],
                        note_details=[{"code": "utf16", "params": {"name": name}, "message": note}])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return Document(data.decode("utf-8"))
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        replaced = text.count("\ufffd") - data.count("\ufffd".encode())
        plural = "sequence was" if replaced == 1 else "sequences were"
        note = f"{label} is not valid UTF-8: {replaced:,} invalid byte {plural} replaced with \ufffd"
        detail = {"code": "not_utf8", "params": {"name": name, "count": replaced}, "message": note}
        return Document(text, [note], replaced, [detail])


def text_empty() -> RagchunkError:
    """The error for a document with nothing but white space (or no document at all)."""
    return RagchunkError("text", "text is empty: paste some text or drop a file", "text_empty")


def check_text(text: str) -> str:
    """Refuse empty text; replace lone surrogates (from broken clipboard data) with U+FFFD.

    >>> check_text("")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: text is empty: paste some text or drop a file
    """
    if not text or text.isspace():  # not strip(): that copies a text that ends with a line break
        raise text_empty()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text
