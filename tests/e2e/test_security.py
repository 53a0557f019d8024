"""Security: the Content-Security-Policy the site runs under, and user text that never
becomes markup.

The policy tests run the real site under the policy (the dev server sends it on every
response, the built pages repeat it in a <meta>) and show that it blocks what it should.
The injection tests turn the policy off (Playwright's ``bypass_csp``) so that they test
the page's own code: were any user text ever written as HTML, the payloads below would
run and be counted, or leave an element with an ``on*`` handler in the document.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import os
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from buildsteps.offline import OFFLINE_FILE
from buildsteps.policy import SITE_POLICY, policy_text
from conftest import BOOT_TIMEOUT_MS, Watch, guarded_context, watched_page
from pages import CalculatorPage, SplitterPage
from ragchunk import get_tokenizer, split

ROOT = Path(__file__).resolve().parents[2]
CSP_CONSOLE = "Content Security Policy"
# Every payload counts its own execution in window.pwned and opens a dialog.
RUN = "window.pwned=(window.pwned||0)+1;alert(document.domain)"
PAYLOADS = [
    f'<img src=x onerror="{RUN}">',
    f"</script><script>{RUN}</script>",
    f'<a href="javascript:{RUN}">click me</a>',
    f'<svg onload="{RUN}"><circle r=9></svg>',
    '<iframe srcdoc="<script>parent.pwned=1</script>"></iframe>',
    f"[a Markdown link](javascript:{RUN}) and ![an image](x\" onerror=\"{RUN})",
    "<style>body{display:none}</style><b>bold?</b> &lt;escaped&gt; &amp;",
]
# A heading's name leaves out HTML tags, as rendered Markdown shows it; in a code span a
# payload stays as written, so the first heading carries one into every heading path.
HOSTILE_MARKDOWN = "\n\n".join(
    [f"# Guide `{PAYLOADS[0]}`", PAYLOADS[1], f"## Section {PAYLOADS[3]}", PAYLOADS[2], PAYLOADS[4],
     f"### {PAYLOADS[5]}", PAYLOADS[5], PAYLOADS[6], "A closing sentence of plain text."]
) + "\n"
# Anything in the document that could run: an on* handler or a javascript: link.
LIVE_MARKUP = """() => [...document.querySelectorAll('*')].filter(e =>
    [...e.attributes].some(a => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))
  ).map(e => e.outerHTML.slice(0, 120))"""
INJECTED_TAGS = "img, svg, iframe, a, b, style, script"


def policy_of_meta(page_html: str) -> str:
    match = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page_html)
    assert match, "the page carries its policy in a <meta>"
    return match.group(1)


def sha256_source(text: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


# --- the policy -----------------------------------------------------------------------

def test_the_site_policy_is_strict_and_the_same_in_header_and_meta(dist: Path, base_url: str):
    policy = policy_text(SITE_POLICY)
    directives = dict(part.split(" ", 1) for part in policy.split("; "))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'", "no inline script, no eval, no other origin"
    assert directives["connect-src"] == "'self'"
    assert "frame-ancestors" not in directives, "the tools must stay embeddable in documentation sites"
    for name in ("index.html", "splitter.html"):
        page_html = (dist / name).read_text(encoding="utf-8")
        assert policy_of_meta(page_html) == policy
        head = page_html[: page_html.index("</head>")]
        assert head.index("Content-Security-Policy") < min(head.index("<script"), head.index("<link")), \
            "the policy precedes everything it governs"
        assert "<script>" not in page_html and " style=" not in page_html and not re.search(r"\son\w+=", page_html)
    for path in ("", "splitter.html", "core/worker.js", "sw.js", "assets/pyodide/pyodide.asm.wasm"):
        with urllib.request.urlopen(base_url + path) as response:
            assert response.headers["Content-Security-Policy"] == policy, path
            assert response.headers["Referrer-Policy"] == "no-referrer"


def test_the_offline_file_allows_exactly_its_own_inline_scripts(dist: Path):
    document = (dist / OFFLINE_FILE).read_text(encoding="utf-8")
    directives = dict(part.split(" ", 1) for part in policy_of_meta(document).split("; "))
    runnable = re.findall(r'<script type="(?:importmap|module)">(.*?)</script>', document, re.DOTALL)
    assert len(runnable) == 2
    assert directives["script-src"] == " ".join([*map(sha256_source, runnable), "data:", "blob:", "'wasm-unsafe-eval'"])
    assert directives["style-src"] == sha256_source(re.search(r"<style>(.*?)</style>", document, re.DOTALL).group(1))
    assert directives["connect-src"] == "blob:" and directives["default-src"] == "'none'"
    assert "'unsafe-inline'" not in document[: document.index("</head>")]


RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
"""
INJECT = """() => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true';
    document.body.append(script);
    const holder = document.createElement('div');
    holder.innerHTML = '<img src="favicon.svg" onload="window.handlerRan = true" onerror="window.handlerRan = true">';
    document.body.append(holder);
    setTimeout('window.evalRan = true', 0);
}"""


