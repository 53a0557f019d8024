"""Tests for ragchunk.text.markdown: Markdown or plain text -> ordered structural blocks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragchunk.errors import RagchunkError
from ragchunk.text.markdown import BLOCK_KINDS, Block, front_matter, heading_paths, item_lists, list_items, parse_blocks

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))


def shape(text: str) -> list[tuple[str, str, int, str]]:
    """(kind, text slice, level, title) of each block: what the rules promise."""
    return [(b.kind, text[b.start : b.end], b.level, b.title) for b in parse_blocks(text)]


def h(level: int, title: str, source: str) -> tuple[str, str, int, str]:
    return ("heading", source, level, title)


def para(source: str) -> tuple[str, str, int, str]:
    return ("paragraph", source, 0, "")


def code(source: str) -> tuple[str, str, int, str]:
    return ("code", source, 0, "")


def lst(source: str) -> tuple[str, str, int, str]:
    return ("list", source, 0, "")


def table(source: str) -> tuple[str, str, int, str]:
    return ("table", source, 0, "")


def quote(source: str) -> tuple[str, str, int, str]:
    return ("quote", source, 0, "")


def html(source: str) -> tuple[str, str, int, str]:
    return ("html", source, 0, "")


def rule(source: str) -> tuple[str, str, int, str]:
    return ("rule", source, 0, "")


def assert_gaps_blank(text: str, spans: list[tuple[int, int]], lo: int, hi: int) -> None:
    """Spans are ordered, disjoint, trimmed, and leave only whitespace uncovered in [lo, hi)."""
    pos = lo
    for start, end in spans:
        assert pos <= start < end <= hi, (pos, start, end)
        piece = text[start:end]
        assert piece == piece.strip(), piece
        assert text[pos:start].strip() == "", text[pos:start]
        pos = end
    assert text[pos:hi].strip() == "", text[pos:hi]


def assert_invariants(text: str, blocks: list[Block] | None = None) -> list[Block]:
    """Check everything parse_blocks promises for any text; return the blocks."""
    if blocks is None:
        blocks = parse_blocks(text)
    lo = 1 if text.startswith("\ufeff") else 0
    assert_gaps_blank(text, [(b.start, b.end) for b in blocks], lo, len(text))
    for block in blocks:
        assert block.kind in BLOCK_KINDS
        if block.kind == "heading":
            assert 1 <= block.level <= 6
            assert block.title == block.title.strip()
        else:
            assert (block.level, block.title) == (0, "")
    paths = heading_paths(blocks)
    assert len(paths) == len(blocks)
    for block, path in zip(blocks, paths):
        if block.kind == "heading":
            # A heading's path ends with its title; an empty title enters no path.
            assert (path[-1:] == (block.title,)) if block.title else "" not in path
            assert len(path) <= block.level
    for block in blocks:
        if block.kind == "list":
            items = list_items(text, block)
            assert items[0][0] == block.start and items[-1][1] == block.end
            assert_gaps_blank(text, items, block.start, block.end)
    return blocks


# ATX headings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# One", [h(1, "One", "# One")]),
        ("## Install ##", [h(2, "Install", "## Install ##")]),
        ("###   Spaced   #####   ", [h(3, "Spaced", "###   Spaced   #####")]),
        ("#### C# #", [h(4, "C#", "#### C# #")]),
        ("##### Four#", [h(5, "Four#", "##### Four#")]),
        ("###### Six", [h(6, "Six", "###### Six")]),
        ("   ## Three spaces", [h(2, "Three spaces", "## Three spaces")]),
        ("#\tTabbed", [h(1, "Tabbed", "#\tTabbed")]),
        ("#", [h(1, "", "#")]),
        ("### ###", [h(3, "", "### ###")]),
        ("#hashtag", [para("#hashtag")]),
        ("####### seven", [para("####### seven")]),
        ("    # four spaces", [code("# four spaces")]),
        ("\t# tab", [code("# tab")]),
        (" \t# space and tab", [code("# space and tab")]),
        ("# Über 中文 😀", [h(1, "Über 中文 😀", "# Über 中文 😀")]),
    ],
)
def test_atx_heading(text: str, expected: list) -> None:
    assert shape(text) == expected


def test_atx_heading_interrupts_a_paragraph() -> None:
    text = "para line\n## Title\nmore text"
    assert shape(text) == [para("para line"), h(2, "Title", "## Title"), para("more text")]


def test_consecutive_headings_are_separate_blocks() -> None:
    text = "# A\n## B\n\n### C\n"
    assert shape(text) == [h(1, "A", "# A"), h(2, "B", "## B"), h(3, "C", "### C")]


# Setext headings and thematic breaks ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Title\n=====", [h(1, "Title", "Title\n=====")]),
        ("Install\n-------\n", [h(2, "Install", "Install\n-------")]),
        ("Install\n   ----   ", [h(2, "Install", "Install\n   ----")]),
        ("Two\nlines\n===", [h(1, "Two lines", "Two\nlines\n===")]),
        ("Para\n\n---", [para("Para"), rule("---")]),
        ("---", [rule("---")]),
        ("===", [para("===")]),
        ("Para\n    ---", [para("Para\n    ---")]),
        ("Para\n- - -", [para("Para"), rule("- - -")]),
        ("- item\n---", [lst("- item"), rule("---")]),
        ("# Heading\n---", [h(1, "Heading", "# Heading"), rule("---")]),
        ("> quote\n---", [quote("> quote"), rule("---")]),
        ("Para\n= =", [para("Para\n= =")]),
    ],
)
def test_setext_heading_or_rule(text: str, expected: list) -> None:
    assert shape(text) == expected


@pytest.mark.parametrize("line", ["***", "---", "___", "- - -", " * * * ", "_____________", "-\t-\t-"])
def test_thematic_break(line: str) -> None:
    assert shape(line) == [rule(line.strip())]


@pytest.mark.parametrize("line", ["--", "*-*", "-- x", "**bold**", "__init__"])
def test_not_a_thematic_break(line: str) -> None:
    assert shape(line) == [para(line)]


# Paragraphs and plain text --------------------------------------------------------------


def test_paragraphs_split_at_blank_and_whitespace_only_lines() -> None:
    text = "a\nb\n\n  \t \nc\n\u3000\nd"
    assert shape(text) == [para("a\nb"), para("c"), para("d")]


def test_plain_text() -> None:
    text = (
        "It was a bright cold day in April, and the clocks were striking thirteen.\n"
        "Winston Smith slipped quickly through the glass doors.\n\n\n"
        "  The hallway smelt of boiled cabbage.\n"
        "At one end of it a coloured poster was tacked to the wall.\n"
    )
    assert shape(text) == [
        para(
            "It was a bright cold day in April, and the clocks were striking thirteen.\n"
            "Winston Smith slipped quickly through the glass doors."
        ),
        para("The hallway smelt of boiled cabbage.\nAt one end of it a coloured poster was tacked to the wall."),
    ]


def test_plain_text_with_indented_first_line_stays_a_paragraph() -> None:
    text = "    Indented first line\nof a paragraph.\n\n\tTabbed first line\nof another."
    assert shape(text) == [
        para("Indented first line\nof a paragraph."),
        para("Tabbed first line\nof another."),
    ]


def test_plain_text_numbers_do_not_start_a_list_mid_paragraph() -> None:
    text = "The war ended in\n1945. Then came peace.\n"
    assert shape(text) == [para("The war ended in\n1945. Then came peace.")]


@pytest.mark.parametrize("text", ["", "   ", "\n\n", " \t\r\n\r\n\u3000", "\ufeff", "\ufeff\n \n"])
def test_empty_or_blank_text_has_no_blocks(text: str) -> None:
    assert parse_blocks(text) == []


# Fenced and indented code ---------------------------------------------------------------


def test_fence_keeps_hash_lines_and_blank_lines() -> None:
    text = "Intro\n```python\n# comment\n\n\n## not a heading\nx = 1\n```\nafter"
    assert shape(text) == [
        para("Intro"),
        code("```python\n# comment\n\n\n## not a heading\nx = 1\n```"),
        para("after"),
    ]


def test_tilde_fence_ignores_backtick_fences_inside() -> None:
    text = "~~~\n```\n# no\n```\n~~~\n# yes"
    assert shape(text) == [code("~~~\n```\n# no\n```\n~~~"), h(1, "yes", "# yes")]


def test_closing_fence_must_be_at_least_as_long() -> None:
    text = "````md\n```\n# still code\n````\n# heading"
    assert shape(text) == [code("````md\n```\n# still code\n````"), h(1, "heading", "# heading")]


def test_closing_fence_indented_four_spaces_does_not_close() -> None:
    text = "```\n    ```\n# x\n```\n# y"
    assert shape(text) == [code("```\n    ```\n# x\n```"), h(1, "y", "# y")]


def test_indented_fences() -> None:
    text = "   ```\n# x\n  ```  \nafter"
    assert shape(text) == [code("```\n# x\n  ```"), para("after")]


def test_fence_with_four_spaces_is_indented_code() -> None:
    text = "    ```\n# real heading"
    assert shape(text) == [code("```"), h(1, "real heading", "# real heading")]


def test_backtick_in_info_string_is_not_a_fence_but_tilde_allows_it() -> None:
    assert shape("``` a ` b\n# x") == [para("``` a ` b"), h(1, "x", "# x")]
    assert shape("~~~ a ` b\n# x\n~~~") == [code("~~~ a ` b\n# x\n~~~")]
    assert shape("``inline`` code") == [para("``inline`` code")]


def test_unclosed_fence_runs_to_the_end() -> None:
    text = "# Top\n\n```\n# a\n\n## b\n~~~\n\n  \n"
    assert shape(text) == [h(1, "Top", "# Top"), code("```\n# a\n\n## b\n~~~")]


def test_fence_interrupts_a_paragraph() -> None:
    assert shape("text\n```\ncode\n```") == [para("text"), code("```\ncode\n```")]


def test_indented_code_block_spans_blank_lines() -> None:
    text = "# T\n\n    # not heading\n\n    more\n\npara"
    assert shape(text) == [h(1, "T", "# T"), code("# not heading\n\n    more"), para("para")]


def test_indented_line_continues_an_open_paragraph() -> None:
    assert shape("para\n    # still para") == [para("para\n    # still para")]


# Tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |",
            [table("| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |")],
        ),
        ("a | b\n--|--\n1 | 2", [table("a | b\n--|--\n1 | 2")]),
        ("| one |\n| :--- |", [table("| one |\n| :--- |")]),
        (
            "intro\n| a | b |\n| - | - |\n| 1 | 2 |\n\nafter",
            [para("intro"), table("| a | b |\n| - | - |\n| 1 | 2 |"), para("after")],
        ),
        ("|a|b|\n|-|-|\n|1|2|\nno pipe here", [table("|a|b|\n|-|-|\n|1|2|"), para("no pipe here")]),
        ("|a|b|\n|-|-|\n# H | x", [table("|a|b|\n|-|-|"), h(1, "H | x", "# H | x")]),
        ("| a | b |\n|---|", [para("| a | b |\n|---|")]),
        ("| a |\n| b |", [para("| a |\n| b |")]),
        ("a | b\n---", [h(2, "a | b", "a | b\n---")]),
        ("| a | b |\n|-x-|---|", [para("| a | b |\n|-x-|---|")]),
        ("a | b \\|\n--|--", [table("a | b \\|\n--|--")]),
        ("a \\| b\n--|--", [para("a \\| b\n--|--")]),
        ("|\n|-|", [table("|\n|-|")]),
    ],
)
def test_table(text: str, expected: list) -> None:
    assert shape(text) == expected


# Lists ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- a\n- b\n- c", [lst("- a\n- b\n- c")]),
        ("* a\n+ b", [lst("* a"), lst("+ b")]),
        ("1. a\n1) b", [lst("1. a"), lst("1) b")]),
        ("1. a\n2) b", [lst("1. a\n2) b")]),
        ("1. one\n2. two\n10. ten", [lst("1. one\n2. two\n10. ten")]),
        ("- a\n\n- b\n\n\n- c\n\npara", [lst("- a\n\n- b\n\n\n- c"), para("para")]),
        ("- a\nlazy line\n- b", [lst("- a\nlazy line\n- b")]),
        ("- a\n\nnot lazy", [lst("- a"), para("not lazy")]),
        ("- a\n\n  continued after blank\n- b", [lst("- a\n\n  continued after blank\n- b")]),
        ("para\n- item", [para("para"), lst("- item")]),
        ("para\n1. item", [para("para"), lst("1. item")]),
        ("para\n2. item", [para("para\n2. item")]),
        ("para\n*", [para("para\n*")]),
        ("- a\n# H", [lst("- a"), h(1, "H", "# H")]),
        ("- a\n> q", [lst("- a"), quote("> q")]),
        ("- a\n```\ncode\n```", [lst("- a"), code("```\ncode\n```")]),
        ("-item", [para("-item")]),
        ("1.5 apples", [para("1.5 apples")]),
        ("1234567890. too long", [para("1234567890. too long")]),
        ("- [ ] task\n- [x] done", [lst("- [ ] task\n- [x] done")]),
        ("   - a\n   - b", [lst("- a\n   - b")]),
        ("-\n- b", [lst("-\n- b")]),
        ("- a\n  # heading inside item", [lst("- a\n  # heading inside item")]),
        ("- a\n\n      indented code in item\n- b", [lst("- a\n\n      indented code in item\n- b")]),
        ("- a\n  ***\n  b", [lst("- a\n  ***\n  b")]),
        ("-      code\n  more", [lst("-      code\n  more")]),
        ("-      code\nnot lazy", [lst("-      code"), para("not lazy")]),
        ("- a\n\n\tb", [lst("- a\n\n\tb")]),
        ("-\ta\n\n  \tb\n\n   c", [lst("-\ta\n\n  \tb"), para("c")]),
        ("10.  x\n    lazy", [lst("10.  x\n    lazy")]),
        ("10.  x\n\n    code", [lst("10.  x"), code("code")]),
    ],
)
def test_list(text: str, expected: list) -> None:
    assert shape(text) == expected


def test_nested_list_stays_in_parent_block_and_item() -> None:
    text = "- a\n  - b\n    - c\n      more c\n\n    1. d\n- e\n\nafter"
    block_text = "- a\n  - b\n    - c\n      more c\n\n    1. d\n- e"
    assert shape(text) == [lst(block_text), para("after")]
    items = list_items(text, parse_blocks(text)[0])
    assert [text[s:e] for s, e in items] == ["- a\n  - b\n    - c\n      more c\n\n    1. d", "- e"]


def test_fence_inside_list_item_keeps_blank_and_hash_lines() -> None:
    text = "1. step\n\n   ```sh\n   # comment\n\n   echo hi\n   ```\n2. next\n# real"
    assert shape(text) == [
        lst("1. step\n\n   ```sh\n   # comment\n\n   echo hi\n   ```\n2. next"),
        h(1, "real", "# real"),
    ]
    items = list_items(text, parse_blocks(text)[0])
    assert [text[s:e] for s, e in items] == ["1. step\n\n   ```sh\n   # comment\n\n   echo hi\n   ```", "2. next"]


def test_fence_inside_list_item_ends_with_the_item() -> None:
    text = "- a\n  ```\n  code\n# real"
    assert shape(text) == [lst("- a\n  ```\n  code"), h(1, "real", "# real")]


def test_closed_fence_inside_list_item_lets_the_item_continue() -> None:
    closed = "- a\n  ```\n  x\n  ```\n  para\nlazy"
    assert shape(closed) == [lst(closed)]
    too_indented_to_close = "- a\n  ```\n      ```\n  code\nnot lazy"
    assert shape(too_indented_to_close) == [lst("- a\n  ```\n      ```\n  code"), para("not lazy")]


def test_lazy_line_keeps_the_inner_item_open() -> None:
    # "x" continues b's paragraph lazily, so the fence at column 7 belongs to b, and
    # "y" (column 6) closes b and its fence: it is indented code in a, which "text" cannot continue.
    text = "- a\n  -    b\n      x\n       ```\n      y\ntext"
    assert shape(text) == [lst("- a\n  -    b\n      x\n       ```\n      y"), para("text")]


def test_fence_opened_on_the_marker_line() -> None:
    text = "- ```\n  # in code\n\n  ```\n- b"
    assert shape(text) == [lst(text)]


def test_list_items_of_loose_list_exclude_blank_lines() -> None:
    text = "intro\n\n* one\n\n* two\n  wrapped\n\n\n* three\n"
    block = parse_blocks(text)[1]
    assert [text[s:e] for s, e in list_items(text, block)] == ["* one", "* two\n  wrapped", "* three"]


def test_list_items_with_crlf_and_bom() -> None:
    text = "\ufeff- a\r\n  - a.1\r\n\r\n- b\r\n"
    block = parse_blocks(text)[0]
    assert (block.start, text[block.start : block.end]) == (1, "- a\r\n  - a.1\r\n\r\n- b")
    assert [text[s:e] for s, e in list_items(text, block)] == ["- a\r\n  - a.1", "- b"]


def test_list_items_rejects_a_block_that_is_not_a_list() -> None:
    text = "para\n\n- a"
    blocks = parse_blocks(text)
    with pytest.raises(RagchunkError, match=r"block\.kind \('paragraph'\) must be 'list'") as caught:
        list_items(text, blocks[0])
    assert caught.value.field == "block"
    with pytest.raises(RagchunkError, match="does not start a list item"):
        list_items("xx\n\n- a", blocks[1])
    with pytest.raises(RagchunkError, match="does not start a list item"):
        list_items("x" * 40 + "- a", Block("list", 40, 43))


def test_list_items_of_many_lists_far_into_a_text() -> None:
    text = "para\n\n- a\n- b\n\n" * 5_000
    lists = [b for b in parse_blocks(text) if b.kind == "list"]
    assert len(lists) == 5_000
    assert {tuple(text[s:e] for s, e in list_items(text, b)) for b in lists} == {("- a", "- b")}


# Block quotes and HTML ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("> a\n> b\n\nafter", [quote("> a\n> b"), para("after")]),
        ("> a\nlazy\n\n> b", [quote("> a\nlazy"), quote("> b")]),
        ("> # Heading in quote\n> ```\n> # code\n> ```", [quote("> # Heading in quote\n> ```\n> # code\n> ```")]),
        ("> a\n# H", [quote("> a"), h(1, "H", "# H")]),
        ("> # H\nnot lazy", [quote("> # H"), para("not lazy")]),
        ("para\n> q", [para("para"), quote("> q")]),
        (">", [quote(">")]),
        ("   > > nested", [quote("> > nested")]),
    ],
)
def test_quote(text: str, expected: list) -> None:
    assert shape(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<div>\n# not a heading\n</div>\n\n# H", [html("<div>\n# not a heading\n</div>"), h(1, "H", "# H")]),
        ("<!-- note\n\n# commented\n-->\nafter", [html("<!-- note\n\n# commented\n-->"), para("after")]),
        ("<!-- one line -->\n# H", [html("<!-- one line -->"), h(1, "H", "# H")]),
        ("<PRE>\n# x\n\n# y\n</pre>\n# z", [html("<PRE>\n# x\n\n# y\n</pre>"), h(1, "z", "# z")]),
        ("<script>\n\n# unclosed", [html("<script>\n\n# unclosed")]),
        ("<custom-tag>\n# still html\n\n# H", [html("<custom-tag>\n# still html"), h(1, "H", "# H")]),
        ("text\n<custom-tag>\nmore", [para("text\n<custom-tag>\nmore")]),
        ("text\n<div>\nmore", [para("text"), html("<div>\nmore")]),
        ("<span>inline</span> text", [para("<span>inline</span> text")]),
        ("<https://example.com>", [para("<https://example.com>")]),
        ("<?php echo 1; ?>\nx", [html("<?php echo 1; ?>"), para("x")]),
        ("<!DOCTYPE html>\nx", [html("<!DOCTYPE html>"), para("x")]),
        ("<![CDATA[\n# x\n\n]]>\nx", [html("<![CDATA[\n# x\n\n]]>"), para("x")]),
    ],
)
def test_html(text: str, expected: list) -> None:
    assert shape(text) == expected


# Line endings and BOM -------------------------------------------------------------------


def test_crlf_line_endings() -> None:
    text = "# T\r\n\r\npara one\r\nline two\r\n\r\n```\r\n# c\r\n```\r\nSub\r\n---\r\n"
    assert shape(text) == [
        h(1, "T", "# T"),
        para("para one\r\nline two"),
        code("```\r\n# c\r\n```"),
        h(2, "Sub", "Sub\r\n---"),
    ]


def test_old_mac_cr_line_endings() -> None:
    text = "# T\r\rpara one\rline two\r\r```\r# c\r```\r"
    assert shape(text) == [h(1, "T", "# T"), para("para one\rline two"), code("```\r# c\r```")]


def test_mixed_line_endings() -> None:
    assert shape("a\r\nb\nc\rd\r\n\r\ne") == [para("a\r\nb\nc\rd"), para("e")]


def test_bom_is_not_content_or_indentation() -> None:
    text = "\ufeff# Title\n\ntext"
    blocks = parse_blocks(text)
    assert blocks == [Block("heading", 1, 8, 1, "Title"), Block("paragraph", 10, 14)]
    assert shape("\ufeff   # Three") == [h(1, "Three", "# Three")]
    assert shape("\ufeff\r\n\r\ntext") == [para("text")]


def test_bom_in_the_middle_is_content() -> None:
    assert shape("a\n\n\ufeffb") == [para("a"), para("\ufeffb")]


# Heading paths --------------------------------------------------------------------------


def test_heading_paths_nested_sections() -> None:
    text = "intro\n\n# Guide\n\ntext\n\n## Install\n\n### Linux\n\nsteps\n\n### Mac\n\n## Use\n\nx"
    assert heading_paths(parse_blocks(text)) == [
        (),
        ("Guide",),
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Install", "Mac"),
        ("Guide", "Use"),
        ("Guide", "Use"),
    ]


def test_heading_paths_skipping_levels() -> None:
    text = "# A\n### C\n## B\ntext\n###### F\n# Z\n#### Deep first?"
    assert heading_paths(parse_blocks(text)) == [
        ("A",),
        ("A", "C"),
        ("A", "B"),
        ("A", "B"),
        ("A", "B", "F"),
        ("Z",),
        ("Z", "Deep first?"),
    ]


def test_heading_paths_start_below_level_one_and_include_setext() -> None:
    text = "### Late\n\nGuide\n=====\n\nInstall\n-------\n\ntext\n\n## Next"
    assert heading_paths(parse_blocks(text)) == [
        ("Late",),
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install"),
        ("Guide", "Next"),
    ]


def test_heading_paths_ignore_hash_lines_in_code() -> None:
    text = "# Real\n\n```bash\n# Install deps\n```\n\n## Sub"
    assert heading_paths(parse_blocks(text)) == [("Real",), ("Real",), ("Real", "Sub")]


@pytest.mark.parametrize(("line", "title"), [
    # Changelogs made by conventional-changelog / release-please: every release heading links its diff.
    ("## [2.23.0](https://github.com/o/r/compare/v2.22.0...v2.23.0) (2023-09-11)", "2.23.0 (2023-09-11)"),
    ("# [5.0.0](https://github.com/o/r/compare/v4.2.1...v5.0.0) (2024-01-02)", "5.0.0 (2024-01-02)"),
    ("## [1.2.0] - 2024-02-01", "[1.2.0] - 2024-02-01"),  # keepachangelog: no link without a target
    ("### [Vite](#vite)", "Vite"),  # tiktoken-js README
    ('#### <a name="search"></a> Search', "Search"),  # npm's docs
    ("# cssesc [![Build status](https://travis-ci.org/m/c.svg)](https://travis-ci.org/m/c)", "cssesc"),
    ("# ![ws: a Node.js WebSocket library](logo.png)", "ws: a Node.js WebSocket library"),
    ("## Use <kbd>Ctrl</kbd>+<kbd>C</kbd> <!-- keys -->", "Use Ctrl+C"),
    ("## Contact <team@example.org> or <https://example.org/help>", "Contact team@example.org or https://example.org/help"),
    ("### The `<div>` and `[a](b)` syntax", "The `<div>` and `[a](b)` syntax"),  # code spans stay
    (r"## Not \[a link\](x) nor \<b\>", "Not [a link](x) nor <b>"),
    ("## a < b and c > d", "a < b and c > d"),
    ("## **Bold** and _em_ stay", "**Bold** and _em_ stay"),
    ('## <a id="x"></a>', ""),  # nothing a reader sees: an empty heading
])
def test_a_heading_title_is_what_a_reader_sees(line, title) -> None:
    text = f"{line}\n\nBody.\n"
    assert shape(text)[0] == h(line.index(" "), title, line)
    setext = f"{line.lstrip('#').strip()}\n---\n\nBody.\n"
    assert parse_blocks(setext)[0].title == title


def test_heading_paths_of_nothing() -> None:
    assert heading_paths([]) == []


# Front matter ---------------------------------------------------------------------------


def front(text: str) -> tuple[str, str] | None:
    """(the front matter's source, its title), checked to agree with parse_blocks; None when there is none."""
    found = front_matter(text)
    blocks = parse_blocks(text)
    if found is None:
        assert all(b.kind != "front_matter" for b in blocks)
        return None
    assert blocks[0] == found
    assert all(b.kind != "heading" or b.start > found.end for b in blocks)
    return text[found.start : found.end], found.title


@pytest.mark.parametrize("key", ["Last Modified: 2024-01-01", "og.image: x.png", '"key": v', "'key': v",
                                 '"a: b": c', "sidebar_position: 2", "x-robots: none", "pubDate: 2024-01-01"])
def test_yaml_front_matter_keys_may_have_spaces_dots_or_quotes(key) -> None:
    text = f"---\ntitle: Doc\n{key}\n---\n\nBody text.\n"
    assert front(text) == (f"---\ntitle: Doc\n{key}\n---", "Doc")
    assert shape(text)[1:] == [para("Body text.")]


@pytest.mark.parametrize("body", [
    'tags = [\n  "a",\n  "b",\n]',  # an array closed in column 0
    "[params]\n  draft = false\n  title = 'not the page title'",
    '[[menu.main]]\n  name = "Docs"\n  weight = 1\n[[menu.main]]\n  name = "Blog"',
    "# a comment\n\n  # an indented comment",
    'description = """\nA long\n[description]\n"""',
    "notes = '''\n= raw\n'''",
    'site.author.name = "A"\n"quoted key" = 1\nempty = {}',
    "point = { x = 1, y = 2 }\ndate = 2024-01-01T10:00:00Z",
    'title = "Again"',  # a duplicate key: tomllib refuses it, the line reader still reads it
    'x = [\n  [1, 2],\n  ["]", "["],\n]  # nested, brackets in strings',
])
def test_toml_front_matter_with_tables_arrays_comments_and_multi_line_strings(body) -> None:
    text = f'+++\ntitle = "Doc"\n{body}\n+++\n\nBody text.\n'
    assert front(text) == (f'+++\ntitle = "Doc"\n{body}\n+++', "Doc")
    assert shape(text)[1:] == [para("Body text.")]


REAL_FRONT_MATTER = {
    "jekyll": "---\nlayout: post\ntitle:  \"Welcome to Jekyll!\"\ndate:   2024-01-01 10:00:00 +0100\n"
              "categories: jekyll update\npermalink: /:categories/:year/:title/\n---",
    "hugo-yaml": "---\ntitle: 'My First Post'\ndate: 2024-01-01T08:00:00-07:00\ndraft: true\n"
                 "tags:\n  - go\n  - hugo\nresources:\n- src: \"images/*.jpg\"\n  title: \"Image #:counter\"\n---",
    "hugo-toml": "+++\ntitle = 'My First Post'\ndate = 2024-01-01T08:00:00-07:00\ndraft = true\n"
                 "tags = ['go', 'hugo']\n[params]\n  author = 'A'\n[[cascade]]\n  [cascade.params]\n"
                 "    banner = 'x.jpg'\n+++",
    "docusaurus": "---\nid: intro\ntitle: Getting started\nsidebar_label: Start\nsidebar_position: 1\n"
                  "slug: /\nhide_table_of_contents: true\nkeywords:\n  - docs\n  - docusaurus\n"
                  "image: https://example.com/x.png\n---",
    "mkdocs": "---\ntitle: Material # the page title\ndescription: >-\n  A long description\n"
              "  on two lines\nhide:\n  - navigation\n  - toc\nsearch:\n  boost: 2\n---",
    "astro": "---\nlayout: ../../layouts/Post.astro\ntitle: \"Astro: the page\"\npubDate: 2024-01-01\n"
             "author: 'Astro Learner'\nimage:\n    url: 'https://docs.astro.build/assets/x.png'\n"
             "    alt: 'The Astro logo.'\ntags: [\"astro\", \"blogging\"]\n---",
    "pandoc": "---\ntitle: |\n  A literal\n  title\nabstract: |\n  Some text: here.\n\n  # not a heading\n...",
}


@pytest.mark.parametrize(("name", "title"), [
    ("jekyll", "Welcome to Jekyll!"), ("hugo-yaml", "My First Post"), ("hugo-toml", "My First Post"),
    ("docusaurus", "Getting started"), ("mkdocs", "Material"), ("astro", "Astro: the page"),
    ("pandoc", "A literal title"),
])
def test_real_front_matter_of_site_generators(name, title) -> None:
    head = REAL_FRONT_MATTER[name]
    text = head + "\n\n## Section\n\nText.\n"
    assert front(text) == (head, title)
    assert shape(text)[1:] == [h(2, "Section", "## Section"), para("Text.")]


@pytest.mark.parametrize(("value", "title"), [
    ("Doc # note", "Doc"),
    ("'Doc # not a note' # note", "Doc # not a note"),
    ('"Doc # not a note"', "Doc # not a note"),
    ("'It''s'", "It's"),
    (r'"a \"b\""', 'a "b"'),
    (r'"caf\u00e9\tbar"', "café bar"),
    ("Doc#1", "Doc#1"),
    (">\n  A folded\n  title\n", "A folded title"),
    ("|-\n  A literal\n\n  title", "A literal title"),
    (">2 # a comment\n   Indented", "Indented"),
    ("A plain title\n  that goes on", "A plain title that goes on"),
    ("\n  On the next line", "On the next line"),
    ("'Quoted\n  over lines'", "Quoted over lines"),
    ("!!str 1984", "1984"), ("&anchor !!str Tom & Jerry", "Tom & Jerry"),
    ("1984", "1984"),  # a scalar as written, as the site generators show it
    ("[a, b]", ""), ("{a: b}", ""), ("~", ""), ("null", ""), ("", ""), ("# only a comment", ""),
    ("\n  - a\n  - b", ""), ("\n- a\n- b", ""), ("\n  en: Doc\n  fr: Doc", ""), ("*alias", ""),
])
def test_yaml_title_values(value, title) -> None:
    text = f"---\ntitle: {value}\ndraft: false\n---\nBody.\n"
    assert front(text)[1] == title


@pytest.mark.parametrize(("value", "title"), [
    ('"Doc" # c', "Doc"),
    ("'Doc # not a note'", "Doc # not a note"),
    (r'"a \"b\" \u00e9"', 'a "b" é'),
    (r"'C:\path'", r"C:\path"),
    ('"""\nA multi-line\ntitle"""', "A multi-line title"),
    ("'''x'''", "x"),
    ('"""x""" # c', "x"),
    ("['a', 'b']", ""), ("{ a = 'b' }", ""), ("1984", ""), ("true", ""),
])
def test_toml_title_values(value, title) -> None:
    text = f"+++\ntitle = {value}\n[params]\ntitle = 'not this'\n+++\nBody.\n"
    assert front(text)[1] == title
    # The line reader, used when tomllib refuses the front matter, reads the same title.
    refused = f"+++\ntitle = {value}\nkey = 1\nkey = 2\n+++\nBody.\n"
    assert front(refused)[1] == title


@pytest.mark.parametrize("text", [
    "---\n\nSome prose here.\nMore prose.\n\n---\n\nText.\n",  # a rule, prose, a rule
    "---\nSome prose: with a colon.\nAnd a second line.\n---\n",
    "---\nthis is prose: with a colon and more words\n---\n",  # no key without spaces
    "---\n- a list\n- between rules\n---\n",
    "---\n    indented code\n---\n",
    "---\n# A heading\n---\n",  # comments alone
    "---\n[link]: https://example.com\n---\n",
    "---\n> a quote: here\n---\n",
    "---\n| a: b |\n---\n",
    "---\ntitle: x\n  \n\nprose at the left margin\n---\n",
    "+++\nSome prose\n+++\n",
    "+++\ntitle = 'x'\nand prose\n+++\n",
    "---\ntitle: x\n" + "y: z\n" * 3000 + "---\n",  # closed too late
])
def test_markdown_that_opens_with_a_rule_is_not_front_matter(text) -> None:
    assert front(text) is None
    assert parse_blocks(text)[0].kind in ("rule", "paragraph", "heading", "list")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["---\n", "+++\n"]),
       st.lists(st.text(alphabet=" \t-+#:=[]{}\"'\\|>!&~.xT", max_size=12), max_size=8),
       st.sampled_from(["---", "...", "+++", ""]))
