"""ragchunk.models: the catalog, the limit enforced in every split, and the CLI's --model."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from strategies import examples, heading, markdown  # noqa: E402

import ragchunk  # noqa: E402
import ragchunk.results.records  # noqa: E402
from ragchunk.cli import main  # noqa: E402
from ragchunk.models import MODELS, UnknownModelError, get_model, model_figures  # noqa: E402
from ragchunk.options import SplitOptions  # noqa: E402
from ragchunk.tokenizers import get_tokenizer, tokenizer_names  # noqa: E402

DOC = (Path(__file__).resolve().parents[1] / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
REQUIRED = {
    "text-embedding-3-small": ("cl100k_base", 8191, 1536), "text-embedding-3-large": ("cl100k_base", 8191, 3072),
    "text-embedding-ada-002": ("cl100k_base", 8191, 1536), "all-MiniLM-L6-v2": ("bert-base-uncased", 256, 384),
    "bge-small-en-v1.5": ("bert-base-uncased", 512, 384), "bge-base-en-v1.5": ("bert-base-uncased", 512, 768),
    "bge-large-en-v1.5": ("bert-base-uncased", 512, 1024), "e5-small-v2": ("bert-base-uncased", 512, 384),
    "e5-base-v2": ("bert-base-uncased", 512, 768), "e5-large-v2": ("bert-base-uncased", 512, 1024),
    "gte-small": ("bert-base-uncased", 512, 384), "gte-base": ("bert-base-uncased", 512, 768),
    "gte-large": ("bert-base-uncased", 512, 1024), "nomic-embed-text-v1.5": ("bert-base-uncased", 8192, 768),
    "multilingual-e5-small": ("xlm-roberta", 512, 384), "multilingual-e5-base": ("xlm-roberta", 512, 768),
    "multilingual-e5-large": ("xlm-roberta", 512, 1024), "bge-m3": ("xlm-roberta", 8192, 1024),
}


def run(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    real, sys.stderr = sys.stderr, err
    try:
        code = main(list(argv), out=out, stdin=io.TextIOWrapper(io.BytesIO(stdin)))
    finally:
        sys.stderr = real
    return code, out.getvalue(), err.getvalue()


def test_the_catalog_holds_the_models_the_issue_names_with_their_facts():
    for name, (tokenizer, limit, dimensions) in REQUIRED.items():
        model = get_model(name)
        assert (model.tokenizer, model.limit, model.dimensions) == (tokenizer, limit, dimensions), name
    assert len({m.id for m in MODELS}) == len(MODELS) and len({m.hub_id for m in MODELS}) == len(MODELS)
    for model in MODELS:
        assert model.tokenizer in tokenizer_names() and model.source
        assert get_model(model.hub_id) is model is get_model(model.id.upper())
        assert model.special_tokens == (0 if model.provider == "openai" else 2)
        assert (model.price_per_million is not None) == (model.provider == "openai") == bool(model.price_checked)


def test_an_unknown_model_names_the_field_and_the_choices():
    with pytest.raises(UnknownModelError) as caught:
        get_model("bge-gigantic")
    assert caught.value.field == "model" and "bge-m3" in caught.value.message and caught.value.code == "unknown_model"


@pytest.mark.parametrize(("name", "prefix", "tokens"), [("e5-small-v2", "passage: ", 2), ("nomic-embed-text-v1.5",
                                                                                          "search_document: ", 4),
                                                         ("multilingual-e5-base", "passage: ", 2), ("bge-m3", "", 0)])
def test_prefix_costs_and_the_largest_chunk(name, prefix, tokens):
    model = get_model(name)
    assert model.document_prefix == prefix and model.prefix_tokens() == tokens
    assert ragchunk.get_tokenizer(model.tokenizer).count(prefix) == tokens
    assert model.max_chunk_tokens() == model.limit - 2
    assert model.max_chunk_tokens(prefix=True) == model.limit - 2 - tokens


def test_with_a_model_the_size_defaults_to_its_largest_chunk_and_may_not_exceed_it():
    assert SplitOptions(model="all-MiniLM-L6-v2").size == 254
    assert SplitOptions(model="e5-base-v2", prefix=True, overlap=0).size == 508
    with pytest.raises(ragchunk.RagchunkError) as caught:
        SplitOptions(model="e5-base-v2", size=510, prefix=True, overlap=0)
    error = caught.value
    assert (error.field, error.code) == ("chunk_size", "chunk_size_over_model_prefix")
    assert error.message == ("chunk size (510) is too large for e5-base-v2: it reads 512 tokens, 2 of them its own"
                             " special tokens and 2 its prefix 'passage:'; enter at most 508")
    assert error.params == {"chunk_size": 510, "model": "e5-base-v2", "limit": 512, "special_tokens": 2,
                            "maximum": 508, "prefix": "'passage:'", "prefix_tokens": 2}
    with pytest.raises(ragchunk.RagchunkError) as caught:
        SplitOptions(model="e5-base-v2", size=511, overlap=0)
    assert caught.value.code == "chunk_size_over_model" and "prefix" not in caught.value.params
    with pytest.raises(ragchunk.RagchunkError) as caught:
        SplitOptions(model="bge-m3", tokenizer="cl100k_base")
    assert caught.value.field == "tokenizer" and "not both" in caught.value.message
    with pytest.raises(ragchunk.RagchunkError) as caught:
        SplitOptions(prefix=True)
    assert caught.value.field == "prefix"


SMALL_MODELS = ["all-MiniLM-L12-v2", "all-MiniLM-L6-v2", "e5-small-v2", "multilingual-e5-small"]
# Sections under nested headings: most chunks then get an embed_text (their heading path on a line).
SECTIONED = st.lists(st.tuples(heading, markdown()), min_size=1, max_size=4).map(
    lambda sections: "".join(head[0] + "\n\n" + body + "\n\n" for head, body in sections))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(SECTIONED, SECTIONED, markdown(), st.text(max_size=400)), st.sampled_from(SMALL_MODELS),
       st.booleans(), st.sampled_from(["headings", "paragraphs", "sentences"]), st.sampled_from([None, "none"]),
       st.data())
def test_no_chunk_the_model_would_truncate(text, name, prefix, by, context, data):
    """What is embedded — the document prefix (with ``prefix``), then the chunk's embed_text
    when it has one (the default context adds its heading path), else its text — fits the
    model's limit with its special tokens, counted afresh by the model's own tokenizer."""
    model = get_model(name)
    largest = model.max_chunk_tokens(prefix)
    size = data.draw(st.one_of(st.just(None), st.integers(max(8, largest // 16), largest)))
    options = {} if context is None else {"context": context}  # None: the library's default
    try:
        result = ragchunk.split(text * 3, by=by, size=size, overlap=data.draw(st.integers(0, 7)), model=name,
                                prefix=prefix, **options)
    except ragchunk.RagchunkError as err:
        assert err.field == "chunk_size" and "alone is" in err.message  # a character needs more than the size
        return
    tokenizer = ragchunk.get_tokenizer(model.tokenizer)
    for chunk in result.chunks:
        if chunk.embed_text:
            assert chunk.embed_text.endswith(chunk.text) and chunk.embed_tokens == tokenizer.count(chunk.embed_text)
        embedded = (model.document_prefix if prefix else "") + (chunk.embed_text or chunk.text)
        assert tokenizer.count(embedded) + model.special_tokens <= model.limit, (chunk, result.size)
        assert chunk.tokens == tokenizer.count(chunk.text) <= chunk.embedded_tokens <= result.size <= largest


@pytest.mark.parametrize("context", [None, "none"], ids=["default context", "no context"])
@pytest.mark.parametrize(("name", "prefix"), [("all-MiniLM-L6-v2", False), ("e5-small-v2", True),
                                              ("multilingual-e5-small", True), ("text-embedding-3-small", False)])
def test_a_long_document_for_each_family_stays_under_the_limit(name, prefix, context):
    """Full chunks under the document's headings: what is embedded (prefix, heading path,
    text) fits the model, counted afresh, and the default context does give chunks a path."""
    model = get_model(name)
    options = {} if context is None else {"context": context}
    result = ragchunk.split(DOC * 2, model=name, prefix=prefix, overlap=32, **options)
    assert result.size == model.max_chunk_tokens(prefix) and result.model == model.id
    tokenizer = get_tokenizer(model.tokenizer)
    embedded = [(model.document_prefix if prefix else "") + (c.embed_text or c.text) for c in result.chunks]
    assert max(map(tokenizer.count, embedded)) + model.special_tokens <= model.limit
    assert max(c.tokens for c in result.chunks) + model.special_tokens <= model.limit
    if context is None and model.limit < 1000:  # at 8,191 tokens each copy of the document is one chunk
        assert any(c.embed_text and c.heading_path for c in result.chunks)  # so the path is in what was counted
    assert all(json.loads(line)["model"] == model.id for line in ragchunk.to_jsonl(result).splitlines())


# --- the CLI --------------------------------------------------------------------------


def test_models_lists_the_catalog():
    code, out, _ = run("models")
    assert code == 0 and all(model.id in out for model in MODELS)
    code, out, _ = run("models", "--json")
    assert [m["id"] for m in json.loads(out)] == [m.id for m in MODELS]


def test_tokens_with_a_model_reports_its_limit_specials_and_prefix():
    code, out, err = run("tokens", "-", "--model", "intfloat/e5-small-v2", "--json", stdin=DOC.encode())
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["tokens"] == ragchunk.get_tokenizer("bert-base-uncased").count(DOC)
    assert (data["model"], data["limit"], data["special_tokens"], data["prefix"], data["prefix_tokens"]) == (
        "e5-small-v2", 512, 2, "passage: ", 2)
    assert data["fits"] is False and data["max_chunk_tokens"] == 510


def test_split_with_a_model_refuses_a_size_it_would_truncate():
    code, out, err = run("split", "-", "--model", "all-MiniLM-L6-v2", "--size", "300", "--overlap", "0",
                         stdin=DOC.encode())
    assert (code, out) == (2, "")
    assert err == ("ragchunk: error: --size: chunk size (300) is too large for all-MiniLM-L6-v2: it reads 256 tokens,"
                   " 2 of them its own special tokens; enter at most 254\n")
    code, out, err = run("split", "-", "--model", "all-MiniLM-L6-v2", "--overlap", "16", stdin=DOC.encode())
    assert code == 0 and out == ragchunk.to_jsonl(ragchunk.split(DOC, model="all-MiniLM-L6-v2", overlap=16),
                                                  ragchunk.results.records.Document("-", DOC))


def test_calc_with_a_model_takes_its_price_and_shows_vectors_and_storage():
    code, out, _ = run("calc", "--tokens", "10000", "--model", "text-embedding-3-large", "--size", "512", "--overlap",
                       "64", "--json")
    data = json.loads(out)
    assert code == 0 and data["chunks"] == 23 and data["cost"] == pytest.approx(11_408 / 1e6 * 0.13)
    assert data["storage"] == {"vectors": 23, "dimensions": 3072, "float32_bytes": 23 * 3072 * 4,
                               "int8_bytes": 23 * 3072, "binary_bytes": 23 * 384}
    code, out, err = run("calc", "--tokens", "10000", "--model", "bge-small-en-v1.5", "--size", "600", "--overlap", "0")
    assert code == 2 and "enter at most 510" in err


@pytest.mark.parametrize("model", [m for m in MODELS if m.document_prefix], ids=lambda m: m.id)
def test_the_catalog_says_what_each_prefix_costs(model):
    """The prefix cost is data in the catalog (the page needs it before any table loads): it is
    what the model's own tokenizer counts."""
    assert model.prefix_tokens() == get_tokenizer(model.tokenizer).count(model.document_prefix) > 0
    assert model.to_json()["prefix_tokens"] == model.prefix_tokens()


def test_model_figures_say_vectors_storage_and_truncation():
    figures = model_figures(get_model("e5-base-v2"), 10, 509)
    assert figures["largest_chunk"] == 508 and figures["truncates"] is True
    assert model_figures(get_model("e5-base-v2"), 10, 508)["truncates"] is False
    assert (figures["vectors"], figures["dimensions"]) == (10, 768)
    assert (figures["float32_bytes"], figures["int8_bytes"], figures["binary_bytes"]) == (30720, 7680, 960)
    assert model_figures(get_model("text-embedding-3-large"), 1, 8191)["truncates"] is False
