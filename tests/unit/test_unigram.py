"""ragchunk.tokenizers.unigram: XLM-R's tokenizer, id for id and offset for offset like HF.

The reference is HF ``tokenizers`` (pinned in tests/requirements.txt) with a tokenizer.json
in xlm-roberta-base's layout made from the same tables (tests/tables/xlmr_reference.py),
itself checked against the XLM-R ids published in the tests of ``transformers``. User text
is ordinary text, so HF runs with ``encode_special_tokens = True`` and without ``<s>``/``</s>``.

Offsets are compared on ``"x " + text`` (HF shifts every offset after characters it
deletes at the very start of a text; ragchunk does not) and with the last token of each
word ending at the word's end (ragchunk gives deleted trailing characters to that token).
"""

from __future__ import annotations

import random
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent / "tables"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import probe_xlmr  # noqa: E402
from strategies import any_text, examples, markdown_text  # noqa: E402
from xlmr_reference import reference_tokenizer  # noqa: E402

from ragchunk.tables import read  # noqa: E402
from ragchunk.tables.xlmr import parse_classes, parse_normalizer, parse_pieces  # noqa: E402
from ragchunk.tokenizers.base import Tokenizer  # noqa: E402
from ragchunk.tokenizers.unigram import SEPARATORS, UnigramTokenizer, load  # noqa: E402

ROOT = HERE.parents[1]
CORPORA = [*sorted((ROOT / "tests" / "data" / "md").glob("*.md")),
           *sorted((ROOT / "tests" / "data" / "chunking-evaluation" / "corpora").glob("*.md"))]
assert len(CORPORA) >= 11, "the corpora of tests/data (md and chunking-evaluation) are missing"

# Published XLM-R ids, from huggingface/transformers
# tests/models/xlm_roberta/test_tokenization_xlm_roberta.py (commit 046eae0032b2 and
# a4c57e61a389): test_tokenization_base_easy_symbols and test_tokenization_base_hard_symbols,
# produced there by fairseq's xlmr.base and checked against XLMRobertaTokenizer("xlm-roberta-base").
EASY = "Hello World!"
EASY_IDS = [0, 35378, 6661, 38, 2]
HARD = ('This is a very long text with a lot of weird characters, such as: . , ~ ? ( ) " [ ] ! : - . Also we will'
        " add words that should not exsist and be tokenized to <unk>, such as saoneuhaoesuth")
HARD_IDS = [0, 3293, 83, 10, 4552, 4989, 7986, 678, 10, 5915, 111, 179459, 124850, 4, 6044, 237, 12, 6, 5, 6, 4, 6780,
            705, 15, 1388, 44, 378, 10114, 711, 152, 20, 6, 5, 22376, 642, 1221, 15190, 34153, 450, 5608, 959, 1119,
            57702, 136, 186, 47, 1098, 29367, 47, 3, 6, 4, 6044, 237, 6284, 50901, 528, 31, 90, 34, 927, 2]

