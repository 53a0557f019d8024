"""HTML and XHTML -> Markdown: headings, paragraphs, lists, tables, code, quotes; no markup left.

>>> page = b'''<html><head><title>Guide</title><style>p {}</style></head><body>
... <nav><a href="/">Home</a></nav>
... <h2 id="setup">Set&nbsp;up</h2><p>Run   <b>this</b>:</p>
... <pre><code class="language-sh">make &amp;&amp; make install</code></pre>
... <ul><li>one<li>two</ul></body></html>'''
>>> result = read(page, "guide.html", ReadOptions())
>>> print(result.text, end="")
# Guide
<BLANKLINE>
## Set\xa0up
<BLANKLINE>
Run this:
<BLANKLINE>
```sh
make && make install
```
<BLANKLINE>
- one
- two
>>> result.title, result.anchors
('Guide', ((9, 'setup'),))

The tokenizer is this module's own (``html.parser`` changed between Python 3.11 and 3.14,
so using it would give different text on CPython and in Pyodide); it follows the HTML
standard where text depends on it: raw text in ``script``/``style`` (and the other raw
text elements), character references decoded by :func:`html.unescape`, comments, CDATA,
and an unfinished tag or comment dropping the rest of the file as browsers do. The tree
is built with the implied end tags that matter (``p``, ``li``, ``dt``/``dd``, ``tr``,
``td``/``th``, headings, ``head``), on explicit stacks: no recursion, whatever the nesting.
Work is linear in the input.

Where the reader chooses:

- the text of ``<title>`` is the title, and becomes a ``#`` heading at the top when the
  page has no ``h1`` and its first heading is not the same words;
- a heading's permalink (Sphinx's and MkDocs' "¶", the "#" of Docusaurus, VitePress,
  GitHub and Jupyter: a link with a permalink class, ``aria-hidden``, or a permalink
  title; Node.js's "#" and rustdoc's "§": a link to a ``#fragment`` whose whole text is
  one of # § ¶ 🔗 ⚓) is not part of its text;
- boilerplate (``nav``, ``header``, ``footer``, ``aside``, ``dialog``, the ARIA roles
  navigation, banner, contentinfo, complementary, search, menu, menubar, toolbar, dialog
  and alertdialog, tables of contents by id or class, the previous/next links of DocBook,
  gtk-doc and Texinfo manuals, a "Skip to content" link at the start of a block) is
  dropped unless ``ReadOptions(keep_boilerplate=True)``; boilerplate inside a table cell
  or a heading is dropped with everything in it; a ``header`` that holds a heading is the page's
  or the article's title block, and is kept, but for the menus in it (a list whose items are
  mostly links: Node.js's module index and version pickers); footnotes and endnotes (``epub:type``,
  ``doc-*`` roles) are content even in an ``aside``;
- elements that are not rendered (``hidden``, an inline ``display: none`` or
  ``visibility: hidden``, mdBook's keyboard help) are dropped, with script, style,
  template, noscript, svg, the head (but its title), form controls (button, select,
  textarea: "Copy item path", a code block's "copy") and other non-text elements;
- sibling ``code`` elements of one ``pre`` (Node.js's ESM and CommonJS variants) are
  separate lines;
- a heading inside a list item, quote or table cell is written as text (Markdown has no
  headings there); a table of one column is written as paragraphs (a layout table);
  tables inside table cells are flattened into the cell's text;
- inline markup (emphasis, links, inline code) is written as its plain text;
- a heading's anchor is its id, else that of an ``<a id|name>`` in it or just before it,
  else the id of the ``section``, ``article`` or ``div class="section"`` (docutils,
  pandoc's EPUB 2) it opens;
- MathML is written as linear text, as the DOCX reader writes equations: a superscript as
  ``base^sup``, a subscript as ``base_sub``, a fraction as ``num/den``, a root as ``√x``
  (``n√x`` with an index), an operator with limits as ``∑_(i=1)^n x_i``, an accent after its
  letter (``x̂``), ``mfenced`` with its characters, a table as ``a, b; c, d``. A script,
  numerator, denominator or radicand longer than one character and not all letters and
  digits is put in parentheses (``E=mc^2`` but ``10^(-6)`` and ``(a+b)/2``), and a space
  keeps apart what would run together (``y^2 ab``, ``sin x``; the invisible function
  application is a space, the other invisible operators are dropped). ``<semantics>`` is
  read from its presentation, not its annotations (the TeX source); a ``<math>`` that shows
  nothing gives its ``alttext`` (else its TeX annotation). Display math (``display="block"``)
  is a paragraph of its own, a table standing alone in it one line a row (an equation
  array); inline math stays in its line. KaTeX's drawing of an equation (``katex-html``)
  after its MathML is not read twice. Past :data:`MAX_MATH_NESTING` levels an equation's
  structure is read as plain text, so the work stays linear.

>>> print(convert('<p>So <math><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>, and'
...               '<math display="block"><mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac>'
...               '<mo>=</mo><msqrt><mi>x</mi></msqrt></math>', "m.html", ReadOptions()).text, end="")
So E=mc^2, and
<BLANKLINE>
(a+b)/2=√x
"""

from __future__ import annotations

import codecs
import re
from html import unescape

from ..errors import NotTextError
from ._math import MAX_MATH_NESTING
from .base import Extracted, ReadOptions, boilerplate_note
from .charsets import codec_for, detect
from .mathml import MATH_BREAKOUT, MATH_EMPTY, MATH_INTEGRATION, MathNode, math_item, math_line
from .textio import sniff_kind
from .writer import MarkdownWriter, collapse, integer_attribute, table_cell

__all__ = ["convert", "convert_chapter", "decode_html", "read", "start_tag", "toc_links"]

