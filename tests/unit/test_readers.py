"""ragchunk.readers: documents made by real tools -> Markdown whose chunks keep the structure.

The fixtures in tests/data/docs/ were made from guide.md (and styles.fodt, make_fixtures.py)
by pandoc, LibreOffice, python-docx and nbformat; make_fixtures.sh regenerates them. Each
reader is checked on what it must find (headings, heading paths of real chunks, lists,
tables, code, notes, anchors) and on what it must leave out (markup, boilerplate, outputs,
deleted text). Hostile input lives in test_readers_hostile.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragchunk import split
from ragchunk.text.markdown import parse_blocks
from ragchunk.readers import Extracted, ReadOptions, docx, epub, html, notebook, rst, text
from ragchunk.readers.formats import read_document, reader_for

DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"

# The headings of guide.md, in order: every reader of a document made from it finds them.
GUIDE_HEADINGS = ["Getting started", "Installing", "Configuration file", "Reference tables", "Advanced topics",
                  "Tracking changes"]
# Markup that must never be left in text: a tag, a comment, a doctype, an entity.
MARKUP = re.compile(r"<[A-Za-z][A-Za-z0-9-]*(?:[ \t\n/][^>]*)?>|</[A-Za-z][^>]*>|<!|<\?|&[a-z]+;|&#[0-9]+;")
# The one piece of markup-looking text guide.md shows as text (written \<b\>tag\</b\>).
LITERAL_TAG = "<b>tag</b>"


def load(name: str) -> bytes:
    return (DOCS / name).read_bytes()


def headings(extracted: Extracted) -> list[tuple[int, str]]:
    return [(b.level, b.title) for b in parse_blocks(extracted.text) if b.kind == "heading"]


def chunks(extracted: Extracted, size: int = 12):
    result = split(extracted.text, by="headings", size=size, overlap=0, context="none")
    for chunk in result.chunks:
        assert chunk.text == extracted.text[chunk.start : chunk.end]
    return result.chunks


def path_of(extracted: Extracted, needle: str) -> tuple[str, ...]:
    """The heading path of the chunk whose new content holds ``needle``."""
    for chunk in chunks(extracted):
        if needle in extracted.text[chunk.content_start : chunk.end]:
            return chunk.heading_path
    raise AssertionError(f"{needle!r} is in no chunk")


def assert_no_markup(extracted: Extracted) -> None:
    for chunk in chunks(extracted):
        leftover = MARKUP.findall(chunk.text.replace(LITERAL_TAG, ""))
        assert not leftover, leftover


def assert_anchors_at_headings(extracted: Extracted) -> None:
    assert list(extracted.anchors) == sorted(extracted.anchors)
    for offset, _ in extracted.anchors:
        assert extracted.text[offset] == "#" and (offset == 0 or extracted.text[offset - 1] == "\n")


# --- HTML -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_html() -> Extracted:
    return html.read(load("guide.html"), "guide.html", ReadOptions())


def test_html_headings_and_their_paths(guide_html):
    found = headings(guide_html)
    assert [title for _, title in found][1:] == GUIDE_HEADINGS
    assert found[0] == (1, "Field Guide to Chunking")  # pandoc's title block (a header holding the h1) is kept
    assert guide_html.title == "Field Guide to Chunking"
    assert path_of(guide_html, "nested ordered b") == ("Getting started", "Installing")
    assert path_of(guide_html, "Cut text.") == ("Getting started", "Installing", "Configuration file")
    assert path_of(guide_html, "multilingual") == ("Getting started", "Reference tables")
    assert path_of(guide_html, "was not really edited") == ("Advanced topics", "Tracking changes")


def test_html_lists_tables_code_quotes_definitions(guide_html):
    body = guide_html.text
    assert "1. Download the package.\n2. Install it:\n   - on Linux with pip;\n   - on macOS with brew.\n3. Check" in body
    assert "- Unordered item two\n  1. nested ordered a\n  2. nested ordered b" in body
    assert "| Model | Context | Notes |\n| --- | --- | --- |\n| gpt-4o | 128000 | a pipe \\| inside |" in body
    assert '```python\ndef chunk(text, size=512):\n    """Cut text."""\n' in body
    assert "> A block quote says something wise over two lines." in body
    assert "Term one\n: The definition of term one." in body
    kinds = [b.kind for b in parse_blocks(body)]
    assert kinds.count("table") == 2 and kinds.count("code") == 1 and kinds.count("quote") == 1
    assert kinds.count("list") == 3  # two lists and the footnotes


def test_html_decodes_entities_and_leaves_no_markup(guide_html):
    assert "5 < 6 & 7 > 3" in guide_html.text
    assert LITERAL_TAG in guide_html.text  # the page shows it as text (&lt;b&gt;)
    assert_no_markup(guide_html)
    for leftover in ("<meta", "<span", "sourceCode", "aria-hidden", "code{white-space", "cb1-1"):
        assert leftover not in guide_html.text


SITE_CHROME = ["Example Docs", "Home", "sidebar text", "Copyright footer", "Contents: Getting started"]
NEVER_TEXT = ["Script heading", "console.log", "SVG text", "Logo drawing", "Template row", "Enable JavaScript"]


def test_html_drops_boilerplate_by_default_and_keeps_it_when_asked(guide_html):
    for piece in SITE_CHROME + NEVER_TEXT:
        assert piece not in guide_html.text, piece
    assert [n["code"] for n in guide_html.notes] == ["boilerplate_dropped"]
    kept = html.read(load("guide.html"), "guide.html", ReadOptions(keep_boilerplate=True))
    for piece in SITE_CHROME:
        assert piece in kept.text, piece
    for piece in NEVER_TEXT:
        assert piece not in kept.text, piece
    assert "- Getting started\n  - Installing" in kept.text  # pandoc's table of contents (nav#TOC)
    assert kept.notes == ()


def test_html_drops_menus_dialogs_and_what_is_not_rendered_but_keeps_notes():
    page = (b"<ul role='menu'><li>Light</li><li>Dark</li></ul><div role='dialog'>We use cookies</div>"
            b"<p style='DISPLAY: none'>invisible</p><p hidden>also invisible</p><p style='color: red'>shown</p>"
            b"<aside epub:type='footnote'><p>A note.</p></aside><aside role='doc-endnote'>An endnote.</aside>")
    assert html.read(page, "m.html", ReadOptions()).text == "shown\n\nA note.\n\nAn endnote.\n"
    kept = html.read(page, "m.html", ReadOptions(keep_boilerplate=True)).text
    assert "We use cookies" in kept and "- Light" in kept and "invisible" not in kept


def test_html_anchors_are_heading_ids(guide_html):
    assert [a for _, a in guide_html.anchors] == ["getting-started", "installing", "config", "tables", "advanced",
                                                  "changes"]
    assert_anchors_at_headings(guide_html)
    assert guide_html.anchor_at(guide_html.text.index("1. Download")) == "installing"


def test_html_anchor_from_section_or_named_link():
    page = (b"<section id='intro'><h2>Intro</h2><h3>Sub</h3></section>"
            b"<a name='old'></a><h2>Named</h2><h2><a id='inner'>Inner</a></h2>"
            b"<div class='section' id='ds'><h2>Div section</h2></div>")
    found = html.read(page, "a.html", ReadOptions())
    assert [a for _, a in found.anchors] == ["intro", "old", "inner", "ds"]
    assert_anchors_at_headings(found)


def test_html_title_becomes_the_top_heading_only_without_h1():
    without = html.read(b"<title>My &amp; Page</title><h2>Part</h2><p>x", "p.html", ReadOptions())
    assert headings(without) == [(1, "My & Page"), (2, "Part")]
    assert without.anchors == ()
    with_h1 = html.read(b"<title>Tab text</title><h1>Real</h1>", "p.html", ReadOptions())
    assert headings(with_h1) == [(1, "Real")] and with_h1.title == "Tab text"


def test_html_title_is_not_repeated_above_a_first_heading_that_says_it():
    page = html.read(b"<title>zlib Usage Example</title><h2>zlib  usage example</h2><p>We often get questions.",
                     "zlib_how.html", ReadOptions())
    assert headings(page) == [(2, "zlib usage example")] and page.title == "zlib Usage Example"


@pytest.mark.parametrize("heading", [
    # Sphinx and MkDocs, Docusaurus, VitePress, GitHub (with the heading's id), Jupyter.
    b'<h2 id="x">Install C#<a class="headerlink" href="#x" title="Permalink to this heading">\xc2\xb6</a></h2>',
    b'<h2 id="x">Install C#<a href="#x" class="hash-link" aria-label="Direct link to Install">\xe2\x80\x8b</a></h2>',
    b'<h2 id="x"><a class="header-anchor" href="#x">#</a> Install C#</h2>',
    b'<h2><a id="x" class="anchor" aria-hidden="true" href="#x"><svg><path d="M0"></path></svg>#</a>Install C#</h2>',
    b'<h2 id="x">Install C#<a class="anchor-link" href="#x">\xc2\xb6</a></h2>',
    # Any link to the heading itself made of one sign: Node.js, rustdoc, and others.
    b'<h2 id="x">Install C#<a class="mark" href="#x" id="x">#</a></h2>',  # Node.js
    b'<h2 id="x" class="section-header"><a class="doc-anchor" href="#x">\xc2\xa7</a>Install C#</h2>',  # rustdoc
    b'<h2 id="x"><a href="#x"> \xc2\xb6 </a>Install C#</h2>',
    b'<h2 id="x">Install C# <a href="#x">\xf0\x9f\x94\x97\xef\xb8\x8f</a></h2>',
    b'<h2 id="x">Install C# <a href="#x"><span>\xe2\x9a\x93</span></a></h2>',
])
def test_html_heading_permalinks_are_not_words_of_the_heading(heading):
    page = html.read(heading + b"<p>Run it.</p>", "docs.html", ReadOptions())
    assert page.text == "## Install C#\n\nRun it.\n"
    assert page.anchors == ((0, "x"),)
    assert split(page.text, size=64).chunks[0].heading_path == ("Install C#",)


def test_html_a_link_that_is_the_heading_text_stays():
    page = html.read(b'<h2><a href="#toc">Back to the list</a></h2><p>Text.</p>', "a.html", ReadOptions())
    assert headings(page) == [(2, "Back to the list")]


@pytest.mark.parametrize("charset, declaration", [
    ("windows-1251", b'<meta charset="windows-1251">'),
    ("koi8-r", b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'),
    ("iso-8859-5", b'<?xml version="1.0" encoding="iso-8859-5"?>'),
])
def test_html_charset_from_meta_or_xml_declaration(charset, declaration):
    page = declaration + "<p>Привет, мир</p>".encode(charset)
    found = html.read(page, "ru.html", ReadOptions())
    assert found.text == "Привет, мир\n" and found.notes == ()


def test_html_charset_from_bom_and_default_utf8():
    assert html.read("\ufeff<p>é ü</p>".encode("utf-16-le").replace(b"\xef\xbb\xbf", b""), "a.html",
                     ReadOptions()).text == "é ü\n"
    assert html.read("<p>é</p>".encode(), "a.html", ReadOptions()).text == "é\n"
    # Latin-1 declared is read as windows-1252, as browsers do ("\x93" is a curly quote there).
    assert html.read(b'<meta charset="iso-8859-1"><p>\x93q\x94</p>', "a.html", ReadOptions()).text == "\u201cq\u201d\n"
    noted = html.read(b"<p>caf\xe9</p>", "a.html", ReadOptions())
    assert noted.text == "caf\ufffd\n" and noted.notes[0]["code"] == "not_utf8"
    unknown = html.read(b'<meta charset="x-klingon"><p>a</p>', "a.html", ReadOptions())
    assert unknown.notes[0]["code"] == "unknown_charset"


def test_html_whitespace_collapses_outside_pre_and_br_breaks_lines():
    found = html.read(b"<p>  a \n\t b&nbsp; c<br>d<br/>e </p><pre>\n  x  y\n\n z</pre>", "w.html", ReadOptions())
    assert found.text == "a b\xa0 c\nd\ne\n\n```\n  x  y\n\n z\n```\n"


def test_html_code_fence_is_longer_than_backticks_inside():
    found = html.read(b"<pre><code class='language-md'>```js\nx\n```</code></pre>", "c.html", ReadOptions())
    assert found.text == "````md\n```js\nx\n```\n````\n"
    assert [b.kind for b in parse_blocks(found.text)] == ["code"]


def test_html_text_that_looks_like_markdown_stays_text():
    page = b"<p># not a heading</p><p>1. not a list</p><p>- nor this</p><p>&gt; nor a quote</p><p>```</p><p>after</p>"
    found = html.read(page, "m.html", ReadOptions())
    assert [b.kind for b in parse_blocks(found.text)] == ["paragraph"] * 6
    assert "\\# not a heading" in found.text


def test_html_implied_end_tags_and_unclosed_elements():
    page = b"<ul><li>one<li>two<ul><li>two.a</ul><li>three</ul><p>para<p>next<table><tr><td>a<td>b<tr><td>c<td>d</table>"
    found = html.read(page, "i.html", ReadOptions())
    assert found.text == ("- one\n- two\n  - two.a\n- three\n\npara\n\nnext\n\n"
                          "| a | b |\n| --- | --- |\n| c | d |\n")


def test_html_tables_spans_captions_and_layout_tables():
    page = (b"<table><caption>Prices</caption><tr><th colspan=2>Both</th><th>C</th></tr>"
            b"<tr><td>1</td><td>2<table><tr><td>in</td><td>ner</td></tr></table></td><td>3</td></tr></table>"
            b"<table><tr><td><h2>Layout</h2><p>Text in one column.</p></td></tr></table>")
    found = html.read(page, "t.html", ReadOptions())
    assert found.text == ("Prices\n\n| Both |  | C |\n| --- | --- | --- |\n| 1 | 2 in ner | 3 |\n\n"
                          "Layout Text in one column.\n")


def test_html_headings_inside_list_items_are_text():
    found = html.read(b"<ul><li><h3>Item title</h3>body</li></ul>", "h.html", ReadOptions())
    assert found.text == "- Item title\n\n  body\n" and headings(found) == []


# --- DOCX -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_docx() -> Extracted:
    return docx.read(load("guide.docx"), "guide.docx", ReadOptions())


def test_docx_headings_paths_and_title(guide_docx):
    found = headings(guide_docx)
    assert found[0] == (1, "Field Guide to Chunking")  # the Title paragraph
    assert [title for _, title in found[1:-1]] == GUIDE_HEADINGS
    assert [level for level, _ in found[1:-1]] == [1, 2, 3, 2, 1, 2]
    assert guide_docx.title == "Field Guide to Chunking"  # docProps/core.xml
    assert path_of(guide_docx, "nested ordered a") == ("Getting started", "Installing")
    assert path_of(guide_docx, "bge-m3") == ("Getting started", "Reference tables")


def test_docx_anchors_are_the_bookmarks_of_headings(guide_docx):
    assert [a for _, a in guide_docx.anchors] == ["getting-started", "installing", "config", "tables", "advanced",
                                                  "changes"]
    assert_anchors_at_headings(guide_docx)


def test_docx_lists_tables_code(guide_docx):
    body = guide_docx.text
    assert "1. Download the package.\n2. Install it:\n   - on Linux with pip;\n   - on macOS with brew.\n3. Check" in body
    assert "- Unordered item one\n- Unordered item two\n  1. nested ordered a\n  2. nested ordered b" in body
    assert "| gpt-4o | 128000 | a pipe \\| inside |" in body
    assert '```\ndef chunk(text, size=512):\n    """Cut text."""\n    return [text' in body
    assert "> A block quote says something wise" in body  # pandoc's Block Text style


def test_docx_footnotes_at_the_end_tracked_changes_and_links(guide_docx):
    body = guide_docx.text
    assert "in one paragraph.[^1]" in body and "start of the next.[^2]" in body
    assert body.endswith("# Footnotes\n\n[^1]: The first footnote explains chunk sizes.\n\n"
                         "[^2]: The second footnote is about overlap.\n")
    assert path_of(guide_docx, "The second footnote") == ("Footnotes",)
    assert "This sentence was really edited." in body  # w:del dropped, w:ins kept
    assert "link to the docs" in body and "example.com" not in body
    assert_no_markup(guide_docx)


def test_docx_libreoffice_styles_outline_levels_fields_and_endnotes():
    found = docx.read(load("styles-lo.docx"), "styles-lo.docx", ReadOptions())
    # "Chapter Title" (a custom style, outline level 1) and "Side Topic" (outline level 2).
    assert headings(found) == [(1, "Quarterly results"), (2, "By region"), (2, "Outlook"), (1, "Endnotes")]
    assert "- North\n  - Oslo office\n- South" in found.text
    assert "Page 1 says the outlook is stable." in found.text and "PAGE" not in found.text  # the field's result
    assert "```\ntotal = sum(regions)\nprint(total)\n```" in found.text  # Preformatted Text
    assert "| Region | Growth |\n| --- | --- |\n| North | 4 % |" in found.text
    assert "An endnote follows.[^e1]" in found.text and found.text.endswith("[^e1]: The endnote text.\n")
    assert found.title == "Styled Report"


def test_docx_word_styles_based_on_headings_and_list_styles():
    found = docx.read(load("word-styles.docx"), "word-styles.docx", ReadOptions())
    # "Chapter Heading" is based on Heading 1; "Aside Topic" has outline level 1 (so ##).
    assert headings(found) == [(1, "Styled Handbook"), (1, "Part one"), (2, "Background"), (2, "Data"),
                               (4, "Deep detail")]
    assert "- Bullet alpha\n- Bullet beta\n  - Nested bullet\n\n1. Step one\n2. Step two" in found.text
    assert "| alpha | 1 \\| 2 |\n| beta | two lines |" in found.text
    assert path_of(found, "Closing words.") == ("Part one", "Data", "Deep detail")


def test_docx_from_libreoffice_reads_like_the_pandoc_one(guide_docx):
    found = docx.read(load("guide-lo.docx"), "guide-lo.docx", ReadOptions())
    assert headings(found) == headings(guide_docx)
    assert "[^1]: The first footnote explains chunk sizes." in found.text


def test_docx_core_title_is_written_when_there_is_no_level_one_heading():
    import io
    import zipfile

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                         'relationships"><Relationship Id="r1" Type="http://schemas.openxmlformats.org/'
                         'officeDocument/2006/relationships/officeDocument" Target="word/main.xml"/>'
                         '<Relationship Id="r2" Type="http://schemas.openxmlformats.org/package/2006/relationships/'
                         'metadata/core-properties" Target="props/core.xml"/></Relationships>')
        archive.writestr("props/core.xml", '<cp:coreProperties xmlns:cp="x" xmlns:dc="http://purl.org/dc/elements/'
                         '1.1/"><dc:title>Core  Title</dc:title></cp:coreProperties>')
        archive.writestr("word/main.xml", f'<w:document xmlns:w="{w}"><w:body><w:p><w:pPr><w:outlineLvl w:val="1"/>'
                         "</w:pPr><w:r><w:t>Part</w:t></w:r></w:p></w:body></w:document>")
    found = docx.read(buffer.getvalue(), "t.docx", ReadOptions())
    assert found.text == "# Core Title\n\n## Part\n" and found.title == "Core Title"


# --- EPUB -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_epub() -> Extracted:
    return epub.read(load("guide.epub"), "guide.epub", ReadOptions())


def test_epub_chapters_in_spine_order_with_titles_in_heading_paths(guide_epub):
    assert guide_epub.title == "Field Guide to Chunking"
    assert [t for _, t in headings(guide_epub)] == ["Field Guide to Chunking", *GUIDE_HEADINGS]
    # pandoc puts a chapter's notes after its last section, without a heading of their own.
    assert path_of(guide_epub, "The second footnote") == ("Advanced topics", "Tracking changes")
    assert path_of(guide_epub, "nested ordered b") == ("Getting started", "Installing")
    assert guide_epub.text.count("Getting started") == 1  # the navigation page is not read as a chapter
    assert_no_markup(guide_epub)


def test_epub_anchors_name_the_chapter_file(guide_epub):
    assert [a for _, a in guide_epub.anchors] == [
        "text/ch001.xhtml#getting-started", "text/ch001.xhtml#installing", "text/ch001.xhtml#config",
        "text/ch001.xhtml#tables", "text/ch002.xhtml#advanced", "text/ch002.xhtml#changes"]
    assert_anchors_at_headings(guide_epub)


def test_epub2_with_an_ncx_reads_like_epub3(guide_epub):
    found = epub.read(load("guide-epub2.epub"), "guide-epub2.epub", ReadOptions())
    assert found.text == guide_epub.text and found.anchors == guide_epub.anchors


def test_epub_chapter_title_from_the_toc_is_added_when_the_chapter_lacks_it():
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                      '<rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/>'
                      '</rootfiles></container>')
        book.writestr("OPS/book.opf", '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
                      '<item id="n" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
                      '<item id="a" href="ch%201.xhtml" media-type="application/xhtml+xml"/></manifest>'
                      '<spine><itemref idref="a"/></spine></package>')
        book.writestr("OPS/nav.xhtml", '<html><body><nav epub:type="toc"><ol><li><a href="ch%201.xhtml">'
                      'Chapter One</a></li></ol></nav></body></html>')
        book.writestr("OPS/ch 1.xhtml", '<html><body><h1 id="s">Section</h1><p>Body.</p></body></html>')
    found = epub.read(buffer.getvalue(), "b.epub", ReadOptions())
    assert found.text == "# Chapter One\n\n## Section\n\nBody.\n"
    assert found.anchors == ((0, "ch%201.xhtml"), (15, "ch%201.xhtml#s"))


def test_epub_chapter_title_heads_text_before_the_first_heading_and_every_section():
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", '<container><rootfiles><rootfile full-path="b.opf"/></rootfiles>'
                      "</container>")
        book.writestr("b.opf", '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
                      '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>'
                      '<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/>'
                      '<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest>'
                      '<spine><itemref idref="a"/><itemref idref="b"/><itemref idref="c"/></spine></package>')
        book.writestr("a.xhtml", "<html><body><p>Epigraph.</p><h1>One</h1><p>a</p></body></html>")
        book.writestr("b.xhtml", "<html><body><h1 id='t'>Two</h1><p>b</p><h1>Also two</h1><p>c</p></body></html>")
        book.writestr("c.xhtml", "<html><body><p>" + "A long foreword. " * 20 + "</p><h1>Three</h1><p>d</p></body></html>")
    found = epub.read(buffer.getvalue(), "b.epub", ReadOptions())
    # A chapter's own heading that says its title heads it once: moved above a short preamble
    # (a page number, an epigraph), the chapter's later headings under it. Before, the title
    # was in each path twice ("One > One"; "Two > Two > Also two").
    assert headings(found) == [(1, "One"), (1, "Two"), (2, "Also two"), (1, "Three"), (2, "Three")]
    assert found.text.startswith("# One\n\nEpigraph.\n\na\n\n# Two\n\nb\n\n## Also two\n\nc\n")
    assert path_of(found, "Epigraph.") == ("One",)
    assert ("b.xhtml#t" in dict((a, o) for o, a in found.anchors)
            and found.text[dict((a, o) for o, a in found.anchors)["b.xhtml#t"]:].startswith("# Two"))
    # A longer text before the heading is not moved: the title is written above it.
    assert path_of(found, "A long foreword.") == ("Three",)
    assert_anchors_at_headings(found)


# --- notebooks --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def analysis() -> Extracted:
    return notebook.read(load("analysis.ipynb"), "analysis.ipynb", ReadOptions())


def test_notebook_markdown_code_raw_and_no_outputs(analysis):
    body = analysis.text
    assert "OUTPUT-SHOULD-NOT-APPEAR" not in body
    assert "```python\nimport ragchunk\ntext = open('corpus.md').read()\nprint(len(text))\n```" in body
    assert "````python\n```\nfence inside code\n```\ncount = ragchunk" in body
    assert "Raw cell text kept as it is." in body
    assert headings(analysis) == [(1, "Token counts"), (2, "Loading"), (2, "Counting")]
    assert path_of(analysis, "fence inside code") == ("Token counts", "Counting")
    assert [b.kind for b in parse_blocks(body)].count("code") == 2


def test_notebook_v3_reads_like_v4(analysis):
    assert notebook.read(load("analysis-v3.ipynb"), "a.ipynb", ReadOptions()).text == analysis.text


def test_notebook_markdown_cell_with_an_open_fence_cannot_swallow_the_next_cells():
    import json

    nb = {"nbformat": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "```\nopen fence", "metadata": {}},
        {"cell_type": "markdown", "source": "# After", "metadata": {}}]}
    found = notebook.read(json.dumps(nb).encode(), "f.ipynb", ReadOptions())
    assert headings(found) == [(1, "After")]


# --- reStructuredText -------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_rst() -> Extracted:
    return rst.read(load("guide.rst"), "guide.rst", ReadOptions())


def test_rst_sections_by_order_of_appearance(guide_rst):
    found = headings(guide_rst)
    assert found == [(1, "Field Guide to Chunking"), (2, "Getting started"), (3, "Installing"),
                     (4, "Configuration file"), (3, "Reference tables"), (2, "Advanced topics"),
                     (3, "Tracking changes")]
    assert guide_rst.title == "Field Guide to Chunking"
    assert path_of(guide_rst, "multilingual") == ("Field Guide to Chunking", "Getting started", "Reference tables")


def test_rst_anchors_from_targets_and_titles(guide_rst):
    assert [a for _, a in guide_rst.anchors] == ["field-guide-to-chunking", "getting-started", "installing",
                                                 "config", "tables", "advanced", "changes"]
    assert_anchors_at_headings(guide_rst)


def test_rst_roles_and_references_read_as_sphinx_shows_them():
    source = (":mod:`email` Package Architecture\n=================================\n\n"
              "The :class:`~email.message.EmailMessage` follows :rfc:`5322` (see :pep:`8`,\n"
              ":ref:`the policy guide <policy>`, `CPython <https://github.com/python/cpython>`_ and Python_).\n"
              "A snake_case name and a literal ``a_b`` stay; *so does emphasis*.\n\n"
              "::\n\n    :mod:`email` in code is code\n")
    result = rst.read(source.encode(), "architecture.rst", ReadOptions())
    assert result.text == (
        "# `email` Package Architecture\n\n"
        "The `EmailMessage` follows RFC 5322 (see PEP 8,\nthe policy guide, CPython and Python).\n"
        "A snake_case name and a literal `a_b` stay; *so does emphasis*.\n\n"
        "```\n:mod:`email` in code is code\n```\n")
    # The anchor is the title's docutils id, as Sphinx makes it from the rendered title.
    assert result.anchors == ((0, "email-package-architecture"),) and result.title == "`email` Package Architecture"


def test_rst_lists_code_tables_quotes_definitions_footnotes(guide_rst):
    body = guide_rst.text
    assert "1. Download the package.\n2. Install it:\n   - on Linux with `pip`;\n   - on macOS with `brew`.\n3." in body
    assert '```python\ndef chunk(text, size=512):\n    """Cut text."""' in body
    assert "| Model | Context | Notes |\n| --- | --- | --- |\n| gpt-4o | 128000 | a pipe \\| inside |" in body  # simple
    assert ("| overlap | Repeats the last tokens of a chunk at the start of the next one, so that a sentence cut in "
            "two is whole in at least one chunk, which helps retrieval. |") in body  # grid
    assert "> A block quote says something wise over two lines." in body
    assert "Term one\n: The definition of term one." in body
    assert "[2] The second footnote is about overlap." in body
    assert "Author: Ragchunk Tests" in body
    assert ".. _" not in body and ".. code" not in body


def test_rst_literal_blocks_directives_and_comments():
    source = """Title
