"""The PDF reader on PDFs made by real tools (tests/data/pdf/make_fixtures.py) and by pypdf.

What the fixtures hold is checked against pypdf's own ``extract_text`` (an independent
reading), so a test cannot pass on a fixture that lacks what it is about.
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pypdf
import pytest
import ragchunk
from catalog import english
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject, NumberObject
from ragchunk.errors import RagchunkError
from ragchunk.text.markdown import parse_blocks
from ragchunk.readers import Extracted, ReadOptions
from ragchunk.readers import pdf as pdf_reader
from ragchunk.readers._pdf_layout import Line, OutlineEntry, drop_running_lines, layout

DATA = Path(__file__).resolve().parents[1] / "data" / "pdf"
ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ReadOptions()
CODES = {"pdf_corrupt", "pdf_encrypted", "pdf_encrypted_aes", "pdf_no_text", "pdf_slanted_text"}
RIVER_HEADINGS = [
    ("A field guide to rivers",),
    ("A field guide to rivers", "Sources"),
    ("A field guide to rivers", "Sources", "Springs"),
    ("A field guide to rivers", "Sources", "Glaciers"),
    ("A field guide to rivers", "The middle course"),
    ("A field guide to rivers", "The middle course", "Meanders"),
    ("A field guide to rivers", "The mouth"),
]


def fixture(name: str) -> bytes:
    return (DATA / name).read_bytes()


def read(data: bytes, name: str = "doc.pdf", **kwargs) -> Extracted:
    return pdf_reader.read(data, name, OPTIONS, **kwargs)


def raw_pages(data: bytes) -> list[str]:
    """pypdf's own text of each page: the independent view of what the fixture holds."""
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{3,}", text)


# The running header and footer of the fixtures, which pypdf's text keeps.
RUNNING = re.compile(r"Field guide|Page [0-9]+ of [0-9]+")


def letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def heading_paths_of_split(text: str) -> list[tuple[str, ...]]:
    chunks = ragchunk.split(text, by="headings", size=60, overlap=0, tokenizer="cl100k_base").chunks
    paths = []
    for chunk in chunks:
        if chunk.heading_path not in paths:
            paths.append(chunk.heading_path)
    return paths


# --- headings -----------------------------------------------------------------------------


def test_outline_gives_the_headings_with_their_levels():
    data = fixture("outline.pdf")
    outline = pypdf.PdfReader(io.BytesIO(data)).outline
    assert outline, "the fixture must carry an outline"
    extracted = read(data, "outline.pdf")
    assert extracted.kind == "pdf" and extracted.title == "A field guide to rivers"
    headings = [line for line in extracted.text.splitlines() if line.startswith("#")]
    assert headings == ["# A field guide to rivers", "## Sources", "### Springs", "### Glaciers",
                        "## The middle course", "### Meanders", "## The mouth"]
    assert heading_paths_of_split(extracted.text) == RIVER_HEADINGS


def test_font_size_and_weight_give_headings_without_an_outline():
    data = fixture("fonts.pdf")
    assert pypdf.PdfReader(io.BytesIO(data)).outline == [], "the fixture must have no outline"
    text = read(data, "fonts.pdf").text
    assert heading_paths_of_split(text) == RIVER_HEADINGS
    # Body text, list items and footers are not headings.
    headings = [b for b in parse_blocks(text) if b.kind == "heading"]
    assert len(headings) == 7


def test_the_outline_title_is_matched_to_the_line_that_carries_it():
    # The heading wraps over two lines and its outline title has soft hyphens (and lost a space).
    data = fixture("columns.pdf")
    title = pypdf.PdfReader(io.BytesIO(data)).outline[0].title
    assert "\u00ad" in title
    text = read(data).text
    assert text.startswith("# Hyphenation in narrow columns\n\n")
    assert text.count("Hyphenation in narrow columns") == 1


def test_a_bookmark_whose_title_is_on_no_line_still_makes_a_heading():
    lines = [[Line("Intro text here.", 72, 200, 700, 11, False)], [Line("More text.", 72, 150, 700, 11, False)]]
    outline = [OutlineEntry("Part two", 1, 1, None)]
    result = layout(lines, [], outline, lines_given=True)
    assert result.text == "Intro text here.\n\n# Part two\n\nMore text."
    assert result.pages == ((0, 1), (18, 2))


# --- pages ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["outline.pdf", "fonts.pdf", "columns.pdf"])
def test_every_chunk_gets_the_pages_its_words_are_on(name):
    data = fixture(name)
    extracted = read(data, name)
    pages = raw_pages(data)
    assert len(pages) >= 2
    assert [page for _, page in extracted.pages] == list(range(1, len(pages) + 1))
    offsets = [offset for offset, _ in extracted.pages]
    assert offsets[0] == 0 and offsets == sorted(set(offsets))
    chunks = ragchunk.split(extracted.text, by="sentences", size=24, overlap=0, tokenizer="cl100k_base").chunks
    assert len(chunks) > 10
    spanning = 0
    for chunk in chunks:
        start = extracted.page_at(chunk.content_start)
        end = extracted.page_at(chunk.end - 1)
        assert start is not None and start <= end
        spanning += start != end
        # Each word of the chunk is on one of its pages. pypdf's text keeps broken words
        # broken ("hy‐\nphens", "soft hy phens"), so letters are compared, gaps ignored.
        seen = letters(RUNNING.sub("", "".join(pages[start - 1:end])))
        for word in words(extracted.text[chunk.content_start:chunk.end]):
            assert letters(word) in seen, (name, word, start, end)
    assert spanning, "some chunk must cross a page break"


