"""A 10 MB document in both tools: progress while it works, cancel, and recovery."""

from __future__ import annotations

import re
from pathlib import Path

from pages import CalculatorPage, SplitterPage
from ragchunk import get_tokenizer, split

DOC = (Path(__file__).resolve().parents[2] / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
TEN_MB = (DOC * (10_000_000 // len(DOC.encode("utf-8")) + 1)).encode("utf-8")[:10_000_000].decode("utf-8", "ignore")
PERCENT = re.compile(r"(\d+) %")

WATCH_STATUS = """() => {
    window.statuses = [];
    new MutationObserver(() => statuses.push(document.querySelector('#text-status').textContent))
        .observe(document.querySelector('#text-status'), {childList: true, characterData: true, subtree: true});
}"""


def percents(page) -> list[int]:
    return [int(m.group(1)) for s in page.evaluate("() => statuses") for m in [PERCENT.search(s)] if m]


def stages(page) -> dict[str, list[int]]:
    """The percents seen, by stage ("Tokenizing…", "Splitting…"), in the order they came."""
    seen: dict[str, list[int]] = {}
    for status in page.evaluate("() => statuses"):
        if match := PERCENT.search(status):
            seen.setdefault(status[: match.start()].strip(), []).append(int(match.group(1)))
    return seen


def test_splitting_10_mb_reports_progress_and_finishes(page):
    splitter = SplitterPage(page).open()
    page.evaluate(WATCH_STATUS)
    splitter.choose_file("big.md", TEN_MB.encode("utf-8"))
    seen = stages(page)
    assert len(seen) >= 2, f"each stage says how far it is: {seen}"
    for stage, steps in seen.items():
        assert len(set(steps)) >= 3 and steps == sorted(steps), f"{stage} {steps}"
    expected = split(TEN_MB, by="headings", size=512, overlap=64)
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"


def test_counting_10_mb_reports_progress_and_the_exact_count(page):
    calculator = CalculatorPage(page).open()
    page.evaluate(WATCH_STATUS)
    calculator.choose_file("big.md", TEN_MB.encode("utf-8"))
    statuses = page.evaluate("() => statuses")
    seen = percents(page)
    assert any(s.startswith("Tokenizing") and PERCENT.search(s) for s in statuses), statuses
    assert len(set(seen)) >= 3 and seen == sorted(seen), f"progress steps seen: {seen}"
    assert calculator.token_count() == len(get_tokenizer("cl100k_base").encode(TEN_MB))


def test_a_10_mb_split_can_be_cancelled(page):
    splitter = SplitterPage(page).open()
    page.evaluate(WATCH_STATUS)
    page.set_input_files("#file", files=[{"name": "big.md", "mimeType": "text/markdown", "buffer": TEN_MB.encode()}])
    page.wait_for_function("() => statuses.some(s => / %/.test(s))")
    page.keyboard.press("Escape")
    page.wait_for_selector("#text-status:has-text('Cancelled')")
    assert not page.is_visible("#split-results")
    page.wait_for_selector('#core-status[data-state="ready"]')
    splitter.choose_file("small.md", DOC.encode("utf-8"))
    assert splitter.stat("chunks") == f"{len(split(DOC, by='headings', size=512, overlap=64).chunks):,}"


# What the worker sends the page, message by message: the size of each as JSON. Installed
# before the page's scripts run, so the page's own worker is the one counted.
COUNT_WORKER_MESSAGES = """
    window.workerMessages = [];
    const Original = window.Worker;
    window.Worker = class extends Original {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (event) => {
                let size = -1;
                try { size = JSON.stringify(event.data).length; } catch (error) {}
                window.workerMessages.push(size);
            });
        }
    };
"""
DROP_BIG_FILE = """() => {
    const transfer = new DataTransfer();
    transfer.items.add(window.bigFile);
    document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
}"""


def test_a_10_mb_split_reaches_the_page_in_pages(page):
    """The main thread never holds the whole result: the worker sends at most one page of
    chunks per message (a few hundred KB for a 10 MB document), and the list shows one page
    of cards in view. How long the page's longest task is, is measured by bench/bench_browser.py."""
    page.add_init_script(COUNT_WORKER_MESSAGES)
    splitter = SplitterPage(page).open()
    page.evaluate("text => { window.bigFile = new File([text], 'big.md', {type: 'text/markdown'}); }", TEN_MB)
    splitter.after_request(lambda: page.evaluate(DROP_BIG_FILE))
    expected = split(TEN_MB, by="headings", size=512, overlap=64)
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    sizes = page.evaluate("() => workerMessages")
    assert len(sizes) > 10 and min(sizes) >= 0, "every message was counted"
    cards = page.evaluate("() => document.querySelectorAll('#chunk-list .chunk-card').length")
    assert 0 < cards < len(expected.chunks) / 10
    one_page = sum(len(c.text) for c in expected.chunks[:200])  # the page's PAGE_SIZE
    assert max(sizes) < 3 * one_page + 200_000, (max(sizes), one_page)
    assert max(sizes) < len(TEN_MB) / 10
    # Scrolling to the far end of the list fetches that page, and no more than a page.
    before = len(sizes)
    page.evaluate("() => { const list = document.querySelector('#chunk-list'); list.scrollTop = list.scrollHeight; }")
    last = expected.chunks[-1].text.strip().splitlines()[-1][:40]
    page.wait_for_function("(last) => document.querySelector('#chunk-list').textContent.includes(last)", arg=last)
    sizes = page.evaluate("() => workerMessages")
    assert len(sizes) > before and max(sizes[before:]) < 3 * one_page + 200_000