# Short everyday phrases written for this test, one per language (about 60 languages and
# 25 scripts); the vocabulary sample below covers the rest of XLM-R's 100 languages.
PHRASES = [
    "Hello, how are you? I am fine, thank you.", "Bonjour, comment ça va ? Très bien, merci.",
    "Guten Tag, wie geht es Ihnen? Straße, Größe, Äpfel.", "Hola, ¿cómo estás? Muy bien, gracias.",
    "Olá, tudo bem? Obrigado, não há problema.", "Ciao, come stai? Perché è così?", "Hallo, hoe gaat het met je?",
    "Hej, hur mår du? Tack så mycket.", "Hei, hvordan har du det? Takk skal du ha.", "Hej, hvordan går det? Tak.",
    "Hyvää päivää, kiitos paljon.", "Jó napot, köszönöm szépen.", "Dzień dobry, dziękuję bardzo. Zażółć gęślą jaźń.",
    "Dobrý den, děkuji. Příliš žluťoučký kůň.", "Dobrý deň, ďakujem pekne.", "Bună ziua, mulțumesc frumos.",
    "Dobar dan, hvala lijepa.", "Dober dan, hvala lepa.", "Laba diena, ačiū labai.", "Labdien, paldies.",
    "Tere päevast, aitäh.", "Merhaba, nasılsınız? Teşekkür ederim.", "Sawubona, ngiyabonga kakhulu.",
    "Habari yako? Asante sana.", "Selamat pagi, terima kasih banyak.", "Xin chào, cảm ơn bạn rất nhiều.",
    "Magandang umaga, salamat po.", "Bore da, diolch yn fawr.", "Dia duit, go raibh maith agat.",
    "Kaixo, eskerrik asko.", "Bon dia, moltes gràcies.", "Saluton, dankon.", "Halló, takk fyrir. Þetta er gott.",
    "Mirëdita, faleminderit.", "Здравствуйте, как дела? Спасибо большое.", "Добрий день, дякую дуже.",
    "Добры дзень, дзякуй.", "Здравейте, благодаря много.", "Здраво, хвала лепо.", "Сәлеметсіз бе, рахмет.",
    "Сайн байна уу, баярлалаа.", "Γειά σου, τι κάνεις; Ευχαριστώ πολύ.", "Բարև, շնորհակալություն։",
    "გამარჯობა, გმადლობთ.", "שלום, מה שלומך? תודה רבה.", "مرحبا، كيف حالك؟ شكرا جزيلا.", "سلام، حال شما چطور است؟",
    "السلام علیکم، آپ کیسے ہیں؟", "नमस्ते, आप कैसे हैं? बहुत धन्यवाद।", "নমস্কার, আপনি কেমন আছেন? ধন্যবাদ।",
    "ਸਤ ਸ੍ਰੀ ਅਕਾਲ, ਧੰਨਵਾਦ।", "નમસ્તે, આભાર.", "ନମସ୍କାର, ଧନ୍ୟବାଦ।", "வணக்கம், நன்றி.", "నమస్కారం, ధన్యవాదాలు.",
    "ನಮಸ್ಕಾರ, ಧನ್ಯವಾದಗಳು.", "നമസ്കാരം, നന്ദി.", "ආයුබෝවන්, ස්තූතියි.", "नमस्कार, धन्यवाद।", "สวัสดีครับ ขอบคุณมาก",
    "ສະບາຍດີ, ຂອບໃຈ", "សួស្តី អរគុណច្រើន", "မင်္ဂလာပါ ကျေးဇူးတင်ပါတယ်", "ሰላም፣ እንዴት ነህ? አመሰግናለሁ።",
    "你好，你好吗？谢谢你。", "您好，謝謝您的幫助。", "こんにちは、お元気ですか？ありがとうございます。", "안녕하세요, 감사합니다.",
    "བཀྲ་ཤིས་བདེ་ལེགས།", "ᠰᠠᠶᠢᠨ ᠪᠠᠶᠢᠨ᠎ᠠ ᠤᠤ", "Ꭳꮝꭹ", "ⵜⴰⵏⵎⵎⵉⵔⵜ", "Salam, necəsən? Çox sağ ol.",
    "Assalomu alaykum, rahmat.", "Sannu, na gode.", "Ẹ káàárọ̀, ẹ ṣé.", "Ndewo, daalụ.", "Manao ahoana, misaotra.",
]


@pytest.fixture(scope="module")
def tokenizer() -> UnigramTokenizer:
    return load()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    hf = reference_tokenizer(tmp_path_factory.mktemp("xlmr"))
    hf.encode_special_tokens = True
    return hf


def hf_ids(reference, text: str) -> list[int]:
    return reference.encode(text, add_special_tokens=False).ids