def test_each_page_begins_where_its_first_words_are():
    data = fixture("outline.pdf")
    extracted = read(data)
    for (offset, page), raw in zip(extracted.pages, raw_pages(data)):
        first = words(raw)[:3]
        assert words(extracted.text[offset:])[:3] == first, page


# --- running headers and footers ------------------------------------------------------------


def test_running_header_and_page_of_footer_are_removed():
    data = fixture("outline.pdf")
    raw = raw_pages(data)
    assert all("Field guide" in page and f"Page {i} of {len(raw)}" in page for i, page in enumerate(raw, 1))
    text = read(data).text
    assert "Field guide\n" not in text and "Field guide " not in text.replace("A field guide", "")
    assert "Page 1" not in text and " of 3" not in text


def test_bare_page_number_footers_are_removed():
    data = fixture("fonts.pdf")
    raw = raw_pages(data)
    assert all(re.search(rf"(^|\n){i}\s*$", page) for i, page in enumerate(raw, 1))
    text = read(data).text
    assert not re.search(r"(^|\s)[123](\s|$)", text.replace("1. ", "").replace("2. ", "").replace("3. ", ""))


def test_roman_and_varying_running_lines_are_removed_but_body_lines_kept():
    pages = []
    for number in range(1, 7):
        roman = ["i", "ii", "iii", "iv", "v", "vi"][number - 1]
        pages.append([
            Line(f"Chapter {number // 3 + 1} · Annual report 2024", 72, 300, 770, 8, False),
            Line(f"Body text about {WORDS[number]} that is unique.", 72, 500, 700, 11, False),
            Line("Mild weather", 72, 150, 680, 11, False) if number == 2 else Line("x", 72, 80, 680, 11, False),
            Line(roman if number % 2 else f"Page {number} of 6", 290, 300, 40, 9, False),
        ])
    kept = drop_running_lines(pages)
    texts = [[line.text for line in lines] for lines in kept]
    assert all(page[0].startswith("Body text about") for page in texts)
    assert all(not page[-1].startswith(("Page", "i", "v")) for page in texts)
    assert "Mild weather" in texts[1]


def test_running_headers_that_name_the_chapter_beside_the_page_number_are_removed():
    # A Texinfo or LaTeX book: the first page of a chapter has its number alone at the top,
    # the next pages "Chapter 2: Lakes 5" (printed page = page index - 1 here).
    chapters = {2: "Rivers", 3: "Rivers", 4: "Lakes", 5: "Lakes", 6: "Lakes", 7: "Seas"}
    pages = [[Line("A book", 72, 300, 700, 20, True), Line("by someone", 72, 300, 660, 11, False)],
             [Line("Preface text that is unique.", 72, 400, 700, 11, False), Line("More of it.", 72, 200, 680, 11, False)]]
    for index, chapter in chapters.items():
        printed = index - 1
        top = (f"{printed}" if chapters.get(index - 1) != chapter else
               f"Chapter {1 + list(dict.fromkeys(chapters.values())).index(chapter)}: {chapter} {printed}")
        pages.append([Line(top, 72, 400, 760, 10, False),
                      Line(f"Body about {WORDS[index]} that is unique.", 72, 500, 700, 11, False),
                      Line("x", 72, 80, 680, 11, False)])
    # A section heading that happens to start with the page's own number, once: kept.
    pages[7][0] = Line("6 Seas", 72, 300, 760, 16, True)
    texts = [[line.text for line in lines] for lines in drop_running_lines(pages)]
    assert not any(text.startswith("Chapter") for page in texts for text in page), texts
    assert all(page[0].startswith("Body about") for page in texts[2:7])
    assert texts[7][0] == "6 Seas"
    assert texts[0] == ["A book", "by someone"]


def test_the_title_a_running_header_repeats_stays_on_the_first_page():
    pages = [[Line("Shared MIME-info Database", 72, 400, 700, 25, True), Line("X Desktop Group", 72, 300, 667, 17, True),
              Line("Introduction text.", 72, 300, 600, 10, False)]]
    pages += [[Line("Shared MIME-info Database", 72, 250, 733, 10, False),
               Line(f"Body about {WORDS[n]} that is unique.", 72, 500, 700, 10, False), Line(str(n), 300, 306, 40, 9, False)]
              for n in range(2, 7)]
    texts = [[line.text for line in lines] for lines in drop_running_lines(pages)]
    assert texts[0] == ["Shared MIME-info Database", "X Desktop Group", "Introduction text."]
    assert all(page == [f"Body about {WORDS[n]} that is unique."] for n, page in zip(range(2, 7), texts[1:]))


