"""Which charset a page's own declaration may choose: the WHATWG Encoding Standard's labels.

A ``<meta charset>`` or an XML declaration is the page's word, and a hostile page can name
anything Python's ``codecs`` knows: ``rot13``, ``zlib``, ``base64`` and ``uu`` are not text
encodings at all, ``utf-7`` and EBCDIC ``cp037`` turn plain bytes into other characters
(a way to smuggle markup past a filter). Browsers honour only the labels of the Encoding
Standard (https://encoding.spec.whatwg.org/#names-and-labels), and so does this table:
anything else is ignored and the bytes are detected (:func:`detect`). A declared UTF-16
or UTF-32 is read as UTF-8, as browsers do: bytes that could be read this far as ASCII are
not UTF-16.

>>> codec_for("ISO-8859-1"), codec_for(" Shift_JIS "), codec_for("utf-16le"), codec_for("rot13")
('cp1252', 'cp932', 'utf-8', None)
>>> codec_for("utf-7"), codec_for("cp037"), codec_for("x-user-defined")
(None, None, None)
"""

from __future__ import annotations

__all__ = ["codec_for", "detect"]

# WHATWG encoding -> (Python codec, its labels). ISO-8859-1 and ASCII are windows-1252 there.
_ENCODINGS: dict[str, tuple[str, str]] = {
    "UTF-8": ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    "IBM866": ("cp866", "866 cp866 csibm866 ibm866"),
    "ISO-8859-2": ("iso8859_2", "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2"
                                " latin2"),
    "ISO-8859-3": ("iso8859_3", "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3"
                                " latin3"),
    "ISO-8859-4": ("iso8859_4", "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4"
                                " latin4"),
    "ISO-8859-5": ("iso8859_5", "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5"
                                " iso_8859-5:1988"),
    "ISO-8859-6": ("iso8859_6", "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6"
                                " iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987"),
    "ISO-8859-7": ("iso8859_7", "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7"
                                " iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek"),
    "ISO-8859-8": ("iso8859_8", "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8"
                                " iso88598 iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical"),
    "ISO-8859-10": ("iso8859_10", "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6"),
    "ISO-8859-13": ("iso8859_13", "iso-8859-13 iso8859-13 iso885913"),
    "ISO-8859-14": ("iso8859_14", "iso-8859-14 iso8859-14 iso885914"),
    "ISO-8859-15": ("iso8859_15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    "ISO-8859-16": ("iso8859_16", "iso-8859-16"),
    "KOI8-R": ("koi8_r", "cskoi8r koi koi8 koi8-r koi8_r"),
    "KOI8-U": ("koi8_u", "koi8-ru koi8-u"),
    "macintosh": ("mac_roman", "csmacintosh mac macintosh x-mac-roman"),
    "windows-874": ("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    "windows-1250": ("cp1250", "cp1250 windows-1250 x-cp1250"),
    "windows-1251": ("cp1251", "cp1251 windows-1251 x-cp1251"),
    "windows-1252": ("cp1252", "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1"
                               " iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252"),
    "windows-1253": ("cp1253", "cp1253 windows-1253 x-cp1253"),
    "windows-1254": ("cp1254", "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9"
                               " iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254"),
    "windows-1255": ("cp1255", "cp1255 windows-1255 x-cp1255"),
    "windows-1256": ("cp1256", "cp1256 windows-1256 x-cp1256"),
    "windows-1257": ("cp1257", "cp1257 windows-1257 x-cp1257"),
    "windows-1258": ("cp1258", "cp1258 windows-1258 x-cp1258"),
    "x-mac-cyrillic": ("mac_cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    "GBK": ("gbk", "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk"),
    "gb18030": ("gb18030", "gb18030"),
    "Big5": ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    "EUC-JP": ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    "ISO-2022-JP": ("iso2022_jp", "csiso2022jp iso-2022-jp"),
    "Shift_JIS": ("cp932", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"),
    "EUC-KR": ("cp949", "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601"
                        " ksc_5601 windows-949"),
    # Declared in a page, UTF-16 is read as UTF-8 (the standard's "prescan" does the same).
    "UTF-16BE": ("utf-8", "unicodefffe utf-16be"),
    "UTF-16LE": ("utf-8", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"),
}
_CODECS: dict[str, str] = {label: codec for codec, labels in _ENCODINGS.values() for label in labels.split()}
# Labels of the standard that name no usable encoding ("replacement" for ISO-2022-KR and
# HZ, which the standard disables as unsafe; x-user-defined), and UTF-32, which it dropped:
# declared, they are ignored like any label the standard does not have.


def codec_for(label: str) -> str | None:
    """The Python codec a page's declared ``label`` stands for, or None when a page may not
    choose it (not a label of the Encoding Standard, or one of its unsafe ones)."""
    return _CODECS.get(label.strip().lower())


def detect(data: bytes) -> str:
    """The codec of bytes whose declaration was ignored: UTF-8 when they are valid UTF-8 (ASCII
    is), else windows-1252, which browsers use for a Western page that says nothing.

    >>> detect("café noir".encode()), detect("café noir".encode("cp1252")), detect(b"plain")
    ('utf-8', 'cp1252', 'utf-8')
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        # Cut short inside a character at the very end is still UTF-8.
        if err.reason != "unexpected end of data":
            return "cp1252"
    return "utf-8"
