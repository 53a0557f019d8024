"""The context planner (issue 35): the LLM catalog, the window formula, plan_context and the CLI
(``python -m ragchunk llms | context``)."""

from __future__ import annotations

import io
import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import LANGS, catalog, english
from ragchunk import RagchunkError, get_tokenizer, plan_context
from ragchunk.cli import main
from ragchunk.llms import LLMS, budget, check_tools, get_llm, llm_catalog
from ragchunk.tokenizers import ENCODINGS

PROMPT = "You answer from the sources only, and cite each one you use. Réponds en français si on te le demande."
TOOLS = json.dumps([{"type": "function", "function": {"name": "search", "description": "Search the docs",
                                                      "parameters": {"type": "object", "properties": {}}}}])


# --- the catalog

def test_every_llm_says_where_its_facts_come_from_and_when():
    assert len({llm.id for llm in LLMS}) == len(LLMS)
    for llm in LLMS:
        assert "https://" in llm.source, llm.id
        assert re.fullmatch(r"20\d\d-(0[1-9]|1[0-2])", llm.checked), llm.id
        assert llm.window > 0 and (llm.max_output is None or 0 < llm.max_output <= llm.window), llm.id
        assert (llm.input_price is None) == (llm.output_price is None), llm.id
        assert set(llm.unverified) <= {"window", "max_output", "input_price", "output_price"}, llm.id


def test_exact_models_use_a_tokenizer_ragchunk_has_and_estimates_say_their_ratio():
    for llm in LLMS:
        if llm.exact:
            assert llm.tokenizer in ENCODINGS, llm.id
        else:
            assert llm.reference in ENCODINGS and llm.tokenizer not in ENCODINGS, llm.id
            assert 0 < llm.ratio <= 2 and llm.ratio_source, llm.id
    providers = {llm.provider for llm in LLMS if not llm.exact}
    assert {"anthropic", "google"} <= providers
    assert {llm.tokenizer for llm in LLMS if llm.provider == "meta"} == {"llama3"}
    assert all(llm.exact for llm in LLMS if llm.provider == "meta")
    assert {llm.tokenizer for llm in LLMS if llm.provider == "qwen"} == {"qwen2"}
    assert all(llm.exact for llm in LLMS if llm.provider == "qwen")
    assert {"qwen2.5-7b", "qwen2.5-72b", "qwen3-8b", "qwen3-32b", "qwen3-235b-a22b"} <= {llm.id for llm in LLMS}
    assert {llm.tokenizer for llm in LLMS if llm.provider == "deepseek"} == {"deepseek"}
    assert all(llm.exact for llm in LLMS if llm.provider == "deepseek")
    assert {"deepseek-v4-pro", "deepseek-v4-flash", "deepseek-v3"} <= {llm.id for llm in LLMS}
    assert {llm.tokenizer for llm in LLMS if llm.provider == "openai"} == {"o200k_base", "cl100k_base"}


def test_the_catalog_as_json_and_by_name():
    data = llm_catalog()
    assert [item["id"] for item in data] == [llm.id for llm in LLMS]
    assert {"window", "max_output", "input_price", "output_price", "checked", "tokenizer", "exact", "source"} <= set(data[0])
    assert get_llm(" GPT-4.1 ") is get_llm("gpt-4.1")
    with pytest.raises(RagchunkError) as caught:
        get_llm("gpt-9")
    assert caught.value.field == "llm" and caught.value.code == "unknown_llm" and "gpt-4.1" in caught.value.message


# --- the formula

def test_the_formula_on_a_worked_example():
    shared = budget(16_385, 1000, [("system prompt", 300), ("history", 8 * 300), ("question", 40)], 5, 512, 6, 0.5, 1.5)
    assert shared["used"] == 300 + 2400 + 40 + 5 * 518 + 1000 == 6330
    assert shared["left"] == 16_385 - 6330
    assert shared["max_k"] == (16_385 - 2740 - 1000) // 518 == 24
    assert shared["max_chunk_size"] == (16_385 - 2740 - 1000) // 5 - 6 == 2523
    assert shared["cost_per_request"] == (5330 * 0.5 + 1000 * 1.5) / 1_000_000
    assert shared["cost_per_1000"] == shared["cost_per_request"] * 1000
    assert [part["name"] for part in shared["parts"]] == ["system prompt", "history", "question", "retrieved context",
                                                          "answer"]


def test_the_part_that_passes_the_window_is_named():
    assert budget(8000, 1000, [("system prompt", 6000)], 4, 512, 0, None, None)["over"] == "retrieved context"
    assert budget(8000, 1000, [("system prompt", 9000)], 0, 512, 0, None, None)["over"] == "system prompt"
    assert budget(8000, 1000, [("system prompt", 6999)], 0, 512, 0, None, None)["over"] is None
    assert budget(8000, 1000, [("system prompt", 7001)], 0, 512, 0, None, None)["over"] == "answer"