def test_an_outline_title_without_its_section_number_finds_the_numbered_line():
    lines = [[Line("2 Lakes", 72, 200, 720, 18, True), Line("Lakes hold water.", 72, 300, 690, 11, False),
              Line("2.1 Naming", 72, 200, 660, 14, True), Line("Names are given.", 72, 300, 630, 11, False)]]
    outline = [OutlineEntry("2 Lakes", 1, 0, None), OutlineEntry("Naming", 2, 0, None)]
    text = layout(lines, [], outline, lines_given=True).text
    assert text == "# 2 Lakes\n\nLakes hold water.\n\n## 2.1 Naming\n\nNames are given."


def contents_pages() -> list[list[Line]]:
    toc = [Line("Table of Contents", 72, 300, 740, 16, True)]
    toc += [Line(f"{n} Chapter {WORDS[n]} . . . . . . . . . . {n * 3}", 72, 500, 700 - 14 * n, 11, False)
            for n in range(1, 6)]
    body = [Line("Chapter text goes on. . . . and on 12 times", 72, 500, 700, 11, False),
            Line("The end.", 72, 200, 686, 11, False)]
    return [toc, body]


def test_a_table_of_contents_is_left_out_unless_kept():
    dropped = layout(contents_pages(), [], lines_given=True)
    assert "Table of Contents" not in dropped.text and f"Chapter {WORDS[1]}" not in dropped.text
    assert dropped.toc_lines == 6
    # One dotted line in the body is not a table of contents.
    assert dropped.text == "Chapter text goes on. . . . and on 12 times The end."
    kept = layout(contents_pages(), [], lines_given=True, keep_contents=True)
    assert kept.toc_lines == 0 and "Table of Contents" in kept.text
    assert all(f"Chapter {WORDS[n]} . . . ." in kept.text for n in range(1, 6))


def contents_pdf() -> bytes:
    """Two pages made by pypdf's writer: a table of contents with leader dots, then text."""
    writer = PdfWriter()
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
    }))
    resources = writer._add_object(DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}))
    for lines in contents_pages():
        ops = [f"BT /F1 {line.size:g} Tf {line.x0:g} {line.y:g} Td ({line.text}) Tj ET" for line in lines]
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = resources
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_says_how_many_contents_lines_it_left_out():
    data = contents_pdf()
    assert ". . . ." in raw_pages(data)[0], "the fixture must hold leader dots"
    extracted = read(data, "book.pdf")
    assert "Table of Contents" not in extracted.text and "The end." in extracted.text
    notes = [n for n in extracted.notes if n["code"] == "boilerplate_dropped"]
    assert notes == [{"code": "boilerplate_dropped", "params": {"name": "book.pdf", "count": 6},
                      "message": "book.pdf: 6 navigation, header, footer or table-of-contents elements were left out"
                                 " (--keep-boilerplate on the command line, keep_boilerplate in Python, keeps them)"}]
    kept = pdf_reader.read(data, "book.pdf", ReadOptions(keep_boilerplate=True))
    assert "Table of Contents" in kept.text and not [n for n in kept.notes if n["code"] == "boilerplate_dropped"]


# --- hyphenation, paragraphs and lists ------------------------------------------------------


def test_words_broken_at_soft_hyphens_are_joined_and_real_hyphens_kept():
    data = fixture("columns.pdf")
    raw = "".join(raw_pages(data))
    assert "\u2010\n" in raw, "the fixture must break words at line ends"
    assert "Nar row" in raw or "Nar\u00adrow" in raw, "pypdf shows soft hyphens inside lines as gaps"
    text = read(data).text
    for joined in ("Narrow columns force the browser", "international cooperation, administration, environmental "
                   "responsibility and communication", "The well-known compound"):
        assert joined in text
    assert "\u00ad" not in text and "\u2010" not in text


def test_a_sentence_goes_on_across_a_column_break_and_a_page_break():
    data = fixture("columns.pdf")
    extracted = read(data)
    paragraphs = extracted.text.split("\n\n")
    assert len(paragraphs) == 4  # the heading and three paragraphs
    third = extracted.text.index("The third paragraph")
    assert extracted.page_at(third) == 1
    assert extracted.page_at(extracted.text.index("methodical work.")) == 2
    assert "the next one: geographical descriptions of unfamiliar regions require" in paragraphs[3]


def test_lists_stay_markdown_lists():
    text = read(fixture("outline.pdf")).text
    assert "1. Snow falls and is pressed into ice.\n2. The ice flows downhill" in text
    assert "- Outer banks erode.\n- Inner banks grow.\n- Oxbow lakes form" in text
    kinds = [b.kind for b in parse_blocks(text)]
    assert kinds.count("list") == 2


def test_paragraph_text_that_looks_like_markup_is_escaped():
    lines = [[Line("# not a heading.", 72, 200, 700, 11, False), Line("1984. A year.", 72, 150, 600, 11, False)]]
    text = layout(lines, [], [], lines_given=True).text
    assert [b.kind for b in parse_blocks(text)] == ["paragraph", "paragraph"]



