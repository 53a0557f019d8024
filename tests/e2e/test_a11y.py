"""Accessibility: axe-core on both tools (every language, light and dark, several states),
live regions, overlap marked without colour, reduced motion, 320 px and 200 % zoom.

axe-core comes from node_modules (a dev dependency) and is never part of dist/. It is
injected with ``evaluate`` (the DevTools protocol runs it outside the page's
Content-Security-Policy, which refuses inline scripts), so the page is checked under the
same policy it ships with. The counts of every run are printed at the end of the module
(and written to ``$RAGCHUNK_A11Y_REPORT`` as JSON when that is set) for the closing note.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import BOOT_TIMEOUT_MS, guarded_context, watched_page
from pages import CalculatorPage, SplitterPage, wait_language
from ragchunk import get_tokenizer, plan, split

ROOT = Path(__file__).resolve().parents[2]
AXE = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
DOC = (ROOT / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
LANGS = ("en", "ru", "hi")
SCHEMES = ("light", "dark")
# The page background of each scheme (style.css --bg): proof the scheme really switched.
BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(22, 24, 28)"}
BLOCKING = ("serious", "critical")

ROWS: list[dict] = []


@pytest.fixture(scope="module", autouse=True)
def axe_report(request):
    """After the module: one line per axe run, for the closing note of the issue."""
    yield
    if not ROWS:
        return
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["", "axe-core results (rules: applicable / passed / violated (serious+critical) / incomplete; inapplicable)"]
    for row in ROWS:
        lines.append(
            f"  {row['page']:<16} {row['lang']} {row['scheme']:<5} {row['state']:<14} "
            f"{row['applicable']:>3} / {row['passed']:>3} / {row['violated']} ({row['blocking']}) / {row['incomplete']}; {row['inapplicable']}"
        )
    runs, blocking = len(ROWS), sum(r["blocking"] for r in ROWS)
    lines.append(f"  {runs} runs, {sum(r['passed'] for r in ROWS)} rule passes, {blocking} serious or critical violations")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter and capture:
        with capture.global_and_fixture_disabled():
            for line in lines:
                reporter.write_line(line)
    if os.environ.get("RAGCHUNK_A11Y_REPORT"):
        Path(os.environ["RAGCHUNK_A11Y_REPORT"]).write_text(json.dumps(ROWS, indent=1), encoding="utf-8")


def describe(violation: dict) -> str:
    targets = [" ".join(node["target"]) for node in violation["nodes"][:4]]
    summary = violation["nodes"][0]["failureSummary"].replace("\n", " ") if violation["nodes"] else ""
    return f"{violation['impact']} {violation['id']} ({violation['help']}) on {targets}: {summary}"


def check_axe(page, target, name: str, lang: str, state: str) -> None:
    """axe on ``target`` (the page or a frame) in both colour schemes; no serious or critical violation."""
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        # Colours ease between schemes (style.css transitions): measure the settled page.
        target.wait_for_function("() => document.getAnimations().length === 0")
        assert target.evaluate("getComputedStyle(document.body).backgroundColor") == BACKGROUND[scheme]
        if not target.evaluate("typeof axe === 'object'"):
            target.evaluate(AXE)
        result = target.evaluate("axe.run(document)")
        violations = result["violations"]
        blocking = [v for v in violations if v["impact"] in BLOCKING]
        ROWS.append({
            "page": name, "lang": lang, "scheme": scheme, "state": state,
            "applicable": len(result["passes"]) + len(violations) + len(result["incomplete"]),
            "passed": len(result["passes"]), "violated": len(violations), "blocking": len(blocking),
            "incomplete": len(result["incomplete"]), "inapplicable": len(result["inapplicable"]),
            "violations": [describe(v) for v in violations],
        })
        assert not blocking, f"{name} {lang} {scheme} {state}: " + "\n".join(describe(v) for v in blocking)
    page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("lang", LANGS)
def test_axe_calculator(page, lang):
    calc = CalculatorPage(page).open(query=f"?lang={lang}")
    wait_language(page, lang)
    check_axe(page, page, "calculator", lang, "fresh")

    calc.paste(DOC)
    page.click("#results summary")
    assert page.is_visible("#windows li") and page.is_visible("#python-snippet")
    check_axe(page, page, "calculator", lang, "text, preview")

    calc.set("overlap", "abc")
    page.wait_for_selector("#overlap-error:not(:empty)")
    check_axe(page, page, "calculator", lang, "error")


@pytest.mark.parametrize("lang", LANGS)
def test_axe_splitter(page, lang):
    splitter = SplitterPage(page).open(query=f"?lang={lang}")
    wait_language(page, lang)
    check_axe(page, page, "splitter", lang, "fresh")

    splitter.choose_file("ws-README.md", DOC.encode("utf-8"))
    page.click("#split-results summary")
    assert page.is_visible(".chunk-card") and page.is_visible("#histogram li") and page.is_visible("#s-chunks")
    check_axe(page, page, "splitter", lang, "split")

    splitter.set("chunk_size", "0")
    page.wait_for_selector("#size-error:not(:empty)")
    check_axe(page, page, "splitter", lang, "error")


@pytest.mark.parametrize("lang", LANGS)
def test_axe_planner(page, lang):
    page.goto(f"planner.html?lang={lang}")
    wait_language(page, lang)
    page.wait_for_selector('#plan-results[data-source="core"]')
    check_axe(page, page, "planner", lang, "fresh")

    page.fill("#tools-text", "[oops")
    page.fill("#k", "100000")
    page.wait_for_selector("#tools-error:not(:empty)")
    check_axe(page, page, "planner", lang, "error")
    page.fill("#tools-text", "")
    page.wait_for_selector("#over-warning:not([hidden])")
    page.click("#plan-results summary")
    check_axe(page, page, "planner", lang, "over the window")


@pytest.mark.parametrize("tool", ["calculator", "splitter"])
def test_axe_embed_mode(context, page, base_url, tool):
    # A host page of the site's origin that frames the tool (served by the route, outside the
    # site's policy, like a documentation page that embeds it).
    host = f'<!doctype html><html lang="en"><title>Docs</title><iframe title="ragchunk {tool}" src="./?embed={tool}" width="700" height="900"></iframe>'
    if tool == "splitter":
        host = host.replace("./?embed", "./splitter.html?embed")
    context.route(f"{base_url}host.html", lambda route: route.fulfill(body=host, content_type="text/html"))
    page.goto("host.html")
    frame_element = page.wait_for_selector("iframe")
    frame = frame_element.content_frame()
    frame.wait_for_selector('#core-status[data-state="ready"]', timeout=BOOT_TIMEOUT_MS)
    assert not frame.is_visible("header.site"), "embed mode shows only the tool"
    check_axe(page, frame, f"embed {tool}", "en", "fresh")
    frame.fill("#text", DOC)
    frame.wait_for_selector("#windows li" if tool == "calculator" else ".chunk-card")
    check_axe(page, frame, f"embed {tool}", "en", "with text")


# --- live regions ----------------------------------------------------------------------

LIVE = "el => { const r = el.closest('[aria-live], [role=status], [role=alert]'); return r ? (r.getAttribute('aria-live') ?? 'polite') : null; }"


def live(page, selector: str) -> str | None:
    """The politeness of the live region that holds ``selector`` (None when it is in none)."""
    return page.eval_on_selector(selector, LIVE)


def test_calculator_results_and_errors_are_announced(page):
    calc = CalculatorPage(page).open()
    # Error slots are live regions that exist before an error does (an empty one is still rendered).
    assert page.eval_on_selector("#overlap-error", "el => el.textContent === '' && getComputedStyle(el).display !== 'none'")
    calc.set("chunk_size", "1000")
    calc.set("overlap", "100")
    calc.wait_core_numbers()
    assert calc.result("chunks") == f"{plan(10_000, 1000, 100).chunks:,}"
    for name in ("chunks", "total", "repeated", "cost"):
        assert live(page, f"#r-{name}") == "polite"
    text = "Accessible results are announced. " * 40
    calc.paste(text)
    tokens = get_tokenizer().count(text)
    assert f"{tokens:,} tokens" in calc.text_status()
    assert live(page, "#text-status") == "polite"
    # The snippets and the preview are not live: they would be read out at every keystroke.
    assert live(page, "#python-snippet") is None and live(page, "#windows") is None
    calc.set("overlap", "1000")
    page.wait_for_selector("#overlap-error:not(:empty)")
    assert "overlap (1,000) must be smaller than chunk size (1,000)" in calc.error("overlap")
    assert live(page, "#overlap-error") == "polite"
    assert page.get_attribute("#overlap", "aria-invalid") == "true"
    calc.set("overlap", "100")
    page.wait_for_selector("#overlap-error:empty", state="attached")
    assert page.get_attribute("#overlap", "aria-invalid") is None


def test_splitter_results_and_errors_are_announced(page):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", DOC.encode("utf-8"))
    expected = split(DOC, by="headings", size=512, overlap=64)
    status = page.inner_text("#text-status")
    assert f"{len(expected.chunks):,} chunks" in status
    assert live(page, "#text-status") == "polite"
    # The virtual list is not a live region: scrolling it must not read out every card.
    assert live(page, "#chunk-list") is None
    assert page.get_attribute("#chunk-list", "role") == "feed"
    splitter.set("overlap", "600")
    page.wait_for_selector("#overlap-error:not(:empty)")
    assert "overlap (600) must be smaller than chunk size (512)" in page.inner_text("#overlap-error")
    assert live(page, "#overlap-error") == "polite"


# --- not colour alone ------------------------------------------------------------------

MARKER = """mark => {
    const style = getComputedStyle(mark), before = getComputedStyle(mark, '::before');
    return {outline: style.outlineStyle, width: parseFloat(style.outlineWidth), before: before.content, title: mark.title};
}"""


@pytest.mark.parametrize("forced", ["none", "active"])
def test_overlap_is_marked_by_more_than_colour(page, forced):
    """The repeated text has a dashed outline and a ↩ marker, also when forced colours drop backgrounds."""
    page.emulate_media(forced_colors=forced)
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "64")
    calc.set("overlap", "16")
    calc.paste(DOC)
    second = page.locator("#windows li").nth(1).locator("mark.overlap")
    shown = second.evaluate(MARKER)
    assert shown["outline"] == "dashed" and shown["width"] >= 1
    assert "↩" in shown["before"]
    assert shown["title"] == "Repeated from the previous chunk"
    assert page.is_visible("#preview .legend")

    # Small chunks, so that sections longer than one carry overlap (each section is cut on its own).
    splitter = SplitterPage(page).open(query="?size=96&overlap=24")
    splitter.choose_file("ws-README.md", DOC.encode("utf-8"))
    card = page.locator(".chunk-card mark.overlap").first
    shown = card.evaluate(MARKER)
    assert shown["outline"] == "dashed" and shown["width"] >= 1
    assert "↩" in shown["before"]
    if forced == "active":
        # The bars of the histogram stay drawn: forced colours would otherwise paint them away.
        bar = page.eval_on_selector("#histogram .bin-bar", "el => getComputedStyle(el).backgroundColor")
        canvas = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert bar != canvas


# --- motion and colour scheme ----------------------------------------------------------

TRANSITIONS = """() => ['#copy-python', '#doc', '#drop'].map(s => getComputedStyle(document.querySelector(s)).transitionDuration)"""


def test_reduced_motion_turns_transitions_off(page):
    calc = CalculatorPage(page).open()
    page.emulate_media(reduced_motion="no-preference")
    moving = page.evaluate(TRANSITIONS)
    assert all(d != "0s" for d in moving), moving
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(TRANSITIONS) == ["0s", "0s", "0s"]
    calc.paste(DOC)
    assert page.evaluate("() => document.getAnimations().length") == 0


def test_the_page_follows_the_colour_scheme(page):
    CalculatorPage(page).open()
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("bg => getComputedStyle(document.body).backgroundColor === bg", arg=BACKGROUND["dark"])
    dark_text = page.eval_on_selector("h1", "el => getComputedStyle(el).color")
    page.emulate_media(color_scheme="light")
    page.wait_for_function("bg => getComputedStyle(document.body).backgroundColor === bg", arg=BACKGROUND["light"])
    assert page.eval_on_selector("h1", "el => getComputedStyle(el).color") != dark_text


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two computed colours ("rgb(r, g, b)")."""

    def luminance(color: str) -> float:
        channels = [int(v) / 255 for v in color[color.index("(") + 1 : color.index(")")].split(",")[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


BOUNDARIES = """() => ['#doc', '#chunk_size', '#price', '#encoding', '#text', '#lang', '#copy-python', 'label[for=file]']
    .map(s => [s, getComputedStyle(document.querySelector(s)).borderTopColor])"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_controls_and_focus_ring_stand_out(page, scheme):
    """Non-text contrast (WCAG 1.4.11, which axe does not measure): borders of controls and the focus ring, 3:1."""
    page.emulate_media(color_scheme=scheme)
    CalculatorPage(page).open()
    page.wait_for_function("() => document.getAnimations().length === 0")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == BACKGROUND[scheme]
    for selector, border in page.evaluate(BOUNDARIES):
        assert contrast(border, background) >= 3, f"{scheme}: the border of {selector} ({border}) on {background}"
    page.keyboard.press("Tab")
    ring = page.evaluate("getComputedStyle(document.activeElement).outlineColor")
    assert contrast(ring, background) >= 3, f"{scheme}: focus ring {ring} on {background}"


# --- small screens and zoom ------------------------------------------------------------

CONTROLS = "#lang, input:not([type=file]):not([type=radio]), select, textarea, button:not([hidden]), label.button, summary"

OVERFLOW = f"""() => {{
    const width = innerWidth;
    const out = [...document.querySelectorAll('{CONTROLS}')]
        // A data table may scroll sideways in its own box (WCAG 1.4.10 excepts tables): its
        // sort buttons past the box's edge are reached by scrolling it, not the page.
        .filter(el => el.getClientRects().length && !el.closest('[hidden]') && !el.closest('.table-wrap'))
        .filter(el => {{ const r = el.getBoundingClientRect(); return r.left < 0 || r.right > width + 0.5 || r.width < 1; }})
        .map(el => el.id || el.className || el.tagName);
    return {{scroll: document.documentElement.scrollWidth, width, out}};
}}"""


@pytest.fixture
def sized(browser, base_url, watch, request):
    """A page in a context of the given viewport and device scale (same guard and collectors)."""
    width, height, scale = request.param
    ctx = guarded_context(browser, base_url, watch, viewport={"width": width, "height": height},
                          device_scale_factor=scale)
    tab = watched_page(ctx, watch)
    yield tab
    ctx.close()
    watch.check()


def assert_fits(page, where: str) -> None:
    fit = page.evaluate(OVERFLOW)
    assert fit["scroll"] <= fit["width"], f"{where}: the page scrolls sideways ({fit['scroll']} > {fit['width']} px)"
    assert fit["out"] == [], f"{where}: controls outside the viewport: {fit['out']}"


# 320 CSS px (a small phone) and 200 % zoom of a 1280 px window (640 CSS px at scale 2).
@pytest.mark.parametrize("sized", [(320, 640, 1), (640, 400, 2)], indirect=True, ids=["320px", "zoom200"])
def test_small_screens_and_zoom(sized):
    page = sized
    calc = CalculatorPage(page).open()
    assert_fits(page, "calculator")
    calc.set("chunk_size", "1000")
    calc.set("overlap", "100")
    calc.wait_core_numbers()
    assert calc.result("chunks") == f"{plan(10_000, 1000, 100).chunks:,}"
    calc.paste(DOC)
    assert calc.token_count() == get_tokenizer().count(DOC)
    page.click("#results summary")
    assert page.is_visible("#windows li") and page.is_visible("#python-snippet")
    assert_fits(page, "calculator with text")

    splitter = SplitterPage(page).open()
    assert_fits(page, "splitter")
    splitter.choose_file("ws-README.md", DOC.encode("utf-8"))
    expected = split(DOC, by="headings", size=512, overlap=64)
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    page.click("#split-results summary")
    card = page.locator(".chunk-card").first
    card.scroll_into_view_if_needed()
    assert card.is_visible()
    box = card.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    assert_fits(page, "splitter with chunks")


# Per element: its text and on how many lines its text is laid out.
LINES = """els => els.map(el => {
    const tops = new Set();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    return {text: el.textContent.trim(), lines: tops.size};
})"""


@pytest.mark.parametrize("sized", [(390, 844, 1)], indirect=True, ids=["phone"])
def test_tables_of_documents_on_a_phone_keep_figures_and_words_whole(sized):
    """At 390 px the tables had broken "17,614" into a column of digits and "Tokens" into
    "Tok/e/n/s": each figure is on one line, each column name breaks only between words, and
    the table scrolls sideways in its box while the page does not."""
    page = sized
    splitter = SplitterPage(page).open()
    files = [(path.name, path.read_bytes()) for path in sorted((ROOT / "tests" / "data" / "md").glob("*.md"))[:4]]
    splitter.choose_files([*files, ("photo.md", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)])
    splitter.compare()
    for table in ("#documents", "#compare-table"):
        heads = page.eval_on_selector_all(f"{table} thead th", LINES)
        assert all(0 < head["lines"] <= len(head["text"].split()) for head in heads), heads
        figures = page.eval_on_selector_all(f"{table} tbody td:not(:last-child), {table} tfoot td:not(:last-child)", LINES)
        assert figures and all(cell["lines"] == 1 for cell in figures if cell["text"]), figures
    assert_fits(page, "splitter with a corpus")
    calc = CalculatorPage(page).open()
    calc.wait_ready()
    calc.choose_files(files)
    assert len(calc.rows("#files-table tbody tr")) == len(files)
    figures = page.eval_on_selector_all("#files-table td.num", LINES)
    assert figures and all(cell["lines"] == 1 for cell in figures if cell["text"]), figures
    assert_fits(page, "calculator with files")