# A start tag is read piece by piece (name, then each attribute) so that no pattern ever
# scans past the tag: one pattern for a whole tag rescans the rest of the file at every "<"
# of a file with no ">" left. HTML's white space only, as the standard says.
TAG_NAME = re.compile(r"[A-Za-z][^ \t\n\r\f/>]*")
ATTRIBUTE_GAP = re.compile(r"[ \t\n\r\f/]*")
ATTRIBUTE_NAME = re.compile(r"[^ \t\n\r\f/>][^ \t\n\r\f/>=]*")
SPACES = re.compile(r"[ \t\n\r\f]*")
UNQUOTED_VALUE = re.compile(r"[^ \t\n\r\f>]*")
END_TAG_NAME = re.compile(r"</([A-Za-z][^\s/>]*)")
RAW_TEXT_END = re.compile(r"</(script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)(?=[\s/>])",
                          re.IGNORECASE)
META_CHARSET = re.compile(r"<meta[^>]{0,1024}?charset\s{0,16}=\s{0,16}[\"']?\s{0,16}([A-Za-z0-9_:.+-]{1,40})",
                          re.IGNORECASE)
XML_ENCODING = re.compile(r"<\?xml[^>]{0,200}?encoding\s{0,16}=\s{0,16}[\"']([A-Za-z0-9_:.+-]{1,40})", re.IGNORECASE)

# Elements whose content is not markup: script and style (raw text), textarea and title
# (raw text with character references), and those browsers treat alike.
_RAW = frozenset("script style textarea title xmp iframe noembed noframes noscript plaintext".split())
_RCDATA = frozenset(("textarea", "title"))
_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr basefont bgsound "
                  "frame image isindex".split())
# Dropped with everything in them.
_DROP = frozenset("script style template noscript svg head iframe object canvas audio video map select "
                  "datalist noembed noframes xmp button textarea".split())
# Form controls: the page's widgets ("Copy item path", a code block's "copy"), not its words;
# they sit inside a line of text, so dropping one does not end the paragraph.
_CONTROLS = frozenset(("button", "textarea", "select", "datalist"))
_BOILERPLATE = frozenset(("nav", "header", "footer", "aside", "dialog"))
# Landmarks around the content, and widgets (menus, toolbars, dialogs such as cookie banners).
_BOILERPLATE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar",
                                "toolbar", "dialog", "alertdialog"))
_TOC_TOKENS = frozenset(("toc", "table-of-contents", "tableofcontents", "toc-container", "toc-wrapper"))
# The classes of a heading's permalink ("¶" of Sphinx and MkDocs, "#" of Docusaurus, VitePress,
# GitHub, Jupyter, anchor.js): a link to the heading itself, not a word of it.
_PERMALINK_CLASSES = frozenset(("headerlink", "hash-link", "header-anchor", "anchor-link", "anchor", "heading-anchor",
                                "heading-link", "header-link", "permalink", "anchorjs-link", "headinglink"))
# The whole text of a permalink that has no such class: a single sign (Node.js, rustdoc, mdBook...).
_PERMALINK_SIGNS = frozenset(("#", "§", "¶", "🔗", "⚓"))
_SIGN_PADDING = " \t\n\r\f\xa0\u200b\ufe0e\ufe0f"
# Prev/Up/Next links of DocBook (and gtk-doc, Valgrind) and Texinfo 7, by class or table summary.
_NAVIGATION_CLASSES = frozenset(("navheader", "navfooter", "nav-panel"))
_NAVIGATION_SUMMARIES = frozenset(("navigation header", "navigation footer"))
_TEXINFO_LINKS = ("Next:", "Previous:", "Prev:", "Up:")
# Hidden by the site's stylesheet, which the reader does not see: mdBook's keyboard help popup.
_HIDDEN_IDS = frozenset(("mdbook-help-container",))
_NOTE_KINDS = frozenset(("footnote", "footnotes", "endnote", "endnotes", "rearnote", "rearnotes", "note",
                         "doc-footnote", "doc-endnote", "doc-endnotes"))
_HEAD_CONTENT = frozenset("title meta link style script base noscript template".split())
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    """address article aside blockquote body center details dialog dd dir div dl dt fieldset figcaption figure
    footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu nav ol p pre section summary table tbody
    td tfoot th thead tr ul caption legend search option optgroup""".split()
)
# Start tags that close an open paragraph (the HTML standard's list, plus table).
_CLOSES_P = frozenset(
    """address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form
    h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section summary table ul search li dd dt""".split()
)
_LISTS = ("ul", "ol", "menu", "dir")
# Tables nested deeper than this in one another's cells are read as the cell's plain text.
MAX_TABLE_NESTING = 16
_CELLS = ("td", "th")
_SECTIONS = frozenset(("section", "article"))


def read(data: bytes, name: str, options: ReadOptions) -> Extracted:
    """Read an HTML page (``kind="html"``); see the module docstring for what is kept.

    Raises:
        NotTextError: the bytes are an image, archive or other binary file.
    """
    text, notes = decode_html(data, name)
    return convert(text, name, options, notes=notes)