def drawn_pdf(pages: list[list[str]], rotate: dict[int, int] | None = None) -> bytes:
    """Letter pages made by pypdf's writer, each drawn with its content-stream operators in
    Helvetica (``/F1``), page index -> its /Rotate in ``rotate``."""
    writer = PdfWriter()
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
    }))
    resources = writer._add_object(DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}))
    for index, ops in enumerate(pages):
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = resources
        if rotate and index in rotate:
            page[NameObject("/Rotate")] = NumberObject(rotate[index])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def line_ops(lines: list[tuple[str, float, float]], size: float = 11) -> list[str]:
    """Operators that draw each (text, x, y) upright."""
    return [f"BT /F1 {size:g} Tf {x:g} {y:g} Td ({text}) Tj ET" for text, x, y in lines]


STORY = [("Rivers run down to the sea.", 72, 700), ("Lakes hold the water still.", 72, 680),
         ("Glaciers carve the valleys.", 72, 660)]


# --- rotated pages and rotated text ---------------------------------------------------------


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_upright_text_on_a_page_turned_by_rotate_is_read(rotation):
    upright = drawn_pdf([line_ops(STORY)])
    turned = drawn_pdf([line_ops(STORY)], {0: rotation})
    assert pypdf.PdfReader(io.BytesIO(turned)).pages[0].rotation == rotation
    assert "Glaciers" in raw_pages(turned)[0], "pypdf must find the text layer"
    extracted = read(turned, "turned.pdf")
    assert extracted.text == read(upright).text == "Rivers run down to the sea. Lakes hold the water still. " \
                                                  "Glaciers carve the valleys."
    assert extracted.notes == ()


def test_a_turned_page_in_a_longer_file_keeps_its_text():
    pages = [line_ops([(f"Page {WORDS[n]} begins here.", 72, 700), (f"It ends with {WORDS[n + 3]}.", 72, 600)])
             for n in range(3)]
    extracted = read(drawn_pdf(pages, {1: 90}))
    assert extracted.text == read(drawn_pdf(pages)).text
    assert "Page water begins here." in extracted.text and "It ends with bank." in extracted.text
    assert [page for _, page in extracted.pages] == [1, 2, 3]
    assert extracted.notes == ()


def test_text_drawn_sideways_is_read_in_its_own_direction():
    # A landscape page: the text is turned a quarter in the content, and /Rotate turns the
    # page back (as Word and LibreOffice write it), or the text alone fills a portrait sheet.
    sideways = [f"BT /F1 11 Tf 0 1 -1 0 {100 + 20 * i} 72 Tm ({text}) Tj ET" for i, (text, _, _) in enumerate(STORY)]
    for rotate in ({0: 270}, None):
        extracted = read(drawn_pdf([sideways], rotate))
        assert extracted.text == "Rivers run down to the sea. Lakes hold the water still. Glaciers carve the valleys."
        assert extracted.notes == ()


@pytest.mark.parametrize("rotation", [0, 90])
def test_a_vertical_label_beside_upright_text_is_left_out_and_noted(rotation):
    label = "BT /F1 9 Tf 0 1 -1 0 30 300 Tm (DRAFT COPY) Tj ET"
    data = drawn_pdf([line_ops(STORY) + [label]], {0: rotation})
    assert "DRAFT" in raw_pages(data)[0]
    extracted = read(data, "draft.pdf")
    assert "DRAFT" not in extracted.text and extracted.text.startswith("Rivers run down")
    assert [(note["code"], note["params"]) for note in extracted.notes] == [
        ("pdf_rotated_text", {"name": "draft.pdf", "count": 10})]


# --- short documents keep their body lines --------------------------------------------------


MEMO = [("May 5, 2023", 72, 710.7), ("To Whom it May Concern:", 72, 686.7),
        ("There were 20,000 bottles of water delivered on January 23,", 72, 662.7),
        ("2023. A total of 3 trucks were used for 15 hours.", 72, 650.7), ("Best Regards,", 72, 626.7),
        ("Mallori", 72, 602.7)]


def test_a_two_page_memo_keeps_every_line():
    # unstructured's fake-memo-with-duplicate-page.pdf: the same letter twice.
    extracted = read(drawn_pdf([line_ops(MEMO), line_ops(MEMO)]))
    for text, _, _ in MEMO:
        assert extracted.text.count(text) == 2, text


def test_a_paragraph_repeated_at_the_foot_and_the_top_of_pages_keeps_its_last_lines():
    # markitdown's REPAIR-2022-INV-001_multipage.pdf: a note at the foot of page 1 comes
    # again at the top of page 3; its last lines sit low on page 1, in the footer's band.
    note = ["This is a preliminary estimate for the damage seen. More damage may be",
            "found after the vehicle has been taken apart and the parts removed. If the",
            "concern is deemed not related to a claim, the owner will pay for it."]
    first = line_ops([(f"Estimate line {WORDS[n]}", 72, 700 - 20 * n) for n in range(5)])
    first += line_ops([(text, 77, 97.5 - 10.9 * i) for i, text in enumerate(note)], 8.5)
    second = line_ops([(f"Totals for {WORDS[n]}", 72, 700 - 20 * n) for n in range(5)])
    third = line_ops([(text, 79, 728.5 - 11.9 * i) for i, text in enumerate(note)], 9)
    third += line_ops([("ZAVA AUTO REPAIR", 190, 580)], 20)
    text = read(drawn_pdf([first, second, third])).text
    assert text.count(" ".join(note)) == 2, text