counts = st.integers(min_value=0, max_value=200_000)


@settings(max_examples=400, deadline=None)
@given(window=st.integers(1, 2_000_000), answer=counts, fixed=st.lists(counts, max_size=4), k=st.integers(0, 500),
       chunk=st.integers(0, 20_000), wrap=st.integers(0, 50))
def test_the_inversions_are_the_largest_that_fit(window, answer, fixed, k, chunk, wrap):
    parts = [(f"part {i}", tokens) for i, tokens in enumerate(fixed)]
    shared = budget(window, answer, parts, k, chunk, wrap, None, None)
    assert shared["left"] == window - sum(fixed) - answer - k * (chunk + wrap)
    assert (shared["over"] is None) == (shared["left"] >= 0)

    def fits(k_: int, chunk_: int) -> bool:
        return budget(window, answer, parts, k_, chunk_, wrap, None, None)["over"] is None

    base_fits = fits(0, chunk)
    if shared["max_k"] is not None and base_fits:
        assert fits(shared["max_k"], chunk) and not fits(shared["max_k"] + 1, chunk)
    if k and shared["max_chunk_size"] is not None and fits(k, 0):
        size = shared["max_chunk_size"]
        assert fits(k, size) and (not fits(k, size + 1) or size + 1 + wrap <= 0)


# --- plan_context

def test_text_is_counted_exactly_with_the_models_tokenizer():
    o200k = get_tokenizer("o200k_base")
    plan = plan_context("gpt-4.1", system=PROMPT, tools=TOOLS, history=(8, 300), question="What is a chunk?",
                        k=5, chunk_tokens=512, template="Source: {source}\n{text}\n", source="guide.md")
    tokens = {part.name: part.tokens for part in plan.parts}
    assert tokens["system prompt"] == o200k.count(PROMPT)
    assert tokens["tools"] == o200k.count(TOOLS)
    assert tokens["history"] == 2400 and tokens["question"] == o200k.count("What is a chunk?")
    assert plan.template_tokens == o200k.count("Source: guide.md\n\n")
    assert tokens["retrieved context"] == 5 * (512 + plan.template_tokens)
    assert all(part.exact for part in plan.parts) and not plan.estimate
    assert plan.left == 1_047_576 - sum(tokens.values())
    cl100k = plan_context("gpt-3.5-turbo", system=PROMPT)
    assert cl100k.parts[0].tokens == get_tokenizer("cl100k_base").count(PROMPT)


def test_a_model_without_a_public_tokenizer_is_estimated_and_says_so():
    reference = get_tokenizer("o200k_base").count(PROMPT)
    haiku = plan_context("claude-haiku-4-5", system=PROMPT, question=12)
    assert haiku.estimate and haiku.counted_by == "o200k_base" and haiku.ratio == 1.0
    assert haiku.parts[0].tokens == reference and not haiku.parts[0].exact
    assert haiku.parts[3].exact  # a number given is taken as it is
    assert any("estimated" in note for note in haiku.notes)
    mine = plan_context("claude-sonnet-5", system=PROMPT, ratio=1.25)
    assert mine.parts[0].tokens == math.ceil(get_tokenizer("o200k_base").count(PROMPT) * 1.25)
    assert "your ratio" in mine.notes[0]


def test_window_and_prices_can_be_given():
    plan = plan_context("llama-3.1-8b", system=1000, k=4, chunk_tokens=1000, window=8192, answer=2000,
                        input_price=0.1, output_price=0.2)
    assert plan.window == 8192 and plan.left == 8192 - 7000 and plan.max_k == 5
    assert plan.cost_per_request == (5000 * 0.1 + 2000 * 0.2) / 1_000_000
    assert plan_context("llama-3.1-8b").cost_per_request is None


def test_a_request_that_does_not_fit_names_the_part():
    plan = plan_context("gpt-3.5-turbo", history=(30, 500), k=10, chunk_tokens=512)
    assert not plan.fits and plan.over == "retrieved context" and plan.left == 16_385 - 21_120
    error = plan.overflow()
    assert error.field == "chunks" and error.code == "context_over_window"
    assert "retrieved context passes it by 4,735 tokens" in error.message
    assert plan_context("gpt-4.1").overflow() is None


