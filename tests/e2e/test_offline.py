"""After one visit the site works with the server stopped (service worker precache)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import own_server
from pages import CalculatorPage, SplitterPage
from ragchunk import get_model, get_tokenizer, split, to_jsonl
from ragchunk.results.records import Document

DOC = (Path(__file__).resolve().parents[2] / "tests" / "data" / "md" / "tiktoken-js-README.md").read_text(encoding="utf-8")


def test_both_tools_work_offline_after_one_visit(browser, dist, watch):
    with own_server(dist) as (server, base_url):
        context = browser.new_context(base_url=base_url)
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            page.on("request", lambda r: watch.foreign.append(r.url) if not r.url.startswith((base_url, "blob:", "data:")) else None)
            calc = CalculatorPage(page).open()
            page.wait_for_selector('#offline-status[data-state="ready"]')
            assert "Ready to work offline" in page.inner_text("#offline-status")
            server.shutdown()
            server.server_close()

            page.reload()
            calc.wait_ready()
            assert calc.result("chunks") == "23"
            text = "Offline tokenization still counts exactly: Привет, नमस्ते, 你好. " * 20
            calc.paste(text)
            assert calc.token_count() == get_tokenizer().count(text)

            splitter = SplitterPage(page).open()
            splitter.choose_file("README.md", DOC.encode("utf-8"))
            expected = split(DOC, by="headings", size=512, overlap=64)
            assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
            assert splitter.cards()[0]["text"] == expected.chunks[0].text
            with page.expect_download() as info:
                page.click("#download")
            saved = info.value.path()
            assert saved is not None and Path(saved).read_text(encoding="utf-8") == to_jsonl(expected, Document("README.md", DOC))

            # Every tokenizer works offline, not only the one the first visit used: before, another
            # encoding or a model's tables was "Internal error: Failed to fetch" here.
            for model_id in ("bge-small-en-v1.5", "multilingual-e5-small"):
                splitter.select("sizer", f"model:{model_id}")
                model = get_model(model_id)
                expected = split(DOC, model=model_id)
                assert splitter.errors() == {}, model_id
                assert splitter.stat("chunks") == f"{len(expected.chunks):,}", model_id
                assert splitter.cards()[0]["text"] == expected.chunks[0].text, model.tokenizer
            calc = CalculatorPage(page).open()
            calc.paste(text)
            calc.after_request(lambda: page.select_option("#encoding", "o200k_base"))
            assert calc.token_count() == get_tokenizer("o200k_base").count(text)
            # The planner too: a pasted prompt counted with gpt-3.5-turbo's cl100k_base, offline.
            page.goto("planner.html?llm=gpt-3.5-turbo")
            page.wait_for_selector('#plan-results[data-source="core"]')
            page.fill("#system-text", text)
            page.wait_for_selector("#system-count:has-text('counted exactly')")
            assert page.input_value("#system") == str(get_tokenizer("cl100k_base").count(text))
        finally:
            context.close()
    watch.check()


def test_a_new_build_is_offered_and_taken(browser, dist, tmp_path, watch):
    site = tmp_path / "site"
    shutil.copytree(dist, site)
    with own_server(site) as (_, base_url):
        context = browser.new_context(base_url=base_url)
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            CalculatorPage(page).open()
            page.wait_for_selector('#offline-status[data-state="ready"]')
            old = active_build(page)
            # Deploy a new build: the service worker's build hash changes.
            worker = site / "sw.js"
            worker.write_text(worker.read_text(encoding="utf-8").replace(old, "0123456789abcdef"), encoding="utf-8")
            page.reload()
            page.wait_for_selector('#offline-status[data-state="update"]')
            with page.expect_navigation():
                page.click("#offline-status button")
            CalculatorPage(page).wait_ready()
            assert active_build(page) == "0123456789abcdef"
            # The boot snapshot's cache (core/snapshot.js) is the worker's, not the service worker's.
            names = [name for name in page.evaluate("() => caches.keys()") if name != "core-snapshot"]
            assert names == ["ragchunk-0123456789abcdef"], "the old build's cache is removed"
        finally:
            context.close()
    watch.check()


def active_build(page) -> str:
    return page.evaluate(
        """() => new Promise(resolve => {
            navigator.serviceWorker.addEventListener('message', e => resolve(e.data.build), {once: true});
            navigator.serviceWorker.controller.postMessage({type: 'build'});
        })"""
    )
