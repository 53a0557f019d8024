"""ragchunk.readers.html on what real documentation sites and tag soup hand it.

Each case is cut down from a page that went wrong (Node.js's API docs, rustdoc, mdBook,
DocBook and Texinfo manuals, MathML as MathJax and KaTeX write it) or from tag soup that
made the reader raise. The general
reader tests live in test_readers.py, hostile input in test_readers_hostile.py.
"""

from __future__ import annotations

import random

import pytest
from test_hostile import _grows_linearly

from ragchunk.text.markdown import parse_blocks
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


NODE_HEADER = ('<header><h1>Node.js v20 documentation</h1><div id="gtoc"><ul>'
               '<li class="pinned-header">Node.js v20</li>'
               '<li><a href="#toc-picker">Table of contents</a><div class="picker"><ul>'
               '<li><a href="#assert">Assert</a></li><li><a href="#strict">Strict mode</a></li></ul></div></li>'
               '<li><a href="#gtoc-picker">Index</a><div class="picker"><ul>'
               '<li><a href="buffer.html">Buffer</a></li><li><a href="fs.html">File system</a></li></ul></div></li>'
               '<li><a href="#alt-docs">Other versions</a><div class="picker"><ol>'
               '<li><a href="/v25">25.x</a></li><li><a href="/v24">24.x</a></li></ol></div></li>'
               '</ul></div></header><h2>Assert</h2><p>The assert module.</p>')


@pytest.mark.parametrize("page, expected, dropped", [
    # Node.js's title block: the heading stays; its module index and pickers (nested menus, one element) go.
    (NODE_HEADER, "# Node.js v20 documentation\n\n## Assert\n\nThe assert module.\n", 1),
    # A byline or a list of facts in an article's title block is no menu.
    ("<article><header><h1>Rivers</h1><ul><li>By Ann Lee</li><li>3 May 2024</li></ul></header><p>Text.</p>"
     "</article>", "# Rivers\n\n- By Ann Lee\n- 3 May 2024\n\nText.\n", 0),
    # The site's menu before the title: the title stays, the menu goes.
    ('<header><ul><li><a href="/">Home</a></li><li><a href="/blog">Blog</a></li></ul><h1>Rivers</h1></header>'
     "<p>Text.</p>", "# Rivers\n\nText.\n", 1),
])
def test_html_a_menu_in_a_pages_title_block_is_boilerplate(page, expected, dropped):
    found = read_document(page.encode(), "x.html")
    assert found.text == expected
    assert [note["params"]["count"] for note in found.notes] == ([dropped] if dropped else [])
    if page == NODE_HEADER:
        kept = markdown_of(page, keep_boilerplate=True)
        assert "- Buffer" in kept and "1. 25.x" in kept


def test_html_mdbook_help_popup_is_not_text():
    page = ('<div id="mdbook-help-container"><div id="mdbook-help-popup"><h2 class="mdbook-help-title">'
            'Keyboard shortcuts</h2><div><p>Press <kbd>?</kbd> to show this help</p></div></div></div>'
            '<div id="mdbook-body-container"><main><h1 id="intro">Introduction</h1><p>Body.</p></main></div>')
    assert markdown_of(page) == "# Introduction\n\nBody.\n"


# --- MathML ---------------------------------------------------------------------------------


def mi(text: str) -> str:
    return f"<mi>{text}</mi>"


def mn(text: str) -> str:
    return f"<mn>{text}</mn>"


def mo(text: str) -> str:
    return f"<mo>{text}</mo>"


def mrow(*children: str) -> str:
    return "<mrow>" + "".join(children) + "</mrow>"


def math(*children: str, display: str = "") -> str:
    return f'<math{f" display={display!r}" if display else ""}>' + "".join(children) + "</math>"


def test_html_mathml_is_linear_text_not_run_together():
    """It came out as "x=y2ab"."""
    equation = math(mi("x"), mo("="), f"<msup>{mi('y')}{mn('2')}</msup>", mi("a"), mi("b"))
    assert markdown_of(f"<p>So {equation}.</p>") == "So x=y^2 ab.\n"