BAD = {
    "answer over the window": (dict(window=500, answer=1000), "answer", "answer_over_window"),
    "answer over the model": (dict(answer=40_000), "answer", "answer_over_model"),
    "negative history": (dict(history=(-3, 300)), "history", "too_small"),
    "negative question": (dict(question=-1), "question", "too_small"),
    "negative k": (dict(k=-1, chunk_tokens=512), "chunks", "too_small"),
    "tools not json": (dict(tools='[{"name": "search",\n  "x": }]'), "tools", "tools_not_json"),
    "template without text": (dict(k=1, chunk_tokens=10, template="Source: {source}"), "template",
                              "template_without_text"),
    "ratio": (dict(ratio=0), "ratio", "ratio_out_of_range"),
    "price": (dict(input_price=-1), "input_price", "too_small"),
    "history shape": (dict(history=(1, 2, 3)), "history", "history_shape"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_names_the_field_and_is_said_in_every_language(case):
    kwargs, field, code = BAD[case]
    with pytest.raises(RagchunkError) as caught:
        plan_context("gpt-4.1", **kwargs)
    error = caught.value
    assert (error.field, error.code) == (field, code)
    if code != "too_small":  # the shared sentence takes its label from the page
        assert english(error) == error.message
    for lang in LANGS:
        assert catalog(lang)[f"error.{code}"], lang


def test_bad_tools_json_gives_line_and_column():
    with pytest.raises(RagchunkError) as caught:
        plan_context("gpt-4.1", tools='[{"name": "search",\n  "x": }]')
    assert caught.value.params["line"] == 2 and caught.value.params["column"] == 8
    assert "line 2, column 8" in caught.value.message


NEW_CODES = ("unknown_llm", "tools_not_json", "history_shape", "template_without_text", "answer_over_window",
             "answer_over_model", "context_over_window", "ratio_out_of_range")


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_says_the_planners_errors_with_their_params(lang):
    english_words = catalog("en")
    for code in NEW_CODES:
        said = catalog(lang)[f"error.{code}"]
        assert set(re.findall(r"\{(\w+)\}", said)) == set(re.findall(r"\{(\w+)\}", english_words[f"error.{code}"])), code


def test_the_overflow_is_said_in_every_language():
    error = plan_context("gpt-3.5-turbo", history=20_000).overflow()
    assert english(error) == error.message
    assert all(f"error.{error.code}" in catalog(lang) for lang in LANGS)


# --- the command line

def run(capsys, *argv: str) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue(), capsys.readouterr().err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "prompt.txt").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "tools.json").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"a": 1,\n"b" 2}', encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("café".encode("latin-1"))
    return tmp_path


