"""ragchunk.readers.docx: Strict Open XML documents and equations (OMML) read as Word shows them.

The documents are built in memory, as in test_readers.py: the smallest parts Word needs,
written once with the Transitional namespaces and, where it matters, once more with the
Strict ones that Word's "Strict Open XML Document" save option writes.
"""

from __future__ import annotations

import io
import zipfile

from test_hostile import _grows_linearly

from ragchunk.readers import ReadOptions, docx

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
# Transitional -> Strict, as Word writes them (the package relationships' own namespace is shared).
STRICT = {W: "http://purl.oclc.org/ooxml/wordprocessingml/main",
          M: "http://purl.oclc.org/ooxml/officeDocument/math",
          R: "http://purl.oclc.org/ooxml/officeDocument/relationships"}
NAMESPACES = f'xmlns:w="{W}" xmlns:m="{M}" xmlns:r="{R}"'


def make_docx(parts: dict[str, str], strict: bool = False) -> bytes:
    """A .docx of ``parts`` (entry -> XML), with every Transitional namespace made Strict when ``strict``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        for entry, xml in parts.items():
            if strict:
                for usual, strict_namespace in STRICT.items():
                    xml = xml.replace(usual, strict_namespace)
            archive.writestr(entry, xml)
    return buffer.getvalue()


def document(paragraphs: str) -> str:
    return f"<w:document {NAMESPACES}><w:body>{paragraphs}</w:body></w:document>"


def relationships(*targets: tuple[str, str]) -> str:
    """A .rels part: (type's last segment, target) pairs, typed in the officeDocument namespace."""
    items = "".join(f'<Relationship Id="r{k}" Type="{R}/{kind}" Target="{target}"/>'
                    for k, (kind, target) in enumerate(targets))
    return f'<Relationships xmlns="{PACKAGE_RELS}">{items}</Relationships>'


def read(parts: dict[str, str], strict: bool = False) -> str:
    return docx.read(make_docx(parts, strict), "t.docx", ReadOptions()).text


def math(content: str, display: bool = False) -> str:
    equation = f"<m:oMath>{content}</m:oMath>"
    return f"<m:oMathPara>{equation}</m:oMathPara>" if display else equation


def run(text: str) -> str:
    """A math run."""
    return f"<m:r><m:t>{text}</m:t></m:r>"


def words(text: str) -> str:
    """A text run."""
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


# --- Strict Open XML --------------------------------------------------------------------

STYLES = (f'<w:styles {NAMESPACES}><w:style w:type="paragraph" w:styleId="H1"><w:name w:val="heading 1"/>'
          '</w:style><w:style w:type="paragraph" w:styleId="Steps"><w:name w:val="Steps"/><w:pPr><w:numPr>'
          '<w:numId w:val="3"/></w:numPr></w:pPr></w:style></w:styles>')
NUMBERING = (f'<w:numbering {NAMESPACES}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0">'
             '<w:start w:val="4"/><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>'
             '<w:num w:numId="3"><w:abstractNumId w:val="0"/></w:num></w:numbering>')
FOOTNOTES = (f'<w:footnotes {NAMESPACES}><w:footnote w:type="separator" w:id="-1"><w:p>{words("---")}</w:p>'
             f'</w:footnote><w:footnote w:id="1"><w:p>{words("A strict note.")}</w:p></w:footnote></w:footnotes>')
STRUCTURED = document(
    '<w:p><w:pPr><w:pStyle w:val="H1"/></w:pPr><w:r><w:t>Scope</w:t></w:r></w:p>'
    "<w:p><w:r><w:t>Hello strict</w:t></w:r></w:p>"
    f'<w:p><w:pPr><w:pStyle w:val="Steps"/></w:pPr>{words("Fourth step")}</w:p>'
    f'<w:p><w:pPr><w:pStyle w:val="Steps"/></w:pPr>{words("Fifth step")}</w:p>'
    f'<w:p>{words("Noted.")}<w:r><w:footnoteReference w:id="1"/></w:r></w:p>'
    f'<w:p><w:del><w:r><w:delText>gone</w:delText></w:r></w:del>{words("Kept ")}{math(run("x"))}</w:p>')
STRUCTURED_TEXT = ("# Scope\n\nHello strict\n\n4. Fourth step\n5. Fifth step\n\nNoted.[^1]\n\nKept x\n\n"
                   "# Footnotes\n\n[^1]: A strict note.\n")


def test_strict_open_xml_reads_like_transitional():
    """Word's Strict save option: w: in the purl.oclc.org namespace; it was read as an empty document."""
    parts = {"word/document.xml": STRUCTURED, "word/styles.xml": STYLES, "word/numbering.xml": NUMBERING,
             "word/footnotes.xml": FOOTNOTES}
    assert read(parts) == STRUCTURED_TEXT
    assert read(parts, strict=True) == STRUCTURED_TEXT


def test_strict_open_xml_the_smallest_document():
    strict = STRICT[W]
    body = f'<w:document xmlns:w="{strict}"><w:body><w:p><w:r><w:t>Hello strict</w:t></w:r></w:p></w:body></w:document>'
    assert read({"word/document.xml": body}) == "Hello strict\n"


def test_strict_relationships_find_the_parts_wherever_they_are():
    """Strict relationship types (http://purl.oclc.org/ooxml/officeDocument/relationships/...) name the parts."""
    parts = {"_rels/.rels": relationships(("officeDocument", "doc/main.xml")),
             "doc/_rels/main.xml.rels": relationships(("styles", "look.xml"), ("numbering", "lists.xml"),
                                                      ("footnotes", "../notes.xml")),
             "doc/main.xml": STRUCTURED, "doc/look.xml": STYLES, "doc/lists.xml": NUMBERING, "notes.xml": FOOTNOTES}
    assert read(parts, strict=True) == STRUCTURED_TEXT


def test_a_strict_name_in_the_text_of_a_transitional_document_changes_nothing():
    paragraph = f"<w:p>{words('See http://purl.oclc.org/ooxml/wordprocessingml/main for the schema.')}</w:p>"
    assert read({"word/document.xml": document(paragraph)}) == \
        "See http://purl.oclc.org/ooxml/wordprocessingml/main for the schema.\n"


# --- equations (OMML) -------------------------------------------------------------------


def test_an_inline_equation_keeps_its_text_where_it_stands():
    """It was dropped, leaving "… where holds."."""
    equation = math(run("E=m") + f"<m:sSup><m:e>{run('c')}</m:e><m:sup>{run('2')}</m:sup></m:sSup>")
    paragraph = f'<w:p>{words("The energy is given where ")}{equation}{words(" holds.")}</w:p>'
    assert read({"word/document.xml": document(paragraph)}) == "The energy is given where E=mc^2 holds.\n"


def test_an_equation_in_the_strict_math_namespace():
    equation = math(f"<m:f><m:num>{run('a')}</m:num><m:den>{run('b')}</m:den></m:f>")
    assert read({"word/document.xml": document(f"<w:p>{words('Ratio ')}{equation}</w:p>")}, strict=True) == \
        "Ratio a/b\n"


def test_a_display_equation_with_fractions_roots_sums_and_delimiters():
    fraction = f"<m:f><m:fPr><m:type m:val=\"bar\"/></m:fPr><m:num>{run('a+b')}</m:num><m:den>{run('2')}</m:den></m:f>"
    root = f"<m:rad><m:radPr><m:degHide m:val=\"1\"/></m:radPr><m:deg/><m:e>{run('x')}</m:e></m:rad>"
    cube = f"<m:rad><m:deg>{run('3')}</m:deg><m:e>{run('y+1')}</m:e></m:rad>"
    total = (f"<m:nary><m:naryPr><m:chr m:val=\"∑\"/></m:naryPr><m:sub>{run('i=1')}</m:sub><m:sup>{run('n')}</m:sup>"
             f"<m:e><m:sSub><m:e>{run('x')}</m:e><m:sub>{run('i')}</m:sub></m:sSub></m:e></m:nary>")
    pair = f"<m:d><m:dPr><m:sepChr m:val=\",\"/></m:dPr><m:e>{run('u')}</m:e><m:e>{run('v')}</m:e></m:d>"
    power = f"<m:sSup><m:e>{run('10')}</m:e><m:sup>{run('-6')}</m:sup></m:sSup>"
    sine = f"<m:func><m:fName>{run('sin')}</m:fName><m:e>{run('θ')}</m:e></m:func>"
    equation = math(fraction + run("=") + root + run("+") + cube + run("+") + total + run("+") + pair + run("·") +
                    power + run("+") + sine, display=True)
    text = read({"word/document.xml": document(f"<w:p>{words('We have')}</w:p><w:p>{equation}</w:p>")})
    assert text == "We have\n\n(a+b)/2=√x+3√(y+1)+∑_(i=1)^n x_i+(u,v)·10^(-6)+sin θ\n"


def test_equation_arrays_matrices_and_several_equations_in_one_paragraph():
    array = f"<m:eqArr><m:e>{run('x=1')}</m:e><m:e>{run('y=2')}</m:e></m:eqArr>"
    matrix = (f"<m:d><m:e><m:m><m:mr><m:e>{run('a')}</m:e><m:e>{run('b')}</m:e></m:mr>"
              f"<m:mr><m:e>{run('c')}</m:e><m:e>{run('d')}</m:e></m:mr></m:m></m:e></m:d>")
    paragraph = (f"<w:p><m:oMathPara>{math(array)}{math(run('M=') + matrix)}</m:oMathPara></w:p>")
    assert read({"word/document.xml": document(paragraph)}) == "x=1\ny=2\nM=(a, b; c, d)\n"


def test_the_invisible_function_application_reads_as_a_space_and_accents_stay_on_their_letter():
    equation = math(run("sin\u2061") + run("θ") + run("=2\u2062") + f"<m:acc><m:e>{run('x')}</m:e></m:acc>")
    assert read({"word/document.xml": document(f"<w:p>{equation}</w:p>")}) == "sin θ=2x\u0302\n"


def test_equations_in_deleted_text_tables_and_footnotes():
    deleted = f"<w:del>{math(run('gone'))}</w:del>"
    table = (f"<w:tbl><w:tr><w:tc><w:p>{words('Law')}</w:p></w:tc><w:tc><w:p>{math(run('F=ma'))}</w:p></w:tc></w:tr>"
             f"<w:tr><w:tc><w:p>{words('Area')}</w:p></w:tc><w:tc><w:p>"
             f"{math(run('π') + f'<m:sSup><m:e>{run(chr(114))}</m:e><m:sup>{run(chr(50))}</m:sup></m:sSup>')}"
             "</w:p></w:tc></w:tr></w:tbl>")
    notes = (f'<w:footnotes {NAMESPACES}><w:footnote w:id="1"><w:p>{words("Since ")}{math(run("a≠0"))}</w:p>'
             "</w:footnote></w:footnotes>")
    paragraph = f'<w:p>{words("Kept")}{deleted}{words(".")}<w:r><w:footnoteReference w:id="1"/></w:r></w:p>'
    text = read({"word/document.xml": document(paragraph + table), "word/footnotes.xml": notes})
    assert text == ("Kept.[^1]\n\n| Law | F=ma |\n| --- | --- |\n| Area | πr^2 |\n\n"
                    "# Footnotes\n\n[^1]: Since a≠0\n")


def test_a_deeply_nested_equation_is_read_in_linear_time():
    """Counted in calls, not timed (see test_hostile): 4x the depth costs at most ~4x the work."""
    def read_nested(depth: int) -> str:
        nested = "<m:sSup><m:e>" * depth + run("x") + "</m:e></m:sSup>" * depth
        data = make_docx({"word/document.xml": document(f"<w:p>{math(nested)}</w:p>")})
        return docx.read(data, "deep.docx", ReadOptions()).text

    # _grows_linearly compares the work with the lengths of its inputs: one character a level.
    _grows_linearly(lambda levels: read_nested(len(levels)), "." * 5_000, "." * 20_000)
    text = read_nested(200_000)
    assert text.startswith("x") and len(text) < 200