def test_property_any_front_matter_candidate_is_read_without_error(opening, lines, closing) -> None:
    text = opening + "\n".join(lines) + "\n" + closing + "\nBody.\n"
    found = front(text)
    assert_invariants(text)
    if found is not None:
        assert found[1] == " ".join(found[1].split())


def test_empty_front_matter_has_no_title() -> None:
    assert front("---\n---\nBody.") == ("---\n---", "")
    assert front("+++\n\n+++\nBody.") == ("+++\n\n+++", "")
    assert front("\ufeff---\r\ntitle: 'Doc'\r\n...\r\nBody.")[1] == "Doc"


@pytest.mark.parametrize(("text", "kinds"), [
    ('---\n"' + "\\x" * 500_000 + "\n---\n", ["rule", "heading"]),
    ("---\n'" + "''" * 500_000 + "\n---\n", ["rule", "heading"]),
    ("---\ntitle: " + " #" * 500_000 + "\n---\n", ["front_matter"]),
    ("+++\nx = [" + "[" * 500_000 + "\n+++\n", ["front_matter"]),
    ("+++\nx = " + '"\\"' * 300_000 + "\n+++\n", ["front_matter"]),
    ("---\nk" + ": x:" * 300_000 + "\n---\n", ["front_matter"]),
    ("---\ntitle: " + "!a " * 300_000 + "\n---\n", ["front_matter"]),
    ("+++\ntitle = " + "1" * 100_000 + "\n+++\n", ["front_matter"]),
])
def test_long_front_matter_lines_are_read_without_a_title(text, kinds) -> None:
    # Lines of 0.1-1 MB built to make a careless reader quadratic (an unclosed quote, runs
    # of escapes, brackets or comment marks): they take a fraction of a second here, so a
    # quadratic reader would not finish. No wall-clock limit: the result is what is asserted.
    found = front_matter(text)
    assert found is None or (found.title == "" and found.end == len(text) - 1)
    assert [block.kind for block in parse_blocks(text)] == kinds


