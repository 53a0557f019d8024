"""The reference for ragchunk's XLM-R tokenizer: HF ``tokenizers`` with a tokenizer.json
laid out like xlm-roberta-base's, made from the same tables ragchunk reads.

xlm-roberta-base's own tokenizer.json is on no registry; this one holds the same parts:
the Precompiled normalizer with the nmt_nfkc charsmap (``xlmr-charsmap``), WhitespaceSplit
then Metaspace ("▁", prepended always), the Unigram model (``xlmr-pieces`` and
``xlmr-scores``, unk id 3), ``<s> $A </s>`` and the five special tokens (``<mask>``
strips spaces on its left). ``test_unigram`` checks it against the XLM-R ids published in
the tests of ``transformers``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

SPECIAL = {0: "<s>", 1: "<pad>", 2: "</s>", 3: "<unk>", 250001: "<mask>"}


def tokenizer_json(pieces: list[str], scores: list[float], charsmap: bytes) -> str:
    """The tokenizer.json text."""
    added = [{"id": i, "content": token, "single_word": False, "lstrip": token == "<mask>", "rstrip": False,
              "normalized": False, "special": True} for i, token in SPECIAL.items()]
    bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    eos = {"SpecialToken": {"id": "</s>", "type_id": 0}}
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}, eos],
            "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, eos, eos, {"Sequence": {"id": "B", "type_id": 0}}, eos],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                               "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}},
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 3, "vocab": [[p, s] for p, s in zip(pieces, scores)],
                  "byte_fallback": False},
    }, ensure_ascii=False)


def reference_tokenizer(folder: Path):
    """HF's Tokenizer from that tokenizer.json, written into ``folder``."""
    from tokenizers import Tokenizer

    from ragchunk.tables import read
    from ragchunk.tables.xlmr import parse_pieces, parse_scores

    path = folder / "tokenizer.json"
    path.write_text(tokenizer_json(parse_pieces(read("xlmr-pieces")), parse_scores(read("xlmr-scores")),
                                   read("xlmr-charsmap")), encoding="utf-8")
    return Tokenizer.from_file(str(path))