def assert_injection_blocked(page) -> None:
    page.evaluate(INJECT)
    wanted = ["script-src-elem", "script-src-attr", "script-src"]
    page.wait_for_function("w => w.every(d => violations.includes(d))", arg=wanted)
    assert page.evaluate("[window.inlineRan, window.handlerRan, window.evalRan]") == [None, None, None]


def test_both_tools_work_under_the_policy_which_blocks_injected_script(page, context, watch: Watch):
    watch.allow_console.append(CSP_CONSOLE)
    context.add_init_script(RECORD_VIOLATIONS)
    calc = CalculatorPage(page).open()
    text = "Exact tokens under a strict policy: Привет, नमस्ते, 👋🏽. " * 40
    calc.paste(text)
    assert calc.token_count() == get_tokenizer().count(text)
    assert page.evaluate("violations") == [], "the working page needs nothing the policy forbids"
    assert_injection_blocked(page)
    # connect-src: a request to another origin is refused before it is made.
    refused = page.evaluate("() => fetch('http://127.0.0.2:9/x').then(() => 'sent', (e) => e.name)")
    assert refused == "TypeError"
    page.wait_for_function("() => violations.includes('connect-src')")
    # The worker runs under the policy of its own script's response.
    worker = page.workers[0]
    blocked = worker.evaluate(
        "() => new Promise((done) => { addEventListener('securitypolicyviolation', (e) => done(e.effectiveDirective));"
        " setTimeout('self.evalRan = true', 0); })"
    )
    assert blocked == "script-src" and worker.evaluate("self.evalRan ?? null") is None

    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", HOSTILE_MARKDOWN))
    assert splitter.stat("chunks") == f"{len(split(HOSTILE_MARKDOWN, by='headings', size=512, overlap=64).chunks):,}"
    assert page.evaluate("violations") == []
    assert_injection_blocked(page)
    assert not watch.foreign


def test_the_offline_file_blocks_injected_script(browser, dist: Path):
    context = browser.new_context(service_workers="block")
    try:
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:", "blob:")) else route.abort())
        context.add_init_script(RECORD_VIOLATIONS)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((dist / OFFLINE_FILE).as_uri())
        page.wait_for_selector('html[data-tool="calculator"]', state="attached", timeout=BOOT_TIMEOUT_MS)
        assert page.evaluate("violations") == []
        assert_injection_blocked(page)
        assert not errors
    finally:
        context.close()


# --- user text is text ----------------------------------------------------------------

@pytest.fixture
def open_page(browser, base_url: str, watch: Watch):
    """A tab on the site with the policy switched off (see the module's docstring), the
    conftest's guard against other origins, and every dialog recorded."""
    context = guarded_context(browser, base_url, watch, bypass_csp=True)
    tab = watched_page(context, watch)
    tab.dialogs = []
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    yield tab
    context.close()
    watch.check()


def assert_inert(page) -> None:
    """Nothing ran, and nothing that could run is in the document."""
    assert page.dialogs == []
    assert page.evaluate("window.pwned") is None
    assert page.evaluate(LIVE_MARKUP) == []


def drop_file(tool, name: str, data: str) -> None:
    """Drop a file on #drop, as a person dragging it from their desktop does."""
    tool.after_request(lambda: tool.page.evaluate(
        """([name, data]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([data], name, {type: 'text/markdown'}));
            document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
        }""",
        [name, data],
    ))