def test_a_line_repeated_last_on_every_page_but_above_the_footer_band_stays():
    pages = [line_ops([(f"Body about {WORDS[n]} here.", 72, 700), ("Signed: the keeper", 72, 420)]) for n in range(4)]
    assert read(drawn_pdf(pages)).text.count("Signed: the keeper") == 4


def test_a_footer_of_three_lines_loses_the_lines_it_repeats():
    # The IRS manual's footer: a catalogue line that names the section, then a two-line notice.
    pages = []
    for n in range(4):
        pages.append([Line(f"Body about {WORDS[n]} here.", 72, 400, 700, 11, False),
                      Line(f"Cat. No. 28171E Internal Revenue Manual 2.3.{59 + n}", 72, 570, 40.2, 9.5, False),
                      Line("Any line marked with a #", 72, 180, 30.5, 9.5, False),
                      Line("is for Official Use Only", 72, 175, 20.8, 9.5, False)])
    texts = [[line.text for line in lines] for lines in drop_running_lines(pages)]
    assert all(not any("Official" in text or "Any line" in text for text in page) for page in texts), texts


# --- refusals -----------------------------------------------------------------------------


def test_a_pdf_without_a_text_layer_is_refused():
    data = fixture("scan.pdf")
    assert not "".join(raw_pages(data)).strip()
    with pytest.raises(RagchunkError) as caught:
        read(data, "scan.pdf")
    error = caught.value
    assert (error.field, error.code, error.params) == ("file", "pdf_no_text", {"name": "scan.pdf"})
    assert str(error) == "scan.pdf has no text layer: run OCR first (for example ocrmypdf)"


def slanted_ops(lines: list[tuple[str, float, float]], size: float = 11) -> list[str]:
    """Operators that draw each (text, x, y) turned 30° counter-clockwise, on no axis of the page."""
    return [f"BT /F1 {size:g} Tf 0.866 0.5 -0.5 0.866 {x:g} {y:g} Tm ({text}) Tj ET" for text, x, y in lines]


def refused(data: bytes, name: str) -> RagchunkError:
    with pytest.raises(RagchunkError) as caught:
        read(data, name)
    return caught.value


@pytest.mark.parametrize("pages", [[slanted_ops(STORY)], [slanted_ops(STORY[:1]), [], slanted_ops(STORY[1:])]],
                         ids=["one page", "pages and a blank page"])
def test_a_pdf_whose_text_is_all_slanted_is_not_taken_for_a_scan(pages):
    """It was refused as pdf_no_text ("run OCR first"), though it has a text layer."""
    data = drawn_pdf(pages)
    assert "Glaciers" in "".join(raw_pages(data)), "pypdf must find the text layer"
    error = refused(data, "tilted.pdf")
    assert (error.field, error.code, error.params) == ("file", "pdf_slanted_text", {"name": "tilted.pdf"})
    assert str(error) == ("tilted.pdf has text, but all of it runs at a slant (neither across nor up or down the"
                          " page), which ragchunk does not read: export it again with the text upright, or run OCR"
                          " over it (for example ocrmypdf --force-ocr)")
    assert english(error) == str(error), "the page says it from web/i18n/en.json"


def test_a_pdf_with_no_text_at_all_is_still_refused_as_without_a_text_layer():
    error = refused(drawn_pdf([[], ["0 0 m 100 100 l S"]]), "blank.pdf")
    assert (error.code, error.params) == ("pdf_no_text", {"name": "blank.pdf"})


def test_a_slanted_label_on_upright_text_is_left_out_and_noted():
    data = drawn_pdf([line_ops(STORY) + slanted_ops([("SAMPLE", 400, 600)], 9)])
    assert "SAMPLE" in raw_pages(data)[0]
    extracted = read(data, "stamped.pdf")
    assert extracted.text == "Rivers run down to the sea. Lakes hold the water still. Glaciers carve the valleys."
    assert [(note["code"], note["params"]) for note in extracted.notes] == [
        ("pdf_rotated_text", {"name": "stamped.pdf", "count": 6})]