def test_cli_context_json_is_the_library_plan(capsys, files):
    code, out, err = run(capsys, "context", "--llm", "gpt-4.1", "--system", str(files / "prompt.txt"), "--tools",
                         str(files / "tools.json"), "--history", "8x300", "--question", "40", "--chunks", "5x512",
                         "--template", r"Source: {source}\n{text}\n", "--answer", "1000", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    expected = plan_context("gpt-4.1", system=PROMPT, tools=TOOLS, history=(8, 300), question=40, k=5,
                            chunk_tokens=512, template="Source: {source}\n{text}\n").to_json()
    assert data == expected
    assert {"llm", "window", "parts", "left", "max_k", "max_chunk_size", "cost_per_request", "cost_per_1000"} <= set(data)
    assert all({"name", "tokens", "exact"} <= set(part) for part in data["parts"])


def test_cli_context_text_and_inversions(capsys, files):
    code, out, _ = run(capsys, "context", "--system", str(files / "prompt.txt"), "--history", "8x300", "--chunks",
                       "5x512")
    assert code == 0
    plan = plan_context("gpt-4.1", system=PROMPT, history=(8, 300), k=5, chunk_tokens=512)
    assert f"left {plan.left:>12,}".replace(" ", "") in out.replace(" ", "")
    assert f"largest k at 512 + 0 tokens a chunk: {plan.max_k:,}" in out
    assert f"${plan.cost_per_1000:,.2f} per 1,000 requests" in out
    code, out, _ = run(capsys, "context", "--system", str(files / "prompt.txt"), "--chunks", "5x512", "--max-k",
                       "--max-size")
    alone = plan_context("gpt-4.1", system=PROMPT, k=5, chunk_tokens=512)
    assert code == 0 and out.split() == [str(alone.max_k), str(alone.max_chunk_size)]


def test_cli_estimates_are_marked(capsys, files):
    code, out, _ = run(capsys, "context", "--llm", "claude-haiku-4-5", "--system", str(files / "prompt.txt"))
    assert code == 0 and "≈ estimate: o200k_base × 1" in out and "note: claude-haiku-4-5 has no tokenizer" in out


def test_cli_exits_2_naming_the_part_that_does_not_fit(capsys):
    code, out, err = run(capsys, "context", "--llm", "gpt-3.5-turbo", "--history", "30x500", "--chunks", "10x512")
    assert code == 2 and "over, at the retrieved context" in out
    assert err.startswith("ragchunk: error: --chunks: the request does not fit in gpt-3.5-turbo's window")


@pytest.mark.parametrize(("argv", "flag", "words"), [
    (["--tools", "{bad}"], "--tools", "neither a file nor a number"),
    (["--answer", "40000"], "--answer", "reserve at most 32,768"),
    (["--window", "500"], "--answer", "larger than the window (500)"),
    (["--history=-3x300"], "--history", "must be at least 0"),
    (["--chunks", "5 chunks"], "--chunks", "write it as 5x512"),
    (["--chunks", "5x512", "--template", "Source"], "--template", "has no {text}"),
    (["--llm", "gpt-9"], "--llm", "choose one of gpt-5.4"),
    (["--output-price=-2"], "--output-price", "output price per million tokens (-2.0) must be at least 0"),
    (["--question", "forty"], "--question", "neither a file nor a number"),
])
def test_cli_bad_values_name_the_flag(capsys, argv, flag, words):
    code, out, err = run(capsys, "context", *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"ragchunk: error: {flag}") and words in err, err


def test_cli_bad_tools_file_and_unreadable_text(capsys, files):
    code, _, err = run(capsys, "context", "--tools", str(files / "bad.json"))
    assert code == 2 and "--tools: tools are not valid JSON at line 2, column 5" in err
    code, _, err = run(capsys, "context", "--system", str(files / "latin1.txt"))
    assert code == 1 and "latin1.txt is not UTF-8 text" in err


def test_cli_context_help_says_its_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["context", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "2 a bad flag or value, or a request that does not fit" in shown


def test_cli_llms(capsys):
    code, out, _ = run(capsys, "llms", "--json")
    assert code == 0 and json.loads(out) == llm_catalog()
    code, out, _ = run(capsys, "llms")
    assert code == 0 and all(llm.id in out for llm in LLMS) and "estimate: o200k_base" in out


# --- the page's request (the worker's "context")

def test_the_workers_context_request_is_plan_context():
    from ragchunk.api import Workspace

    def ask(payload):
        return json.loads(Workspace().handle("context", json.dumps(payload)))

    reply = ask({"llm": "gpt-4.1", "system": PROMPT, "tools": TOOLS, "turns": 4, "turn_tokens": 200, "question": 50,
                 "k": 5, "chunk_tokens": 512, "template": "Source: {source}\n{text}\n", "source": "guide.md",
                 "answer": 1000, "input_price": 1.5, "output_price": None})
    plan = plan_context("gpt-4.1", system=PROMPT, tools=TOOLS, history=(4, 200), question=50, k=5, chunk_tokens=512,
                        template="Source: {source}\n{text}\n", source="guide.md", answer=1000, input_price=1.5)
    assert reply == {"ok": True, "result": plan.to_json()}
    assert reply["result"]["parts"][0] == {"name": "system prompt", "tokens": get_tokenizer("o200k_base").count(PROMPT),
                                           "exact": True, "given": "text", "detail": ""}
    # Refusals name their field: tools that are not JSON (line and column), an answer the model cannot write.
    [error] = ask({"llm": "gpt-4o-mini", "tools": '[\n {"a": 1,}\n]'})["errors"]
    assert (error["field"], error["code"], error["params"]["line"]) == ("tools", "tools_not_json", 2)
    [error] = ask({"llm": "gpt-3.5-turbo", "answer": 5000})["errors"]
    assert (error["field"], error["code"], error["params"]["maximum"]) == ("answer", "answer_over_model", 4096)
    # A request that passes the window is still a plan: the page names the part.
    over = ask({"llm": "gpt-3.5-turbo", "k": 40, "chunk_tokens": 512})["result"]
    assert (over["fits"], over["over"]) == (False, "retrieved context")


def test_the_page_says_every_reason_json_gives_in_each_language():
    """The planner's page says why tools are not JSON in its language: json_reason.<slug> of
    the reason (web/tools/planner/tool.js makes the slug the same way)."""
    def slug(reason: str) -> str:
        words = reason.replace("':'", "colon").replace("','", "comma").lower()
        return "json_reason." + re.sub(r"^_|_$", "", re.sub(r"[^a-z]+", "_", words))

    english = catalog("en")
    said = {key: value for key, value in english.items() if key.startswith("json_reason.")}
    assert said and all(slug(value) == key for key, value in said.items())
    for bad in ("", "[1,]", "{1}", '{"a" 1}', "[1 2]", "[1] x", '"abc', '"\x01"', '"\\q"', '"\\u12"', '{"a": 1,}'):
        with pytest.raises(RagchunkError) as caught:
            check_tools(bad)
        assert slug(caught.value.params["reason"]) in said, bad
    for lang in LANGS:
        assert set(said) <= set(catalog(lang)), lang