def decode_html(data: bytes, name: str) -> tuple[str, list[dict]]:
    """The text of an HTML file: charset from a BOM, ``<meta charset>`` or the XML declaration, else UTF-8.

    >>> decode_html('<meta charset="windows-1251"><p>Привет'.encode("cp1251"), "a.html")[0][-6:]
    'Привет'
    >>> decode_html(b"caf\\xe9", "a.html")[1][0]["code"]
    'not_utf8'
    >>> text, notes = decode_html(b'<meta charset="rot13"><p>Uryyb', "a.html")
    >>> text[-5:], notes[0]["code"]
    ('Uryyb', 'charset_ignored')

    Only the labels of the WHATWG Encoding Standard are honoured (:mod:`.charsets`): a
    declared ISO-8859-1 or ASCII is read as windows-1252 and UTF-16 as UTF-8, as browsers
    do; a label the standard does not have (``rot13``, ``zlib``, ``utf-7``, EBCDIC
    ``cp037``) is ignored with a note (``charset_ignored``, or ``unknown_charset`` when no
    one knows it) and the bytes are detected: UTF-8 when valid, else windows-1252. A
    UTF-16 byte order mark before bytes that are not UTF-16 (no NUL in the markup) is
    ignored likewise (``bom_ignored``). Invalid bytes become U+FFFD, with a note.

    Raises:
        NotTextError: the bytes are a binary file (see :func:`ragchunk.readers.textio.sniff_kind`).
    """
    label = name or "the file"
    notes: list[dict] = []
    if data.startswith(b"\xef\xbb\xbf"):
        return _decode(data[3:], "utf-8", name, notes), notes
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            rest = data[len(bom):]
            # Markup in UTF-16 has a NUL in every ASCII character; none at all means the mark lies.
            if len(rest) < 8 or b"\x00" in rest[:4096]:
                return _decode(rest, codec, name, notes), notes
            used = detect(rest)
            notes.append({"code": "bom_ignored", "params": {"name": name, "charset": codec_label(used)},
                          "message": f"{label} starts with a UTF-16 byte order mark, but its bytes are not UTF-16;"
                                     f" it was read as {codec_label(used)}"})
            return _decode(rest, used, name, notes), notes
    found = sniff_kind(data)
    if found is not None:
        kind, what = found
        # ragchunk.readers.textio's sentence, so that the page says it alike for every format.
        raise NotTextError("file", f"{label} is {what}, not text: export it as .txt or .md and drop that instead",
                           "not_text", {"name": name, "kind": kind, "what": what})
    head = data[:2048].decode("latin-1")
    match = XML_ENCODING.search(head, 0, 300) or META_CHARSET.search(head)
    codec = "utf-8"
    if match:
        declared = match.group(1)
        chosen = codec_for(declared)
        if chosen is not None:
            codec = chosen
        else:
            codec = detect(data)
            try:
                codecs.lookup(declared)
            except LookupError:
                notes.append({"code": "unknown_charset", "params": {"name": name, "charset": declared,
                                                                    "used": codec_label(codec)},
                              "message": f"{label} declares an unknown charset ({declared}); it was read as"
                                         f" {codec_label(codec)}"})
            else:
                notes.append({"code": "charset_ignored", "params": {"name": name, "charset": declared,
                                                                    "used": codec_label(codec)},
                              "message": f"{label} declares the charset {declared}, which a web page may not use"
                                         f" (browsers ignore it too); it was read as {codec_label(codec)}"})
    return _decode(data, codec, name, notes), notes


def _decode(data: bytes, codec: str, name: str, notes: list[dict]) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
        replaced = text.count("\ufffd") - (data.count("\ufffd".encode()) if codec == "utf-8" else 0)
        plural = "sequence was" if replaced == 1 else "sequences were"
        label = name or "the file"
        message = f"{label} is not valid {codec_label(codec)}: {replaced:,} invalid byte {plural} replaced with \ufffd"
        code = "not_utf8" if codec == "utf-8" else "bad_bytes"
        notes.append({"code": code, "params": {"name": name, "count": replaced, "charset": codec_label(codec)},
                      "message": message})
        return text


def codec_label(codec: str) -> str:
    return {"utf-8": "UTF-8", "cp1252": "windows-1252"}.get(codec, codec)


def convert(text: str, name: str, options: ReadOptions, *, notes: list[dict] | None = None) -> Extracted:
    """Markdown of decoded HTML ``text`` (what :func:`read` does after decoding).

    >>> convert("<h1 id=a>A</h1><table><tr><th>k<th>v<tr><td>x|y<td>1</table>", "t.html", ReadOptions()).text
    '# A\\n\\n| k | v |\\n| --- | --- |\\n| x\\\\|y | 1 |\\n'
    """
    return convert_chapter(text, name, options, notes=notes)[0]


def convert_chapter(text: str, name: str, options: ReadOptions, *, xml: bool = False,
                    notes: list[dict] | None = None, anchor_prefix: str = "") -> tuple[Extracted, str]:
    """:func:`convert` with the EPUB reader's settings, and the title of the first heading ("" when none).

    ``xml`` reads XHTML (``<x/>`` closes ``x``) and leaves ``<title>`` out of the text;
    ``anchor_prefix`` goes in front of every anchor (the chapter's file name and ``#``).
    """
    builder = _Builder(options, xml, anchor_prefix, name)
    builder.run(text)
    out = builder.out
    body = out.text()
    anchors = list(out.anchors)
    title = collapse(builder.title)
    # A page without an h1 gets its title as one, unless its first heading says the same.
    if title and out.top_headings == 0 and not xml and builder.first_heading.casefold() != title.casefold():
        prefix = "# " + title + ("\n\n" if body else "\n")
        body = prefix + body
        anchors = [(offset + len(prefix), anchor) for offset, anchor in anchors]
    all_notes = list(notes or [])
    if builder.dropped:
        all_notes.append(boilerplate_note(name, builder.dropped))
    return Extracted(body, "html", title, (), tuple(anchors), tuple(all_notes)), builder.first_heading


class _Open:
    """An open element: its tag, what it does, and what its end needs."""

    __slots__ = ("tag", "role", "data")

    def __init__(self, tag: str, role: str, data: object = None) -> None:
        self.tag = tag
        self.role = role
        self.data = data


class _Table:
    __slots__ = ("rows", "row", "cell", "caption", "colspan")

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.caption: list[str] = []
        self.colspan = 1


