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

