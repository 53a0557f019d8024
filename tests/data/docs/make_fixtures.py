"""Fixtures made by Python tools (nbformat, python-docx, msoffcrypto-tool): run by make_fixtures.sh."""

import sys

import docx
from msoffcrypto.format.ooxml import OOXMLFile
import nbformat
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from nbformat import v4


def notebook() -> None:
    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    nb.cells = [
        v4.new_markdown_cell("# Token counts\n\nThis notebook counts the tokens of a corpus.\n\n"
                             "## Loading\n\n- read the files\n- decode them"),
        v4.new_code_cell("import ragchunk\ntext = open('corpus.md').read()\nprint(len(text))",
                         execution_count=1,
                         outputs=[v4.new_output("stream", name="stdout", text="OUTPUT-SHOULD-NOT-APPEAR 1234\n")]),
        v4.new_raw_cell("Raw cell text kept as it is."),
        v4.new_markdown_cell("## Counting\n\nThe counts:"),
        v4.new_code_cell("```\nfence inside code\n```\ncount = ragchunk.get_tokenizer().count(text)",
                         execution_count=2,
                         outputs=[v4.new_output("execute_result", data={"text/plain": "OUTPUT-SHOULD-NOT-APPEAR"},
                                                execution_count=2)]),
    ]
    nbformat.validate(nb)
    nbformat.write(nb, "analysis.ipynb")
    with open("analysis-v3.ipynb", "w", encoding="utf-8") as out:
        out.write(nbformat.v3.writes_json(nbformat.convert(nb, 3)))


def word_styles() -> None:
    document = docx.Document()  # python-docx's default template is one Word saved: Word's own styles
    document.core_properties.title = "Styled Handbook"
    document.add_paragraph("Styled Handbook", style="Title")
    chapter = document.styles.add_style("Chapter Heading", WD_STYLE_TYPE.PARAGRAPH)
    chapter.base_style = document.styles["Heading 1"]
    aside = document.styles.add_style("Aside Topic", WD_STYLE_TYPE.PARAGRAPH)
    aside.base_style = document.styles["Normal"]
    outline = OxmlElement("w:outlineLvl")
    outline.set(qn("w:val"), "1")
    aside.element.get_or_add_pPr().append(outline)
    document.add_paragraph("Part one", style="Chapter Heading")
    document.add_paragraph("The first part starts here.")
    document.add_paragraph("Background", style="Aside Topic")
    document.add_paragraph("Bullet alpha", style="List Bullet")
    document.add_paragraph("Bullet beta", style="List Bullet")
    document.add_paragraph("Nested bullet", style="List Bullet 2")
    document.add_paragraph("Step one", style="List Number")
    document.add_paragraph("Step two", style="List Number")
    document.add_heading("Data", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, (("Name", "Value"), ("alpha", "1 | 2"), ("beta", "two\nlines"))):
        for cell, text in zip(row.cells, cells):
            cell.text = text
    document.add_heading("Deep detail", level=4)
    document.add_paragraph("Closing words.")
    document.save("word-styles.docx")


def encrypted() -> None:
    with open("guide.docx", "rb") as plain, open("guide-encrypted.docx", "wb") as out:
        office = OOXMLFile(plain)
        office.encrypt("secret", out)


if __name__ == "__main__":
    for step in sys.argv[1:] or ("notebook", "word_styles", "encrypted"):
        globals()[step]()
