"""The planner's default budget written into planner.html, so it is there without JavaScript.

:func:`ragchunk.plan_context` of the page's defaults (``PAGE_DEFAULTS``), said in English as
web/tools/planner/tool.js says a plan (en.json's words, numbers as Intl writes them in
en-US): the rows of the parts table, Left, the largest k and chunk size, the costs, and the
bar. When the build's Python has no tiktoken (python3 build.py build), the default LLM's
encoding counts the template under Node with the page's own engine (npm tiktoken's WASM,
count_tokens.mjs), given to the core as that encoding's tokenizer; a Python with tiktoken
(the tests' build) counts with it, and its registry is left as it was. The site's Content-Security-Policy (policy.py: style-src 'self') refuses style
attributes, so the bar is an SVG whose rects take their widths as attributes; tool.js
replaces all of it on its first render, in the page's language.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import subprocess
import tempfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from .common import ROOT, WEB, core_on_path
from .tables import encoder_tables, table_path

ENGLISH = WEB / "i18n" / "en.json"
# Each part's key in the catalogs (plan.part_<key>) and its colour class, as tool.js's PART_KEYS.
PART_KEYS = {"system prompt": "system", "tools": "tools", "history": "history", "question": "question",
             "retrieved context": "retrieved", "answer": "answer"}
# The bar's CSS gives a part at least 2 px (style.css, .window-bar .segment); the drawn bar
# gives it at least this share of the width, so a part of a few hundred tokens still shows.
MIN_SHARE = 0.25


def _decimal(value: float) -> Decimal:
    # Intl formats a number's shortest decimal (ICU), rounding half away from zero.
    return Decimal(repr(value))


def number(n: int) -> str:
    """An integer as Intl's en-US writes it: 1,047,576."""
    return f"{n:,}"


def percent(share: float, english: dict) -> str:
    """A share as i18n.js's formatPercent in English: "0.1 %"."""
    shown = _decimal(share * 100).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return english["format.percent"].replace("{n}", f"{shown:,}")


def money(cost: float) -> str:
    """A cost as i18n.js's formatMoney in English: cents from 1 up, else 3 significant digits."""
    if cost == 0:
        return "0"
    exact = _decimal(cost)
    if cost >= 1:
        return f"{exact.quantize(Decimal('0.01'), ROUND_HALF_UP):,}"
    rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 2), ROUND_HALF_UP)
    return f"{rounded.normalize():f}"