class _Builder:
    """Turns tokens into Markdown through a :class:`MarkdownWriter`, keeping the open elements on a stack."""

    def __init__(self, options: ReadOptions, xml: bool, anchor_prefix: str, name: str = "") -> None:
        self.keep = options.keep_boilerplate
        self.xml = xml
        self.prefix = anchor_prefix
        self.out = MarkdownWriter(options.max_chars, name)
        self.stack: list[_Open] = []
        self.open_at: dict[str, list[int]] = {}
        self.drop = 0  # open elements whose content is dropped
        self.title = ""
        self.lines: list[list[str]] = [[]]  # the open paragraph's text, by line
        self.para_group: int | None = None
        self.term_group: int | None = None  # the latest definition term's, for its definitions
        self.captures: list[tuple[str, list[str]]] = []  # heading or pre text being collected
        self.tables: list[_Table] = []
        self.deep_tables = 0  # open tables nested past MAX_TABLE_NESTING (read as plain cell text)
        self.sections: list[list] = []  # [id, used] of open section/article elements with an id
        self.pending_anchor = ""
        self.pending_at = -1
        self.first_heading = ""
        self.dropped = 0
        self.svg = 0
        # A page's title block (a header kept for its heading) and the lists in it, with what
        # they hold: (stack index, writer mark, items, links and dropped elements counted before it).
        self.headers = 0
        self.header_lists: list[tuple[int, tuple[int, int, int, int, int, int], int, int, int]] = []
        self.header_items = 0
        self.header_links = 0
        self.math: list[MathNode] = []  # the open <math> and the elements in it, to MAX_MATH_NESTING
        self.math_root = -1  # the stack index of the open <math>
        self.math_tokens = 0  # open token elements (and other integration points) in it
        self.math_tex = ""  # its first TeX annotation, said when it shows nothing else
        self.math_sibling = -1  # the stack index of the next sibling of the element around the last <math>

    # --- tokens -----------------------------------------------------------------------
    def run(self, text: str) -> None:
        pos = 0
        n = len(text)
        find = text.find
        while pos < n:
            lt = find("<", pos)
            if lt < 0:
                self.text(text[pos:])
                break
            if lt > pos:
                self.text(text[pos:lt])
            pos = lt
            nxt = text[lt + 1 : lt + 2]
            if ("a" <= nxt <= "z") or ("A" <= nxt <= "Z"):
                found = start_tag(text, lt)
                if found is None:
                    break  # an unfinished tag: browsers drop the rest of the file
                pos, tag, attrs, closed = found
                self.start(tag, attrs, closed)
                if tag in _RAW and not (closed and self.xml) and self.stack and self.stack[-1].tag == tag:
                    pos = self._raw(text, pos, tag)
                continue
            if nxt == "/":
                close = find(">", lt)
                if close < 0:
                    break
                match = END_TAG_NAME.match(text, lt)
                if match is not None:
                    self.end(match.group(1).lower())
                pos = close + 1
                continue
            if nxt == "!":
                if text.startswith("<!--", lt):
                    if text.startswith(("<!-->", "<!--->"), lt):
                        pos = find(">", lt + 4) + 1
                        continue
                    close = find("-->", lt + 4)
                    if close < 0:
                        break
                    pos = close + 3
                    continue
                if text.startswith("<![CDATA[", lt):
                    close = find("]]>", lt + 9)
                    if close < 0:
                        self.text(text[lt + 9 :], raw=True)
                        break
                    self.text(text[lt + 9 : close], raw=True)
                    pos = close + 3
                    continue
            if nxt in ("!", "?"):
                close = find(">", lt)
                if close < 0:
                    break
                pos = close + 1
                continue
            self.text("<")
            pos = lt + 1
        self.close_to(0)
        self.flush()

    def _raw(self, text: str, pos: int, tag: str) -> int:
        """Read the raw text of ``tag`` that starts at ``pos``; return where its end tag starts."""
        search_at = pos
        while True:
            match = RAW_TEXT_END.search(text, search_at)
            if match is None:
                end = len(text)
                break
            if match.group(1).lower() == tag:
                end = match.start()
                break
            search_at = match.end()
        content = text[pos:end]
        if tag in _RCDATA and "&" in content:
            content = unescape(content)
        if tag == "title":
            if not self.title and not self.svg:
                self.title = content
        elif tag == "textarea":
            self.text(content, raw=True)
        return end

    # --- the tree ---------------------------------------------------------------------
    def push(self, tag: str, role: str, data: object = None) -> None:
        self.open_at.setdefault(tag, []).append(len(self.stack))
        self.stack.append(_Open(tag, role, data))

    def top(self, *tags: str) -> int:
        """The stack index of the innermost open element among ``tags`` (-1 when none)."""
        best = -1
        for tag in tags:
            at = self.open_at.get(tag)
            if at and at[-1] > best:
                best = at[-1]
        return best

    def close_to(self, index: int) -> None:
        """Close every open element from the innermost down to stack index ``index``."""
        stack = self.stack
        while len(stack) > index:
            element = stack.pop()
            self.open_at[element.tag].pop()
            self.finish(element)

    def start(self, tag: str, attrs: dict[str, str], closed: bool) -> None:
        if self.math and self.math_start(tag, attrs, closed):
            return
        if self.drop:
            if tag not in _VOID and not closed:
                self.push(tag, "inert")
            if tag == "svg":
                self.svg += 1
            return
        if tag not in _HEAD_CONTENT and self.open_at.get("head"):
            self.close_to(self.open_at["head"][-1])
        if tag in _VOID:
            if tag == "br":
                self.line_break()
            elif tag == "hr":
                self.block_boundary()
            return
        if tag in _CLOSES_P:
            p = self.top("p")
            if p >= 0 and p > self.top("table", *_CELLS):
                self.close_to(p)
        if tag in _HEADINGS:
            open_heading = self.top(*_HEADINGS)
            if open_heading >= 0 and open_heading > self.top("table", *_CELLS):
                self.close_to(open_heading)
        elif tag == "li":
            item = self.top("li")
            if item >= 0 and item > self.top(*_LISTS):
                self.close_to(item)
        elif tag in ("dt", "dd"):
            item = self.top("dt", "dd")
            if item >= 0 and item > self.top("dl"):
                self.close_to(item)
        elif tag in ("tr", "thead", "tbody", "tfoot"):
            table = self.top("table")
            open_row = [at for at in (self.top("tr"), self.top(*_CELLS)) if at > table]
            if open_row:
                self.close_to(min(open_row))
        elif tag in _CELLS:
            cell = self.top(*_CELLS)
            if cell >= 0 and cell > self.top("tr", "table"):
                self.close_to(cell)
        # Known only now: the implied ends above may have closed the cell, or a table around it.
        in_cell = bool(self.tables) and self.tables[-1].cell is not None
        role = self.role_of(tag, attrs)
        self.math_sibling = -1
        # <math/> and <svg/> are foreign elements, which "/>" ends in HTML too.
        if closed and (self.xml or tag == "math" or tag == "svg" or tag.endswith(":math")):
            self.open_element(tag, role, attrs, in_cell)
            self.close_to(len(self.stack) - 1)
            return
        self.open_element(tag, role, attrs, in_cell)

    def role_of(self, tag: str, attrs: dict[str, str]) -> str:
        if tag in _DROP:
            return "drop"
        if tag.endswith(":math"):
            tag = "math"  # <m:math> in XHTML
        if not attrs:
            return "boilerplate" if not self.keep and tag in _BOILERPLATE else tag
        if "hidden" in attrs or _not_rendered(attrs.get("style")):
            return "drop"
        if tag == "a" and _is_permalink(attrs) and self._in_heading():
            return "drop"
        if not self.keep and not _is_note(attrs) and (
            tag in _BOILERPLATE
            or attrs.get("role", "").strip().lower() in _BOILERPLATE_ROLES
            or _is_toc(attrs)
            or ("summary" in attrs or "nav" in attrs.get("class", "")) and _is_page_navigation(attrs)
        ):
            return "boilerplate"
        if self.math_sibling == len(self.stack) and "katex-html" in attrs.get("class", "").split():
            return "math-copy"  # KaTeX's drawing of the equation whose MathML was just read
        if tag == "div":
            if attrs.get("id") in _HIDDEN_IDS:
                return "drop"
            classes = attrs.get("class", "")
            if "header" in classes and not self.keep and "header" in classes.split():
                return "texinfo-header"
        return tag

    def _in_heading(self) -> bool:
        heading = self.top(*_HEADINGS)
        return heading >= 0 and self.stack[heading].role == "heading"

    def open_element(self, tag: str, role: str, attrs: dict[str, str], in_cell: bool) -> None:
        out = self.out
        if (role == "boilerplate" or role == "texinfo-header") and (in_cell or self.captures):
            # Its text would go into the cell or heading, out of the writer's reach: drop it now.
            # (Its tables must not be read either: they would be taken for rows of the open table.)
            if role == "texinfo-header":
                role = tag
            else:
                role = "drop"
                self.dropped += 1
        if role == "math-copy":
            self.push(tag, "drop")  # in the line of text, like the MathML it repeats
            self.drop += 1
            return
        if role == "drop":
            if tag == "svg":
                self.svg += 1
            elif tag == "a" and (attrs.get("id") or attrs.get("name")):
                # A heading's permalink may carry its id (GitHub's user-content-...).
                heading = self.stack[self.top(*_HEADINGS)]
                heading.data[1] = heading.data[1] or attrs.get("id") or attrs["name"]
            if tag not in _CONTROLS:
                self.flush()
            self.push(tag, "drop")
            self.drop += 1
            return
        if role == "boilerplate" or role == "texinfo-header":
            self.flush()
            if tag == "header" and role == "boilerplate":
                self.headers += 1
            self.push(tag, role, out.mark())
            return
        if role == "math":
            self.math_root = len(self.stack)
            self.math.append(MathNode("math", attrs))
            self.push(tag, "math", self.math[0])
            return
        anchor = attrs.get("id") or (attrs.get("name") if tag == "a" else None) or ""
        if in_cell:
            # Inside a table cell everything is the cell's text; a nested table is flattened into it.
            # Past MAX_TABLE_NESTING, a table's rows and cells are only spaces in the cell's text:
            # each level flattens the text of all those inside it, which at any depth is quadratic.
            if tag == "table" and (self.deep_tables or len(self.tables) >= MAX_TABLE_NESTING):
                self.deep_tables += 1
                self.tables[-1].cell.append(" ")
                self.push(tag, "deep-table")
                return
            if self.deep_tables and (tag in _CELLS or tag == "tr"):
                self.tables[-1].cell.append(" ")
                self.push(tag, "inline")
                return
            if tag == "table":
                self.tables.append(_Table())
                self.push(tag, "table")
                return
            if tag in _CELLS and self.tables:
                self.start_cell(attrs)
                self.push(tag, "cell")
                return
            if tag == "tr":
                self.push(tag, "row")
                self.start_row()
                return
            if tag in _BLOCKS:
                self.tables[-1].cell.append(" ")
            self.push(tag, "inline")
            return
        if tag in _HEADINGS:
            self.flush()
            if self.captures:
                self.push(tag, "inline")
                return
            buffer: list[str] = []
            self.captures.append(("heading", buffer))
            self.push(tag, "heading", [_HEADINGS[tag], anchor, buffer])
            return
        if tag == "a":
            if self.header_lists and "href" in attrs:
                self.header_links += 1
            if anchor:
                heading = self.top(*_HEADINGS)
                if heading >= 0 and self.stack[heading].role == "heading":
                    if not self.stack[heading].data[1]:
                        self.stack[heading].data[1] = anchor
                elif not any(self.lines[-1]) and len(self.lines) == 1:
                    self.pending_anchor, self.pending_at = anchor, out.position()
            if attrs.get("href", "").startswith("#"):
                # Whether it is a permalink or a skip link is known from its text, at its end.
                captures = self.captures
                target = captures[-1][1] if captures else self.lines[-1]
                # Only a heading's own text is collected in captures[-1] (all is inline inside it).
                self.push(tag, "fragment-link", (target, len(target), bool(captures) and captures[-1][0] == "heading"))
                return
            self.push(tag, "inline")
            return
        if tag == "pre":
            self.flush()
            if self.captures:
                self.push(tag, "inline")
                return
            buffer = []
            self.captures.append(("pre", buffer))
            self.push(tag, "pre", [_language(attrs.get("class", "")), buffer, -1])
            return
        if tag == "code":
            pre = self.top("pre")
            if pre >= 0 and self.stack[pre].role == "pre":
                element = self.stack[pre]
                language, buffer, code_end = element.data
                if not language:
                    element.data[0] = _language(attrs.get("class", ""))
                # Sibling codes of one pre are separate examples (Node.js's ESM and CommonJS variants).
                after = buffer[code_end:] if code_end >= 0 else None
                if after is not None and buffer and not buffer[-1].endswith("\n") and not "".join(after).strip():
                    buffer.append("\n")
                self.push(tag, "code", element)
                return
            self.push(tag, "inline")
            return
        if self.captures:
            if tag in _BLOCKS:
                self.captures[-1][1].append("\n" if self.captures[-1][0] == "pre" else " ")
            self.push(tag, "inline")
            return
        if tag in _BLOCKS:
            self.flush()
        if tag in _LISTS:
            if self.headers:
                self.header_lists.append((len(self.stack), out.mark(), self.header_items, self.header_links,
                                          self.dropped))
            out.open_list(tag == "ol", integer_attribute(attrs.get("start"), 1))
        elif tag == "li":
            self.header_items += bool(self.header_lists)
            out.open_item(integer_attribute(attrs.get("value"), None))
        elif tag == "dt":
            self.para_group = self.term_group = out.new_group()
            self.push(tag, "dt")
            return
        elif tag == "dd":
            out.open_item(marker=": ", group=self.term_group)
        elif tag == "blockquote":
            out.open_quote()
        elif tag == "table":
            self.tables.append(_Table())
        elif tag == "tr":
            if self.tables:
                self.start_row()
        elif tag in _CELLS:
            if self.tables:
                self.start_cell(attrs)
                self.push(tag, "cell")
                return
        elif tag == "caption":
            if self.tables:
                self.captures.append(("caption", self.tables[-1].caption))
                self.push(tag, "table-caption")
                return
        elif anchor and (tag in _SECTIONS or tag == "div" and "section" in attrs.get("class", "").split()):
            self.sections.append([anchor, False])
            self.push(tag, "anchored")
            return
        self.push(tag, tag if tag in _BLOCKS else "inline")

    def start_row(self) -> None:
        table = self.tables[-1]
        if table.row:  # cells that came without a <tr> of their own
            table.rows.append(table.row)
        table.row = []

    def start_cell(self, attrs: dict[str, str]) -> None:
        table = self.tables[-1]
        if table.row is None:
            table.row = []
        table.cell = []
        table.colspan = max(1, min(integer_attribute(attrs.get("colspan"), 1) or 1, 100))

    def end(self, tag: str) -> None:
        at = self.open_at.get(tag)
        if at:
            self.close_to(at[-1])
        elif self.math:
            return
        elif tag == "br" and not self.drop:
            self.line_break()
        elif tag == "p" and not self.drop:
            self.block_boundary()

    def finish(self, element: _Open) -> None:
        """What an element's end does (the elements inside it are already finished)."""
        role = element.role
        if role == "inline" or role == "inert":
            return
        if role == "math-node":
            self.math_end(element)
            return
        if role == "math":
            self.math.clear()
            self.math_root = -1
            self.math_tokens = 0
            self.write_math(element.data)
            return
        out = self.out
        if role == "drop":
            self.drop -= 1
            if element.tag == "svg":
                self.svg -= 1
            return
        if role == "boilerplate":
            self.flush()
            mark = element.data
            if element.tag == "header":
                self.headers -= 1
            kept_heading = element.tag == "header" and out.headings > mark[4]
            if not kept_heading and out.position() > mark[1]:
                out.truncate(mark)
                self.dropped += 1
            return
        if role == "texinfo-header":
            # Texinfo's node header is its links to the next, previous and up nodes; other
            # generators' "header" (Doxygen's) holds the page's title.
            self.flush()
            if out.head_since(element.data, 12).lstrip().startswith(_TEXINFO_LINKS):
                out.truncate(element.data)
                self.dropped += 1
            return
        if role == "fragment-link":
            target, start, in_heading = element.data
            # A few pieces of a few words at most: nested links must not make the work quadratic.
            if 0 < len(target) - start <= 8 and (in_heading or start <= 4):
                tail = target[start:]
                if sum(map(len, tail)) <= 200:
                    words = "".join(tail)
                    if (_is_permalink_sign(words) if in_heading else
                            _is_skip_link(words) and not any(piece.strip() for piece in target[:start])):
                        del target[start:]
            return
        if role == "heading":
            level, anchor, buffer = element.data
            self.captures.pop()
            # A no-break space at either end only spaced the heading from a dropped widget.
            title = collapse("".join(buffer)).strip("\xa0 ")
            if not title:
                return
            if not anchor and self.pending_anchor and self.pending_at == out.position():
                anchor = self.pending_anchor
            if not anchor and self.sections and not self.sections[-1][1]:
                anchor = self.sections[-1][0]
            if self.sections:
                self.sections[-1][1] = True
            self.pending_anchor = ""
            if not self.first_heading:
                self.first_heading = title
            out.heading(level, title, self.prefix + anchor if anchor else "")
            return
        if role == "code":
            pre = element.data
            pre.data[2] = len(pre.data[1])  # where the text after this code starts
            return
        if role == "pre":
            language, buffer, _ = element.data
            self.captures.pop()
            code = "".join(buffer)
            if code.startswith("\r\n"):
                code = code[2:]
            elif code.startswith(("\n", "\r")):
                code = code[1:]
            out.code(code.rstrip(), language)
            return
        if role == "table-caption":
            self.captures.pop()
            return
        if role == "deep-table":
            self.deep_tables -= 1
            return
        if role == "cell":
            table = self.tables[-1]
            if table.cell is not None:
                if table.row is None:
                    table.row = []
                table.row.append(table_cell("".join(table.cell)))
                table.row.extend([""] * (table.colspan - 1))
                table.cell = None
            return
        if role == "row" or role == "tr":
            if self.tables:
                table = self.tables[-1]
                if table.row:
                    table.rows.append(table.row)
                table.row = None
            return
        if role == "table":
            self.finish_table()
            return
        if role == "anchored":
            self.sections.pop()
            return
        if role == "dt":
            self.flush()
            self.para_group = None
            return
        if element.tag in _BLOCKS:
            self.flush()
        tag = element.tag
        if tag in _LISTS:
            out.close_list()
            if self.header_lists and self.header_lists[-1][0] == len(self.stack):
                self.drop_menu(*self.header_lists.pop()[1:])
        elif tag in ("li", "dd"):
            out.close_item()
        elif tag == "blockquote":
            out.close_quote()

    def drop_menu(self, mark: tuple[int, int, int, int, int, int], items: int, links: int, dropped: int) -> None:
        """Leave out a list that just ended in a page's title block when it is a menu: most of
        its items are links (Node.js's module index, version and option pickers), and it holds
        no heading. A byline or a list of facts, with few links, stays. Menus left out inside it
        count as one with it."""
        items, links = self.header_items - items, self.header_links - links
        if items and 4 * links >= 3 * items and self.out.headings == mark[4] and self.out.position() > mark[1]:
            self.out.truncate(mark)
            self.dropped = dropped + 1

    def finish_table(self) -> None:
        table = self.tables.pop()
        if table.row:
            table.rows.append(table.row)
        rows = [row for row in table.rows if any(row)]
        if self.tables and self.tables[-1].cell is not None:
            # A table in a table cell: its text, row by row, is the cell's text.
            self.tables[-1].cell.append(" " + " ; ".join(" ".join(c for c in row if c) for row in rows) + " ")
            return
        self.flush()
        caption = collapse("".join(table.caption))
        if caption:
            self.out.paragraph(caption)
        if max((len(row) for row in rows), default=0) <= 1:
            for row in rows:
                for cell in row:
                    self.out.paragraph(cell.replace("\\|", "|"))
            return
        self.out.table(rows)

    # --- math -------------------------------------------------------------------------
    def math_start(self, tag: str, attrs: dict[str, str], closed: bool) -> bool:
        """A start tag inside ``<math>``; False when it is an HTML element that ends the math
        (the caller then reads it as usual)."""
        if tag in MATH_BREAKOUT and not self.math_tokens:
            self.close_to(self.math_root)
            return False
        if tag in _VOID:  # HTML inside a token element
            if tag == "br":
                self.text(" ")
            return True
        name = tag.rpartition(":")[2]
        node = None
        if len(self.math) < MAX_MATH_NESTING:
            node = MathNode(name, attrs)
            self.math.append(node)
        else:
            self.math[-1].deep = True
        if name in MATH_INTEGRATION:
            self.math_tokens += 1
        self.push(tag, "math-node", node)
        if closed or name in MATH_EMPTY:
            self.close_to(len(self.stack) - 1)
        return True

    def math_end(self, element: _Open) -> None:
        node = element.data
        if element.tag.rpartition(":")[2] in MATH_INTEGRATION:
            self.math_tokens -= 1
        if node is None:  # past MAX_MATH_NESTING: its text is in the node open around it
            return
        self.math.pop()
        if node.name == "annotation" and not self.math_tex and "tex" in node.attrs.get("encoding", "").lower():
            self.math_tex = collapse("".join(text for _, text, _ in node.items))
        self.math[-1].items.append(math_item(node))

    def write_math(self, node: MathNode) -> None:
        """Write a whole ``<math>``: in its line, or as a paragraph of its own (display math)."""
        self.math_sibling = len(self.stack) - 1
        _, text, lines = math_item(node)
        if not text.strip(" "):
            text, lines = collapse(node.attrs.get("alttext", "")) or self.math_tex, None
        self.math_tex = ""
        if not text:
            return
        display = (node.attrs.get("display", "").strip().lower() == "block"
                   or node.attrs.get("mode", "").strip().lower() == "display")
        if not display:
            self.text(math_line(text), raw=True)
        elif self.captures or (self.tables and self.tables[-1].cell is not None):
            self.text(" " + math_line(text) + " ", raw=True)  # a heading or a cell is one line
        else:
            self.flush()
            for index, line in enumerate(lines or (text,)):
                if index:
                    self.line_break()
                self.text(math_line(line), raw=True)
            self.flush()

    # --- text -------------------------------------------------------------------------
    def text(self, data: str, raw: bool = False) -> None:
        if self.drop or not data:
            return
        if not raw and "&" in data:
            data = unescape(data)
        if self.math:
            # White space between the elements of an equation is the markup's, not the text's.
            if self.math_tokens or data.strip(" \t\n\r\f"):
                self.math[-1].items.append(("", data, None))
            return
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(data)
        elif self.captures:
            self.captures[-1][1].append(data)
        else:
            self.lines[-1].append(data)

    def line_break(self) -> None:
        if self.drop:
            return
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(" ")
        elif self.captures:
            self.captures[-1][1].append("\n" if self.captures[-1][0] == "pre" else " ")
        else:
            self.lines.append([])

    def block_boundary(self) -> None:
        if self.tables and self.tables[-1].cell is not None:
            self.tables[-1].cell.append(" ")
        elif not self.captures:
            self.flush()

    def flush(self) -> None:
        """Write the open paragraph, if it has any text."""
        lines = self.lines
        if len(lines) == 1 and not lines[0]:
            return
        self.lines = [[]]
        text = "\n".join(filter(None, (collapse("".join(line)) for line in lines)))
        if text:
            group = self.para_group
            self.out.paragraph(text, group)


