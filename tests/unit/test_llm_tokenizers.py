"""The open LLMs' encodings (ragchunk.tables.llms) against HF ``tokenizers`` (the version
tests/requirements.txt pins) loading the very ``tokenizer.json`` each rank file is derived
from (node_modules/, pinned by package-lock.json).

HF is told to read added tokens as text (``encode_special_tokens``), as ragchunk's interface
says user text always is; without it, "<|begin_of_text|>" would become one special id.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from strategies import any_text, examples, markdown_text, multibyte_text  # noqa: E402

from ragchunk import tables  # noqa: E402
from ragchunk.tables.llms import tiktoken_ranks  # noqa: E402
from ragchunk.tokenizers import CATALOG, get_tokenizer  # noqa: E402
from ragchunk.tokenizers.bpe import _is_cut  # noqa: E402

CHECKOUT = HERE.parents[1]
NODE_MODULES = CHECKOUT / "node_modules"
CORPORA = CHECKOUT / "tests" / "data" / "chunking-evaluation" / "corpora"

tables._load_catalog()
#: The encodings whose rank file is derived from an LLM's tokenizer.json: name -> that table.
LLM_TABLES = {name: tables.CATALOG[entry.tables[0]] for name, entry in CATALOG.items()
              if entry.family == "bpe" and tables.CATALOG[entry.tables[0]].module == "ragchunk.tables.llms"}
NAMES = sorted(LLM_TABLES)


def tokenizer_json(name: str) -> Path:
    source = LLM_TABLES[name].source
    return NODE_MODULES / source.package / source.member


@functools.cache
def hf(name: str):
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(tokenizer_json(name)))
    reference.encode_special_tokens = True
    return reference


def hf_ids(name: str, text: str) -> list[int]:
    return hf(name).encode(text, add_special_tokens=False).ids


def assert_same(name: str, text: str) -> None:
    tok = get_tokenizer(name)
    expected = hf_ids(name, text)
    assert list(tok.encode(text)) == expected, text[:200]
    assert tok.count(text) == len(expected), text[:200]


# Every special token of the three families, and text that looks like one.
SPECIALS = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|reserved_special_token_0|>", "<|python_tag|>", "<|endoftext|>", "<|im_start|>", "<|im_end|>",
    "<|fim_prefix|>", "<|vision_start|>", "<tool_call>", "</tool_call>", "<think>", "</think>",
    "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<|EOT|>",
    "<｜fim▁hole｜>", "<|im_start|>user\nHi<|im_end|>\n",
]
SAMPLES = [
    "This is a test sentence.",
    "The quick brown fox jumps over the lazy dog. It's 2026; we'll see, they've said, I'd go.",
    "Привет, мир! Как дела? Это проверка токенизатора: ёжик, съешь ещё этих мягких французских булок.",
    "नमस्ते दुनिया। यह एक वाक्य है॥ क्षत्रिय ज्ञान श्री",
    "👍🏽 👨\u200d👩\u200d👧\u200d👦 🇺🇦 ❤️ 1\ufe0f\u20e3 🏳️\u200d🌈",
    "日本語のテキストと中文文本。한국어 문장입니다. ｶﾀｶﾅ ＡＢＣ",
    "def f(x):\n    return x ** 2  # square\n\n\tif a != b: pass\r\n",
    " " * 1000, "  \n" * 50 + "x", "\t" * 64 + "\n\n\n", " \u00a0\u3000 \u2028x\u2029",
    "1234567890" * 50, "3.14159 2,718 1e-9 ٣٤٥ ४५६ ⅫⅣ ①②", "0" * 7 + " " + "9" * 11,
    "a" * 500, "é" * 300, "e\u0301" * 100, "Å Å ﬁ Ω K ß ẞ İ ı",
    "Ü\u0308ber n\u0303 a\u0300\u0301\u0302",  # combining marks, not in NFC
    "".join(SPECIALS), " ".join(SPECIALS),
    "```python\nprint('hi')\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "",
]
PIECES = ["a", "Bc", "the", " the", "z9", "1", "22", "333", "4444", ".", ",", " ", "  ", "\n", "\r\n", "\n\n", "'s",
          "'LL", "é", "e\u0301", "日本", "中文", "ひらがな", "カタカナ", "👍🏽", "-", "#", "/", "\t", "\u00a0", "...",
          "Привет", "नमस्ते", "123456", "\r", "```", "\x00", "\u2028", "\x85", "ß", "x.\n", ":\n", "\n\n\n", "٣",
          *SPECIALS]
piece_text = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
unicode_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=80)
texts = st.one_of(piece_text, piece_text, unicode_text, any_text(), multibyte_text(), markdown_text())


def test_there_are_llm_encodings_and_their_files():
    assert "llama3" in NAMES
    for name in NAMES:
        assert tokenizer_json(name).is_file(), name


@pytest.mark.parametrize("name", NAMES)
def test_the_table_is_derived_from_that_tokenizer_json(name):
    # The file build.py made is the pure derivation of the pinned member (the sha256 is checked on read too).
    assert tiktoken_ranks(tokenizer_json(name).read_bytes()) == tables.read(LLM_TABLES[name].name)
    data = json.loads(tables.read(LLM_TABLES[name].name))
    original = json.loads(tokenizer_json(name).read_bytes())
    assert len(data["special_tokens"]) == len([t for t in original["added_tokens"] if t["id"] >= len(original["model"]["vocab"])])


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("name", NAMES)
def test_samples_equal_hf(name, text):
    assert_same(name, text)
    tok = get_tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("name", NAMES)
def test_special_token_text_is_text(name):
    tok = get_tokenizer(name)
    special = set(json.loads(tables.read(LLM_TABLES[name].name))["special_tokens"].values())
    for text in SPECIALS:
        ids = tok.encode(text)
        assert len(ids) > 1 and not special & set(ids), text
        assert ids == hf_ids(name, text)


@pytest.mark.parametrize("name", NAMES)
def test_corpora_equal_hf(name):
    paths = sorted((CHECKOUT / "tests" / "data" / "md").glob("*.md")) + sorted(CORPORA.glob("*.md"))
    assert len(paths) >= 8
    total = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert_same(name, text)
        total += len(text)
    assert total > 900_000


@pytest.mark.parametrize("name", NAMES)
def test_the_page_strings_in_three_languages_equal_hf(name):
    # Every string of the page in English, Russian and Hindi, as one text and one by one.
    catalogs = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((CHECKOUT / "web" / "i18n").glob("*.json"))]
    strings = [value for catalog in catalogs for value in catalog.values() if isinstance(value, str)]
    assert len(strings) > 300
    assert_same(name, "\n".join(strings))
    for text in strings:
        assert_same(name, text)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), texts)
def test_ids_and_counts_equal_hf(name, text):
    assert_same(name, text)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(NAMES), st.text(max_size=40))
def test_round_trip(name, text):
    tok = get_tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.one_of(piece_text, markdown_text(), multibyte_text()), st.data())
def test_cuts_split_hf_ids(name, text, data):
    # ragchunk's cut rule for the BPE encodings, checked against HF itself.
    cuts = [c for c in range(len(text) + 1) if _is_cut(text, c)]
    for c in data.draw(st.lists(st.sampled_from(cuts), max_size=3)) if cuts else []:
        s = data.draw(st.integers(0, max(0, c - 2)))
        e = data.draw(st.integers(min(len(text), c + 2), len(text)))
        assert hf_ids(name, text[s:e]) == hf_ids(name, text[s:c]) + hf_ids(name, text[c:e]), (text, s, c, e)


def test_the_derivation_refuses_what_tiktoken_cannot_run():
    original = json.loads(tokenizer_json("llama3").read_bytes())

    def derived(change) -> str:
        data = json.loads(json.dumps(original))
        change(data)
        with pytest.raises(ValueError) as caught:
            tiktoken_ranks(json.dumps(data).encode())
        return str(caught.value)

    def swap_merges(data):
        merges = data["model"]["merges"]
        merges[0], merges[-1] = merges[-1], merges[0]

    assert "below an earlier merge" in derived(swap_merges)
    assert "only one Split" in derived(lambda data: data["pre_tokenizer"]["pretokenizers"].pop(0))
    assert "normalizer" in derived(lambda data: data.update(normalizer={"type": "NFKC"}))
    assert "byte-level" in derived(lambda data: data["model"]["vocab"].update({"\u4e00": 999_999}))