def hf_spans(reference, text: str, encoding=None) -> list[tuple[int, int]]:
    """HF's offsets, with each word's last token ending at the word's end (see the module doc)."""
    encoding = encoding or reference.encode(text, add_special_tokens=False)
    spans = [tuple(span) for span in encoding.offsets]
    word_end = [0] * len(text)
    end = len(text)
    for index in range(len(text) - 1, -1, -1):
        if text[index] in SEPARATORS:
            end = index
        word_end[index] = end
    words = [word_end[start] for start, _ in spans]
    for index, (start, _) in enumerate(spans):
        if index + 1 == len(spans) or words[index + 1] != words[index]:
            spans[index] = (start, words[index])
    return spans


def assert_same(tokenizer, reference, text: str) -> None:
    assert tokenizer.encode(text) == hf_ids(reference, text), text
    assert tokenizer.count(text) == len(hf_ids(reference, text))
    shifted = "x " + text
    encoded = tokenizer.encode_with_offsets(shifted)
    assert list(encoded.ids) == hf_ids(reference, shifted)
    assert list(zip(encoded.starts, encoded.ends)) == hf_spans(reference, shifted), shifted


# --- the reference itself ---------------------------------------------------------------

def test_reference_gives_the_published_ids(reference):
    reference.encode_special_tokens = False
    try:
        assert reference.encode(EASY).ids == EASY_IDS
        assert reference.encode(HARD).ids == HARD_IDS
    finally:
        reference.encode_special_tokens = True


def test_ragchunk_gives_the_published_ids(tokenizer):
    assert [0, *tokenizer.encode(EASY), 2] == EASY_IDS
    # The published ids read "<unk>" as the special token (id 3): encode around it.
    before, after = HARD.split("<unk>")
    assert [0, *tokenizer.encode(before), 3, *tokenizer.encode(after), 2] == HARD_IDS


def test_interface(tokenizer):
    assert isinstance(tokenizer, Tokenizer)
    assert (tokenizer.name, tokenizer.exact, tokenizer.special_tokens) == ("xlm-roberta", True, 2)
    assert tokenizer.encode("") == [] and tokenizer.count(" \n\t") == 0
    assert tokenizer.decode(tokenizer.encode("Größe ﬁne  day")) == "Größe fine day"


# --- ids and offsets ----------------------------------------------------------------------

@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_multilingual_phrases(tokenizer, reference, form):
    for phrase in PHRASES:
        assert_same(tokenizer, reference, unicodedata.normalize(form, phrase))
    assert_same(tokenizer, reference, unicodedata.normalize(form, "\n".join(PHRASES)))


def vocabulary_words(count: int, seed: int) -> list[str]:
    """Words glued from 1-3 of XLM-R's own pieces: text in the vocabulary's ~100 languages."""
    pieces = parse_pieces(read("xlmr-pieces"))[4:-1]
    rng = random.Random(seed)
    starts = [p[1:] for p in pieces if p.startswith("\u2581") and len(p) > 1]
    inner = [p for p in pieces if not p.startswith("\u2581")]
    return ["".join([rng.choice(starts), *rng.choices(inner, k=rng.randrange(3))]) for _ in range(count)]


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKD"])
def test_vocabulary_words(tokenizer, reference, form):
    words = [unicodedata.normalize(form, w) for w in vocabulary_words(6000, seed=len(form))]
    for at in range(0, len(words), 50):
        assert_same(tokenizer, reference, " ".join(words[at:at + 50]))


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.name)
def test_corpus_parity(tokenizer, reference, path):
    text = path.read_text(encoding="utf-8")
    expected = reference.encode(text, add_special_tokens=False)
    encoded = tokenizer.encode_with_offsets(text)
    assert list(encoded.ids) == expected.ids
    assert tokenizer.count(text) == len(expected.ids)
    assert list(zip(encoded.starts, encoded.ends)) == hf_spans(reference, text, expected)


def test_corpora_are_there():
    assert len(CORPORA) >= 8