def toc_links(text: str) -> list[tuple[str, str]]:
    """``(href, label)`` of the links in an EPUB navigation document's table of contents, in order.

    The links of the ``<nav>`` whose ``epub:type`` (or ``role``) says ``toc``, else of the first ``<nav>``.

    >>> toc_links('<nav epub:type="toc"><ol><li><a href="c1.xhtml">One &amp; <b>all</b></a></li></ol></nav>')
    [('c1.xhtml', 'One & all')]
    """
    navs: list[list[tuple[str, str]]] = []
    toc_index = -1
    depth = 0
    href: str | None = None
    label: list[str] = []
    pos = 0
    find = text.find
    while True:
        lt = find("<", pos)
        if lt < 0:
            break
        if href is not None and lt > pos:
            label.append(text[pos:lt])
        if text[lt + 1 : lt + 2].isascii() and text[lt + 1 : lt + 2].isalpha():
            found = start_tag(text, lt)
            if found is None:
                break  # an unfinished tag ends the document, as in the reader
            pos, tag, attrs, closed = found
            if tag == "nav" and not closed:
                depth += 1
                if depth == 1:
                    navs.append([])
                    kinds = (attrs.get("epub:type", "") + " " + attrs.get("role", "")).lower().split()
                    if toc_index < 0 and ("toc" in kinds or "doc-toc" in kinds):
                        toc_index = len(navs) - 1
            elif tag == "a" and depth and not closed:
                href, label = attrs.get("href", ""), []
            continue
        match = END_TAG_NAME.match(text, lt)
        close = find(">", lt)
        if close < 0:
            break
        pos = close + 1
        if match is None:
            continue
        tag = match.group(1).lower()
        if tag == "a" and href is not None:
            navs[-1].append((href, collapse(unescape("".join(label)))))
            href = None
        elif tag == "nav" and depth:
            depth -= 1
    if not navs:
        return []
    return navs[toc_index if toc_index >= 0 else 0]


