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


def test_splitting_10_mb_reports_progress_and_finishes(page):
    splitter = SplitterPage(page).open()
    page.evaluate(WATCH_STATUS)
    splitter.choose_file("big.md", TEN_MB.encode("utf-8"))
    seen = percents(page)
    assert len(set(seen)) >= 3, f"progress steps seen: {seen}"
    assert seen == sorted(seen)
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
    page.wait_for_function("() => statuses.some(s => / %/.test(s))", timeout=60_000)
    page.keyboard.press("Escape")
    page.wait_for_selector("#text-status:has-text('Cancelled')")
    assert not page.is_visible("#split-results")
    page.wait_for_selector('#core-status[data-state="ready"]', timeout=60_000)
    splitter.choose_file("small.md", DOC.encode("utf-8"))
    assert splitter.stat("chunks") == f"{len(split(DOC, by='headings', size=512, overlap=64).chunks):,}"


# Every main-thread task over 50 ms from now on (the browser's long-task observer); `buffered`
# also delivers a task that was already running when the observer was registered.
LONG_TASKS = """() => {
    window.longTasks = [];
    window.longTaskMark = performance.now();
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) longTasks.push({start: e.startTime, duration: e.duration});
    }).observe({type: 'longtask', buffered: true});
}"""
DROP_BIG_FILE = """() => {
    const transfer = new DataTransfer();
    transfer.items.add(window.bigFile);
    document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
}"""
# Two frames after the result: a task that ended with it has been reported by then.
SETTLE = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))"


def test_splitting_10_mb_never_blocks_the_page_for_100_ms(page):
    splitter = SplitterPage(page).open()
    # The file is made in the page first: handing 10 MB to the page through Playwright is
    # the test's own work on the main thread, not the page's.
    page.evaluate("text => { window.bigFile = new File([text], 'big.md', {type: 'text/markdown'}); }", TEN_MB)
    page.evaluate(SETTLE)
    page.evaluate(LONG_TASKS)
    splitter.after_request(lambda: page.evaluate(DROP_BIG_FILE))
    page.evaluate(SETTLE)
    page.mouse.wheel(0, 3000)  # scrolling the result is part of it
    page.evaluate(SETTLE)
    tasks = page.evaluate("() => longTasks.filter(t => t.start >= longTaskMark)")
    longest = max((t["duration"] for t in tasks), default=0)
    print(f"longest main-thread task during a 10 MB split: {longest:.0f} ms ({len(tasks)} over 50 ms)")
    assert longest <= 100, tasks
    assert splitter.stat("chunks") == f"{len(split(TEN_MB, by='headings', size=512, overlap=64).chunks):,}"