def _hostile_pool() -> list[list[str]]:
    rules = parse_normalizer(read("xlmr-normalizer"))
    classes = parse_classes(read("xlmr-graphemes"))
    by_class: dict[int, list[str]] = {}
    for cp, value in sorted(classes.items()):
        by_class.setdefault(value, []).append(chr(cp))
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()] + ["\u200b", "\ufeff", "\u180e", "\u2060", "\xad"]
    return [
        sorted({key[0] for key in rules}), sorted(rules), spaces, list("abcxyz .,-'"),
        [chr(c) for c in range(0x1100, 0x1200)] + ["\uac00", "\uac01"], [chr(c) for c in range(0x1F1E6, 0x1F200)],
        ["\u0915", "\u094d", "\u0958", "\u0301", "\u0340", "\u0344", "\u00a9", "\u2122", "\u2139", "\u200d", "\u2581",
         "<s>", "<unk>", "</s>", "\r\n", "\ufffd", "\U0001F600", "\U000E0100"],
        *by_class.values(),
    ]


POOLS = _hostile_pool()
HOSTILE = st.lists(st.sampled_from(POOLS), min_size=1, max_size=14).flatmap(
    lambda pools: st.tuples(*[st.sampled_from(pool) for pool in pools])).map("".join)


def hostile_batch(count: int, seed: int) -> list[str]:
    """``count`` strings like HOSTILE's, from a seeded generator (cheaper than hypothesis)."""
    rng = random.Random(seed)
    return ["".join(rng.choice(rng.choice(POOLS)) for _ in range(rng.randint(1, 14))) for _ in range(count)]


def test_hostile_unicode_batch(tokenizer, reference):
    texts = hostile_batch(examples(12000), seed=11)
    expected = [e.ids for e in reference.encode_batch(texts, add_special_tokens=False)]
    assert [tokenizer.encode(text) for text in texts] == expected
    shifted = ["x " + text for text in texts[:examples(3000)]]
    for text in shifted:
        encoded = tokenizer.encode_with_offsets(text)
        assert list(zip(encoded.starts, encoded.ends)) == hf_spans(reference, text), text


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE)
def test_hostile_unicode(tokenizer, reference, text):
    assert_same(tokenizer, reference, text)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(any_text(80), markdown_text(200)))
def test_arbitrary_text(tokenizer, reference, text):
    assert_same(tokenizer, reference, text)


def test_offsets_are_spans_of_the_text(tokenizer):
    text = "\x01ab ℠\x1d ﬁ\u00a0x\u200dy 日本語 e\u0301\u0301 ｅ\u0301 ㈎\x1f\x1f"
    encoded = tokenizer.encode_with_offsets(text)
    assert all(0 <= s < e <= len(text) for s, e in zip(encoded.starts, encoded.ends))
    assert list(encoded.starts) == sorted(encoded.starts) and list(encoded.ends) == sorted(encoded.ends)
    assert encoded.starts[0] == 1  # HF says 0: it shifts offsets after the leading deletion
    word_ends = [i for i in range(1, len(text) + 1) if i == len(text) or text[i] == " "]
    assert set(word_ends) <= set(encoded.ends)


# --- cuts ----------------------------------------------------------------------------------

