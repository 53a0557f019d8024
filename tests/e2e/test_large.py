"""A 10 MB document in the splitter: progress while it works, cancel, and recovery."""

from __future__ import annotations

import re
from pathlib import Path

from pages import SplitterPage
from ragchunk import split

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