=====

.. highlight:: bash

Run this::

    make install

.. note:: Read the **docs**.

   Twice.

.. toctree::
   :maxdepth: 2

   intro

.. This comment is dropped
   with its second line.

.. code-block:: rust
   :linenos:

   fn main() {}

>>> 1 + 1
2
"""
    found = rst.read(source.encode(), "d.rst", ReadOptions())
    assert found.text == ("# Title\n\nRun this:\n\n```bash\nmake install\n```\n\nRead the **docs**.\n\nTwice.\n\n"
                          "```rust\nfn main() {}\n```\n\n```pycon\n>>> 1 + 1\n2\n```\n")


def test_rst_overlined_titles_and_nested_bodies():
    source = "=====\nTop\n=====\n\nSub\n---\n\n* a\n\n  * b\n\n    > not a quote marker\n\n* c\n"
    found = rst.read(source.encode(), "n.rst", ReadOptions())
    assert headings(found) == [(1, "Top"), (2, "Sub")]
    assert "- a\n  - b\n\n    \\> not a quote marker\n- c" in found.text


# --- every format -----------------------------------------------------------------------


def test_the_same_source_gives_the_same_headings_in_every_format(guide_html, guide_docx, guide_epub, guide_rst):
    for extracted in (guide_html, guide_docx, guide_epub, guide_rst):
        titles = [t for _, t in headings(extracted)]
        assert [t for t in titles if t in GUIDE_HEADINGS] == GUIDE_HEADINGS, extracted.kind
        assert "Chunking cuts a document into pieces" in extracted.text


@pytest.mark.parametrize("name, kind", [
    ("guide.html", "html"), ("guide.docx", "docx"), ("guide-lo.docx", "docx"), ("word-styles.docx", "docx"),
    ("styles-lo.docx", "docx"), ("guide.epub", "epub"), ("guide-epub2.epub", "epub"), ("analysis.ipynb", "ipynb"),
    ("analysis-v3.ipynb", "ipynb"), ("guide.rst", "rst"), ("guide.md", "markdown"),
])
def test_read_document_picks_the_reader_and_chunks_are_verbatim_slices(name, kind):
    data = load(name)
    assert reader_for(name, data) == kind
    found = read_document(data, name)
    assert found.kind == kind and found.text.strip()
    assert chunks(found, 32)
    if kind != "markdown":  # guide.md holds raw HTML of its own
        assert_no_markup(found)


def test_signatures_beat_extensions():
    assert reader_for("renamed.txt", load("guide.docx")) == "docx"
    assert reader_for("renamed.zip", load("guide.epub")) == "epub"
    assert reader_for("renamed.html", b"%PDF-1.4 ...") == "pdf"
    assert reader_for("secret.bin", load("guide-encrypted.docx")) == "docx"
    assert reader_for("page.txt", b"  \n<!DOCTYPE html><p>x") == "text"
    assert reader_for("page", b"  \n<!DOCTYPE html><p>x") == "html"
    assert reader_for("page", b"\xef\xbb\xbf <HTML><p>x") == "html"
    assert reader_for("feed", b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">') == "html"
    assert reader_for("notes", b"# Title") == "text"


def test_text_reader_for_markdown_and_plain_text():
    assert text.read(b"# A\n", "a.MD", ReadOptions()).kind == "markdown"
    assert text.read(b"\xef\xbb\xbfplain", "a.txt", ReadOptions()) == Extracted("plain", "text")


def test_docx_text_boxes_alternate_content_and_simple_fields():
    import io
    import zipfile

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    box = ("<w:p><w:r><w:t>Host </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires='wps'><w:drawing>"
           "<w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>"
           "<mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed text</w:t></w:r></w:p></w:txbxContent>"
           "</w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>paragraph.</w:t></w:r></w:p>"
           "<w:p><w:fldSimple w:instr=' HYPERLINK \"https://x.test\" '><w:r><w:t>Link text</w:t></w:r></w:fldSimple>"
           "<w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText> DATE </w:instrText></w:r>"
           "<w:r><w:fldChar w:fldCharType='separate'/></w:r><w:r><w:t> 2024-01-01</w:t></w:r>"
           "<w:r><w:fldChar w:fldCharType='end'/></w:r></w:p>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", f'<w:document xmlns:w="{w}" xmlns:mc="{mc}"><w:body>{box}'
                         "</w:body></w:document>")
    found = docx.read(buffer.getvalue(), "b.docx", ReadOptions())
    assert found.text == "Boxed text\n\nHost paragraph.\n\nLink text 2024-01-01\n"
