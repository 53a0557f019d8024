"""Privacy: the text a person pastes or drops is never sent anywhere.

Two independent witnesses watch every test:

- in the page (every frame, from before its first script): fetch, XMLHttpRequest,
  navigator.sendBeacon, WebSocket, EventSource, image and element sources, form
  submission and window.open report each call, with its URL and body, to the test;
- at the network: every request of the browser context, which includes the module
  worker's, the service worker's and the embedded frames', with its URL and body.

The text carries a random marker sentence and random words, so any slice of it is
unique: no URL and no body may contain the marker or a slice of the text, in plain,
URL-encoded or JSON-escaped form, and every request must go to the page's own origin.
The flows cover both tools (typing, a large paste, a file, another encoding, more
preview windows, settings changes, the JSONL download, "Copy as Python"), settings in the
URL, the service worker, embedding on another origin, and the single offline file.
"""

from __future__ import annotations

import json
import random
import re
import threading
import uuid
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from buildsteps.offline import OFFLINE_FILE
from buildsteps.serve import make_server
from conftest import BOOT_TIMEOUT_MS, Watch, guarded_context, origin_of, watched_page
from pages import CalculatorPage, SplitterPage, paste_large

ROOT = Path(__file__).resolve().parents[2]
# A paste this long bypasses the text box (web/ui/document.js), a path of its own.
LARGE_PASTE_CHARS = int(re.search(r"LARGE_PASTE_CHARS = ([\d_]+)", (ROOT / "web" / "ui" / "document.js").read_text()).group(1).replace("_", ""))
SPY = r"""
(() => {
  // Reports still on their way (a blob is read first); ragchunkSpySettled() waits for them.
  const pending = new Set();
  const track = (promise) => {
    pending.add(promise);
    promise.finally(() => pending.delete(promise));
  };
  window.ragchunkSpySettled = async () => {
    while (pending.size) await Promise.allSettled([...pending]);
  };
  const report = (kind, url, body) => {
    const send = (text) => track(window.ragchunkSpy({ kind, url: String(url ?? ''), body: text, origin: location.origin }));
    if (body === undefined || body === null) send('');
    else if (typeof body === 'string') send(body);
    else if (body instanceof Blob) track(body.text().then(send, () => send('[unreadable blob]')));
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) send(new TextDecoder().decode(body));
    else if (body instanceof FormData) send([...body.entries()].map(([k, v]) => `${k}=${v}`).join('&'));
    else send(String(body));
  };
  const wrap = (owner, name, before) => {
    const original = owner[name];
    if (typeof original !== 'function') return;
    owner[name] = function (...args) {
      before.apply(this, args);
      return original.apply(this, args);
    };
  };
  wrap(window, 'fetch', (input, init) => {
    if (input instanceof Request) track(input.clone().text().then((body) => report('fetch', input.url, body)));
    else report('fetch', input, init?.body);
  });
  wrap(XMLHttpRequest.prototype, 'open', function (method, url) { this.spyUrl = url; report('xhr.open', url); });
  wrap(XMLHttpRequest.prototype, 'send', function (body) { report('xhr.send', this.spyUrl, body); });
  wrap(Navigator.prototype, 'sendBeacon', (url, body) => report('beacon', url, body));
  wrap(window, 'open', (url) => report('window.open', url));
  wrap(HTMLFormElement.prototype, 'submit', function () { report('form', this.action, new FormData(this)); });
  wrap(HTMLFormElement.prototype, 'requestSubmit', function () { report('form', this.action, new FormData(this)); });
  wrap(Element.prototype, 'setAttribute', (name, value) => {
    if (/^(src|href|action|formaction|data|srcset|poster|ping)$/i.test(name)) report('attribute', value);
  });
  for (const [type, property] of [[HTMLImageElement, 'src'], [HTMLScriptElement, 'src'], [HTMLIFrameElement, 'src'], [HTMLLinkElement, 'href'], [HTMLAnchorElement, 'href'], [HTMLFormElement, 'action']]) {
    const descriptor = Object.getOwnPropertyDescriptor(type.prototype, property);
    Object.defineProperty(type.prototype, property, {
      ...descriptor,
      set(value) { report(`${type.name}.${property}`, value); descriptor.set.call(this, value); },
    });
  }
  for (const name of ['WebSocket', 'EventSource']) {
    const Original = window[name];
    window[name] = function (url, ...rest) { report(name, url); return new Original(url, ...rest); };
    window[name].prototype = Original.prototype;
  }
  wrap(WebSocket.prototype, 'send', function (body) { report('websocket.send', this.url, body); });
})();
"""
# Channels a page of ours may use: its own assets (fetch), the download link (a blob:
# URL on an anchor), navigation links between the tools.
ALLOWED_KINDS = {"fetch", "HTMLAnchorElement.href", "HTMLIFrameElement.src", "attribute"}


