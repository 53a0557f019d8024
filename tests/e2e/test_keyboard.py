"""Both tools by keyboard alone: tab order, a visible focus ring on every stop, typing,
selects, pasting with Ctrl+V, opening details, copying, downloading, reading the chunks,
cancelling with Escape and switching the language.

Only ``page.keyboard`` acts on the page. ``evaluate`` reads what is shown, and writes the
system clipboard before a Ctrl+V (the person copied the text in another program).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pages import CalculatorPage, SplitterPage, wait_language
from ragchunk import get_tokenizer, plan, split, windows
from ragchunk.llms import get_llm
from ragchunk.results.records import to_jsonl

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
CATALOGS = {lang: json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "ru", "hi")}
LONG = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 160_000  # ~9 MB: takes seconds to tokenize

# The focus ring of an element as a person sees it: the file input is visually hidden, so
# its label (the "Choose a file…" button) shows the focus for it.
RING = """el => {
    const shown = el.id === 'file' ? document.querySelector('label[for=file]') : el;
    const s = getComputedStyle(shown);
    return {outline: s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth), color: s.outlineColor, shadow: s.boxShadow};
}"""
WHERE = """() => { const e = document.activeElement;
    return e ? `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.className ? '.' + e.className : ''} "${(e.textContent || '').trim().slice(0, 30)}"` : 'nothing'; }"""


@pytest.fixture
def clipboard(context, base_url):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))


class Keyboard:
    """Tab from stop to stop, checking that each stop is the expected one and shows its focus."""

    def __init__(self, page):
        self.page = page

    def where(self) -> str:
        return self.page.evaluate(WHERE)

    def tab(self, selector: str, back: bool = False) -> None:
        page = self.page
        unfocused = page.eval_on_selector(selector, RING)
        page.keyboard.press("Shift+Tab" if back else "Tab")
        assert page.evaluate("s => document.activeElement === document.querySelector(s)", selector), (
            f"expected the focus on {selector}, it is on {self.where()}"
        )
        focused = page.eval_on_selector(selector, RING)
        assert focused != unfocused, f"{selector} shows no focus ring"
        assert focused["outline"] >= 2 or focused["shadow"] != "none", f"{selector}: focus ring too thin: {focused}"

    def walk(self, *selectors: str) -> None:
        for selector in selectors:
            self.tab(selector)

    def retype(self, text: str) -> None:
        self.page.keyboard.press("Control+A")
        self.page.keyboard.type(text)

    def paste(self, text: str) -> None:
        self.page.evaluate("text => navigator.clipboard.writeText(text)", text)
        self.page.keyboard.press("Control+V")


HEADER = ("a.brand", "header nav a:nth-of-type(1)", "header nav a:nth-of-type(2)", "header nav a:nth-of-type(3)",
          "header nav a:nth-of-type(4)", "#lang")
CALC_FORM = ("#doc", 'input[name="unit"][value="tokens"]', "#documents", "#chunk_size", "#overlap", "#model", "#price")
SPLIT_FORM = ("#by", "#chunk_size", "#overlap", "#sizer", "#context", "#siblings")


def test_calculator_by_keyboard(page, clipboard):
    calc = CalculatorPage(page).open()
    keys = Keyboard(page)
    keys.walk(*HEADER, "#doc")
    keys.retype("20000")
    keys.tab('input[name="unit"][value="tokens"]')
    page.keyboard.press("ArrowRight")
    assert page.is_checked('input[name="unit"][value="chars"]')
    assert page.is_visible("#chars_per_token"), "characters ask for a ratio"
    page.keyboard.press("ArrowLeft")
    assert page.is_checked('input[name="unit"][value="tokens"]') and not page.is_visible("#chars_per_token")
    keys.tab("#documents")
    keys.tab("#chunk_size")
    keys.retype("200")
    keys.tab("#overlap")
    keys.retype("20")
    keys.tab("#model")
    keys.tab("#price")
    keys.retype("0.02")
    expected = plan(20_000, 200, 20, price_per_million=0.02)
    page.wait_for_function("n => document.querySelector('#r-chunks').textContent === n", arg=f"{expected.chunks:,}")
    assert calc.result("total") == f"{expected.total_tokens:,}"

    keys.tab("#plan-link")
    assert "planner.html?size=200" in page.get_attribute("#plan-link", "href")
    keys.tab("#results summary")
    page.keyboard.press("Enter")
    assert page.is_visible("#python-snippet")
    assert "ragchunk.plan(doc_tokens, 200, 20, price_per_million=0.02)" in page.inner_text("#python-snippet")
    keys.tab("#copy-python")
    page.keyboard.press("Space")
    page.wait_for_selector("#copy-status:has-text('Copied.')")
    assert page.evaluate("navigator.clipboard.readText()") == page.text_content("#python-snippet")

    keys.tab("#encoding")
    page.keyboard.press("ArrowDown")
    assert page.eval_on_selector("#encoding", "s => s.selectedOptions[0].textContent").startswith("o200k_base")
    keys.tab("#text")
    calc.after_request(lambda: keys.paste(DOC))
    tokens = get_tokenizer("o200k_base").count(DOC)
    page.wait_for_function("want => document.querySelector('#text-status').textContent.includes(want)",
                           arg=f"{tokens:,} tokens")
    assert calc.token_count() == tokens
    assert page.input_value("#doc") == str(tokens), "the exact count fills in the document length"
    page.wait_for_function("n => document.querySelector('#r-chunks').textContent === n", arg=f"{plan(tokens, 200, 20).chunks:,}")

    keys.tab("#file")
    keys.tab("#folder")
    # The preview windows: each one takes the focus, and the arrow keys scroll a long one.
    expected_windows = windows(DOC, 200, 20, get_tokenizer("o200k_base"))
    assert len(expected_windows) > 10
    keys.tab('#windows li[data-index="0"]')
    first = page.locator('#windows li[data-index="0"]')
    assert first.evaluate("el => el.scrollHeight > el.clientHeight"), "a 200-token window overflows its box"
    page.keyboard.press("ArrowDown")
    page.wait_for_function("() => document.querySelector('#windows li').scrollTop > 0")
    assert first.evaluate("el => el.contains(document.activeElement)")
    for index in range(1, 5):
        keys.tab(f'#windows li[data-index="{index}"]')
    keys.tab("#more")
    page.keyboard.press("Enter")
    page.wait_for_selector('#windows li[data-index="9"]')
    assert [w["text"] for w in calc.windows()] == [w.text for w in expected_windows[:10]]
    # The focus moves on to the first new window, then on through the next ones.
    page.wait_for_function("() => document.activeElement.dataset.index === '5'")
    for index in range(6, 10):
        keys.tab(f'#windows li[data-index="{index}"]')
    keys.tab("#more")
    for n in range(1, 6):
        keys.tab(f".faq details:nth-of-type({n}) summary")
    page.keyboard.press("Enter")
    assert page.is_visible(".faq details:nth-of-type(5) p"), "Enter opens a question"
    keys.tab("#offline-download")


def test_calculator_escape_cancels_and_the_language_switches(page, clipboard):
    calc = CalculatorPage(page).open()
    keys = Keyboard(page)
    keys.walk(*HEADER, *CALC_FORM, "#plan-link", "#results summary", "#encoding", "#text")
    keys.paste(LONG)
    page.wait_for_selector("#cancel:visible")
    page.keyboard.press("Escape")
    page.wait_for_selector("#text-status:has-text('Cancelled')")
    assert not page.is_visible("#text-stats") and not page.is_visible("#cancel")
    calc.wait_ready()
    calc.after_request(lambda: keys.paste("Typed by keyboard after a cancel."))
    assert calc.token_count() == get_tokenizer().count("Typed by keyboard after a cancel.")

    for selector in ("#encoding", "#results summary", "#plan-link", "#price", "#model", "#overlap", "#chunk_size", "#documents",
                     'input[name="unit"][value="tokens"]', "#doc", "#lang"):
        keys.tab(selector, back=True)
    page.keyboard.press("ArrowDown")
    wait_language(page, "ru")
    assert page.inner_text("h1") == CATALOGS["ru"]["calc.h1"]
    assert page.inner_text("#results-title") == CATALOGS["ru"]["calc.results_title"]
    assert page.evaluate("document.activeElement.id") == "lang", "the focus stays on the switcher"


def test_splitter_by_keyboard(page, clipboard, tmp_path):
    splitter = SplitterPage(page).open()
    keys = Keyboard(page)
    keys.walk(*HEADER, "#by")
    page.keyboard.press("ArrowDown")
    assert page.input_value("#by") == "paragraphs"
    keys.tab("#chunk_size")
    keys.retype("128")
    keys.tab("#overlap")
    keys.retype("16")
    keys.tab("#sizer")
    keys.tab("#context")
    keys.tab("#siblings")
    keys.tab("#plan-link")
    keys.tab("#text")
    splitter.after_request(lambda: keys.paste(DOC))
    expected = split(DOC, by="paragraphs", size=128, overlap=16)
    assert len(expected.chunks) > 16
    # A re-split for the settings typed just before may still finish after the paste's.
    page.wait_for_function("want => document.querySelector('#text-status').textContent.includes(want)",
                           arg=f"{len(expected.chunks):,} chunks")
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"

    keys.tab("#file")
    keys.tab("#folder")
    keys.tab("#download")
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    saved = tmp_path / "chunks.jsonl"
    info.value.save_as(saved)
    assert info.value.suggested_filename == "document.chunks.jsonl"
    assert saved.read_text(encoding="utf-8") == to_jsonl(expected)

    keys.tab("#download-langchain")
    keys.tab("#split-results summary")
    keys.tab("#compare summary")
    # The chunk list: every card is a tab stop in chunk order; Page Down / Page Up move
    # between cards, rendering the ones out of view.
    keys.tab('.chunk-card[data-id="0"]')
    rendered = page.eval_on_selector_all(".chunk-card", "cards => cards.map(c => Number(c.dataset.id))")
    assert max(rendered) < 14, f"only the cards near the view are in the page: {rendered}"
    for _ in range(14):
        page.keyboard.press("PageDown")
    card = page.locator('.chunk-card[data-id="14"]')
    assert card.evaluate("el => el === document.activeElement")
    assert card.locator(".meta").inner_text().startswith(f"#15 · {expected.chunks[14].tokens:,} tokens")
    assert card.locator(".window-text").text_content() == expected.chunks[14].text
    inside = page.evaluate("""() => {
        const list = document.querySelector('#chunk-list').getBoundingClientRect();
        const card = document.activeElement.getBoundingClientRect();
        return card.top >= list.top && card.bottom <= list.bottom;
    }""")
    assert inside, "the focused card is scrolled into view"
    page.keyboard.press("PageUp")
    page.keyboard.press("PageUp")
    assert page.evaluate("document.activeElement.dataset.id") == "12"
    keys.tab('.chunk-card[data-id="13"]')
    keys.tab('.chunk-card[data-id="12"]', back=True)
    # Control+End / Control+Home leave the list: to the first tab stop after it, the last before it.
    page.keyboard.press("Control+End")
    assert keys.where().startswith("a#offline-download"), keys.where()
    page.keyboard.press("Shift+Tab")  # back into the list: its last card in the page
    assert page.evaluate("document.activeElement.classList.contains('chunk-card')"), keys.where()
    page.keyboard.press("Control+Home")
    before = page.evaluate("""() => {
        const list = document.querySelector('#chunk-list'), e = document.activeElement;
        return !list.contains(e) && !!(list.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING);
    }""")
    assert before, keys.where()
    assert keys.where().startswith("summary"), keys.where()  # the closed "code" details' summary


def test_splitter_escape_cancels_and_the_language_switches(page, clipboard):
    splitter = SplitterPage(page).open()
    keys = Keyboard(page)
    keys.walk(*HEADER, *SPLIT_FORM, "#plan-link", "#text")
    page.evaluate("""() => { window.statuses = [];
        new MutationObserver(() => statuses.push(document.querySelector('#text-status').textContent))
            .observe(document.querySelector('#text-status'), {childList: true, characterData: true, subtree: true}); }""")
    keys.paste(LONG)
    page.wait_for_function("() => statuses.some(s => / %/.test(s))")
    page.keyboard.press("Escape")
    page.wait_for_selector("#text-status:has-text('Cancelled')")
    assert not page.is_visible("#split-results")
    splitter.wait_ready()
    splitter.after_request(lambda: keys.paste(DOC))
    assert splitter.stat("chunks") == f"{len(split(DOC, by='headings', size=512, overlap=64).chunks):,}"

    for selector in ("#plan-link", "#siblings", "#context", "#sizer", "#overlap", "#chunk_size", "#by", "#lang"):
        keys.tab(selector, back=True)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    wait_language(page, "hi")
    assert page.inner_text("h1") == CATALOGS["hi"]["split.h1"]
    assert page.inner_text("#list-title") == CATALOGS["hi"]["split.list_title"]


PLAN_FORM = ("#llm", "#window", "#system", "#system-text", "#tools", "#tools-text", "#turns", "#turn_tokens", "#history-text",
             "#question", "#question-text", "#k", "#chunk_size", "#template", "#source", "#answer", "#input_price",
             "#output_price")


def test_planner_by_keyboard(page, clipboard):
    page.goto("planner.html")
    page.wait_for_selector('#plan-results[data-source="core"]')
    keys = Keyboard(page)
    keys.walk(*HEADER, "#llm")
    page.keyboard.press("ArrowDown")  # the next LLM of the list
    chosen = page.input_value("#llm")
    assert chosen != "gpt-4.1"
    # The window beside the LLM follows it (nobody typed one).
    assert page.input_value("#window") == str(get_llm(chosen).window)
    keys.walk(*PLAN_FORM[1:4])
    keys.paste("Answer from the sources.")
    page.wait_for_selector("#system-count:has-text('counted exactly')")
    assert page.is_disabled("#system"), "the pasted prompt is the part: its count takes no typing"
    keys.walk("#tools", "#tools-text", "#turns", "#turn_tokens", "#history-text", "#question", "#question-text", "#k")
    keys.retype("8")
    keys.walk(*PLAN_FORM[PLAN_FORM.index("#chunk_size"):], "#parts-wrap", "#plan-results summary")
    page.keyboard.press("Enter")
    page.wait_for_selector("#plan-results[data-source=core]")
    assert "k=8" in page.text_content("#python-snippet") and f'"{chosen}"' in page.text_content("#python-snippet")
    assert page.is_visible("#python-snippet")
