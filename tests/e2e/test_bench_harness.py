"""The browser benchmark's worker (bench/harness/) against the site as built: a benchmark
that no longer runs is found by the suite, not by the next person who measures. Its
answers are checked against the library; nothing is timed here."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from buildsteps.serve import make_server
from conftest import BOOT_TIMEOUT_MS
from ragchunk import get_tokenizer, split

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_worker_counts_and_splits_as_the_library_does(browser, dist, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(dist, site)
    for harness in (ROOT / "bench" / "harness").iterdir():
        shutil.copy(harness, site / harness.name)
    server = make_server(site, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests" / "data" / "md").glob("*.md")))
    try:
        context = browser.new_context(base_url=f"http://127.0.0.1:{server.server_address[1]}/", service_workers="block")
        page = context.new_page()
        page.goto("./bench.html")
        page.wait_for_function("() => window.benchReady", timeout=BOOT_TIMEOUT_MS)
        assert page.evaluate("() => call('boot')")["ok"]
        counted = page.evaluate("(text) => call('throughput', {text, runs: 2})", text)
        split_reply = page.evaluate("(text) => call('split', {text, runs: 2})", text)
        context.close()
    finally:
        server.shutdown()
        server.server_close()
    assert counted["ok"], counted
    assert counted["result"]["tokens"] == get_tokenizer("cl100k_base").count(text)
    assert counted["result"]["same"] is True, "the Python path counts what the WASM encoder counts"
    assert split_reply["ok"], split_reply
    expected = split(text, by="headings", size=512, overlap=64, tokenizer="cl100k_base")
    assert split_reply["result"]["chunks"] == len(expected.chunks)