# Real documents -------------------------------------------------------------------------

FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
ATX_LINE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


def grep_outside_fences(text: str) -> tuple[int, int]:
    """(ATX heading lines, fenced blocks) counted line by line, independently of the parser."""
    headings = fences = 0
    fence = ""
    for line in text.splitlines():
        match = FENCE_LINE.match(line)
        if fence:
            run = match.group(1) if match else ""
            if run[:1] == fence[0] and len(run) >= len(fence) and not match.group(2).strip():
                fence = ""
        elif match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            fence = match.group(1)
            fences += 1
        elif ATX_LINE.match(line):
            headings += 1
    return headings, fences


def test_fixtures_are_present() -> None:
    assert len(FIXTURES) >= 3


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_real_document_invariants_and_counts(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    blocks = assert_invariants(text)
    headings, fences = grep_outside_fences(text)
    assert sum(b.kind == "heading" for b in blocks) == headings
    assert sum(b.kind == "code" for b in blocks) == fences
    for block in blocks:
        if block.kind == "heading":
            assert "\n" not in text[block.start : block.end]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_real_document_line_endings_do_not_change_structure(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    blocks = parse_blocks(text)
    assert parse_blocks(text.replace("\n", "\r")) == blocks
    crlf = "\ufeff" + text.replace("\n", "\r\n")
    assert_invariants(crlf)
    assert shape(crlf) == [(k, s.replace("\n", "\r\n"), lv, t) for k, s, lv, t in shape(text)]


def test_real_document_golden_structure() -> None:
    text = next(p for p in FIXTURES if p.name == "playwright-cli-tracing.md").read_text(encoding="utf-8")
    blocks = parse_blocks(text)
    # First letter of each block's kind, checked by reading the document.
    assert "".join(b.kind[0] for b in blocks) == "hphchphplhplhplhthhchchchthhchpchl"
    assert [(b.level, b.title) for b in blocks if b.kind == "heading"] == [
        (1, "Tracing"),
        (2, "Basic Usage"),
        (2, "Trace Output Files"),
        (3, "`trace-{timestamp}.trace`"),
        (3, "`trace-{timestamp}.network`"),
        (3, "`resources/`"),
        (2, "What Traces Capture"),
        (2, "Use Cases"),
        (3, "Debugging Failed Actions"),
        (3, "Analyzing Performance"),
        (3, "Capturing Evidence"),
        (2, "Trace vs Video vs Screenshot"),
        (2, "Best Practices"),
        (3, "1. Start Tracing Before the Problem"),
        (3, "2. Clean Up Old Traces"),
        (2, "Limitations"),
    ]
    assert heading_paths(blocks)[-1] == ("Tracing", "Limitations")


# Properties over generated Markdown-ish text --------------------------------------------

SIGNIFICANT = "#*-_=+>|`~<!/:.()[]\\ \t"
# Non-ASCII letters, and Unicode spaces that str.strip removes but Markdown never reads as indentation.
ODD = ["é", "ß", "中", "😀", "\u00a0", "\u3000", "\u2028", "\x0c"]
CHARS = st.sampled_from(list("abcXYZ09" + SIGNIFICANT) + ODD)
WORDS = st.text(CHARS, max_size=12)
PLAIN = st.text(st.sampled_from(list("abc xyz,;!?éß中😀")), min_size=1, max_size=20).map(str.strip).filter(bool)
INDENT = st.sampled_from(["", " ", "  ", "   ", "    ", "\t"])

atx_lines = st.builds(
    lambda ind, n, sep, title, close: [f"{ind}{'#' * n}{sep}{title}{close}"],
    INDENT,
    st.integers(1, 8),
    st.sampled_from(["", " ", "\t", "  "]),
    WORDS,
    st.sampled_from(["", " #", " ###", "#"]),
)
setext_lines = st.builds(lambda title, char, n: [title, char * n], PLAIN, st.sampled_from("=-"), st.integers(1, 6))
fence_lines = st.builds(
    lambda ind, char, n, info, body, close: [f"{ind}{char * n}{info}", *body, *close],
    INDENT,
    st.sampled_from("`~"),
    st.integers(2, 5),
    WORDS,
    st.lists(st.one_of(WORDS, st.just("# inside"), st.just(""), st.just("```"), st.just("~~~~")), max_size=5),
    st.sampled_from([[], ["```"], ["~~~"], ["`````"], ["  ~~~~~ "]]),
)


def _list_block(items: list[tuple[int, str, str, bool]]) -> list[str]:
    lines = []
    for depth, marker, content, blank in items:
        lines.append(f"{'  ' * depth}{marker} {content}".rstrip(" "))
        if blank:
            lines.append("")
    return lines


list_lines = st.lists(
    st.tuples(st.integers(0, 6), st.sampled_from(["-", "*", "+", "1.", "2)", "10."]), WORDS, st.booleans()),
    min_size=1,
    max_size=6,
).map(_list_block)
table_lines = st.builds(
    lambda cols, delim_cols, rows: [
        "| " + " | ".join("h" * (i + 1) for i in range(cols)) + " |",
        "|" + "|".join([":--", "---", "-:"][i % 3] for i in range(delim_cols)) + "|",
        *rows,
    ],
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.builds(lambda w: f"| {w} | x |", WORDS), max_size=3),
)
quote_lines = st.lists(
    st.builds(lambda ind, w: f"{ind}> {w}", st.sampled_from(["", "  "]), WORDS), min_size=1, max_size=3
)
html_lines = st.lists(st.sampled_from(["<div>", "</div>", "<!--", "-->", "<pre>", "</pre>", "<x-y a='1'>"]), max_size=2)
rule_lines = st.sampled_from([["***"], ["- - -"], ["___"], ["---"]])
blank_lines = st.lists(st.sampled_from(["", " ", "\t", "  \t"]), min_size=1, max_size=2)
junk_lines = st.lists(WORDS, min_size=1, max_size=3)
PIECES = st.one_of(
    atx_lines, setext_lines, fence_lines, list_lines, table_lines, quote_lines, html_lines,
    rule_lines, blank_lines, junk_lines, st.lists(PLAIN, min_size=1, max_size=3),
)
MARKDOWN_LF = st.lists(PIECES, max_size=14).map(lambda pieces: "\n".join(line for piece in pieces for line in piece))


@st.composite
def markdown_texts(draw: st.DrawFn) -> str:
    """Markdown-ish text with any line endings, maybe a BOM, maybe a final line break."""
    lines = draw(MARKDOWN_LF).split("\n")
    endings = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, endings))
    if not draw(st.booleans()):
        text = text[: -len(endings[-1])]
    return ("\ufeff" if draw(st.booleans()) else "") + text