SUM = f"<munderover>{mo('∑')}{mrow(mi('i'), mo('='), mn('1'))}{mi('n')}</munderover><msub>{mi('x')}{mi('i')}</msub>"


STRUCTURES = [
    # The DOCX reader's forms: E=mc^2, (a+b)/2, √x, n√x, ∑_(i=1)^n x_i, 10^(-6).
    (math(mi("E"), mo("="), mi("m"), f"<msup>{mi('c')}{mn('2')}</msup>"), "E=mc^2"),
    (math(f"<mfrac>{mrow(mi('a'), mo('+'), mi('b'))}{mn('2')}</mfrac>"), "(a+b)/2"),
    (math(f"<msqrt>{mi('x')}</msqrt>", mo("+"), f"<msqrt>{mi('x')}{mo('+')}{mn('1')}</msqrt>"), "√x+√(x+1)"),
    (math(f"<mroot>{mrow(mi('y'), mo('+'), mn('1'))}{mn('3')}</mroot>"), "3√(y+1)"),
    (math(SUM), "∑_(i=1)^n x_i"),
    (math(f"<msup>{mn('10')}{mrow(mo('-'), mn('6'))}</msup>"), "10^(-6)"),
    (math(f"<msubsup>{mi('x')}{mi('i')}{mn('2')}</msubsup>"), "x_i^2"),
    (math(f"<msubsup>{mo('∫')}{mn('0')}{mn('1')}</msubsup>", mi("f"), mo("("), mi("x"), mo(")"), mi("d"), mi("x")),
     "∫_0^1 f(x)dx"),
    (math(f"<munder>{mo('lim')}{mrow(mi('x'), mo('→'), mn('0'))}</munder>", mi("f")), "lim_(x→0) f"),
    (math(f"<mover>{mi('x')}{mo('^')}</mover>", mo("="), f"<mover>{mi('v')}{mo('→')}</mover>"), "x\u0302=v\u20d7"),
    (math(f"<mover>{mi('X')}{mi('T')}</mover>"), "X^T"),
    (math(f"<msup>{mi('f')}{mo('′')}</msup>", mo("("), mi("x"), mo(")")), "f′(x)"),
    (math(f"<mmultiscripts>{mi('X')}{mi('i')}<none/><mprescripts/>{mn('1')}{mn('2')}</mmultiscripts>"), "_1^2X_i"),
    # MathJax writes (a+b)^2 with the power on the closing parenthesis.
    (math(mo("("), mi("a"), mo("+"), mi("b"), f"<msup>{mo(')')}{mn('2')}</msup>", mi("x")), "(a+b)^2 x"),
    (math(f"<mfrac><mfrac>{mn('1')}{mn('2')}</mfrac>{mn('3')}</mfrac>"), "(1/2)/3"),
    # Function application is a space (none before a parenthesis); invisible times is nothing.
    (math(mi("sin"), mo("&ApplyFunction;"), mi("θ"), mo("="), mn("2"), mo("&InvisibleTimes;"), mi("x")), "sin θ=2x"),
    (math(mi("sin"), mo("&#x2061;"), mo("("), mi("x"), mo(")"), mo("+"), mi("cos"), mi("y")), "sin(x)+cos y"),
    (math("<mfenced>" + mi("u") + mi("v") + "</mfenced>"), "(u,v)"),
    (math('<mfenced open="[" close="]" separators=";,">' + mi("a") + mi("b") + mi("c") + "</mfenced>"), "[a;b,c]"),
    (math(mi("x"), "<mtext> if </mtext>", mi("x"), mo("&gt;"), mn("0"), "<mspace width='1em'/>", "<ms>ok</ms>"),
     'x if x>0 "ok"'),
    (math('<maction actiontype="toggle" selection="2">' + mi("a") + mi("b") + "</maction>",
          "<mphantom>" + mi("c") + "</mphantom>"), "b"),
    # A matrix in a row reads as the DOCX reader reads one.
    (math(mi("M"), mo("="), mrow(mo("("), "<mtable><mtr><mtd>" + mi("a") + "</mtd><mtd>" + mi("b") + "</mtd></mtr>"
                                 "<mtr><mtd>" + mi("c") + "</mtd><mtd>" + mi("d") + "</mtd></mtr></mtable>", mo(")"))),
     "M=(a, b; c, d)"),
]