def start_tag(text: str, lt: int) -> tuple[int, str, dict[str, str], bool] | None:
    """The start tag at ``text[lt]`` (a ``<`` and a letter): (end, tag, attributes, ends with ``/>``).

    None when the file ends inside the tag. Names are lowercased, the first of repeated
    attributes wins, values have their character references decoded.

    >>> start_tag('<A id="a" class="b c" hidden data-x=1 href=/x/ />rest', 0)
    (49, 'a', {'id': 'a', 'class': 'b c', 'hidden': '', 'data-x': '1', 'href': '/x/'}, True)
    >>> start_tag('<a title="never closed>', 0) is None
    True
    """
    name = TAG_NAME.match(text, lt + 1)
    pos = name.end()
    if text[pos : pos + 1] == ">":  # most tags have no attributes
        return pos + 1, name.group().lower(), {}, False
    attrs: dict[str, str] = {}
    n = len(text)
    closed = False
    while True:
        gap = ATTRIBUTE_GAP.match(text, pos)
        if gap.end() > pos:
            closed = text[gap.end() - 1] == "/"
            pos = gap.end()
        if pos >= n:
            return None
        if text[pos] == ">":
            return pos + 1, name.group().lower(), attrs, closed
        closed = False
        key_match = ATTRIBUTE_NAME.match(text, pos)
        key = key_match.group().lower()
        pos = key_match.end()
        after = SPACES.match(text, pos).end()
        value = ""
        if after < n and text[after] == "=":
            start = SPACES.match(text, after + 1).end()
            quote = text[start : start + 1]
            if quote == '"' or quote == "'":
                close = text.find(quote, start + 1)
                if close < 0:
                    return None
                value = text[start + 1 : close]
                pos = close + 1
            else:
                unquoted = UNQUOTED_VALUE.match(text, start)
                value = unquoted.group()
                pos = unquoted.end()
        if key not in attrs:
            attrs[key] = unescape(value) if "&" in value else value