@settings(max_examples=300, deadline=None)
@given(markdown_texts())
def test_property_invariants(text: str) -> None:
    assert_invariants(text)


@settings(max_examples=150, deadline=None)
@given(MARKDOWN_LF)
def test_property_line_endings_and_bom_do_not_change_structure(text: str) -> None:
    blocks = parse_blocks(text)
    assert parse_blocks(text.replace("\n", "\r")) == blocks
    assert parse_blocks("\ufeff" + text) == [
        Block(b.kind, b.start + 1, b.end + 1, b.level, b.title) for b in blocks
    ]
    crlf = text.replace("\n", "\r\n")
    assert shape(crlf) == [(k, s.replace("\n", "\r\n"), lv, t) for k, s, lv, t in shape(text)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.builds(str.__add__, st.sampled_from(["", " ", "   "]), PLAIN), min_size=1, max_size=4)))
def test_property_plain_text_is_paragraphs_at_blank_lines(paragraphs: list[list[str]]) -> None:
    text = "\n\n".join("\n".join(lines) for lines in paragraphs)
    assert shape(text) == [para("\n".join(lines).strip()) for lines in paragraphs]


def _closes(line: str, char: str, length: int) -> bool:
    body = line.lstrip(" ")
    run = len(body) - len(body.lstrip(char))
    return len(line) - len(body) <= 3 and run >= length and not body.lstrip(char).strip()


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from("`~"),
    st.integers(3, 6),
    st.lists(st.one_of(WORDS, st.builds(lambda n, w: "#" * n + " " + w, st.integers(1, 6), WORDS)), max_size=8),
)
def test_property_fence_content_is_never_a_heading(char: str, length: int, body: list[str]) -> None:
    body = [line for line in body if not _closes(line, char, length)]
    fenced = "\n".join([char * length + "info", *body, char * length])
    text = f"# Before\n\n{fenced}\n\n## After"
    assert shape(text) == [h(1, "Before", "# Before"), code(fenced), h(2, "After", "## After")]


