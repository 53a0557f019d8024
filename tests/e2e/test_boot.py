"""How the page boots: what a first visit fetches, the boot snapshot of a second visit
(web/core/snapshot.js), and its fallback to an ordinary boot."""

from __future__ import annotations

import functools
import re
import shutil
import threading
import time
from pathlib import Path

from buildsteps.serve import Handler, Server
from buildsteps.policy import SITE_POLICY
from conftest import Watch, guarded_context, origin_of, watched_page
from pages import CalculatorPage, SplitterPage, paste_large
from ragchunk import get_tokenizer, split

DOC = (Path(__file__).resolve().parents[2] / "tests" / "data" / "md" / "tiktoken-js-README.md").read_text(encoding="utf-8")
TEXT = "Exact counts after a restore: Привет, नमस्ते, 你好, code `x = 1`. " * 40
# Larger than LARGE_PASTE_CHARS: pasted past the box, as a person's large paste is.
BIG = DOC * 20


class Recording(Handler):
    """The site's handler, noting each path it answers (the service worker's requests too)."""

    def log_request(self, code="-", size="-") -> None:
        self.server.seen.append((time.time(), self.path.split("?")[0]))


def recording_server(site: Path) -> Server:
    server = Server(("127.0.0.1", 0), functools.partial(Recording, directory=str(site)))
    server.policy = SITE_POLICY
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def url_of(server: Server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/"


def boot_kind(page) -> str:
    return page.get_attribute("#core-status", "data-boot")


def wait_snapshot_kept(page) -> None:
    """Wait until the worker has written its boot snapshot (when it is idle, after ready)."""
    page.evaluate("""async () => {
        for (;;) {
            const cache = await caches.open('core-snapshot');
            if ((await cache.keys()).length === 1) return;
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
    }""")


def counted(page) -> tuple[int, list[str]]:
    """The exact count of TEXT and the windows the calculator shows for it."""
    calc = CalculatorPage(page)
    calc.paste(TEXT)
    return calc.token_count(), calc.windows()


def test_first_visit_fetches_what_the_first_count_needs_and_the_offline_copy_after(browser, dist):
    server = recording_server(dist)
    watch = Watch(origin_of(url_of(server)))
    context = guarded_context(browser, url_of(server), watch, service_workers="allow")
    try:
        # When the core says it is ready, in the server's clock (both read the system's).
        context.add_init_script("""addEventListener('DOMContentLoaded', () => {
            const status = document.querySelector('#core-status');
            new MutationObserver(() => { if (status.dataset.state === 'ready') window.readyAt ??= Date.now() / 1000; })
                .observe(status, {attributes: true});
        })""")
        page = watched_page(context, watch)
        page.goto("./")
        page.evaluate("""() => {
            const status = document.querySelector('#offline-status');
            window.offlineTexts = [];
            new MutationObserver(() => offlineTexts.push(status.textContent))
                .observe(status, {childList: true, characterData: true, subtree: true});
        }""")
        calc = CalculatorPage(page)
        calc.wait_ready()
        paste_large(page, BIG)
        page.wait_for_function("() => document.querySelector('#t-tokens').textContent")
        assert calc.token_count() == get_tokenizer().count(BIG)
        ready_at = page.evaluate("readyAt")
        first = [path for at, path in server.seen if at <= ready_at]
        page.wait_for_selector('#offline-status[data-state="ready"]')
        assert page.inner_text("#offline-status") == "Ready to work offline: this site keeps working without a connection."
        shown = page.evaluate("offlineTexts")
        assert "Saving the site for offline use…" in shown, shown
        assert shown.index("Saving the site for offline use…") < len(shown) - 1
        after = [path for at, path in server.seen if at > ready_at]
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    watch.check()

    # The worker starts with the page (core/early.js), not after the page's modules and its
    # language catalog have loaded: they load while Python boots.
    assert first.index("/core/worker.js") < first.index("/i18n/en.json"), first[:40]
    # Before the first count: the runtime, the wheel, the encoder and its table, the page's own files.
    names = {path.rsplit("/", 1)[-1] for path in first}
    for needed in ("pyodide.asm.wasm", "python_stdlib.zip", "tiktoken_bg.wasm", "cl100k_base.json"):
        assert needed in names, needed
    assert any(re.fullmatch(r"ragchunk-.*\.whl", name) for name in names)
    # ... and nothing that count does not need: no other encoding, no model table, no reader, no service worker.
    unneeded = [path for path in first if path.startswith(("/assets/tables/", "/assets/wheels/pypdf"))
                or path.endswith(("o200k_base.json", "p50k_base.json", "r50k_base.json", "llama3.json", "qwen2.json",
                                 "deepseek.json", "/sw.js", "offline.html"))]
    assert unneeded == []
    # The rest of the offline copy comes after, through the service worker.
    assert "/sw.js" in after
    assert any(path.startswith("/assets/tables/") for path in after)
    assert any(path.endswith("o200k_base.json") for path in after)


def test_a_second_visit_restores_the_snapshot_and_answers_the_same(context, watch):
    page = watched_page(context, watch)
    calc = CalculatorPage(page).open()
    assert boot_kind(page) == "fresh"
    fresh = counted(page)
    assert fresh[0] == get_tokenizer().count(TEXT)
    wait_snapshot_kept(page)

    page.reload()
    calc.wait_ready()
    assert boot_kind(page) == "snapshot"
    assert counted(page) == fresh
    # Modules imported after the restore read the files unpacked again: a model's tokenizer
    # (wordpiece) and the splitter's structure.
    splitter = SplitterPage(page).open()
    assert boot_kind(page) == "snapshot"
    splitter.choose_file("README.md", DOC.encode("utf-8"))
    splitter.select("sizer", "model:bge-small-en-v1.5")
    expected = split(DOC, model="bge-small-en-v1.5")
    assert splitter.errors() == {}
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert splitter.cards()[0]["text"] == expected.chunks[0].text


def spoil_snapshot(page, how: str) -> None:
    """Replace the kept snapshot with a spoiled one: `garbage`, `stale` (another Pyodide build's id) or `cut` short."""
    page.evaluate("""async (how) => {
        const cache = await caches.open('core-snapshot');
        const [request] = await cache.keys();
        const bytes = new Uint8Array(await (await cache.match(request)).arrayBuffer());
        let spoiled = bytes, size = bytes.length;
        if (how === 'garbage') spoiled = new Uint8Array(bytes.length).fill(7);
        if (how === 'stale') for (let i = 16; i < 48; i++) spoiled[i] ^= 0xff;  // the BUILD_ID in its header
        if (how === 'cut') spoiled = bytes.subarray(0, bytes.length >> 1);
        await cache.put(request, new Response(spoiled, {headers: {'x-snapshot-bytes': String(size)}}));
    }""", how)


def test_a_spoiled_snapshot_falls_back_to_an_ordinary_boot(context, watch):
    page = watched_page(context, watch)
    calc = CalculatorPage(page).open()
    fresh = counted(page)
    wait_snapshot_kept(page)
    for how in ("garbage", "stale", "cut"):
        spoil_snapshot(page, how)
        page.reload()
        calc.wait_ready()
        assert boot_kind(page) == "fresh", how
        assert counted(page) == fresh, how
        # A good snapshot replaces the spoiled one, and the next visit uses it.
        wait_snapshot_kept(page)
        page.reload()
        calc.wait_ready()
        assert boot_kind(page) == "snapshot", how
        assert counted(page) == fresh, how


def test_the_page_works_with_snapshots_turned_off(browser, dist, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(dist, site)
    module = site / "core" / "snapshot.js"
    source = module.read_text(encoding="utf-8")
    assert "export const SNAPSHOTS = true;" in source
    module.write_text(source.replace("export const SNAPSHOTS = true;", "export const SNAPSHOTS = false;"), encoding="utf-8")
    server = recording_server(site)
    watch = Watch(origin_of(url_of(server)))
    context = guarded_context(browser, url_of(server), watch)
    try:
        page = watched_page(context, watch)
        calc = CalculatorPage(page).open()
        first = counted(page)
        assert first[0] == get_tokenizer().count(TEXT)
        page.reload()
        calc.wait_ready()
        assert boot_kind(page) == "fresh"
        assert counted(page) == first
        assert page.evaluate("() => caches.keys()") == []
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    watch.check()
