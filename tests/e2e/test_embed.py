"""Embedding: a docs page on another origin includes embed.js; both tools work and resize,
and the host page receives nothing but heights."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from buildsteps.serve import make_server
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
    host = make_server(tmp_path, "127.0.0.1", 0, policy=None)
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
        calc.locator('#core-status[data-state="ready"]').wait_for()
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
        splitter.locator('#core-status[data-state="ready"]').wait_for()
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


# --- hostile neighbours ---------------------------------------------------------------

@pytest.fixture
def host(browser, base_url, tmp_path, watch):
    """Serve pages of a documentation site on another origin (no policy: it is not ours);
    ``host.open(html)`` opens one in a tab whose dialogs are recorded."""
    server = make_server(tmp_path, "127.0.0.1", 0, policy=None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    allowed = {origin_of(base_url), origin_of(url)}
    context = browser.new_context(service_workers="block")

    class Host:
        def __init__(self):
            self.url = url
            self.dialogs = []

        def write(self, name: str, html: str) -> None:
            (tmp_path / name).write_text(html.replace("{site}", base_url), encoding="utf-8")

        def open(self, html: str, name: str = "index.html"):
            self.write(name, html)
            page = context.new_page()
            page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: watch.foreign.append(r.url) if origin_of(r.url) not in allowed else None)
            page.goto(url + name)
            return page

    try:
        yield Host()
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    watch.check()


ONE_CALCULATOR = """<!doctype html><meta charset="utf-8"><title>Docs</title>
<div data-ragchunk="calculator" data-size="1000" data-overlap="100"></div>
<iframe id="intruder" srcdoc="<p>An advertisement</p>"></iframe>
<script>window.received = []; addEventListener("message", (e) => received.push(e.data));</script>
<script src="{site}embed.js" defer></script>
"""
HOSTILE_MESSAGES = """() => {
    const iframe = document.querySelector('iframe[src*="embed="]');
    const frame = iframe.contentWindow;
    const messages = [
        {type: 'ragchunk:settings', size: 1, overlap: 0, doc: 5, enc: 'o200k_base', text: 'injected'},
        {type: 'ragchunk:height', tool: 'calculator', height: 1},
        {type: 'ragchunk:text', text: '<img src=x onerror="alert(1)">'},
        '?size=1&overlap=0', '<img src=x onerror="window.pwned=1;alert(1)">', 'javascript:alert(1)',
        {type: 'ragchunk:settings', huge: 'x'.repeat(5_000_000), nested: Array.from({length: 10_000}, (_, i) => ({i}))},
        [1, 2, 3], null, 42, {toString: 'alert(1)'},
    ];
    for (const message of messages) {
        frame.postMessage(message, '*');
        frame.postMessage(message, new URL(iframe.src).origin);
    }
    frame.postMessage('sync', '*');
}"""


def test_the_frame_takes_no_orders_from_its_host(host):
    page = host.open(ONE_CALCULATOR)
    frame = page.locator('iframe[src*="embed="]').element_handle().content_frame()
    frame.wait_for_selector('#core-status[data-state="ready"]')
    frame.wait_for_selector('#results[data-source="core"]')

    def shown() -> dict:
        return {
            "fields": [frame.input_value(f"#{name}") for name in ("doc", "chunk_size", "overlap", "price", "encoding")],
            "chunks": frame.inner_text("#r-chunks"), "text": frame.input_value("#text"), "url": frame.evaluate("location.href"),
        }

    before = shown()
    assert before["fields"][1:3] == ["1000", "100"] and before["chunks"] == f"{plan(10_000, 1000, 100).chunks:,}"
    # Messages from one window to another arrive in the order sent: once "sync" has, all have.
    frame.evaluate("() => { window.synced = new Promise((done) => addEventListener('message', (e) => e.data === 'sync' && done())); }")
    page.evaluate(HOSTILE_MESSAGES)
    frame.evaluate("() => window.synced")
    assert shown() == before
    assert frame.evaluate("window.pwned ?? null") is None and host.dialogs == []
    replies = page.evaluate("received")
    assert replies, "the frame reports its height"
    for reply in replies:
        assert set(reply) == {"type", "tool", "height"}
        assert reply["type"] == "ragchunk:height" and reply["tool"] == "calculator"
        assert isinstance(reply["height"], int) and reply["height"] > 0


RECORD_HEIGHTS = """() => {
    window.heights = [];
    const frame = document.querySelector('iframe[src*="embed="]');
    new MutationObserver(() => heights.push(frame.style.height)).observe(frame, {attributes: true, attributeFilter: ['style']});
}"""
FAKE_HEIGHTS = """(done) => {
    for (const height of [4321, 4325.5, '4323', -4324, Infinity, NaN, 1e12]) parent.postMessage({type: 'ragchunk:height', tool: 'calculator', height}, '*');
    parent.postMessage({done}, '*');
}"""


def test_embed_js_hears_only_its_own_frames(host, base_url):
    page = host.open(ONE_CALCULATOR)
    embedded = page.locator('iframe[src*="embed="]')
    frame = embedded.element_handle().content_frame()
    frame.wait_for_selector('#core-status[data-state="ready"]')
    page.wait_for_function("() => document.querySelector('iframe[src*=\"embed=\"]').style.height.endsWith('px')")
    page.evaluate(RECORD_HEIGHTS)

    def wait_done(name: str) -> None:
        page.wait_for_function("n => received.some((m) => m?.done === n)", arg=name)

    # The page itself (its parent is itself), a third-party frame, and a frame of the
    # tool's own site that embed.js did not make.
    page.evaluate(FAKE_HEIGHTS, "self")
    wait_done("self")
    page.locator("#intruder").element_handle().content_frame().evaluate(FAKE_HEIGHTS, "intruder")
    wait_done("intruder")
    page.evaluate("url => document.body.append(Object.assign(document.createElement('iframe'), {id: 'twin', src: url}))", base_url + "?embed=calculator")
    twin = page.locator("#twin").element_handle().content_frame()
    twin.wait_for_selector("#r-chunks")
    twin.evaluate(FAKE_HEIGHTS, "twin")
    wait_done("twin")
    assert not any(h.startswith("432") for h in page.evaluate("heights")), page.evaluate("heights")

    # The registered frame itself: only positive numbers, at most 20,000 px.
    frame.evaluate(FAKE_HEIGHTS, "frame")
    wait_done("frame")
    heights = set(page.evaluate("heights"))
    assert {"4321px", "4326px", "20000px"} <= heights
    assert not heights & {"4323px", "-4324px", "Infinitypx", "NaNpx", "1000000000000px"}

    # The same window, navigated to another origin, is no longer heard.
    host.write("elsewhere.html", "<!doctype html><title>Elsewhere</title><p>Another page of the docs site.")
    page.evaluate(RECORD_HEIGHTS)
    frame.goto(host.url + "elsewhere.html")
    frame.evaluate(FAKE_HEIGHTS, "navigated")
    wait_done("navigated")
    assert page.evaluate("heights") == []
