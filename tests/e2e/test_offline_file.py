"""The single offline file (dist/ragchunk-offline.html) works opened from disk, no server.

The page is opened through file:// in a context of its own (no base URL, no server for
it); any http(s) request fails the test. Both tools must give CPython's exact results.
"""

from __future__ import annotations

import base64
import json
import posixpath
import re
from pathlib import Path

import pytest

from buildsteps.offline import OFFLINE_FILE, bare_imports
from buildsteps.site import tool_registry
from conftest import BOOT_TIMEOUT_MS, Watch
from pages import CalculatorPage, SplitterPage
from ragchunk import get_model, get_tokenizer, split, windows
from shown import integer
from test_a11y import check_axe

DOC = (Path(__file__).resolve().parents[2] / "tests" / "data" / "md" / "tiktoken-js-README.md").read_text(encoding="utf-8")
MULTILINGUAL = (
    "# Offline file\n\nRetrieval-augmented generation, opened from disk. "
    "Привет, мир! Это проверка токенизации: ёжик, съешь же ещё этих мягких булок.\n"
    "नमस्ते दुनिया। यह हिंदी का एक वाक्य है॥ 日本語のテキストと中文文本。한국어 문장도 있습니다. "
    "Emoji: 👋🏽 👨‍👩‍👧‍👦 🇺🇦 — combining: é (e\u0301). Code: `x ** 2  # 𝛼` and <|endoftext|> as text.\n"
) * 10


@pytest.fixture
def watch() -> Watch:
    """No server for this page: its own origin is the file."""
    return Watch("file://")


@pytest.fixture
def offline_page(browser, dist: Path, watch: Watch):
    """A tab on file://…/ragchunk-offline.html. Only the file itself (any query) and what it
    holds (data: modules, blob: assets) may load: every other request, http(s) or a file:
    beside it (dist/ has the site's assets), is refused and recorded."""
    context = browser.new_context(service_workers="block")
    document = (dist / OFFLINE_FILE).as_uri()

    def allowed(url: str) -> bool:
        return url.startswith(("data:", "blob:")) or re.split(r"[?#]", url, maxsplit=1)[0] == document

    def guard(route):
        url = route.request.url
        if allowed(url):
            route.continue_()
        else:
            watch.foreign.append(url)
            route.abort()

    context.route("**/*", guard)
    tab = context.new_page()
    tab.on("request", lambda request: watch.requests.append(request))
    tab.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    tab.set_default_timeout(BOOT_TIMEOUT_MS)
    tab.goto(document)
    yield tab
    context.close()
    watch.check()
    assert [request.url for request in watch.requests if not allowed(request.url)] == []


def test_the_offline_file_is_built_but_not_precached(dist: Path):
    manifest = json.loads((dist / "build.json").read_text(encoding="utf-8"))
    assert manifest["files"][OFFLINE_FILE] > 5_000_000
    assert OFFLINE_FILE not in manifest["precache"]
    assert OFFLINE_FILE not in (dist / "sw.js").read_text(encoding="utf-8")