# Pathological inputs: linear time, asserted by finishing ---------------------------------


def test_hundred_thousand_headings() -> None:
    text = "".join(f"{'#' * (i % 6 + 1)} H{i}\n" for i in range(100_000))
    blocks = parse_blocks(text)
    assert len(blocks) == 100_000
    assert all(b.kind == "heading" for b in blocks)
    assert (blocks[-1].level, blocks[-1].title) == (99_999 % 6 + 1, "H99999")
    assert heading_paths(blocks)[-1] == ("H99996", "H99997", "H99998", "H99999")


def test_five_megabyte_single_line() -> None:
    text = "word | " * 750_000
    assert parse_blocks(text) == [Block("paragraph", 0, len(text.rstrip()))]


def test_ten_thousand_nested_list_items() -> None:
    text = "".join("  " * (i % 300) + f"- item {i}\n" for i in range(10_000))
    blocks = parse_blocks(text)
    assert [(b.kind, b.start, b.end) for b in blocks] == [("list", 0, len(text) - 1)]
    items = list_items(text, blocks[0])
    assert len(items) == 34
    deep = "- " * 10_000 + "x"
    assert shape(deep) == [lst(deep)]


def test_megabyte_of_backticks_and_hashes() -> None:
    ticks = "`" * 1_000_000
    assert shape(ticks) == [code(ticks)]
    hashes = "#" * 1_000_000
    assert shape(hashes) == [para(hashes)]
    hash_lines = "#\n" * 200_000
    assert len(parse_blocks(hash_lines)) == 200_000


