"""Embedding models in the page: the calculator's model choice (tokenizer, price, vectors,
storage, the truncation warning), exact counts of the open models' tokenizers (equal to HF
``tokenizers`` and to CPython's ragchunk), the open models' tables fetched only when a model
of their family counts a text (with the page saying so meanwhile), and the splitter sized
for a model (every chunk within what the model reads; the download equal to
``ragchunk split --model``).
"""

from __future__ import annotations

import base64
import json
import math
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

from buildsteps.offline import OFFLINE_FILE
import pytest
from pages import CalculatorPage, SplitterPage
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from ragchunk import RagchunkError, SplitOptions, get_model, get_tokenizer, plan, windows
from ragchunk.models import model_figures
from ragchunk.api import form_spec
from shown import integer, money, number, shown_bytes
from test_splitter import cli_split

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "tables") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests" / "tables"))

import bert_reference  # noqa: E402 (tests/tables is put on the path above)
import xlmr_reference  # noqa: E402

WS = ROOT / "tests" / "data" / "md" / "ws-README.md"

# English, Russian, Hindi, CJK, emoji sequences, and text in decomposed form (NFD: Latin,
# Cyrillic, Vietnamese, Hangul jamo), ligatures and compatibility forms, a final sigma,
# zero-width characters, and the models' special-token spellings as plain text.
DECOMPOSED = unicodedata.normalize("NFD", "Café naïve résumé Ёлка йод Tiếng Việt 한국어 문장 Ångström")
MULTILINGUAL = (
    "# Chunking guide\n\nRetrieval-augmented generation splits documents into chunks. "
    "Привет, мир! Это проверка токенизации: ёжик, съешь же ещё этих мягких булок.\n"
    "नमस्ते दुनिया। यह हिंदी का एक वाक्य है॥ क्षत्रिय ज्ञान श्री\n"
    "日本語のテキストと中文文本。한국어 문장도 있습니다. ｶﾀｶﾅ ひらがな 𠀋 豈\n"
    "Emoji: 👋🏽 👨\u200d👩\u200d👧\u200d👦 🇺🇦 1\ufe0f\u20e3 ✨ — combining: Z\u0351\u036b\u0343a\u0310l\u0352go.\n"
    f"Decomposed: {DECOMPOSED}. Forms: ﬁne ﬂow Ⅻ ① ㎏ ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ İstanbul straße.\n"
    "Zero\u200bwidth\u200cjoin\u2060ers, non\u00a0breaking\u202fspaces and\ttabs.\n"
    "Specials as text: [CLS] [SEP] [MASK] [UNK] <s> </s> <mask> <pad> <|endoftext|>.\n\n"
) * 6


@pytest.fixture(scope="module")
def hf(tmp_path_factory):
    """The HF ``tokenizers`` references by ragchunk tokenizer name, built offline from pinned tables."""
    bert = bert_reference.reference_tokenizer(tmp_path_factory.mktemp("bert"))
    xlmr = xlmr_reference.reference_tokenizer(tmp_path_factory.mktemp("xlmr"))
    xlmr.encode_special_tokens = True
    return {"bert-base-uncased": bert, "xlm-roberta": xlmr}


def vectors_text(figures: dict) -> str:
    return f"{integer(figures['vectors'])} × {integer(figures['dimensions'])} dimensions"


def storage_text(figures: dict) -> str:
    return (f"{shown_bytes(figures['float32_bytes'])} as float32 · {shown_bytes(figures['int8_bytes'])} as int8"
            f" · {shown_bytes(figures['binary_bytes'])} binary")


# --- the calculator's model choice ----------------------------------------------------------