def test_the_import_map_names_each_module_by_its_path(dist: Path):
    """Modules of one file name in different folders (each tool's tool.js) stay apart, and
    every import of every module in the file names a module of the import map."""
    document = (dist / OFFLINE_FILE).read_text(encoding="utf-8")
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', document, re.DOTALL).group(1))["imports"]
    scripts = [tool["script"] for tool in tool_registry()]
    assert len({posixpath.basename(script) for script in scripts}) < len(scripts), "the layout has same-named modules"
    assert set(scripts) <= set(imports)
    sources = {name: base64.b64decode(url.split(",", 1)[1]).decode("utf-8") for name, url in imports.items()}
    assert len({sources[script] for script in scripts}) == len(scripts)
    for name, source in sources.items():
        assert source == bare_imports((dist / name).read_text(encoding="utf-8"), name)
        for specifier in re.findall(r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']""", source):
            assert specifier in imports, (name, specifier)


def test_both_tools_work_from_disk_with_exact_results(offline_page):
    page = offline_page
    calc = CalculatorPage(page)
    calc.wait_ready()
    assert page.url.startswith("file://")
    assert calc.result("chunks") == "23"
    assert calc.result("total") == "11,408"
    calc.wait_core_numbers()
    assert calc.result("chunks") == "23"

    calc.set("chunk_size", "40")
    calc.set("overlap", "8")
    calc.paste(MULTILINGUAL)
    tokenizer = get_tokenizer("cl100k_base")
    assert calc.token_count() == tokenizer.count(MULTILINGUAL)
    shown = calc.windows()
    cut = windows(MULTILINGUAL, 40, 8, tokenizer)
    assert len(shown) == 5
    for seen, window in zip(shown, cut):
        assert seen["text"] == window.text
        assert seen["head"] == MULTILINGUAL[window.start : window.overlap_end]
        assert seen["tokens"] == window.tokens

    # The tools' own navigation switches to the splitter inside the same file.
    page.click('nav a:has-text("Text splitter")')
    page.wait_for_url("**/ragchunk-offline.html?tool=splitter")
    page.wait_for_selector('html[data-tool="splitter"]')
    splitter = SplitterPage(page)
    page.wait_for_selector('#core-status[data-state="ready"]')
    splitter.choose_file("README.md", DOC.encode("utf-8"))
    expected = split(DOC, by="headings", size=512, overlap=64)
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert splitter.cards()[0]["text"] == expected.chunks[0].text

    # And to the planner: a pasted prompt counted by the page's own core, with the LLM's tokenizer.
    page.click('nav a:has-text("Context planner")')
    page.wait_for_url("**/ragchunk-offline.html?tool=planner")
    page.wait_for_selector('html[data-tool="planner"]')
    page.wait_for_selector('#plan-results[data-source="core"]')
    page.fill("#system-text", MULTILINGUAL)
    page.wait_for_selector("#system-count:has-text('counted exactly')")
    assert page.input_value("#system") == str(get_tokenizer("o200k_base").count(MULTILINGUAL))


def test_the_offline_file_passes_axe(offline_page):
    """The file's own HTML (inline script and style, core on the page's thread) under axe,
    light and dark, fresh and with results, in both tools."""
    page = offline_page
    calc = CalculatorPage(page)
    calc.wait_ready()
    calc.wait_core_numbers()
    check_axe(page, page, "offline file, calculator", "en", "fresh")
    calc.paste(MULTILINGUAL)
    page.click("#results summary")
    assert page.is_visible("#windows li") and page.is_visible("#python-snippet")
    check_axe(page, page, "offline file, calculator", "en", "text, preview")

    page.click('nav a:has-text("Text splitter")')
    page.wait_for_url("**/ragchunk-offline.html?tool=splitter")
    page.wait_for_selector('#core-status[data-state="ready"]')
    check_axe(page, page, "offline file, splitter", "en", "fresh")
    SplitterPage(page).choose_file("README.md", DOC.encode("utf-8"))
    page.click("#split-results summary")
    assert page.is_visible(".chunk-card") and page.is_visible("#histogram li")
    check_axe(page, page, "offline file, splitter", "en", "split")


def test_cancel_rejects_the_pending_request_and_the_core_stays_usable(offline_page):
    """In the file the core runs on the page's thread: cancel rejects what waits, no reboot."""
    page = offline_page
    calc = CalculatorPage(page)
    calc.wait_ready()
    outcome = page.evaluate(
        """async text => {
            const core = globalThis.ragchunkCore();  // the page's own core (one per page)
            const events = [];
            for (const type of ['restarting', 'ready']) core.addEventListener(type, () => events.push(type));
            const settings = {encoding: 'cl100k_base', chunk_size: 40, overlap: 8};
            const pending = core.request('load', {name: 'pasted.txt'}, text);
            const busy = core.busy;
            core.cancel();
            const cancelled = await pending.then(() => 'resolved', (error) => error.name);
            const loaded = await core.request('load', {name: 'pasted.txt'}, text);
            const after = await core.request('analyze', {...settings, doc: loaded.result.doc});
            return {busy, cancelled, events, busyAfter: core.busy, ok: after.ok, tokens: after.result?.tokens};
        }""",
        MULTILINGUAL,
    )
    assert outcome == {
        "busy": True,
        "cancelled": "Cancelled",
        "events": [],  # stopped between two steps: nothing restarts
        "busyAfter": False,
        "ok": True,
        "tokens": get_tokenizer("cl100k_base").count(MULTILINGUAL),
    }
    calc.wait_ready()


def test_open_models_count_with_the_tables_inlined_in_the_file(offline_page, watch: Watch):
    """An open model's tables come from the bytes inlined in the file, not from assets/tables/
    beside it (dist/ has them; the fixture refuses every file: but the page): each family
    loads, says so, and counts the text exactly as CPython does."""
    page = offline_page
    calc = CalculatorPage(page)
    calc.wait_ready()
    calc.paste(MULTILINGUAL)
    assert calc.token_count() == get_tokenizer("cl100k_base").count(MULTILINGUAL)
    calc.record_status()
    for model_id, tokenizer in (("multilingual-e5-small", "xlm-roberta"), ("bge-small-en-v1.5", "bert-base-uncased")):
        assert get_model(model_id).tokenizer == tokenizer
        calc.choose_model(model_id, recount=True)
        count = get_tokenizer(tokenizer).count(MULTILINGUAL)
        assert page.inner_text("#t-tokens") == f"{integer(count)} ({tokenizer})", model_id
        status = calc.text_status()
        assert status and not status.startswith("Loading"), (model_id, status)
        assert calc.errors() == {}, (model_id, calc.errors())
        assert page.get_attribute("#core-status", "data-state") == "ready"
        loading = f"Loading the {tokenizer} tokenizer…"
        assert any(text.startswith(loading) for text in calc.statuses()), model_id
    # Nothing from the file's folder either (the fixture refuses and records it).
    assert not watch.foreign
