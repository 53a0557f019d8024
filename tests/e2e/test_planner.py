"""The context planner, planner.html (issue 35): what a person sees and does, in three languages.

The budget shows at first paint from the JS mirror (core/budget.js) and without Python at
all; once the worker is ready, pasted texts are counted with the LLM's tokenizer and every
figure is the core's (:func:`ragchunk.plan_context`). The other tools link to it with their
chunk size; its own link holds its settings, never a pasted text.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import watched_page
from pages import CalculatorPage, wait_language
from ragchunk import RagchunkError, get_tokenizer, plan_context
from ragchunk.llms import budget, get_llm
from ragchunk.llms.context import PAGE_DEFAULTS, check_tools
from test_i18n import indian

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "ru", "hi")}
PROMPT = "You answer from the sources only, and cite each one you use. Never guess a number."
BAD_TOOLS = '[{"type": "function",\n  "function": {"name": "search",}}]'
GOOD_TOOLS = '[{"type": "function", "function": {"name": "search", "description": "Search the docs"}}]'


def defaults(llm: str = PAGE_DEFAULTS["llm"], **changed):
    """The core's plan of the page's defaults, with ``changed`` parts."""
    d = PAGE_DEFAULTS
    given = {"system": d["system"], "tools": d["tools"], "history": (d["turns"], d["turn_tokens"]),
             "question": d["question"], "k": d["k"], "chunk_tokens": d["chunk_tokens"], "template": d["template"],
             "answer": d["answer"], **changed}
    return plan_context(llm, **given)


def money(value: float) -> str:
    """A cost as the English page writes it (Intl: the shortest decimal of the number, rounded half up):
    3 significant digits under $1, else cents."""
    exact = Decimal(repr(value))
    if value >= 1:
        return f"${exact.quantize(Decimal('0.01'), ROUND_HALF_UP):,}"
    rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 2), ROUND_HALF_UP)
    return f"${rounded.normalize():f}"


def percent(tokens: int, window: int) -> str:
    """A share of the window as the English page writes it (Intl: one decimal, rounded half up): "0.1 %"."""
    return f"{Decimal(repr(tokens / window * 100)).quantize(Decimal('0.1'), ROUND_HALF_UP)} %"


def digits(text: str) -> int:
    return int(re.sub(r"[^0-9-]", "", text))


def open_planner(page, query: str = "", lang: str = "en"):
    page.goto(f"planner.html{query}")
    wait_language(page, lang)
    page.wait_for_selector('#core-status[data-state="ready"]')
    page.wait_for_selector('#plan-results[data-source="core"]')


def settle(page, action) -> None:
    """Do ``action`` and wait for the core's answer to what it changed."""
    page.evaluate("() => { document.querySelector('#plan-results').dataset.source = 'waiting'; }")
    action()
    page.wait_for_selector('#plan-results[data-source="core"]')