@pytest.mark.parametrize("equation, expected", STRUCTURES, ids=[expected for _, expected in STRUCTURES])
def test_html_mathml_structures_read_as_the_docx_reader_writes_equations(equation, expected):
    assert markdown_of(f"<p>{equation}</p>") == expected + "\n"


def test_html_mathml_white_space_between_elements_is_markup():
    pretty = "<p>Sum:\n<math>\n  <mrow>\n    <mi> a </mi>\n    <mo>+</mo>\n    <mi>b</mi>\n  </mrow>\n</math>.</p>"
    assert markdown_of(pretty) == "Sum: a+b.\n"


def test_html_mathml_semantics_reads_the_presentation_not_the_tex_annotation():
    katex_mathml = ('<math><semantics><mrow><mi>x</mi><mo>=</mo><msup><mi>y</mi><mn>2</mn></msup></mrow>'
                    '<annotation encoding="application/x-tex">x = y^{2}</annotation></semantics></math>')
    assert markdown_of(f"<p>Let {katex_mathml} hold.</p>") == "Let x=y^2 hold.\n"
    # With nothing to show, the alttext; else the TeX source.
    assert markdown_of('<p>a <math alttext="x^2"></math> b <math alttext="z_1"/> c</p>') == "a x^2 b z_1 c\n"
    only_tex = '<math><semantics><annotation encoding="application/x-tex">\\alpha</annotation></semantics></math>'
    assert markdown_of(f"<p>a {only_tex} b</p>") == "a \\alpha b\n"


def test_html_katex_drawing_after_its_mathml_is_not_read_twice():
    katex = ('<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>x</mi><mo>=</mo><msup>'
             '<mi>y</mi><mn>2</mn></msup></mrow><annotation encoding="application/x-tex">x = y^2</annotation>'
             '</semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base">'
             '<span class="mord mathnormal">x</span><span class="mrel">=</span><span class="mord"><span '
             'class="mord mathnormal">y</span><span class="msupsub"><span class="mord mtight">2</span></span>'
             '</span></span></span></span>')
    assert markdown_of(f"<p>Let {katex} hold.</p>") == "Let x=y^2 hold.\n"
    # KaTeX's HTML-only output is the only text there is.
    html_only = '<span class="katex"><span class="katex-html" aria-hidden="true"><span>x</span>=1</span></span>'
    assert markdown_of(f"<p>Let {html_only} hold.</p>") == "Let x=1 hold.\n"


def test_html_display_math_is_a_block_and_inline_math_stays_in_its_line():
    inline = math(mi("a"), mo("+"), mi("b"))
    display = math(SUM, display="block")
    page = f"<p>Take {inline} and</p><p>the sum {display} over all.</p>"
    text = markdown_of(page)
    assert text == "Take a+b and\n\nthe sum\n\n∑_(i=1)^n x_i\n\nover all.\n"
    assert kinds(text) == ["paragraph"] * 4
    assert markdown_of(f"<ul><li>Item {display} tail</li></ul>") == "- Item\n\n  ∑_(i=1)^n x_i\n\n  tail\n"
    # A heading or a table cell is one line.
    assert markdown_of(f"<h2>The sum {display}</h2>") == "## The sum ∑_(i=1)^n x_i\n"
    cell = f"<table><tr><td>Law</td><td>{math(mi('F'), mo('='), mi('m'), mi('a'), display='block')}</td></tr></table>"
    assert markdown_of(cell.replace("</table>", "<tr><td>x</td><td>y</td></tr></table>")) == \
        "| Law | F=ma |\n| --- | --- |\n| x | y |\n"


def test_html_display_equation_array_has_a_line_a_row():
    rows = ("<mtable><mtr><mtd>" + mi("x") + "</mtd><mtd>" + mo("=") + mn("1") + "</mtd></mtr>"
            "<mlabeledtr><mtd><mtext>(2)</mtext></mtd><mtd>" + mi("y") + "</mtd><mtd>" + mo("=") + mn("2") +
            "</mtd></mlabeledtr></mtable>")
    assert markdown_of(f"<p>We have</p>{math(rows, display='block')}<p>so.</p>") == "We have\n\nx=1\ny=2 (2)\n\nso.\n"
    # Inline, the same table is one line.
    assert markdown_of(f"<p>We have {math(rows)}.</p>") == "We have x, =1; y, =2.\n"


