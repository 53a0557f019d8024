"""The planner page's JS mirror of the formula (web/core/budget.js) equals the Python core.

The page answers from the mirror while Python boots (issue 35), so both must give the same
numbers: ``budget`` over thousands of generated cases (edge cases, parts larger than the
window, no price, k or chunk size 0), and ``planCounts`` against :func:`ragchunk.plan_context`
with every part given as tokens, for every LLM of the catalog, with its window or one of the
person's own (its checks included). The JS runs under Node, as the page's file is served.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

from ragchunk import RagchunkError, plan_context
from ragchunk.llms import budget
from ragchunk.llms.context import MAX_K, MAX_PART_TOKENS, MAX_WINDOW, planner_spec

HERE = Path(__file__).resolve().parent
NAMES = ["system prompt", "tools", "history", "question"]
PRICES = [None, 0.0, 0.15, 2.0, 2.5, 1.25, 0.3, 15.0, 1e-9, 999_999.99]


def budget_cases(rng: random.Random) -> list[list]:
    edges = [0, 1, 2, 511, 512, 513, 1000, 4096, 16_385, 131_072, 1_047_576, MAX_WINDOW]
    cases = [
        [1_047_576, 1000, [["system", 500], ["question", 40]], 5, 512, 8, 2.0, 8.0],
        [8000, 1000, [["system", 6000]], 4, 512, 0, None, None],
        [8000, 1000, [["system", 7001]], 0, 512, 0, None, None],
        [1, 1, [], 0, 0, 0, 0.0, 0.0],
        [MAX_WINDOW, 0, [[name, MAX_PART_TOKENS] for name in NAMES], MAX_K, MAX_PART_TOKENS, 7, 1e6, 1e6],
    ]
    for _ in range(4000):
        window = rng.choice(edges) if rng.random() < 0.3 else rng.randint(1, MAX_WINDOW)
        scale = rng.choice([10, 1000, window, 10 * window, MAX_PART_TOKENS])
        fixed = [[name, rng.randint(0, max(0, scale // 8))] for name in NAMES if rng.random() < 0.8]
        price_in, price_out = rng.choice(PRICES), rng.choice(PRICES)
        if rng.random() < 0.3:
            price_in = round(rng.uniform(0, 100), rng.randint(0, 6))
        if price_in is None or rng.random() < 0.1:
            price_out = price_in  # both or neither, usually; one alone has no cost either
        cases.append([window, rng.randint(0, min(window, 200_000)), fixed, rng.choice([0, 1, 5, rng.randint(0, MAX_K)]),
                      rng.choice([0, 1, 512, rng.randint(0, scale)]), rng.choice([0, 5, rng.randint(0, 100)]),
                      price_in, price_out])
    return cases


def plan_cases(rng: random.Random, llms: list[dict]) -> list[list]:
    cases = []
    for llm in llms:
        for _ in range(60):
            history = [rng.randint(0, 50), rng.randint(0, 2000)] if rng.random() < 0.5 else rng.randint(0, 50_000)
            counts = {"system": rng.randint(0, 20_000), "tools": rng.choice([0, rng.randint(0, 5000)]), "history": history,
                      "question": rng.randint(0, 500), "k": rng.choice([0, 5, rng.randint(0, 3000)]),
                      "chunkTokens": rng.choice([0, 512, rng.randint(0, 100_000)]),
                      "answer": rng.choice([0, 1000, rng.randint(0, llm["window"]), llm["window"] + 1,
                                                llm["max_output"] or 0])}
            if rng.random() < 0.3:
                counts["inputPrice"], counts["outputPrice"] = rng.choice(PRICES[1:]), rng.choice(PRICES[1:])
            if rng.random() < 0.3:
                counts["ratio"] = rng.choice([0.5, 1, 1.2, 1.37, 2, 99.5])
            if rng.random() < 0.4:
                # A server's own window (vLLM --max-model-len, Ollama num_ctx): often far below the model's.
                own = rng.choice([1, 2048, 4096, 8192, 32_768, rng.randint(1, MAX_WINDOW)])
                counts["window"] = own
                counts["answer"] = rng.choice([0, min(own, 1000), rng.randint(0, own), own, own + 1])
            cases.append([llm, counts])
    return cases


def python_plan(llm: dict, counts: dict) -> dict:
    history = tuple(counts["history"]) if isinstance(counts["history"], list) else counts["history"]
    try:
        plan = plan_context(llm["id"], system=counts["system"], tools=counts["tools"], history=history,
                            question=counts["question"], k=counts["k"], chunk_tokens=counts["chunkTokens"],
                            answer=counts["answer"], input_price=counts.get("inputPrice"),
                            output_price=counts.get("outputPrice"), ratio=counts.get("ratio"),
                            window=counts.get("window"))
    except RagchunkError as err:
        return {"ok": False, "errors": [{"field": err.field, "code": err.code, "params": err.params}]}
    return {"ok": True, "result": plan.to_json()}


def as_floats(answer: dict) -> dict:
    """JSON from JS writes a whole float as an integer (2.5e17 as 250000000000000000): read prices and costs as floats."""
    return {key: float(value) if key in FLOATS and value is not None else value for key, value in answer.items()}


FLOATS = {"cost_per_request", "cost_per_1000", "input_price", "output_price", "ratio"}


def test_the_js_mirror_gives_what_python_gives(tmp_path):
    node = shutil.which("node")
    assert node, "needs node (build.py test installs it)"
    rng = random.Random(35)
    llms = planner_spec()["llms"]
    budgets, plans = budget_cases(rng), plan_cases(rng, llms)
    (tmp_path / "input.json").write_text(json.dumps({"budget": budgets, "plans": plans}))
    ran = subprocess.run([node, str(HERE / "budget_mirror.mjs"), str(tmp_path / "input.json")], capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    js = json.loads(ran.stdout)
    for case, answer in zip(budgets, js["budget"], strict=True):
        assert as_floats(answer) == budget(case[0], case[1], [tuple(p) for p in case[2]], *case[3:]), case
    for (llm, counts), answer in zip(plans, js["plans"], strict=True):
        expected = python_plan(llm, counts)
        if answer["ok"]:
            answer = {**answer, "result": as_floats(answer["result"])}
        assert answer == expected, (llm["id"], counts)
    # The cases reach every branch: overflow at each part, no price, no k, both refusals.
    overs = {answer["over"] for answer in js["budget"]}
    assert {None, "system prompt", "tools", "history", "question", "retrieved context", "answer"} <= overs
    assert any(answer["cost_per_request"] is None for answer in js["budget"])
    assert any(answer["max_chunk_size"] is None for answer in js["budget"])
    codes = {error["code"] for answer in js["plans"] if not answer["ok"] for error in answer["errors"]}
    assert codes == {"answer_over_window", "answer_over_model"}
    assert sum(answer["ok"] and answer["result"]["estimate"] for answer in js["plans"]) > 100
    # A window of one's own is the plan's window, and the answer is checked against it.
    own = [(counts, answer) for (_, counts), answer in zip(plans, js["plans"], strict=True) if "window" in counts]
    assert sum(answer["ok"] and answer["result"]["window"] == counts["window"] for counts, answer in own) > 100
    assert any(answer["ok"] and answer["result"]["over"] is not None for _, answer in own)
    assert any(not answer["ok"] and answer["errors"][0]["params"].get("window") == counts["window"]
               for counts, answer in own)