@pytest.mark.parametrize("model_id", ["bge-small-en-v1.5", "multilingual-e5-small", "text-embedding-3-small"])
def test_a_model_fills_its_tokenizer_price_and_figures(page, model_id):
    model = get_model(model_id)
    calc = CalculatorPage(page).open()
    calc.wait_core_numbers()
    assert calc.shown("#vectors-row") is None, "no model, no vectors"
    calc.set("doc", "1000000000")
    calc.set("chunk_size", "500")
    calc.choose_model(model_id)
    assert page.input_value("#encoding") == model.tokenizer
    assert calc.shown("#model-hint") == (
        f"{model.id} reads {integer(model.limit)} tokens ({model.special_tokens} of them its special tokens) and makes"
        f" vectors of {integer(model.dimensions)} dimensions; your text is counted with {model.tokenizer}.")
    expected = plan(10**9, 500, 64, model.price_per_million)
    figures = model_figures(model, expected.chunks, 500)
    assert calc.result("chunks") == integer(expected.chunks)
    assert calc.shown("#r-vectors") == vectors_text(figures)
    assert calc.shown("#r-storage") == storage_text(figures)
    if model.price_per_million is None:
        assert page.input_value("#price") == ""
        assert calc.result("cost") == "enter a price"
    else:
        assert float(page.input_value("#price")) == model.price_per_million
        assert calc.result("cost") == f"{money(expected.cost)} at {model.price_per_million:g} per million tokens"
    assert calc.shown("#model-warning") is None, "500 tokens fit each of these models"
    # An invalid form has no plan: its vectors and their storage go with the other figures.
    calc.set("overlap", "600")
    assert calc.result("chunks") == "—"
    assert calc.shown("#vectors-row") is None and calc.shown("#storage-row") is None


@pytest.mark.parametrize(("model_id", "largest", "prefix"), [
    ("bge-small-en-v1.5", 510, ""),
    ("multilingual-e5-small", 508, "passage:"),
])
def test_a_chunk_size_over_what_the_model_reads_is_warned_about(page, model_id, largest, prefix):
    model = get_model(model_id)
    assert model_figures(model, 1, 1)["largest_chunk"] == largest
    calc = CalculatorPage(page).open()
    calc.choose_model(model_id)
    for size, cut in ((1000, True), (largest + 1, True), (largest, False), (largest - 100, False)):
        calc.set("chunk_size", str(size))
        calc.wait_core_numbers()
        warning = calc.shown("#model-warning")
        if not cut:
            assert warning is None, (size, warning)
            continue
        embedded = f" embedded with its prefix “{prefix}”" if prefix else ""
        assert warning == (
            f"{model.id} cuts off everything past {largest} tokens of a chunk{embedded}: at a chunk size of"
            f" {integer(size)} the rest of each chunk would be lost; use at most {largest} tokens."), size
        # The warning does not stop the arithmetic: the figures are those of the size typed.
        chunks = plan(10_000, size, 64).chunks
        assert calc.result("chunks") == integer(chunks)
        assert calc.shown("#r-vectors") == vectors_text(model_figures(model, chunks, size))


def test_a_models_price_replaces_only_the_price_the_page_put_there(page):
    calc = CalculatorPage(page).open()
    calc.choose_model("text-embedding-3-small")
    assert page.input_value("#price") == "0.02"
    calc.choose_model("text-embedding-3-large")
    assert page.input_value("#price") == str(get_model("text-embedding-3-large").price_per_million)
    calc.choose_model("bge-base-en-v1.5")
    assert page.input_value("#price") == "", "an open model has no price: the page's own goes"
    assert calc.result("cost") == "enter a price"
    calc.set("price", "0.5")
    calc.choose_model("text-embedding-3-small")
    assert page.input_value("#price") == "0.5", "a price a person typed stays"
    calc.wait_core_numbers()
    assert calc.result("cost").endswith(" at 0.5 per million tokens")
    calc.choose_model("")
    assert calc.shown("#vectors-row") is None and calc.shown("#storage-row") is None
    assert calc.shown("#model-warning") is None
    assert page.inner_text("#model-hint") == ""


# --- exact counts of the open models' tokenizers ---------------------------------------------


@pytest.mark.parametrize("model_id", ["bge-small-en-v1.5", "multilingual-e5-small"])
def test_open_models_count_pasted_text_like_hf_tokenizers(page, hf, model_id):
    model = get_model(model_id)
    name = model.tokenizer
    reference = hf[name].encode(MULTILINGUAL, add_special_tokens=False)
    ragchunk_count = get_tokenizer(name).count(MULTILINGUAL)
    assert ragchunk_count == len(reference.ids)
    calc = CalculatorPage(page).open()
    calc.paste(MULTILINGUAL)
    assert calc.token_count() == get_tokenizer("cl100k_base").count(MULTILINGUAL)
    calc.choose_model(model_id, recount=True)
    # What the page shows: content tokens, the model's special tokens aside (the core's count).
    assert page.inner_text("#t-tokens") == f"{integer(len(reference.ids))} ({name})"
    assert number(page.inner_text("#t-chars")) == len(MULTILINGUAL), "the box kept the text as it was pasted"
    assert page.input_value("#doc") == str(len(reference.ids))
    calc.wait_core_numbers()
    chunks = plan(len(reference.ids), 512, 64).chunks
    assert calc.result("chunks") == integer(chunks)
    assert calc.shown("#r-vectors") == vectors_text(model_figures(model, chunks, 512))
    # The first windows are cut at the same tokens as CPython's (offsets through each word's span).
    cut = windows(MULTILINGUAL, 512, 64, get_tokenizer(name))
    shown = calc.windows()
    assert shown and len(shown) <= len(cut)
    for seen, window in zip(shown, cut):
        assert (seen["text"], seen["tokens"]) == (window.text, window.tokens)
    assert f"of {len(cut)})" in page.inner_text("#preview-title")