def encrypt(data: bytes, user: str, algorithm: str) -> bytes:
    writer = PdfWriter(clone_from=io.BytesIO(data))
    writer.encrypt(user_password=user, owner_password="owner", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("algorithm", ["RC4-40", "RC4-128"])
def test_a_password_protected_pdf_is_refused(algorithm):
    with pytest.raises(RagchunkError) as caught:
        read(encrypt(fixture("outline.pdf"), "secret", algorithm), "locked.pdf")
    error = caught.value
    assert (error.field, error.code) == ("file", "pdf_encrypted")
    assert str(error).startswith("locked.pdf is encrypted with a password: decrypt it first")


@pytest.mark.parametrize("algorithm", ["RC4-40", "RC4-128"])
def test_an_empty_user_password_opens_the_pdf(algorithm):
    data = fixture("outline.pdf")
    assert read(encrypt(data, "", algorithm)).text == read(data).text


AES_SCRIPT = """
import sys
if sys.argv[1] == "block":
    sys.modules["cryptography"] = None
    sys.modules["Crypto"] = None
from ragchunk.errors import RagchunkError
from ragchunk.readers import ReadOptions, pdf
data = open(sys.argv[2], "rb").read()
try:
    print("TEXT", pdf.read(data, "aes.pdf", ReadOptions()).text)
except RagchunkError as error:
    print("ERROR", error.code, error)
"""


def run_aes(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", AES_SCRIPT, mode, str(DATA / "aes.pdf")], capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT / "pycore"), "PATH": "/usr/bin:/bin"}, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_aes_without_cryptography_is_refused_with_the_fix():
    # As in Pyodide, where the cryptography package does not exist.
    out = run_aes("block")
    assert out.startswith("ERROR pdf_encrypted_aes aes.pdf is encrypted with AES"), out
    assert "qpdf --decrypt" in out


def test_aes_with_an_empty_password_reads_where_cryptography_is_installed():
    try:
        import cryptography  # noqa: F401
    except ImportError:
        # Then the file must be refused, not crash, in this very interpreter too.
        with pytest.raises(RagchunkError) as caught:
            read(fixture("aes.pdf"), "aes.pdf")
        assert caught.value.code == "pdf_encrypted_aes"
        return
    assert run_aes("allow") == "TEXT " + read(fixture("outline.pdf")).text + "\n"


@pytest.mark.parametrize("data", [b"", b"%PDF-1.7\n", b"%PDF-1.4\n" + bytes(range(256)) * 40, b"<html></html>"],
                         ids=["empty", "header only", "garbage", "not a pdf"])
def test_broken_files_are_refused_as_corrupt(data):
    with pytest.raises(RagchunkError) as caught:
        read(data, "broken.pdf")
    error = caught.value
    assert (error.field, error.code, error.params) == ("file", "pdf_corrupt", {"name": "broken.pdf"})
    assert "repair it (for example qpdf in.pdf repaired.pdf)" in str(error)


def test_a_truncated_pdf_is_refused_as_corrupt():
    data = fixture("outline.pdf")
    for cut in (len(data) // 3, len(data) // 2, len(data) - 100):
        with pytest.raises(RagchunkError) as caught:
            read(data[:cut], "cut.pdf")
        assert caught.value.code == "pdf_corrupt"


def test_damaged_bytes_never_raise_anything_but_a_refusal():
    rng = random.Random(14)
    sources = [fixture("outline.pdf"), fixture("columns.pdf")]
    outcomes = set()
    for trial in range(30):
        data = bytearray(sources[trial % 2])
        start = rng.randrange(len(data))
        for i in range(start, min(len(data), start + rng.choice((8, 200, 4000)))):
            data[i] = rng.randrange(256)
        try:
            extracted = read(bytes(data), "damaged.pdf")
        except RagchunkError as error:
            assert error.code in CODES, error
            outcomes.add(error.code)
        else:
            assert isinstance(extracted.text, str)
            outcomes.add("read")
    assert "read" in outcomes and "pdf_corrupt" in outcomes


def test_ragchunk_imports_without_pypdf_and_says_how_to_get_it():
    script = (
        "import sys; sys.modules['pypdf'] = None\n"
        "import ragchunk, ragchunk.readers.pdf as pdf\n"
        "from ragchunk.errors import RagchunkError\n"
        "try:\n    pdf.read(b'%PDF-1.7', 'a.pdf', pdf.ReadOptions())\n"
        "except RagchunkError as error:\n    print(error.code, error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT / "pycore"), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == (
        "pdf_needs_pypdf reading a.pdf needs the pypdf package: install it (pip install 'ragchunk[pdf]')"
    )


def test_progress_must_be_callable():
    with pytest.raises(RagchunkError) as caught:
        read(fixture("outline.pdf"), progress=3)
    assert caught.value.field == "progress"


# --- the big case ---------------------------------------------------------------------------

WORDS = "river water stone valley bank delta stream source glacier meander channel tide".split()


def big_pdf(pages: int) -> bytes:
    """A report of ``pages`` pages made by pypdf's writer: a chapter (and bookmark) every
    ten pages, a running header, a page number, and sentences that run across pages."""
    writer = PdfWriter()

    def font(base: str):
        return writer._add_object(DictionaryObject({
            NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject(base), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }))

    fonts = DictionaryObject({NameObject("/F1"): font("/Helvetica"), NameObject("/F2"): font("/Helvetica-Bold")})
    resources = writer._add_object(DictionaryObject({NameObject("/Font"): fonts}))
    k = 0
    for number in range(1, pages + 1):
        ops = ["BT /F1 9 Tf 280 760 Td (Big report) Tj ET"]
        y = 720
        if number % 10 == 1:
            ops.append(f"BT /F2 18 Tf 72 {y} Td (Chapter {number // 10 + 1}) Tj ET")
            y -= 30
        for line in range(4):
            text = " ".join(WORDS[(k + i) % len(WORDS)] for i in range(11)) + ("." if line == 1 else "")
            k += 1
            ops.append(f"BT /F1 11 Tf 72 {y} Td ({text}) Tj ET")
            y -= 14
        ops.append(f"BT /F1 9 Tf 300 40 Td ({number}) Tj ET")
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = resources
    for first in range(0, pages, 10):
        writer.add_outline_item(title=f"Chapter {first // 10 + 1}", page_number=first)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def count_calls(data: bytes) -> tuple[int, int]:
    """(Python and C function calls made by one read, peak traced memory in bytes)."""
    calls = 0

    def profile(frame, event, arg):
        nonlocal calls
        if event == "call" or event == "c_call":
            calls += 1

    tracemalloc.start()
    sys.setprofile(profile)
    try:
        read(data)
    finally:
        sys.setprofile(None)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return calls, peak


def test_work_and_memory_grow_linearly_with_the_pages():
    small, large = big_pdf(60), big_pdf(240)
    calls_small, peak_small = count_calls(small)
    calls_large, peak_large = count_calls(large)
    assert 3.6 <= calls_large / calls_small <= 4.3, (calls_small, calls_large)
    # Memory follows the input and the text, not the pages squared (input held, text built).
    assert peak_large <= 4.5 * peak_small, (peak_small, peak_large)


def test_a_5000_page_pdf_reads_with_progress_to_the_end():
    data = big_pdf(5000)
    calls: list[tuple[int, int]] = []
    extracted = read(data, "big.pdf", progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (5000, 5000) and len(calls) <= 101
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})
    assert all(total == 5000 for _, total in calls)
    assert [page for _, page in extracted.pages] == list(range(1, 5001))
    headings = [b.title for b in parse_blocks(extracted.text) if b.kind == "heading"]
    assert headings == [f"Chapter {n}" for n in range(1, 501)]
    assert "Big report" not in extracted.text
    # The sentence that runs across each page break stays one paragraph: a chapter holds
    # its pages' text in paragraphs cut only at sentence ends followed by a full stop.
    assert not re.search(r"(^|\n)[0-9]+(\n|$)", extracted.text)


class Cancelled(Exception):
    pass


def test_raising_in_progress_cancels_the_read():
    data = big_pdf(1000)
    calls: list[int] = []

    def progress(done: int, total: int) -> None:
        calls.append(done)
        if done >= 300:
            raise Cancelled

    with pytest.raises(Cancelled):
        read(data, progress=progress)
    assert calls[-1] == 300 and len(calls) == 30


# --- the content-stream tokenizer -----------------------------------------------------------


# --- notes on pages left out ------------------------------------------------------------


def with_pages(scans: int = 0, broken: int = 0) -> bytes:
    """Two of big_pdf's pages of text, then ``scans`` copies of scan.pdf's image page, then
    ``broken`` pages whose content stream names a filter no reader knows."""
    writer = PdfWriter()
    for page in [*pypdf.PdfReader(io.BytesIO(big_pdf(2))).pages,
                 *list(pypdf.PdfReader(io.BytesIO(fixture("scan.pdf"))).pages) * scans]:
        writer.add_page(page)
    for _ in range(broken):
        stream = DecodedStreamObject()
        stream.set_data(b"BT /F1 11 Tf 72 700 Td (lost) Tj ET")
        stream[NameObject("/Filter")] = NameObject("/NoSuchDecode")
        writer.add_blank_page(612, 792)[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(("data", "message"), [
    (lambda: with_pages(scans=1), "1 of 3 pages of mixed.pdf is an image without text (page 3): run OCR to read it"
                                  " (for example ocrmypdf)"),
    (lambda: with_pages(scans=2), "2 of 4 pages of mixed.pdf are images without text (pages 3-4): run OCR to read"
                                  " them (for example ocrmypdf)"),
    (lambda: with_pages(broken=1), "1 of 3 pages of mixed.pdf could not be read and was left out (page 3)"),
    (lambda: with_pages(broken=2), "2 of 4 pages of mixed.pdf could not be read and were left out (pages 3-4)"),
], ids=["one scan", "two scans", "one broken", "two broken"])
def test_pages_left_out_are_counted_in_the_singular_or_the_plural(data, message):
    pdf = data()
    last = pypdf.PdfReader(io.BytesIO(pdf)).pages[-1]
    if "could not be read" in message:
        with pytest.raises(NotImplementedError):
            last["/Contents"].get_object().get_data()
    else:
        assert not last.extract_text().strip() and "/XObject" in last["/Resources"]
    [note] = read(pdf, "mixed.pdf").notes
    assert note["message"] == message
    assert english(note) == message, "the page says it from web/i18n/en.json"


def plain(value):
    """A pypdf operand as the tokenizer gives it (bytes, str, int/float, list, dict)."""
    if isinstance(value, pypdf.generic.DictionaryObject):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, bytes):
        return bytes(value)
    if isinstance(value, pypdf.generic.FloatObject):
        return float(value)
    if isinstance(value, int):
        return int(value)
    return str(value)


@pytest.mark.parametrize("name", ["outline.pdf", "fonts.pdf", "columns.pdf", "scan.pdf"])
def test_the_tokenizer_reads_content_streams_as_pypdf_does(name):
    from ragchunk.readers._pdf_ops import operations

    reader = pypdf.PdfReader(io.BytesIO(fixture(name)))
    compared = 0
    for page in reader.pages:
        data = page.get_contents().get_data()
        stream = pypdf.generic.ContentStream(page.get_contents(), reader, "bytes")
        theirs = [([plain(o) for o in operands], op.decode("latin-1")) for operands, op in stream.operations]
        ours = [(operands, operator) for operands, operator in operations(data)]
        assert ours == theirs
        compared += len(ours)
    assert compared > (10 if name == "scan.pdf" else 1000)


def test_the_tokenizer_takes_escapes_nesting_inline_images_and_junk():
    from ragchunk.readers._pdf_ops import operations

    stream = (b"% a comment\n(a\\)b(c)d\\101\\n) Tj <48 65 6c6c 6F> Tj <4> Tj\n"
              b"BI /W 2 /H 1 ID \x00EI\xff EI\nq [1 [2 [3]] /N << /K (v) >>] X Q ) ] [ (open")
    assert list(operations(stream)) == [
        ([b"a)b(c)dA\n"], "Tj"), ([b"Hello"], "Tj"), ([b"\x40"], "Tj"), ([], "q"),
        ([[1, [2, [3]], "/N", {"/K": b"v"}]], "X"), ([], "Q"),
    ]


# --- filters ragchunk cannot decode -----------------------------------------------------------


def with_filtered_pages(filtered: int, text_pages: int = 2, filter_name: str = "/JBIG2Decode") -> bytes:
    """``text_pages`` of big_pdf's pages, then ``filtered`` pages whose content stream is
    compressed with ``filter_name`` (pypdf needs the jbig2dec program or the brotli package)."""
    writer = PdfWriter()
    for page in list(pypdf.PdfReader(io.BytesIO(big_pdf(2))).pages)[:text_pages]:
        writer.add_page(page)
    for _ in range(filtered):
        stream = DecodedStreamObject()
        stream.set_data(b"\x97\x4a\x42\x32\x0d\x0a\x1a\x0a not really JBIG2")
        stream[NameObject("/Filter")] = NameObject(filter_name)
        writer.add_blank_page(612, 792)[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def no_jbig2dec():
    """As in the browser, and on most machines: pypdf finds no jbig2dec program to call."""
    with pypdf.apply_configuration(jbig2dec_binary=None):
        yield


def test_a_page_that_needs_jbig2_is_left_out_naming_the_filter_not_cryptography(no_jbig2dec):
    # Before, this page refused the whole file as "encrypted with AES, which needs the
    # cryptography package": pypdf raises the same DependencyError for both.
    data = with_filtered_pages(1)
    last = pypdf.PdfReader(io.BytesIO(data)).pages[-1]
    with pytest.raises(pypdf.errors.DependencyError, match="jbig2dec"):
        last["/Contents"].get_object().get_data()
    extracted = read(data, "fax.pdf")
    assert "river" in extracted.text
    [note] = extracted.notes
    assert note["code"] == "pdf_pages_filter_unsupported"
    assert note["message"] == ("1 of 3 pages of fax.pdf uses the JBIG2Decode filter, which ragchunk cannot decode,"
                               " and was left out (page 3)")
    assert english(note) == note["message"], "the page says it from web/i18n/en.json"
    two = read(with_filtered_pages(2), "fax.pdf").notes[0]
    assert two["message"] == ("2 of 4 pages of fax.pdf use the JBIG2Decode filter, which ragchunk cannot decode,"
                              " and were left out (pages 3-4)")
    assert english(two) == two["message"]


@pytest.mark.parametrize("text_pages", [0, 1], ids=["every page", "the rest blank"])
def test_a_pdf_whose_text_all_needs_jbig2_is_refused_naming_the_filter(no_jbig2dec, text_pages):
    data = with_filtered_pages(2, text_pages=text_pages)
    if text_pages:
        # A page with no text beside them: what is left has no text.
        writer = PdfWriter(clone_from=io.BytesIO(data))
        writer.pages[0][NameObject("/Contents")] = writer._add_object(DecodedStreamObject())
        out = io.BytesIO()
        writer.write(out)
        data = out.getvalue()
    with pytest.raises(RagchunkError) as caught:
        read(data, "fax.pdf")
    error = caught.value
    assert (error.field, error.code, error.params) == ("file", "pdf_filter_unsupported",
                                                       {"name": "fax.pdf", "filter": "JBIG2Decode"})
    assert str(error) == ("fax.pdf uses the JBIG2Decode filter, which ragchunk cannot decode: export it again from"
                          " the program that made it, or save it as text")
    assert "cryptography" not in str(error)
    assert english(error) == str(error)


def test_a_page_that_needs_brotli_is_said_as_such():
    try:
        import brotli  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("brotli is installed: pypdf decodes BrotliDecode here")
    [note] = read(with_filtered_pages(1, filter_name="/BrotliDecode"), "b.pdf").notes
    assert note["code"] == "pdf_pages_filter_unsupported" and note["params"]["filter"] == "BrotliDecode"


def test_missing_aes_and_missing_filters_are_told_apart():
    from pypdf._crypt_providers import _fallback

    try:
        _fallback.CryptAES(b"k" * 16).decrypt(b"x" * 32)
    except pypdf.errors.DependencyError as error:
        assert pdf_reader._missing_filter(error) is None
    else:
        pytest.skip("unreachable: the fallback provider always refuses AES")
    assert pdf_reader._missing_filter(pypdf.errors.DependencyError("jbig2dec binary is not available.")) == "JBIG2Decode"