def test_calculator_shows_hostile_text_names_and_numbers_literally(open_page):
    page = open_page
    calc = CalculatorPage(page).open()
    text = "\n".join(PAYLOADS) + "\n"
    calc.paste(text)
    shown = "".join(w["head"] + w["text"] for w in calc.windows())
    assert shown == text, "the preview is the text itself, character for character"
    assert page.locator("#windows").locator(INJECTED_TAGS).count() == 0
    assert calc.token_count() == get_tokenizer().count(text)

    name = f'{PAYLOADS[0]}.md'
    calc.choose_file(name, text.encode())
    assert name in calc.text_status()
    drop_file(calc, f"dropped {PAYLOADS[3]}.txt", text)
    assert f"dropped {PAYLOADS[3]}.txt" in calc.text_status()
    # A refused file's name comes back in the error message.
    pdf_name = f"{PAYLOADS[0]}.pdf"
    calc.choose_file(pdf_name, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n" + bytes(range(256)) * 8, "application/pdf")
    assert pdf_name in calc.error("text")
    assert page.locator("#text-error").locator(INJECTED_TAGS).count() == 0

    # Typed numbers are echoed in their error messages.
    calc.set("chunk_size", "<b>5</b>")
    calc.set("doc", "<img src=x>")
    calc.wait_core_numbers()
    assert "<b>5</b>" in calc.error("size")
    assert "<img src=x>" in calc.error("doc")
    assert page.locator("#calc").locator(INJECTED_TAGS).count() == 0
    assert_inert(page)


def test_splitter_shows_hostile_headings_and_file_names_literally(open_page, tmp_path: Path):
    page = open_page
    splitter = SplitterPage(page).open()
    name = f"notes' $(touch pwned) `id` {PAYLOADS[0]}.md"
    splitter.choose_file(name, HOSTILE_MARKDOWN.encode())
    expected = split(HOSTILE_MARKDOWN, by="headings", size=512, overlap=64)
    cards = splitter.cards()
    assert len(cards) == len(expected.chunks)
    for card, chunk in zip(cards, expected.chunks):
        assert card["head"] + card["text"] == chunk.text
        if chunk.heading_path:
            assert card["meta"].endswith(" › ".join(chunk.heading_path))
    assert any(PAYLOADS[0] in card["meta"] for card in cards), "a hostile heading is in a card's heading path"
    assert page.locator("#chunk-list").locator(INJECTED_TAGS).count() == 0
    assert name in splitter.page.inner_text("#text-status")

    page.click("summary:has-text('Python')")
    python = page.inner_text("#python-snippet")
    assert f"Path({json.dumps(name)})" in python
    # The snippet reads the very file and writes its chunks next to it; nothing else runs.
    (tmp_path / name).write_text(HOSTILE_MARKDOWN, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}
    subprocess.run([sys.executable, "-c", python], check=True, cwd=tmp_path, env=env, capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, name.removesuffix(".md") + ".chunks.jsonl"])
    cli = shlex.split(page.inner_text("#cli-snippet"))
    assert cli[:4] == ["python", "-m", "ragchunk", "split"] and cli[4] == name, "the shell sees the file name as one word, nothing more"
    assert_inert(page)


HOSTILE_QUERY = {
    "size": f'<img src=x onerror="{RUN}">',
    "overlap": f"</script><script>{RUN}</script>",
    "enc": "<svg onload=alert(1)>",
    "lang": '"><img src=x onerror=alert(1)>',
    "unit": "javascript:alert(1)",
    "doc": "1e3<b>",
    "price": "<iframe srcdoc=x>",
}


def test_settings_in_the_url_are_values_never_markup(open_page):
    page = open_page
    query = "?" + "&".join(f"{k}={quote(v)}" for k, v in HOSTILE_QUERY.items())
    calc = CalculatorPage(page).open(query=query)
    calc.wait_core_numbers()
    assert page.input_value("#chunk_size") == HOSTILE_QUERY["size"]
    assert HOSTILE_QUERY["size"][:20] in calc.error("size"), "the value is named in its error, as typed"
    assert page.input_value("#encoding") == "cl100k_base", "an unknown encoding in the URL is ignored"
    assert page.get_attribute("html", "data-language") == "en"
    assert calc.result("chunks") == "—"
    assert_inert(page)

    hostile = {"by": PAYLOADS[0], "sizer": "<script>", "size": "<b>9</b>", "cpt": PAYLOADS[3]}
    splitter = SplitterPage(page).open(query="?" + "&".join(f"{k}={quote(v)}" for k, v in hostile.items()))
    assert page.input_value("#by") == "headings" and page.input_value("#sizer") == "cl100k_base"
    splitter.choose_file("notes.md", HOSTILE_MARKDOWN.encode())
    assert "<b>9</b>" in page.inner_text("#size-error")
    assert page.locator("#settings").locator(INJECTED_TAGS).count() == 0
    assert_inert(page)