# --- the open models' tables, fetched when a model of their family counts ---------------------

# The files of each open tokenizer under the site's assets/tables/, as build.py puts them there.
FAMILY_TABLES = {name: sorted(t["file"] for t in family["tables"]) for name, family in form_spec()["tokenizers"].items()}
TABLE_URL = re.compile(r"/assets/tables/[^/]+$")
TABLES_TEXT = "Retrieval-augmented generation splits documents into chunks. Привет, мир! Это проверка токенизации.\n"


def table_of(url: str) -> str | None:
    """The file name of a request for one of the site's tables, None for any other request."""
    path = urlsplit(url).path
    return path.rsplit("/", 1)[1] if TABLE_URL.search(path) else None


def tables_requested(watch) -> list[str]:
    """The tables the page has asked the network for so far (workers' requests too), sorted."""
    return sorted(name for name in (table_of(r.url) for r in watch.requests) if name)


class HeldTables:
    """Requests for the site's tables, held at the network while shut (but those named in
    ``passing``): a load the page cannot finish before the test has seen what the page shows
    meanwhile."""

    def __init__(self, context):
        self.shut = True
        self.passing: set[str] = set()
        self.held = []
        context.route(TABLE_URL, self.arrive)  # after the guard, so tried first

    def arrive(self, route) -> None:
        if self.shut and table_of(route.request.url) not in self.passing:
            self.held.append(route)
        else:
            route.fallback()  # on to the guard, which lets the site's own files through

    def release(self) -> None:
        self.shut = False
        for route in self.held:
            route.fallback()
        self.held.clear()


@pytest.fixture
def held_tables(context):
    gate = HeldTables(context)
    yield gate
    gate.release()


def loads_tables_with_progress(page, context, gate: HeldTables, choose, tokenizer: str) -> None:
    """``choose`` makes the page count with ``tokenizer``: while the network holds its tables,
    the status line says the page is loading that tokenizer; then they go through."""
    gate.shut = True
    with context.expect_event("request", predicate=lambda request: table_of(request.url) is not None):
        choose()
    loading = f"Loading the {tokenizer} tokenizer…"
    page.wait_for_function("text => document.querySelector('#text-status').textContent.startsWith(text)", arg=loading)
    assert page.is_visible("#text-status"), "the progress is shown"
    held = sorted(table_of(route.request.url) for route in gate.held)
    assert held and set(held) <= set(FAMILY_TABLES[tokenizer]), (tokenizer, held)
    gate.release()


def test_the_calculator_fetches_a_familys_tables_only_when_one_of_its_models_counts(page, context, watch, held_tables):
    bert, xlmr = FAMILY_TABLES["bert-base-uncased"], FAMILY_TABLES["xlm-roberta"]
    calc = CalculatorPage(page).open()
    calc.paste(TABLES_TEXT)
    assert calc.token_count() == get_tokenizer("cl100k_base").count(TABLES_TEXT)
    assert tables_requested(watch) == [], "no model chosen, no tables"

    calc.after_request(lambda: loads_tables_with_progress(
        page, context, held_tables, lambda: page.select_option("#model", "bge-small-en-v1.5"), "bert-base-uncased"))
    assert tables_requested(watch) == bert, "the BERT family's tables, and only they"
    bert_count = get_tokenizer("bert-base-uncased").count(TABLES_TEXT)
    assert page.inner_text("#t-tokens") == f"{integer(bert_count)} (bert-base-uncased)"
    assert not calc.text_status().startswith("Loading"), calc.text_status()

    calc.after_request(lambda: loads_tables_with_progress(
        page, context, held_tables, lambda: page.select_option("#model", "multilingual-e5-small"), "xlm-roberta"))
    assert tables_requested(watch) == sorted(bert + xlmr), "XLM-R's tables come with its model, once"
    count = get_tokenizer("xlm-roberta").count(TABLES_TEXT)
    assert page.inner_text("#t-tokens") == f"{integer(count)} (xlm-roberta)"

    # A family's tables are fetched once: back to a BERT model, nothing more is asked for.
    calc.choose_model("all-MiniLM-L6-v2", recount=True)
    assert page.inner_text("#t-tokens") == f"{integer(bert_count)} (bert-base-uncased)"
    assert tables_requested(watch) == sorted(bert + xlmr)