def test_the_budget_shows_at_first_paint_and_without_python(context, watch):
    """The mirror answers before (here: without) the worker: its figures are budget.py's."""
    context.route(re.compile(r".*/pyodide\.asm\.wasm$"), lambda route: route.abort())
    watch.allow_console.extend(["pyodide.asm.wasm", "net::ERR_FAILED", "Failed to load resource"])
    page = watched_page(context, watch)
    page.goto("planner.html")
    wait_language(page, "en")
    page.wait_for_selector('#plan-results[data-state="ok"]')
    assert page.get_attribute("#plan-results", "data-source") == "page"
    assert page.get_attribute("#core-status", "data-state") in {"booting", "failed"}
    llm, d = get_llm("gpt-4.1"), PAGE_DEFAULTS
    # The default template was counted exactly by the build (the HTML's figures): the first
    # paint is exact, as plan_context's defaults are.
    fixed = [("system prompt", d["system"]), ("tools", d["tools"]), ("history", d["turns"] * d["turn_tokens"]),
             ("question", d["question"])]
    exact = defaults()
    first = budget(llm.window, d["answer"], fixed, d["k"], d["chunk_tokens"], exact.template_tokens,
                   llm.input_price, llm.output_price)
    assert first["left"] == exact.left
    assert page.inner_text("#r-left") == f"{first['left']:,}"
    assert page.inner_text("#r-max-k") == f"{first['max_k']:,}"
    assert page.inner_text("#r-max-size") == f"{first['max_chunk_size']:,} tokens"
    assert page.inner_text("#r-cost") == money(first["cost_per_request"])
    assert page.inner_text("#r-cost-1000") == money(first["cost_per_1000"])
    assert page.inner_text("#template-count") == f"{exact.template_tokens:,} tokens, counted exactly ({llm.counted_by})"
    page.wait_for_selector('#core-status[data-state="failed"]')
    # A template of one's own is estimated (characters ÷ 4) until the tokenizer counts it, and said so.
    page.fill("#template", "From {source}: {text}")
    page.wait_for_selector("#template-count:has-text('until the tokenizer is ready')")
    wrapper = "From : "
    estimated = budget(llm.window, d["answer"], fixed, d["k"], d["chunk_tokens"], math.ceil(len(wrapper) / 4),
                       llm.input_price, llm.output_price)
    assert page.inner_text("#r-left") == f"≈ {estimated['left']:,}"
    assert page.inner_text("#r-cost") == f"≈ {money(estimated['cost_per_request'])}"
    assert "until the tokenizer is ready" in page.inner_text("#template-count")
    # Typing still answers, from the mirror; a bad number is said next to its field.
    page.fill("#k", "12")
    again = budget(llm.window, d["answer"], fixed, 12, d["chunk_tokens"], math.ceil(len(wrapper) / 4),
                   llm.input_price, llm.output_price)
    assert page.inner_text("#r-left") == f"≈ {again['left']:,}"
    page.fill("#k", "twelve")
    assert page.inner_text("#k-error") == "chunks per question (twelve) is not a number: enter digits, e.g. 5"
    assert page.inner_text("#r-left") == "—"
    watch.check()