def test_many_unclosed_and_nested_constructs() -> None:
    fences = "".join(f"{'`' * (3 + i % 4)}\n# x\n" for i in range(20_000))
    assert_invariants(fences)
    quotes = ">" * 1_000_000 + " x"
    assert shape(quotes) == [quote(quotes)]
    spaces = " " * 2_000_000 + "x"
    assert shape(spaces) == [code("x")]
    lazy = "- a\n" + "b\n" * 200_000
    assert [b.kind for b in parse_blocks(lazy)] == ["list"]
    rows = "a|b\n-|-\n" + "x|y\n" * 200_000
    assert [b.kind for b in parse_blocks(rows)] == ["table"]


@pytest.mark.parametrize(("text", "nested"), [
    ("- a\n  - b\n  - c", [["- b", "- c"]]),
    ("1. one\n   1. one.a\n   2. one.b\n\n   After.", [["1. one.a", "2. one.b"]]),  # content at column 3
    ("- a\n\n  text\n\n  * b\n    - b.1\n  * c", [["* b\n    - b.1", "* c"]]),  # only the next level down
    ("- a\n  ```\n  - not an item\n  ```", []),  # a fence inside the item
    ("- a\n  text\n- b", []),
    ("- a\n\t- b", []),  # a tab: not read
    ("- a\nlazy line\n  - b", []),  # a lazy continuation line: not read
    ("- - a\n  - b", []),  # a list on the first line
])
def test_item_lists(text, nested) -> None:
    block = parse_blocks(text)[0]
    start, end = list_items(text, block)[0]
    assert [[text[s:e] for s, e in items] for items in item_lists(text, start, end)] == nested


def test_item_lists_of_a_deep_item() -> None:
    text = "- top\n  - mid one\n    - deep one\n    - deep two\n  - mid two"
    block = parse_blocks(text)[0]
    top = list_items(text, block)[0]
    mids = item_lists(text, *top)[0]
    assert [text[s:e] for s, e in mids] == ["- mid one\n    - deep one\n    - deep two", "- mid two"]
    assert [[text[s:e] for s, e in items] for items in item_lists(text, *mids[0])] == [["- deep one", "- deep two"]]