CUT_TEXT = st.lists(st.one_of(HOSTILE, st.sampled_from(list(SEPARATORS) + ["\u00a0", "\u3000", "\x0b", "\u200b"])),
                    min_size=1, max_size=8).map("".join)


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CUT_TEXT, st.data())
def test_cuts_split_ids_exactly(tokenizer, reference, text, data):
    """Every cut that next_cut/last_cut report splits the ids of any slice around it, in HF."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    at = data.draw(st.integers(start, end))
    cut = tokenizer.next_cut(text, at, end)
    if cut is not None:
        assert at <= cut < end
        assert hf_ids(reference, text[start:end]) == hf_ids(reference, text[start:cut]) + hf_ids(reference, text[cut:end])
        assert tokenizer.next_cut(text, at, cut) is None
    last = tokenizer.last_cut(text, start, end)
    if last is not None:
        assert start < last < end
        assert hf_ids(reference, text[start:end]) == hf_ids(reference, text[start:last]) + hf_ids(reference, text[last:end])
        assert tokenizer.last_cut(text, last, end) is None


@pytest.mark.parametrize("text, at", [
    ("a\x0bb", 1),                # \x0b is whitespace but the rules delete it: "ab" is one word
    ("\u0600\u3000\u0301x", 1),   # U+3000 joins the Prepend before it, and its cluster keeps the accent
    ("x\u200bq", 1),              # U+200B is not whitespace, but the rules make it a space
])
def test_other_spaces_are_not_always_cuts(tokenizer, reference, text, at):
    whole, parts = hf_ids(reference, text), hf_ids(reference, text[:at]) + hf_ids(reference, text[at:])
    assert tokenizer.next_cut(text, 0, len(text)) is None
    if "\u200b" not in text:
        assert whole != parts
    assert tokenizer.encode(text) == whole


# --- the tables ----------------------------------------------------------------------------

def test_grapheme_table_matches_a_fresh_probe():
    """The committed classes are what HF segments today: planes 0-2 and 14 probed in full,
    the unassigned and private planes every 61st code point (the script probes all)."""
    committed = parse_classes(read("xlmr-graphemes"))
    points = [*range(0x30000), *range(0xE0000, 0xE1000), *range(0x30000, 0xE0000, 61), *range(0xE1000, 0x110000, 61)]
    probed = probe_xlmr.probe(points)
    assert {cp: probed[cp] for cp in points if probed[cp]} == {cp: committed[cp] for cp in points if cp in committed}


def test_rules_the_grapheme_shortcuts_rely_on():
    """Regional indicators, Hangul and Prepend characters are left out of the grapheme
    rules: correct only while no rule starts with one, and no rule starts with a space."""
    rules = parse_normalizer(read("xlmr-normalizer"))
    classes = parse_classes(read("xlmr-graphemes"))
    firsts = {key[0] for key in rules}
    hangul = [c for c in firsts if 0x1100 <= ord(c) <= 0x11FF or 0xA960 <= ord(c) <= 0xA97F
              or 0xD7B0 <= ord(c) <= 0xD7FF or 0xAC00 <= ord(c) <= 0xD7A3]
    regional = [c for c in firsts if 0x1F1E6 <= ord(c) <= 0x1F1FF]
    prepend = [c for c in firsts if classes.get(ord(c)) == probe_xlmr.PREPEND]
    assert (hangul, regional, prepend) == ([], [], [])
    assert " " not in firsts
    assert all(len(key.encode()) < 6 for key in rules) and len(rules) == 7563


# --- the fast scans and what they stand for --------------------------------------------

@settings(max_examples=examples(3000), deadline=None)
@given(st.text(alphabet="\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09ab", max_size=40))
def test_cluster_scan_finds_what_the_cluster_pattern_finds(coded):
    """_clusters_of skips to the next class that can open a cluster; its spans are those of
    scanning with the pattern at every position."""
    from ragchunk.tokenizers.unigram import _CLUSTER, _clusters_of

    assert list(_clusters_of(coded)) == [match.span() for match in _CLUSTER.finditer(coded)]


@settings(max_examples=examples(2000), deadline=None)
@given(st.text(alphabet=[*SEPARATORS, "a", "\u0301", "\u093e", "\u200d", "\u0915", "\x0b"], max_size=30))
def test_word_keys_keep_the_space_before_a_joiner(tokenizer, text):
    """A word keeps the space just before it when it starts with a joiner, whatever the
    separators around it: the keys are those of the one-pattern definition."""
    from ragchunk.tokenizers.unigram import _WORD

    joiners = tokenizer._joiners
    expected = [" " + word if space and word[0] in joiners else word for space, word in _WORD.findall(text)]
    assert tokenizer._keys(text) == expected