def test_pasted_parts_are_counted_exactly_bad_tools_named_and_an_overflow_warned(page, tmp_path):
    open_planner(page)
    plan = defaults()
    assert page.inner_text("#r-left") == f"{plan.left:,}"
    assert page.inner_text("#r-max-k") == f"{plan.max_k:,}"
    assert page.inner_text("#r-max-size") == f"{plan.max_chunk_size:,} tokens"
    assert page.inner_text("#r-cost") == money(plan.cost_per_request)
    assert page.inner_text("#r-cost-1000") == money(plan.cost_per_1000)
    assert page.inner_text("#template-count") == f"{plan.template_tokens} tokens, counted exactly (o200k_base)"
    history = page.eval_on_selector('#parts-table tr[data-part="history"]', "r => [...r.cells].map(c => c.textContent)")
    assert history == ["History", "800", "0.1 %", "4 turns × 200"]
    # A pasted system prompt: its exact count, in its field and its row.
    settle(page, lambda: page.fill("#system-text", PROMPT))
    tokens = get_tokenizer("o200k_base").count(PROMPT)
    assert page.inner_text("#system-count") == f"{tokens} tokens, counted exactly (o200k_base)"
    assert page.input_value("#system") == str(tokens) and page.is_disabled("#system")
    row = page.eval_on_selector('#parts-table tr[data-part="system"]', "r => [...r.cells].map(c => c.textContent)")
    assert row[1:] == [str(tokens), row[2], "text, exact (o200k_base)"] and row[2].endswith("%")
    # Tools that are not JSON: the core's sentence, with the line and column.
    settle(page, lambda: page.fill("#tools-text", BAD_TOOLS))
    try:
        check_tools(BAD_TOOLS)
    except RagchunkError as err:
        here = err.params
    said = re.fullmatch(r"tools are not valid JSON at line (\d+), column (\d+) \((.+)\): fix the JSON, or leave the tools"
                        r" out", page.inner_text("#tools-error"))
    assert said and int(said[1]) == here["line"] == 2
    # Pyodide's json (Python 3.14) points at the trailing comma, older ones just after it.
    assert int(said[2]) in {here["column"] - 1, here["column"]}
    assert page.get_attribute("#plan-results", "data-state") == "invalid"
    settle(page, lambda: page.fill("#tools-text", GOOD_TOOLS))
    assert page.inner_text("#tools-error") == ""
    # A small window: the part that passes it is named, its row and the bar marked.
    page.select_option("#llm", "gpt-3.5-turbo")
    settle(page, lambda: page.fill("#k", "40"))
    over = defaults("gpt-3.5-turbo", system=PROMPT, tools=GOOD_TOOLS, k=40)
    assert over.over == "retrieved context"
    assert page.inner_text("#over-warning") == (
        f"It does not fit: in GPT-3.5 Turbo's window of 16,385 tokens, the part “Retrieved context” passes it by"
        f" {-over.left:,} tokens. Make it smaller, or choose a model with a larger window.")
    assert page.get_attribute('#parts-table tr[data-part="retrieved"]', "class") == "over"
    assert page.get_attribute("#window-bar", "data-over") == "true"
    assert page.inner_text("#r-max-k") == f"{over.max_k:,}"
    # The link holds the settings and the counts, never the text.
    query = parse_qs(urlsplit(page.url).query)
    assert query["llm"] == ["gpt-3.5-turbo"] and query["k"] == ["40"]
    assert "sources" not in page.url and "search" not in page.url
    cli = page.text_content("#cli-snippet")
    assert cli.startswith("python -m ragchunk context --llm gpt-3.5-turbo --system system.txt --tools tools.json")
    assert "--chunks 40x512" in cli
    # The same in Python and on the command line, with the pasted texts saved as the files they name.
    (tmp_path / "system.txt").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "tools.json").write_text(GOOD_TOOLS, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}
    python = subprocess.run([sys.executable, "-c", page.text_content("#python-snippet")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert python.stdout.split()[:3] == [str(over.left), str(over.max_k), str(over.max_chunk_size)], python.stderr
    command = subprocess.run([sys.executable, *shlex.split(cli)[1:]], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=60)
    assert command.returncode == 2 and "--chunks: the request does not fit" in command.stderr
    left = next(line for line in command.stdout.splitlines() if line.split()[0] == "left")
    assert left.split()[1] == f"{over.left:,}" and left.endswith("over, at the retrieved context")


def test_the_planner_in_russian_and_hindi(page):
    open_planner(page, "?lang=ru&llm=claude-haiku-4-5", "ru")
    ru = CATALOGS["ru"]
    assert page.inner_text("h1") == ru["plan.h1"] and page.inner_text("nav a[aria-current]") == ru["nav.planner"]
    plan = defaults("claude-haiku-4-5")
    # Claude publishes no tokenizer: its figures are estimates, said so.
    note = page.inner_text("#estimate-note")
    assert "Claude Haiku 4.5 не публикует токенизатор" in note
    left = page.inner_text("#r-left")
    assert left.startswith("≈") and "\u00a0" in left and digits(left) == plan.left
    assert page.inner_text('#parts-table tr[data-part="history"] td:last-child') == "4 реплики × 200"
    # Tools that are not JSON: said in Russian, JSON's reason too.
    settle(page, lambda: page.fill("#tools-text", "[1,]"))
    error = page.inner_text("#tools-error")
    assert error.startswith("инструменты — не корректный JSON: строка 1, столбец ") and "запятая" in error
    assert not re.search(r"[A-Za-z]{4}", error.replace("JSON", "")), error
    settle(page, lambda: page.fill("#tools-text", ""))
    # A decimal comma, as Russian writes it.
    settle(page, lambda: page.fill("#input_price", "1,5"))
    cheaper = defaults("claude-haiku-4-5", input_price=1.5)
    cost = page.inner_text("#r-cost-1000")
    assert cost.startswith("≈ $") and "," in cost
    assert float(cost[3:].replace("\u00a0", "").replace(",", ".")) == round(cheaper.cost_per_1000, 2)
    # The estimate's ratio, the person's own (as the provider's count of their text showed it).
    assert page.input_value("#ratio") == "1" and page.is_visible("#ratio")
    settle(page, lambda: page.fill("#ratio", "1,2"))
    own = defaults("claude-haiku-4-5", input_price=1.5, ratio=1.2)
    assert own.template_tokens > plan.template_tokens and digits(page.inner_text("#r-left")) == own.left
    assert parse_qs(urlsplit(page.url).query)["ratio"] == ["1.2"]
    settle(page, lambda: page.fill("#ratio", "1"))
    # Hindi: its words, Indian grouping, and the overflow named in Hindi.
    page.select_option("#lang", "hi")
    wait_language(page, "hi")
    hi = CATALOGS["hi"]
    assert page.inner_text("h1") == hi["plan.h1"]
    # "1,5" is no number where "," groups digits: said next to the price, in Hindi.
    assert re.search(r"[\u0900-\u097f]", page.inner_text("#price-error")) and "1,5" in page.inner_text("#price-error")
    settle(page, lambda: page.fill("#input_price", "1.5"))
    assert page.inner_text("#r-left") == f"≈ {indian(plan.left)}"
    settle(page, lambda: page.fill("#k", "1000"))
    warning = page.inner_text("#over-warning")
    assert hi["plan.part_retrieved"] in warning and re.search(r"[\u0900-\u097f]", warning)
    assert parse_qs(urlsplit(page.url).query)["lang"] == ["hi"]


def test_the_other_tools_link_to_the_planner_with_their_chunk_size(page):
    # The calculator: its chunk size.
    calc = CalculatorPage(page).open()
    calc.set("chunk_size", "300")
    page.wait_for_function("() => document.querySelector('#plan-link').href.includes('size=300')")
    page.click("#plan-link")
    page.wait_for_url(re.compile(r"planner\.html\?size=300$"))
    page.wait_for_selector('#plan-results[data-state="ok"]')
    assert page.input_value("#chunk_size") == "300"
    # The splitter, in Russian: its chunk size and the language.
    page.goto("splitter.html?lang=ru&size=256")
    wait_language(page, "ru")
    assert page.inner_text("#plan-link") == CATALOGS["ru"]["plan.link"]
    page.click("#plan-link")
    wait_language(page, "ru")
    assert urlsplit(page.url).path.endswith("planner.html") and page.input_value("#chunk_size") == "256"
    # The evaluation passes its tokens read per question and its k: the chunk size is read ÷ k.
    open_planner(page, "?read=2400&k=4")
    assert page.input_value("#k") == "4" and page.input_value("#chunk_size") == "600"
    assert page.inner_text("#from-hint") == ("From the evaluation: 2,400 tokens read per question at k = 4, about 600"
                                             " tokens a chunk.")
    assert parse_qs(urlsplit(page.url).query) == {"k": ["4"], "size": ["600"]}
    # The planner's own link holds its settings: opened again, it shows the same plan.
    page.select_option("#llm", "gpt-4o")
    settle(page, lambda: page.fill("#answer", "2000"))
    shown = page.inner_text("#r-left")
    page.goto(page.url)
    page.wait_for_selector('#plan-results[data-source="core"]')
    assert page.input_value("#llm") == "gpt-4o" and page.input_value("#answer") == "2000"
    assert page.inner_text("#r-left") == shown == f"{defaults('gpt-4o', k=4, chunk_tokens=600, answer=2000).left:,}"


def test_a_window_of_ones_own(page):
    """A server's window (vLLM --max-model-len, Ollama num_ctx) replaces the LLM's: in the budget, the
    warning, the link and the snippets; it stays when another LLM is chosen, and a reload keeps it."""
    open_planner(page, "?llm=llama-3.1-8b")
    llm = get_llm("llama-3.1-8b")
    assert page.input_value("#window") == str(llm.window)
    assert "num_ctx" in page.inner_text("#window-hint")
    bar = "els => els.map(e => [e.classList[1], e.style.width])"
    before = page.eval_on_selector_all("#window-bar .segment", bar)
    settle(page, lambda: page.fill("#window", "8192"))
    own = defaults("llama-3.1-8b", window=8192)
    assert own.fits and own.max_k < defaults("llama-3.1-8b").max_k
    assert page.inner_text("#r-left") == f"{own.left:,}"
    assert page.inner_text("#r-max-k") == f"{own.max_k:,}"
    assert page.inner_text("#r-max-size") == f"{own.max_chunk_size:,} tokens"
    assert page.inner_text("#parts-caption").startswith(f"{llm.name}: 8,192 tokens, of which")
    # The bar is the new window's: what is left is its share of 8,192.
    after = dict(page.eval_on_selector_all("#window-bar .segment", bar))
    assert after != dict(before)
    assert float(after["part-left"].removesuffix("%")) == pytest.approx(own.left / 8192 * 100, abs=0.001)
    assert parse_qs(urlsplit(page.url).query)["window"] == ["8192"]
    assert "window=8192" in page.text_content("#python-snippet")
    assert " --window 8192" in page.text_content("#cli-snippet")
    # Twice the chunks that fit: the part that passes the window is named, with the window given.
    settle(page, lambda: page.fill("#k", str(own.max_k * 2)))
    over = defaults("llama-3.1-8b", window=8192, k=own.max_k * 2)
    assert over.over == "retrieved context"
    assert page.inner_text("#over-warning") == (
        f"It does not fit: in the window of 8,192 tokens you gave {llm.name}, the part “Retrieved context” passes"
        f" it by {-over.left:,} tokens. Make it smaller, or give the model a larger window.")
    # The snippets give the same plan, in the window given.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}
    python = subprocess.run([sys.executable, "-c", page.text_content("#python-snippet")], env=env, capture_output=True,
                            text=True, timeout=60)
    assert python.stdout.split()[:3] == [str(over.left), str(over.max_k), str(over.max_chunk_size)], python.stderr
    command = subprocess.run([sys.executable, *shlex.split(page.text_content("#cli-snippet"))[1:]], env=env,
                             capture_output=True, text=True, timeout=60)
    assert command.returncode == 2 and "llama-3.1-8b's window of 8,192 tokens" in command.stderr, command.stderr
    # A window smaller than the answer is refused, naming the answer; a bad window names the window.
    page.fill("#window", "900")
    assert page.inner_text("#answer-error") == ("answer (1,000 tokens) is larger than the window (900): reserve less"
                                                " for the answer, or choose a model with a larger window")
    page.fill("#window", "0")
    assert page.inner_text("#window-error") == "window (0) must be at least 1: enter a larger number"
    assert page.get_attribute("#window", "aria-invalid") == "true"
    settle(page, lambda: page.fill("#window", "8192"))
    # A reload from the link shows the same plan, the window kept.
    page.goto(page.url)
    page.wait_for_selector('#plan-results[data-source="core"]')
    assert page.input_value("#window") == "8192"
    assert page.inner_text("#r-left") == f"{over.left:,}"
    # Another LLM keeps the typed window.
    settle(page, lambda: page.select_option("#llm", "gpt-4o"))
    assert page.input_value("#window") == "8192"
    mine = defaults("gpt-4o", window=8192, k=own.max_k * 2)
    assert page.inner_text("#r-left") == f"{mine.left:,}"
    assert parse_qs(urlsplit(page.url).query)["window"] == ["8192"]
    # The LLM's own window again: the link leaves it out, and the next LLM's window follows.
    settle(page, lambda: page.fill("#window", "128000"))
    assert "window" not in parse_qs(urlsplit(page.url).query)
    assert "window=" not in page.text_content("#python-snippet")
    settle(page, lambda: page.select_option("#llm", "gpt-3.5-turbo"))
    assert page.input_value("#window") == "16385"


def test_the_default_budget_is_in_the_html_without_javascript(browser, base_url):
    """The budget of the page's defaults, from plan_context at build time: there before (or without) any script."""
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("planner.html")
        plan, llm = defaults(), get_llm(PAGE_DEFAULTS["llm"])
        assert page.input_value("#window") == str(llm.window)
        assert float(page.input_value("#input_price")) == llm.input_price
        assert float(page.input_value("#output_price")) == llm.output_price
        rows = page.eval_on_selector_all("#parts-table tbody tr", "rows => rows.map(r => [r.dataset.part,"
                                         " ...[...r.cells].map(c => c.textContent)])")
        names = {"system prompt": "System prompt", "tools": "Tools", "history": "History", "question": "Question",
                 "retrieved context": "Retrieved context", "answer": "Answer"}
        assert [row[1:3] for row in rows] == [[names[p.name], f"{p.tokens:,}"] for p in plan.parts]
        share = {row[0]: row[3] for row in rows}
        assert share == {key: percent(p.tokens, plan.window) for key, p in zip(share, plan.parts, strict=True)}
        how = {row[0]: row[4] for row in rows}
        assert how["history"] == "4 turns × 200"
        assert how["retrieved"] == f"{plan.k} × ({plan.chunk_tokens} + {plan.template_tokens} of template)"
        assert page.inner_text("#r-left") == f"{plan.left:,}"
        assert page.inner_text("#r-max-k") == f"{plan.max_k:,}"
        assert page.inner_text("#r-max-size") == f"{plan.max_chunk_size:,} tokens"
        assert page.inner_text("#r-cost") == money(plan.cost_per_request)
        assert page.inner_text("#r-cost-1000") == money(plan.cost_per_1000)
        assert page.inner_text("#parts-caption") == (f"GPT-4.1: {plan.window:,} tokens, of which {plan.used:,} used"
                                                     f" ({percent(plan.used, plan.window)}).")
        assert page.inner_text("#r-left-share") == percent(plan.left, plan.window)
        assert page.is_hidden("#over-warning")
        # The bar: a rect a part that has tokens, in order, then what is left; widths as attributes
        # (the CSP allows no style attribute), each part at least a sliver.
        rects = page.eval_on_selector_all("#window-bar rect", "els => els.map(e => [e.classList[1],"
                                          " parseFloat(e.getAttribute('x')), parseFloat(e.getAttribute('width'))])")
        keys = {"system prompt": "part-system", "tools": "part-tools", "history": "part-history",
                "question": "part-question", "retrieved context": "part-retrieved", "answer": "part-answer"}
        assert [r[0] for r in rects] == [keys[p.name] for p in plan.parts if p.tokens] + ["part-left"]
        for (_, x, width), (_, following, _) in zip(rects, rects[1:]):
            assert following == pytest.approx(x + width, abs=0.002)
        assert rects[-1][1] + rects[-1][2] == pytest.approx(100, abs=0.002)
        for (_, _, width), part in zip(rects, [p for p in plan.parts if p.tokens]):
            assert width == pytest.approx(max(part.tokens / plan.window * 100, 0.25), abs=0.001)
        box = page.eval_on_selector("#window-bar rect.part-left", "e => e.getBoundingClientRect().width")
        assert box > 0.9 * page.eval_on_selector("#window-bar", "e => e.getBoundingClientRect().width")
    finally:
        context.close()