def _not_rendered(style: str | None) -> bool:
    """True for an inline style that hides the element (``display: none``, ``visibility: hidden``).

    >>> _not_rendered("color: red; DISPLAY : none"), _not_rendered("display:block")
    (True, False)
    """
    if not style or ("none" not in style and "hidden" not in style):
        return False
    compact = "".join(style.split()).lower()
    return "display:none" in compact or "visibility:hidden" in compact


def _is_note(attrs: dict[str, str]) -> bool:
    """True for a footnote or endnote (EPUB's ``epub:type``, ARIA's ``doc-*`` roles): content, not boilerplate."""
    kinds = (attrs.get("epub:type", "") + " " + attrs.get("role", "")).lower().split()
    return any(kind in _NOTE_KINDS for kind in kinds)


def _is_permalink(attrs: dict[str, str]) -> bool:
    """True for a heading's link to itself: a permalink class, hidden from screen readers,
    or titled as a permalink."""
    if attrs.get("aria-hidden", "").strip().lower() == "true":
        return True
    if not _PERMALINK_CLASSES.isdisjoint(attrs.get("class", "").lower().split()):
        return True
    label = (attrs.get("title", "") + " " + attrs.get("aria-label", "")).lower()
    return "permalink" in label or "direct link" in label


def _is_permalink_sign(text: str) -> bool:
    """True for the whole text of a heading's link to itself when it is one sign (Node.js's "#", rustdoc's "§").

    >>> _is_permalink_sign(" \u00a7 "), _is_permalink_sign("\U0001f517\ufe0f"), _is_permalink_sign("C#")
    (True, True, False)
    """
    return text.strip(_SIGN_PADDING) in _PERMALINK_SIGNS


