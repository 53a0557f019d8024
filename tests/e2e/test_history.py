"""Back and forward: the browser puts the text box back (and the URL its settings); the
result follows, counted or split again for that text at those settings."""

from __future__ import annotations

from pages import CalculatorPage, SplitterPage
from ragchunk import get_tokenizer, split

TEXT = "# Notes\n\nBack and forward keep the text. The result comes back with it.\n\n## More\n\nA second section."


def test_back_to_the_calculator_counts_the_text_the_box_shows_again(page):
    calc = CalculatorPage(page).open()
    calc.paste(TEXT)
    page.fill("#chunk_size", "8")
    page.fill("#overlap", "2")
    page.wait_for_function("() => document.querySelectorAll('#windows li').length > 1")
    SplitterPage(page).open()
    page.go_back()
    calc.wait_ready()
    page.wait_for_function("() => Number(document.querySelector('#drop').dataset.analyses ?? 0) > 0")
    tokens = get_tokenizer("cl100k_base").count(TEXT)
    assert page.input_value("#text") == TEXT
    assert calc.text_status() == f"{tokens} tokens, {len(TEXT)} characters."
    assert calc.token_count() == tokens
    assert [w["tokens"] for w in calc.windows()][:2] == [8, 8]
    assert page.input_value("#doc") == str(tokens)


def test_back_to_the_splitter_splits_the_text_the_box_shows_again(page):
    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", TEXT))
    splitter.set("chunk_size", "12")
    splitter.set("overlap", "0")
    CalculatorPage(page).open()
    page.go_back()
    splitter.wait_ready()
    page.wait_for_function("() => Number(document.querySelector('#drop').dataset.analyses ?? 0) > 0")
    expected = split(TEXT, by="headings", size=12, overlap=0)
    assert page.input_value("#text") == TEXT
    assert page.inner_text("#text-status") == f"{len(expected.chunks)} chunks from {len(TEXT)} characters."
    assert [card["text"] for card in splitter.cards()] == [c.text for c in expected.chunks]