@pytest.mark.parametrize("page, expected", [
    # An HTML block start tag ends an unclosed <math>, as the HTML standard says; an end tag of
    # an element open around it closes it.
    ("<p>a <math><mi>x</mi><p>next", "a x\n\nnext\n"),
    ("<p>a <math><mi>x</mi><mo>+</mo></p><p>b</p>", "a x+\n\nb\n"),
    ("<p>a <math><mi>x</mi></p></mi>b", "a x\n\nb\n"),
    # Inside a token element HTML is text; <br> there is a space.
    (math("<mtext>a <b>bold</b><br>text</mtext>"), "a bold text\n"),
    (math("<mi><![CDATA[x<y]]></mi>"), "x<y\n"),
    ("<math>", ""),
    ("<math><msup><mi>x</mi></msup></math>", "x\n"),
])
def test_html_mathml_tag_soup_is_read(page, expected):
    assert markdown_of(page) == expected


def test_html_self_closed_math_and_svg_do_not_swallow_the_rest():
    """As foreign elements they end at "/>" in HTML too: a hidden one dropped the rest of the page."""
    assert markdown_of('<p>a <math hidden alttext="x"/> b <svg viewBox="0 0 1 1"/> c</p>').split() == ["a", "b", "c"]


def test_xhtml_mathml_with_a_prefix_and_empty_elements():
    chapter = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><p>a <m:math xmlns:m="http://www.w3.org/1998/Math/'
               'MathML"><m:msup><m:mi>x</m:mi><m:mn>2</m:mn></m:msup><m:mspace width="1em"/><m:mi>y</m:mi>'
               '</m:math> b</p></body></html>')
    assert html.convert_chapter(chapter, "c.xhtml", ReadOptions(), xml=True)[0].text == "a x^2 y b\n"


def test_html_random_mathml_tag_soup_never_raises():
    tags = ("math mrow mi mo mn msup msub msubsup mfrac msqrt mroot munderover mtable mtr mtd mlabeledtr semantics "
            "annotation mfenced mtext mmultiscripts mprescripts maction p span td li b").split()
    pieces = ([f"<{tag}>" for tag in tags] + [f"</{tag}>" for tag in tags]
              + ['<math display="block">', '<math alttext="q"/>', "<none/>", '<span class="katex-html">', "x", "+",
                 " ", "&#x2061;", "<![CDATA[<]]>"])
    rng = random.Random(20260517)
    for _ in range(2000):  # any exception fails the test
        page = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for xml in (False, True):
            html.convert_chapter(page, "soup.html", ReadOptions(), xml=xml)


@pytest.mark.parametrize("shape", [
    lambda depth: "<math>" + "<mrow>" * depth + mi("x") + "</mrow>" * depth + "</math>",
    lambda depth: "<math>" + "<msup><mi>x</mi>" * depth + mn("2") + "</msup>" * depth + "</math>",
    lambda depth: "<math>" + f"<mfrac>{mn('1')}<mrow>{mn('1')}{mo('+')}" * depth + mi("x") + "</mrow></mfrac>" * depth,
    lambda depth: "<math>" + "<msqrt><mi>x" * depth,
], ids=["rows", "powers", "continued fraction", "unclosed roots"])
def test_html_deeply_nested_mathml_is_read_in_linear_time(shape):
    """Counted in calls, not timed (see test_hostile): 4x the depth costs at most ~4x the work."""
    # _grows_linearly compares the work with the lengths of its inputs: one character a level.
    _grows_linearly(lambda levels: markdown_of(shape(len(levels))), "." * 5_000, "." * 20_000)
    # Past MAX_MATH_NESTING the structure is plain text: the text is no longer than the input's.
    text = markdown_of(shape(50_000))
    assert len(text) < 4 * 50_000
    assert text.count("(") <= 2 * html.MAX_MATH_NESTING