def say(english: dict, key: str, **params: object) -> str:
    """en.json's ``key`` filled as i18n.js's t(): a plural entry chosen by ``count`` (English: one or other)."""
    text = english[key]
    if isinstance(text, dict):
        count = params.get("count", 0)
        text = text["one" if count == 1 else "other"]
    shown = {name: number(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
             for name, value in params.items()}
    return re.sub(r"\{(\w+)\}", lambda m: shown.get(m.group(1), m.group(0)), text)


class NodeCounter:
    """An encoding's counts as the page makes them, for :func:`ragchunk.plan_context` (it only counts)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.table = table_path(encoder_tables()[name])

    def count(self, text: str) -> int:
        with tempfile.TemporaryDirectory() as folder:
            texts = Path(folder) / "texts.json"
            texts.write_text(json.dumps([text]), encoding="utf-8")
            ran = subprocess.run(["node", str(ROOT / "buildsteps" / "count_tokens.mjs"), str(self.table), str(texts)],
                                 capture_output=True, text=True, cwd=ROOT)
        if ran.returncode:
            raise SystemExit(f"build.py: counting with {self.name} under Node failed: {ran.stderr[-2000:]}")
        return json.loads(ran.stdout)[0]


def _how(part, plan, english: dict) -> str:
    # tool.js's howCounted.
    key = PART_KEYS[part.name]
    if not part.exact:
        return say(english, "plan.counted_approx", reference=plan.counted_by)
    if key == "retrieved":
        return say(english, "plan.how_retrieved", k=plan.k, size=plan.chunk_tokens, template=plan.template_tokens)
    if key == "answer":
        return say(english, "plan.how_reserved")
    if part.given == "text":
        return say(english, "plan.how_text", tokenizer=plan.counted_by)
    if key == "history" and part.detail:
        turns, each = (int(n.replace(",", "")) for n in part.detail.split(" × "))
        return say(english, "plan.how_turns", count=turns, each=each)
    return say(english, "plan.how_given")


def bar(plan) -> str:
    """The window as an SVG: a rect a part (at least MIN_SHARE % wide), then what is left."""
    drawn = []
    room = plan.window
    for part in plan.parts:
        shown = max(0, min(part.tokens, room))
        room -= shown
        if part.tokens:
            drawn.append((PART_KEYS[part.name], max(shown / plan.window * 100, MIN_SHARE)))
    used = sum(width for _, width in drawn)
    if plan.left > 0 and used < 100:
        drawn.append(("left", 100 - used))
    rects = []
    x = 0.0
    for key, width in drawn:
        rects.append(f'<rect class="segment part-{key}" x="{x:.3f}%" y="0" width="{width:.3f}%" height="100%"/>')
        x += width
    return ('<svg class="drawn" width="100%" height="100%" focusable="false">' + "".join(rects) + "</svg>")


def planner_values() -> dict[str, str]:
    """The placeholders of tools/planner/body.html that hold the default plan (``plan.r_*``,
    ``plan.window`` and the prices of the default LLM)."""
    core_on_path()
    from ragchunk import plan_context
    from ragchunk.llms import get_llm
    from ragchunk.llms.context import PAGE_DEFAULTS
    from ragchunk.tokenizers import REGISTRY

    d = PAGE_DEFAULTS
    llm = get_llm(str(d["llm"]))
    if importlib.util.find_spec("tiktoken") is None:
        REGISTRY.provide(llm.counted_by, lambda: NodeCounter(llm.counted_by))
    plan = plan_context(llm, system=d["system"], tools=d["tools"], history=(d["turns"], d["turn_tokens"]),
                        question=d["question"], k=d["k"], chunk_tokens=d["chunk_tokens"], template=str(d["template"]),
                        answer=d["answer"])
    if not plan.fits:
        raise SystemExit(f"build.py: the planner's defaults do not fit in {llm.id}'s window: the page says no overflow"
                         " at first paint")
    english = json.loads(ENGLISH.read_text(encoding="utf-8"))
    exact = all(part.exact for part in plan.parts)

    def figure(text: str) -> str:
        # A figure made from an estimated part is an estimate too (tool.js's render).
        return text if exact else say(english, "plan.approx", n=text)

    rows = []
    for part in plan.parts:
        key = PART_KEYS[part.name]
        tokens = number(part.tokens) if part.exact else say(english, "plan.approx", n=number(part.tokens))
        cells = [
            f'<th scope="row"><span class="swatch part-{key}" aria-hidden="true"></span>'
            f'<span>{html.escape(english[f"plan.part_{key}"])}</span></th>',
            f'<td class="num">{tokens}</td>',
            f'<td class="num">{percent(part.tokens / plan.window, english)}</td>',
            f"<td>{html.escape(_how(part, plan, english))}</td>",
        ]
        rows.append(f'<tr data-part="{key}">{"".join(cells)}</tr>')
    if plan.cost_per_request is None:
        cost = cost_1000 = say(english, "plan.cost_none")
    else:
        cost = figure(say(english, "plan.cost_value", cost=money(plan.cost_per_request)))
        cost_1000 = figure(say(english, "plan.cost_value", cost=money(plan.cost_per_1000)))
    values = {
        "window": str(plan.window),
        # The default template's exact count for the default LLM: the page starts from it
        # (tool.js) instead of estimating the template until the worker is ready.
        "template_tokens": str(plan.template_tokens) if exact else "",
        "input_price": "" if llm.input_price is None else repr(llm.input_price).removesuffix(".0"),
        "output_price": "" if llm.output_price is None else repr(llm.output_price).removesuffix(".0"),
        "r_bar": bar(plan),
        "r_caption": html.escape(say(english, "plan.caption", llm=llm.name,
                                     window=say(english, "count.tokens", count=plan.window), used=plan.used,
                                     share=percent(plan.used / plan.window, english))),
        "r_rows": "\n".join(rows),
        "r_left": figure(number(plan.left)),
        "r_left_share": percent(plan.left / plan.window, english),
        "r_max_k": say(english, "plan.none") if plan.max_k is None else figure(number(plan.max_k)),
        "r_max_size": say(english, "plan.no_k") if plan.max_chunk_size is None
        else figure(say(english, "count.tokens", count=plan.max_chunk_size)),
        "r_cost": html.escape(cost),
        "r_cost_1000": html.escape(cost_1000),
    }
    return {f"plan.{key}": value for key, value in values.items()}
