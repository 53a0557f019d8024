"""ragchunk.readers.html on what real documentation sites and tag soup hand it.

Each case is cut down from a page that went wrong (Node.js's API docs, rustdoc, mdBook,
DocBook and Texinfo manuals) or from tag soup that made the reader raise. The general
reader tests live in test_readers.py, hostile input in test_readers_hostile.py.
"""

from __future__ import annotations

import random

import pytest

from ragchunk.markdown import parse_blocks
from ragchunk.readers import ReadOptions, html
from ragchunk.readers.formats import read_document


def markdown_of(page: str | bytes, **options) -> str:
    data = page.encode() if isinstance(page, str) else page
    return html.read(data, "page.html", ReadOptions(**options)).text


def kinds(markdown: str) -> list[str]:
    return [block.kind for block in parse_blocks(markdown)]


# --- tag soup ---------------------------------------------------------------------------


@pytest.mark.parametrize("page, expected", [
    # A caption outside a table is a plain block.
    ("<p>x</p><caption>a</caption>", "x\n\na\n"),
    # A table section inside a cell ends the cell (as the HTML standard says); its text stays.
    ("<table><tr><td><tbody>a</tbody></td></tr></table>", "a\n"),
    # A new list item closes the table open in the one before.
    ("<ul><li><table><tr><td>a<td>b</table><li>c</ul>", "- | a | b |\n  | --- | --- |\n- c\n"),
    ("<ul><li><table><tr><td>a<td>b<li>c</ul>", "- | a | b |\n  | --- | --- |\n- c\n"),
    # Row and cell ends without a table, a row outside one, a table end without a table.
    ("</tr></td><tr>a</tr></table><td>b</td><th>c</th>", "a\n\nb\n\nc\n"),
    ("<table><tr><td>a</td><td>b</td></tr><caption>Cap</caption></table>", "Cap\n\n| a | b |\n| --- | --- |\n"),
    # A caption in a cell, a table in a caption, a cell in a heading: text where they are.
    ("<table><tr><td>a<caption>b</caption></td><td>c</td></tr></table>", "| a b | c |\n| --- | --- |\n"),
    ("<table><caption>See <table><tr><td>x</td></tr></table></caption><tr><td>1</td><td>2</td></tr></table>",
     "See x\n\n| 1 | 2 |\n| --- | --- |\n"),
    ("<h2>A<table><tr><td>b</td></tr></table></h2>", "## A b\n"),
    ("<dl><dt>t<table><tr><td>a<dd>d</dl>", "t\n\na\n\n: d\n"),
])
def test_html_tag_soup_around_tables_and_captions_is_read(page, expected):
    assert markdown_of(page) == expected
    assert read_document(page.encode(), "x.html").text == expected


def test_html_random_tag_soup_never_raises():
    tags = ("table caption thead tbody tfoot tr td th colgroup col ul ol li dl dt dd pre code p h2 div "
            "blockquote nav header button select a").split()
    pieces = ([f"<{tag}>" for tag in tags] + [f"</{tag}>" for tag in tags]
              + ['<a href="#x">#</a>', '<a href="#m">Skip to content</a>', '<div class="header">',
                 '<table summary="Navigation header">', "x", "y z", "\n"])
    rng = random.Random(20261203)
    for _ in range(3000):  # any exception fails the test
        page = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for xml in (False, True):
            html.convert_chapter(page, "soup.html", ReadOptions(), xml=xml)
        html.convert(page, "soup.html", ReadOptions(keep_boilerplate=True))


def test_html_boilerplate_inside_a_cell_or_heading_is_dropped_and_leaves_the_table_whole():
    page = ("<table><tr><td>a<table role=navigation><tr><td>Prev</td><td>Next</td></tr></table> more</td>"
            "<td>b</td></tr><tr><td>c</td><td>d</td></tr></table><h2>Title<nav>menu</nav></h2><p>x</p>")
    assert markdown_of(page) == "| a more | b |\n| --- | --- |\n| c | d |\n\n## Title\n\nx\n"


# --- blocks of one list item --------------------------------------------------------------


@pytest.mark.parametrize("page, expected", [
    ("<ul><li><p>First para.</p><p>Second para.</p></li></ul>", "- First para.\n\n  Second para.\n"),
    ("<ol><li><p>Item one.</p><table><tr><td>a</td><td>b</td></tr></table><p>Caption.</p></li></ol>",
     "1. Item one.\n\n   | a | b |\n   | --- | --- |\n\n   Caption.\n"),
    # Text after a nested list or quote is the outer item's own paragraph, not a lazy line of it.
    ("<ul><li>a<ul><li>b</ul>c</li><li>d</ul>", "- a\n  - b\n\n  c\n- d\n"),
    ("<ul><li>a<blockquote>q</blockquote>b</ul>", "- a\n  > q\n\n  b\n"),
    ("<blockquote><p>a</p><p>b</p></blockquote>", "> a\n>\n> b\n"),
    ("<blockquote><ul><li>a<li>b</ul><p>c</blockquote>", "> - a\n> - b\n>\n> c\n"),
    # An ordered list that does not start at 1 cannot interrupt a paragraph: it gets a blank line.
    ("<ul><li>a<ol start=3><li>b<li>c</ol><li>d</ul>", "- a\n\n  3. b\n  4. c\n- d\n"),
    # Items stay tight, and nested lists follow their item's first line.
    ("<ul><li>one<li>two<ul><li>two.a</ul><li>three</ul>", "- one\n- two\n  - two.a\n- three\n"),
])
def test_html_blocks_of_one_list_item_or_quote_stay_separate_blocks(page, expected):
    assert markdown_of(page) == expected


