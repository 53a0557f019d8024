"""Embedding: a docs page on another origin includes embed.js; both tools work and resize,
and the host page receives nothing but heights."""

from __future__ import annotations

import threading
from pathlib import Path

import build
from conftest import origin_of
from ragchunk import get_tokenizer, plan, split

DOC = (Path(__file__).resolve().parents[2] / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
HOST = """<!doctype html><meta charset="utf-8"><title>Docs</title>
<h1>Our chunking guide</h1>
<div data-ragchunk="calculator" data-size="1000" data-overlap="100"></div>
<p>Try the splitter:</p>
<div data-ragchunk="splitter" data-by="sentences" data-size="64" data-overlap="8"></div>
<script>window.received = []; addEventListener("message", (e) => received.push(JSON.stringify(e.data)));</script>
<script src="{site}embed.js" defer></script>
"""
SECRET = "Confidential roadmap: Zanzibar launch. "


def test_both_tools_embedded_on_another_origin(browser, base_url, tmp_path, watch):
    (tmp_path / "index.html").write_text(HOST.replace("{site}", base_url), encoding="utf-8")
    host = build.make_server(tmp_path, "127.0.0.1", 0, policy=None)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    host_url = f"http://127.0.0.1:{host.server_address[1]}/"
    allowed = {origin_of(base_url), origin_of(host_url)}
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
        page.on("request", lambda r: watch.foreign.append(r.url) if origin_of(r.url) not in allowed else None)
        page.goto(host_url)
        frames = page.locator("iframe")
        frames.first.wait_for()
        assert frames.count() == 2
        calc = page.frame_locator("iframe").nth(0)
        calc.locator('#core-status[data-state="ready"]').wait_for(timeout=60_000)
        assert not calc.locator("header.site").is_visible()
        assert calc.locator("#r-chunks").inner_text() == f"{plan(10_000, 1000, 100).chunks:,}"
        before = page.evaluate("() => document.querySelectorAll('iframe')[0].getBoundingClientRect().height")
        text = SECRET * 200
        calc.locator("#text").fill(text)
        calc.locator("#windows li").first.wait_for()
        assert calc.locator("#t-tokens").inner_text().startswith(f"{get_tokenizer().count(text):,} ")
        page.wait_for_function(
            "h => document.querySelectorAll('iframe')[0].getBoundingClientRect().height > h + 100", arg=before
        )

        splitter = page.frame_locator("iframe").nth(1)
        splitter.locator('#core-status[data-state="ready"]').wait_for(timeout=60_000)
        splitter.locator("#file").set_input_files(
            files=[{"name": "ws.md", "mimeType": "text/markdown", "buffer": DOC.encode("utf-8")}]
        )
        splitter.locator("#split-results").wait_for()
        expected = split(DOC, by="sentences", size=64, overlap=8)
        assert splitter.locator("#s-chunks").inner_text() == f"{len(expected.chunks):,}"

        received = page.evaluate("() => received")
        assert received, "the frames report their height"
        assert all('"type":"ragchunk:height"' in m for m in received)
        assert not any("Zanzibar" in m or "WebSocket" in m for m in received)
    finally:
        context.close()
        host.shutdown()
        host.server_close()
    watch.check()