def _is_skip_link(text: str) -> bool:
    """True for the text of an accessibility link past the page's chrome ("Skip to main content", "Jump to content").

    >>> _is_skip_link(" Skip to content"), _is_skip_link("Skipping ahead")
    (True, False)
    """
    text = text.strip(_SIGN_PADDING)
    return len(text) <= 40 and text.lower().startswith(("skip to ", "jump to "))


def _is_page_navigation(attrs: dict[str, str]) -> bool:
    """True for the links to the previous and next pages of DocBook, gtk-doc and Texinfo 7 manuals.

    >>> _is_page_navigation({"summary": "Navigation header"}), _is_page_navigation({"class": "navfooter"})
    (True, True)
    """
    return (attrs.get("summary", "").strip().lower() in _NAVIGATION_SUMMARIES
            or not _NAVIGATION_CLASSES.isdisjoint(attrs.get("class", "").lower().split()))


def _is_toc(attrs: dict[str, str]) -> bool:
    for key in ("id", "class"):
        value = attrs.get(key)
        if value:
            for token in value.lower().split():
                if token in _TOC_TOKENS or token.startswith(("toc-", "toc_")) or token.endswith(("-toc", "_toc")):
                    return True
    return False


def _language(classes: str) -> str:
    """A code block's language from its classes: ``language-x``, ``lang-x``, or pandoc's ``sourceCode x``.

    >>> _language("language-python x"), _language("sourceCode rust"), _language("highlight")
    ('python', 'rust', '')
    """
    tokens = classes.split()
    for token in tokens:
        for prefix in ("language-", "lang-"):
            if token.startswith(prefix) and len(token) > len(prefix):
                return token[len(prefix):]
    if "sourceCode" in tokens:
        for token in tokens:
            if token != "sourceCode":
                return token
    return ""