def test_html_paragraph_after_a_table_in_an_item_is_not_a_row():
    text = markdown_of("<ol><li><p>Item one.</p><table><tr><td>a</td><td>b</td></tr></table>"
                       "<p>Caption.</p></li></ol>")
    lines = text.splitlines()
    assert lines[lines.index("   | --- | --- |") + 1] == ""
    assert kinds(text) == ["list"]


# --- page widgets ------------------------------------------------------------------------


def test_html_buttons_and_form_controls_are_not_text():
    # rustdoc's heading, Node.js's code block copy button, controls inside a line of text.
    rustdoc = '<h1>Struct <span class="struct">Vec</span>&nbsp;<button id="copy-path">Copy item path</button></h1>'
    assert markdown_of(rustdoc) == "# Struct Vec\n"
    node = '<pre><code class="language-js">a();</code><button class="copy-button">copy</button></pre>'
    assert markdown_of(node) == "```js\na();\n```\n"
    line = "<p>Press <button>OK</button> to pick <select><option>a</select> or type<textarea>x</textarea>.</p>"
    assert markdown_of(line) == "Press to pick or type.\n"


def test_html_sibling_codes_of_one_pre_are_separate_lines():
    node = ('<pre><code class="language-js mjs">import a from "a";</code><code class="language-js cjs">'
            'const a = require("a");</code><button class="copy-button">copy</button></pre>')
    assert markdown_of(node) == '```js\nimport a from "a";\nconst a = require("a");\n```\n'
    # Code inside a line of a pre stays in the line.
    assert markdown_of("<pre>call <code>f</code>(x) and <code>g</code></pre>") == "```\ncall f(x) and g\n```\n"
    assert markdown_of("<pre><code>a</code>\n<code>b</code></pre>") == "```\na\nb\n```\n"


def test_html_sign_links_elsewhere_and_worded_heading_links_stay():
    assert markdown_of('<h2><a href="#toc">Back to the list</a></h2>') == "## Back to the list\n"
    assert markdown_of('<h2>Item <a href="other.html">#</a></h2>') == "## Item \\#\n"
    assert markdown_of('<p>See <a href="#s">\xa7</a> 3.</p>') == "See \xa7 3.\n"


def test_html_skip_links_are_dropped():
    page = ('<a class="skip-main-content" href="#main-content">Skip to main content</a>'
            '<div><a href="#c"><span>Jump</span> to content</a></div><h1>Title</h1>'
            '<p>If you know it, <a href="#install">skip to the installation</a>.</p>')
    assert markdown_of(page) == "# Title\n\nIf you know it, skip to the installation.\n"


# --- manuals' navigation and hidden popups -----------------------------------------------------


VALGRIND = ('<div class="navheader"><table summary="Navigation header"><tr><th colspan="3">2. Using Valgrind</th>'
            '</tr><tr><td><a accesskey="p" href="a.html">Prev</a></td><td></td><td><a accesskey="n" href="b.html">'
            'Next</a></td></tr></table></div><h1>Title</h1><p>Body.</p>')


@pytest.mark.parametrize("page", [
    VALGRIND,
    # Valgrind's own pages, gtk-doc: the table alone, with its summary.
    '<div><table class="nav" summary="Navigation header"><tr><td><a href="a.html">Prev</a></td>'
    '<th>Valgrind User Manual</th><td><a href="b.html">Next</a></td></tr></table></div><h1>Title</h1><p>Body.</p>',
    '<h1>Title</h1><p>Body.</p><div class="navfooter"><table summary="Navigation footer"><tr><td>'
    '<a href="a.html">Prev</a></td><td><a href="b.html">Next</a></td></tr></table></div>',
    # Texinfo 6 and 7.
    '<div class="header">\n<p>\nNext: <a href="b.html" accesskey="n" rel="next">Type Example</a>, Previous: '
    '<a href="a.html">Size</a>, Up: <a href="u.html">Types</a> &nbsp; [<a href="i.html">Index</a>]</p>\n</div>'
    '<h1>Title</h1><p>Body.</p>',
    '<div class="nav-panel"><p>Next: <a href="b.html">B</a></p></div><h1>Title</h1><p>Body.</p>',
])
def test_html_manuals_previous_and_next_links_are_boilerplate(page):
    found = read_document(page.encode(), "x.html")
    assert found.text == "# Title\n\nBody.\n"
    assert [note["code"] for note in found.notes] == ["boilerplate_dropped"]
    assert "Next" in markdown_of(page, keep_boilerplate=True)


def test_html_a_header_div_that_is_not_texinfo_navigation_stays():
    doxygen = '<div class="header"><div class="headertitle"><div class="title">Foo Class Reference</div></div></div>'
    assert markdown_of(doxygen + "<p>x</p>") == "Foo Class Reference\n\nx\n"


def test_html_mdbook_help_popup_is_not_text():
    page = ('<div id="mdbook-help-container"><div id="mdbook-help-popup"><h2 class="mdbook-help-title">'
            'Keyboard shortcuts</h2><div><p>Press <kbd>?</kbd> to show this help</p></div></div></div>'
            '<div id="mdbook-body-container"><main><h1 id="intro">Introduction</h1><p>Body.</p></main></div>')
    assert markdown_of(page) == "# Introduction\n\nBody.\n"