def secret_text(words: int = 600) -> tuple[str, str]:
    """(text, marker): random words (every slice unique) around a marker sentence, with
    Markdown structure and several scripts."""
    rng = random.Random(uuid.uuid4().int)
    letters = "bcdfghjklmnpqrstvwxz"
    vowels = "aeiouy"
    word = lambda: "".join(rng.choice(letters) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))  # noqa: E731
    marker = f"Private marker {uuid.uuid4().hex} must never leave this browser."
    sentences = [" ".join(word() for _ in range(rng.randint(6, 14))).capitalize() + "." for _ in range(words // 10)]
    sections = [f"# {word().capitalize()} {word()}\n\n" + " ".join(sentences[i:i + 6]) for i in range(0, len(sentences), 6)]
    text = "\n\n".join(sections[:3] + [marker + " Приватный текст " + word() + ". गोपनीय पाठ " + word() + "।"] + sections[3:]) + "\n"
    return text, marker


def samples_of(text: str, marker: str) -> list[str]:
    """The marker and slices of the text, each in every form a URL or a body could hold it."""
    step = len(text) // 7
    slices = [marker] + [text[i:i + 24] for i in range(0, len(text) - 24, step)]
    forms = []
    for piece in slices:
        # Python's quote() and JavaScript's encodeURIComponent() differ in what they keep.
        forms += [piece, quote(piece), quote(piece, safe="!~*'()"), quote_plus(piece), json.dumps(piece)[1:-1],
                  json.dumps(piece, ensure_ascii=False)[1:-1]]
    return [f for f in dict.fromkeys(forms) if len(f.strip()) >= 12]


class Witness:
    """What left the page, seen from inside (the spy) and from the network."""

    def __init__(self, context, origins: set[str]):
        self.origins = origins
        self.calls: list[dict] = []
        self.requests = []
        context.expose_function("ragchunkSpy", lambda call: self.calls.append(call))
        context.add_init_script(SPY)
        context.on("request", lambda request: self.requests.append(request))

    def network(self) -> list[tuple[str, str]]:
        seen = []
        for request in self.requests:
            body = request.post_data_buffer
            seen.append((request.url, body.decode("utf-8", "replace") if body else ""))
        return seen

    def assert_nothing_leaves(self, samples: list[str], allowed_schemes: tuple[str, ...] = ("data:", "blob:")) -> None:
        network = self.network()
        assert network, "the network witness saw the page load"
        for url, body in network:
            assert url.startswith(allowed_schemes) or origin_of(url) in self.origins, f"a request left the site: {url}"
            for sample in samples:
                assert sample not in url and sample not in body, f"{sample!r} was sent in {url}"
        assert self.calls, "the page witness saw the page fetch its own files"
        for call in self.calls:
            assert call["kind"] in ALLOWED_KINDS, f"the page used {call['kind']}: {call}"
            for sample in samples:
                assert sample not in call["url"] and sample not in call["body"], f"{sample!r} was passed to {call['kind']}"
            target = call["url"]
            if call["kind"] == "fetch" and not target.startswith(allowed_schemes) and "://" in target:
                assert origin_of(target) in self.origins, f"the page fetched {target}"


@pytest.fixture
def spy(browser, base_url: str, watch: Watch):
    """A context on the site with both witnesses, the service worker allowed (its requests
    are watched too) and any request to another origin refused and recorded."""
    context = guarded_context(browser, base_url, watch, service_workers="allow")
    witness = Witness(context, {watch.origin})
    tab = watched_page(context, watch)
    yield tab, witness
    context.close()
    watch.check()




def copy_as_python(page) -> str:
    page.click("summary:has-text('Python')")
    page.click("#copy-python")
    page.wait_for_selector("#copy-status:not(:empty)")
    return page.inner_text("#python-snippet") + page.inner_text("#cli-snippet")


def test_both_tools_keep_the_text_in_the_browser(spy, tmp_path: Path):
    page, witness = spy
    text, marker = secret_text()
    samples = samples_of(text, marker)
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "100")
    calc.paste(text)
    assert calc.token_count() > 0
    calc.after_request(lambda: page.select_option("#encoding", "o200k_base"))
    shown = len(calc.windows())
    page.click("#more")
    page.wait_for_function("n => document.querySelectorAll('#windows li').length > n", arg=shown)
    calc.after_request(lambda: calc.set("chunk_size", "300"))
    calc.choose_file("secret.md", text.encode())
    calc.after_request(lambda: paste_large(page, text * (LARGE_PASTE_CHARS // len(text) + 1)))
    snippets = copy_as_python(page)
    page.wait_for_selector('#offline-status[data-state="ready"]')
    for sample in samples:
        assert sample not in page.evaluate("location.href") and sample not in snippets

    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", text))
    splitter.select("by", "sentences")
    splitter.choose_file("secret.md", text.encode())
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "chunks.jsonl"
    info.value.save_as(saved)
    assert marker in saved.read_text(encoding="utf-8"), "the download holds the text, made in the browser"
    snippets = copy_as_python(page)
    for sample in samples:
        assert sample not in page.evaluate("location.href") and sample not in snippets

    urls = {request.url for request in witness.requests}
    assert any(u.endswith("/worker.js") for u in urls) and any(u.endswith("pyodide.asm.wasm") for u in urls)
    assert any(u.endswith("/sw.js") for u in urls), "the service worker's requests are watched too"
    witness.assert_nothing_leaves(samples)



def test_the_evaluation_keeps_documents_and_questions_in_the_browser(spy, tmp_path: Path):
    page, witness = spy
    text, marker = secret_text()
    samples = samples_of(text, marker)
    page.goto("evaluate.html")
    page.wait_for_selector('#core-status[data-state="ready"]')
    page.fill("#text", text)
    page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '1'")
    # The questions are private too: the marker is one, and its answer quotes the text.
    page.fill("#questions", f"{marker}\n> {marker}\nWhat is said in Russian?\tПриватный текст")
    for box in page.query_selector_all('input[name="retriever"]'):
        box.set_checked(True)  # the embedding model too: its files come from the site, nothing goes out
    page.fill("#sizes", "64")
    page.click("#run")
    page.wait_for_selector("#eval-results[data-runs='1']", state="attached")
    with page.expect_download() as info:
        page.click("#download-json")
    saved = tmp_path / "evaluation.json"
    info.value.save_as(saved)
    assert json.loads(saved.read_text(encoding="utf-8"))["questions"] == 2
    page.wait_for_selector('#offline-status[data-state="ready"]')
    for sample in samples:
        assert sample not in page.evaluate("location.href")
    urls = {request.url for request in witness.requests}
    assert any(u.endswith("/model.onnx") for u in urls) and any(u.endswith("ort-wasm-simd-threaded.wasm") for u in urls)
    witness.assert_nothing_leaves(samples)


def test_the_planner_keeps_its_pasted_parts_in_the_browser(spy):
    """Every pasted part of a request, and the template, are counted in the worker: the link
    holds the settings and the counts, never the text."""
    page, witness = spy
    text, marker = secret_text(200)
    samples = samples_of(text, marker)
    page.goto("planner.html")
    page.wait_for_selector('#core-status[data-state="ready"]')
    for box in ("#system-text", "#history-text", "#question-text"):
        page.fill(box, text)
    page.fill("#tools-text", json.dumps([{"name": "search", "description": text}]))
    page.fill("#template", f"{marker}: {{text}}")
    page.fill("#source", marker)
    page.fill("#k", "7")
    page.wait_for_selector("#question-count:has-text('counted exactly')")
    page.wait_for_selector("#template-count:has-text('counted exactly')")
    assert "k=7" in page.evaluate("location.href")
    snippets = copy_as_python(page)
    for sample in samples:
        assert sample not in page.evaluate("location.href")
    assert text not in snippets, "the snippet names files, not the texts"
    witness.assert_nothing_leaves(samples)


EMBED_HOST = """<!doctype html><meta charset="utf-8"><title>Docs</title>
<div data-ragchunk="calculator" data-size="128" data-overlap="16"></div>
<div data-ragchunk="splitter" data-by="sentences" data-size="64" data-overlap="8"></div>
<script>window.received = []; addEventListener("message", (e) => received.push(JSON.stringify(e.data)));</script>
<script src="{site}embed.js" defer></script>
"""


def test_embedded_tools_tell_their_host_page_nothing_but_heights(browser, base_url: str, tmp_path: Path, watch: Watch):
    (tmp_path / "index.html").write_text(EMBED_HOST.replace("{site}", base_url), encoding="utf-8")
    host = make_server(tmp_path, "127.0.0.1", 0, policy=None)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    host_url = f"http://127.0.0.1:{host.server_address[1]}/"
    context = browser.new_context(service_workers="block")
    witness = Witness(context, {origin_of(base_url), origin_of(host_url)})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("data:", "blob:")) or origin_of(route.request.url) in witness.origins else (watch.foreign.append(route.request.url), route.abort()))
    text, marker = secret_text()
    samples = samples_of(text, marker)
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
        page.goto(host_url)
        calc, splitter = (page.frame_locator("iframe").nth(i) for i in (0, 1))
        for tool in (calc, splitter):
            tool.locator('#core-status[data-state="ready"]').wait_for(timeout=BOOT_TIMEOUT_MS)
        calc.locator("#text").fill(text)
        calc.locator("#windows li").first.wait_for()
        splitter.locator("#text").fill(text)
        splitter.locator("#split-results").wait_for()
        with page.expect_download() as info:
            splitter.locator("#download").click()
        info.value.save_as(tmp_path / "chunks.jsonl")
        assert marker in (tmp_path / "chunks.jsonl").read_text(encoding="utf-8")
        received = page.evaluate("received")
        assert received and all(json.loads(m)["type"] == "ragchunk:height" for m in received)
        frame_urls = [frame.url for frame in page.frames]
        for sample in samples:
            assert not any(sample in m for m in received)
            assert not any(sample in url for url in frame_urls)
        witness.assert_nothing_leaves(samples)
    finally:
        context.close()
        host.shutdown()
        host.server_close()
    watch.check()


def test_the_offline_file_keeps_the_text_on_disk(browser, dist: Path):
    context = browser.new_context(service_workers="block")
    local = ("file:", "data:", "blob:")
    foreign = []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(local) else (foreign.append(route.request.url), route.abort()))
    witness = Witness(context, set())
    text, marker = secret_text()
    try:
        page = context.new_page()
        page.set_default_timeout(BOOT_TIMEOUT_MS)
        page.goto((dist / OFFLINE_FILE).as_uri())
        calc = CalculatorPage(page)
        calc.wait_ready()
        calc.paste(text)
        assert calc.token_count() > 0
        page.goto((dist / OFFLINE_FILE).as_uri() + "?tool=splitter")
        splitter = SplitterPage(page)
        splitter.wait_ready()
        splitter.after_request(lambda: page.fill("#text", text))
        assert int(splitter.stat("chunks").replace(",", "")) > 1
        witness.assert_nothing_leaves(samples_of(text, marker), allowed_schemes=local)
    finally:
        context.close()
    assert not foreign


# Each way a page could send something, used on purpose: the page witness must see it.
CHANNELS = {
    "fetch URL": "m => fetch('collect?q=' + encodeURIComponent(m)).catch(() => {})",
    "fetch body": "m => fetch('collect', {method: 'POST', body: m}).catch(() => {})",
    "fetch request": "m => fetch(new Request('collect', {method: 'POST', body: m})).catch(() => {})",
    "XMLHttpRequest": "m => { const x = new XMLHttpRequest(); x.open('POST', 'collect'); x.send(m); }",
    "sendBeacon": "m => navigator.sendBeacon('collect', new Blob([m]))",
    "WebSocket": "m => { try { new WebSocket('ws://127.0.0.1:9/?' + encodeURIComponent(m)); } catch {} }",
    "EventSource": "m => new EventSource('collect?' + encodeURIComponent(m)).close()",
    "image": "m => { new Image().src = 'collect?' + encodeURIComponent(m); }",
    "attribute": "m => document.createElement('img').setAttribute('src', 'collect?' + encodeURIComponent(m))",
    "form": """m => { const form = Object.assign(document.createElement('form'), {method: 'post', action: 'collect'});
                form.append(Object.assign(document.createElement('input'), {name: 'q', value: m}));
                document.body.append(form); form.submit(); }""",
    "window.open": "m => window.open('collect?' + encodeURIComponent(m))",
}


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_page_witness_sees_every_channel(browser, base_url: str, channel: str):
    context = browser.new_context(base_url=base_url, service_workers="block", bypass_csp=True)
    witness = Witness(context, {origin_of(base_url)})
    text, marker = secret_text(60)
    samples = samples_of(text, marker)
    try:
        page = context.new_page()
        page.goto("./build.json")
        if channel == "form":
            # Submitting navigates away: start it after the evaluation has returned, and
            # wait for the navigation (its report is sent before the page leaves).
            with page.expect_navigation():
                page.evaluate(f"m => {{ setTimeout(() => ({CHANNELS[channel]})(m)); }}", text)
        else:
            page.evaluate(CHANNELS[channel], text)
        # The report is in once the spy has no report on its way (a form has navigated
        # the page by then; its report was sent before it left).
        page.evaluate("() => window.ragchunkSpySettled?.()")
        assert any(sample in call["url"] + call["body"] for call in witness.calls for sample in samples), witness.calls
        with pytest.raises(AssertionError, match="was sent in|was passed to|the page used"):
            witness.assert_nothing_leaves(samples)
    finally:
        context.close()
