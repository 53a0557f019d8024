"""The pages build.py writes, as a person reads them before any script runs: the calculator's
worked example is the core's plan of the default settings, not numbers typed into the HTML."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import ragchunk.api
from ragchunk.calculator import plan

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from buildsteps.site import page_values, tool_page, tool_registry  # noqa: E402


def first_paint(element_id: str) -> str:
    """The text of the <p id=element_id> of the calculator's page as built (no JavaScript)."""
    tools = tool_registry()
    calculator = next(tool for tool in tools if tool["name"] == "calculator")
    page = tool_page(calculator, tools, page_values())
    inner = re.search(rf'<p id="{element_id}"[^>]*>(.*?)</p>', page, re.DOTALL).group(1)
    return html.unescape(re.sub(r"<[^>]+>", "", inner))


def test_the_worked_example_is_the_core_plan_of_the_defaults(monkeypatch):
    spec = ragchunk.api.form_spec()
    defaults = {**spec["defaults"], "doc_tokens": 5_000, "chunk_size": 300, "overlap": 50}
    monkeypatch.setattr(ragchunk.api, "form_spec", lambda: {**spec, "defaults": defaults})
    p = plan(5_000, 300, 50)
    assert (p.chunks, p.total_tokens, p.repeated_tokens) == (20, 5_950, 950)
    assert first_paint("how-example") == (
        "Example: 5,000 tokens, chunks of 300 with 50 overlap → step 250, 1 + ⌈4,700 ÷ 250⌉ = 20 chunks,"
        " 5,000 + 19 × 50 = 5,950 tokens, of which 950 (16.0 %) are repeated: 19.0 % more than the document."
    )



def test_the_planners_budget_is_plan_context_of_its_defaults(monkeypatch):
    """planner.html's figures before any script: the core's plan of the page's defaults, an
    estimated model's marked ≈ as the page marks them."""
    from buildsteps.planner_page import planner_values
    from ragchunk import plan_context
    from ragchunk.llms.context import PAGE_DEFAULTS

    monkeypatch.setitem(PAGE_DEFAULTS, "llm", "claude-haiku-4-5")
    monkeypatch.setitem(PAGE_DEFAULTS, "k", 7)
    d = PAGE_DEFAULTS
    p = plan_context("claude-haiku-4-5", system=d["system"], tools=d["tools"], history=(d["turns"], d["turn_tokens"]),
                     question=d["question"], k=7, chunk_tokens=d["chunk_tokens"], template=d["template"],
                     answer=d["answer"])
    values = planner_values()
    assert values["plan.window"] == "200000" and values["plan.input_price"] == "1"
    assert values["plan.r_left"] == f"≈ {p.left:,}"
    assert values["plan.r_max_k"] == f"≈ {p.max_k:,}"
    assert values["plan.r_max_size"] == f"≈ {p.max_chunk_size:,} tokens"
    rows = re.findall(r'<tr data-part="(\w+)">(.*?)</tr>', values["plan.r_rows"])
    assert [key for key, _ in rows] == ["system", "tools", "history", "question", "retrieved", "answer"]
    retrieved = [html.unescape(re.sub(r"<[^>]+>", "|", cells)) for key, cells in rows if key == "retrieved"][0]
    assert f"≈ {p.parts[4].tokens:,}" in retrieved and "≈ estimate (o200k_base)" in retrieved
    assert values["plan.r_bar"].count("<rect") == 6  # five parts with tokens (no tools), and what is left


def test_the_builds_node_count_is_the_cores(tmp_path):
    """Without tiktoken in the build's Python, the template is counted under Node: the same counts."""
    from buildsteps.planner_page import NodeCounter
    from ragchunk import get_tokenizer

    for name in ("o200k_base", "cl100k_base"):
        for text in ("Source: \n\n", "Source: guide.md\n\n", "<doc id=\"{n}\">\n\n</doc>\n", "Источник: руководство\n"):
            assert NodeCounter(name).count(text) == get_tokenizer(name).count(text), (name, text)