def test_the_splitter_fetches_a_familys_tables_only_when_one_of_its_models_sizes(page, context, watch, held_tables):
    bert, xlmr = FAMILY_TABLES["bert-base-uncased"], FAMILY_TABLES["xlm-roberta"]
    splitter = SplitterPage(page).open()
    splitter.set("text", TABLES_TEXT)
    assert splitter.stat("chunks") == "1"
    assert tables_requested(watch) == [], "no model chosen, no tables"

    for model_id, requested in (("bge-small-en-v1.5", bert), ("multilingual-e5-small", sorted(bert + xlmr))):
        model = get_model(model_id)
        splitter.after_request(lambda: loads_tables_with_progress(
            page, context, held_tables, lambda: page.select_option("#sizer", f"model:{model_id}"), model.tokenizer))
        assert tables_requested(watch) == requested, model_id
        assert page.inner_text("#s-tokenizer").startswith(
            f"Sizes are exact token counts of {model.id} ({model.tokenizer}) of each chunk's final text.")


def built_spec(dist: Path) -> dict:
    """The SPEC of the built site's spec.js."""
    text = (dist / "spec.js").read_text(encoding="utf-8")
    return json.loads(text.split("export const SPEC = ", 1)[1].rstrip().removesuffix(";"))


def test_the_built_spec_gives_each_table_its_size_on_the_site(dist):
    """The page counts a family's load in bytes by these sizes; the offline file has the same spec."""
    spec = built_spec(dist)
    for name, family in spec["tokenizers"].items():
        assert family["tables"], name
        for table in family["tables"]:
            assert table["bytes"] == (dist / "assets" / "tables" / table["file"]).stat().st_size, (name, table)
    document = (dist / OFFLINE_FILE).read_text(encoding="utf-8")
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', document, re.DOTALL).group(1))["imports"]
    assert base64.b64decode(imports["spec.js"].split(",", 1)[1]) == (dist / "spec.js").read_bytes()


def test_the_tables_progress_counts_bytes_not_files(page, context, dist, held_tables):
    """XLM-R's first table is most of the family's bytes: with it through and the others held,
    the status line says its share of the bytes (a count of files would say 25 %)."""
    tables = built_spec(dist)["tokenizers"]["xlm-roberta"]["tables"]
    total = sum(table["bytes"] for table in tables)
    share = math.floor(tables[0]["bytes"] / total * 100)  # as the page computes it
    assert 50 <= share < 100, "the first table is most of the family, and not all of it"
    calc = CalculatorPage(page).open()
    calc.paste(TABLES_TEXT)
    assert calc.token_count() == get_tokenizer("cl100k_base").count(TABLES_TEXT)
    # Every text the status line shows, to check the percent only grows.
    calc.record_status()
    held_tables.passing = {tables[0]["file"]}

    def load_with_the_rest_held() -> None:
        with context.expect_event("request", predicate=lambda request: table_of(request.url) == tables[1]["file"]):
            page.select_option("#model", "multilingual-e5-small")
        expected = f"Loading the xlm-roberta tokenizer… {share} %"
        try:
            page.wait_for_function("text => document.querySelector('#text-status').textContent === text", arg=expected)
        except PlaywrightTimeout:
            pytest.fail(f"with the rest held the status line says {calc.text_status()!r}, not {expected!r}")
        assert [table_of(route.request.url) for route in held_tables.held] == [tables[1]["file"]]
        held_tables.release()

    calc.after_request(load_with_the_rest_held)
    assert page.inner_text("#t-tokens") == f"{integer(get_tokenizer('xlm-roberta').count(TABLES_TEXT))} (xlm-roberta)"
    assert not calc.text_status().startswith("Loading"), calc.text_status()
    loading = re.compile(r"Loading the xlm-roberta tokenizer… (\d+) %")
    percents = [int(m.group(1)) for m in map(loading.fullmatch, calc.statuses()) if m]
    assert share in percents and percents == sorted(percents) and percents[-1] <= 100, percents


# --- the splitter sized for a model ----------------------------------------------------------


def multilingual_markdown() -> str:
    sections = [("Обзор", "Привет, мир! Это проверка токенизации."), ("हिंदी", "नमस्ते दुनिया। यह हिंदी का एक वाक्य है॥"),
                ("日本語と中文", "日本語のテキストと中文文本。"), ("Mixed", MULTILINGUAL.replace("# Chunking guide\n\n", ""))]
    parts = ["# Multilingual guide\n\nA guide in many languages, to be embedded by a multilingual model.\n"]
    for title, body in sections:
        parts.append(f"## {title}\n\n" + "\n\n".join([body] * 8) + "\n")
    return "\n".join(parts)


@pytest.mark.parametrize(("model_id", "prefix"), [("all-MiniLM-L6-v2", False), ("multilingual-e5-small", True)])
def test_the_splitter_keeps_every_chunk_within_what_the_model_reads(page, tmp_path, model_id, prefix):
    model = get_model(model_id)
    source = WS if model.tokenizer == "bert-base-uncased" else tmp_path / "multilingual.md"
    if not source.exists():
        source.write_text(multilingual_markdown(), encoding="utf-8")
    text = source.read_text(encoding="utf-8")
    largest = model.max_chunk_tokens(prefix=prefix)
    splitter = SplitterPage(page).open()
    page.select_option("#sizer", f"model:{model_id}")
    assert page.is_visible("#prefix-field") == bool(model.document_prefix)
    if prefix:
        page.check("#prefix")
    # The page puts the largest chunk the model reads whole in the size box (with the prefix's room).
    assert page.input_value("#chunk_size") == str(largest)
    splitter.choose_file(source.name, source.read_bytes())
    assert splitter.errors() == {}
    assert page.inner_text("#s-tokenizer").startswith(
        f"Sizes are exact token counts of {model.id} ({model.tokenizer}) of each chunk's final text.")
    tokenizer = get_tokenizer(model.tokenizer)
    cards = splitter.all_cards()
    assert len(cards) > 3
    for card in cards:
        assert card["tokens"] <= largest, card["meta"]
        assert card["tokens"] == tokenizer.count(card["text"]), card["meta"]
    assert max(card["tokens"] for card in cards) > largest // 2, "chunks come near the limit"

    name, jsonl = splitter.download_text("download", tmp_path)
    assert name == f"{source.stem}.chunks.jsonl"
    # The overlap box follows the model's size: an eighth of it, as the library's default.
    assert page.input_value("#overlap") == str(largest // 8)
    flags = ["--by", "headings", "--size", str(largest), "--overlap", str(largest // 8), "--model", model_id]
    expected = cli_split(source, *flags, *(["--prefix"] if prefix else []))
    assert jsonl == expected
    records = [json.loads(line) for line in jsonl.splitlines()]
    assert [r["text"] for r in records] == [c["text"] for c in cards]
    # What is embedded (the heading line, by default, then the chunk) stays within what the model reads,
    # and the statistics' range is of that.
    embedded = [r.get("embed_tokens", r["tokens"]) for r in records]
    assert max(embedded) <= largest and any("embed_text" in r for r in records)
    low, _, high = (number(n) for n in splitter.stat("range").split(" / "))
    assert (low, high) == (min(embedded), max(embedded))
    assert all(text[r["start"]:r["end"]] == r["text"] for r in records)
    assert {r["model"] for r in records} == {model_id} and {r["tokenizer"] for r in records} == {model.tokenizer}
    assert page.text_content("#cli-snippet") == (
        f"python -m ragchunk split {source.name} {' '.join(flags)}{' --prefix' if prefix else ''}"
        f" --context headings --siblings apart -o {source.stem}.chunks.jsonl --stats")


def test_a_size_over_the_models_limit_is_refused_and_the_chunks_stay(page):
    model = get_model("all-MiniLM-L6-v2")
    splitter = SplitterPage(page).open()
    page.select_option("#sizer", f"model:{model.id}")
    splitter.choose_file(WS.name, WS.read_bytes())
    before = (splitter.stat("chunks"), splitter.cards())
    with pytest.raises(RagchunkError) as refused:
        SplitOptions(model=model.id, size=300, overlap=64)
    assert "enter at most 254" in str(refused.value)
    splitter.set("chunk_size", "300")
    assert splitter.errors() == {"size-error": str(refused.value)}
    assert page.get_attribute("#chunk_size", "aria-invalid") == "true"
    assert (splitter.stat("chunks"), splitter.cards()) == before
