"""The tokenizers ragchunk knows, in one place: name -> family, what uses it, the tables it reads.

Everything else is a view of :data:`CATALOG`: the encodings a person may choose
(:data:`ENCODINGS`), the open models' tokenizers whose tables the page fetches on first use
(:data:`OPEN_TOKENIZERS`), the names a message lists, and which module builds each one.

>>> [entry.family for entry in CATALOG.values()]
['bpe', 'bpe', 'bpe', 'bpe', 'wordpiece', 'unigram']
>>> OPEN_TOKENIZERS["bert-base-uncased"][1]
('bert-uncased-vocab', 'bert-uncased-chars')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Family = Literal["bpe", "wordpiece", "unigram"]


@dataclass(frozen=True, slots=True)
class TokenizerEntry:
    """One tokenizer: its ``family`` (which module builds it), who uses it, and the tables it reads.

    ``tables`` names the tables the page fetches from its own origin when the tokenizer is
    first chosen; a BPE encoding's ranks come with tiktoken's WASM build instead, so it has none.
    """

    name: str
    family: Family
    used_by: str
    tables: tuple[str, ...] = ()


CATALOG: dict[str, TokenizerEntry] = {
    entry.name: entry
    for entry in (
        TokenizerEntry("cl100k_base", "bpe", "GPT-4, GPT-3.5, text-embedding-3-*, text-embedding-ada-002"),
        TokenizerEntry("o200k_base", "bpe", "GPT-4o, GPT-4.1, o1, o3"),
        TokenizerEntry("p50k_base", "bpe", "Codex, text-davinci-002/003"),
        TokenizerEntry("r50k_base", "bpe", "GPT-3 (davinci), GPT-2"),
        TokenizerEntry("bert-base-uncased", "wordpiece",
                       "WordPiece, uncased (all-MiniLM, bge-*-en-v1.5, e5-*-v2, gte-*, nomic-embed-text)",
                       ("bert-uncased-vocab", "bert-uncased-chars")),
        TokenizerEntry("xlm-roberta", "unigram", "XLM-R sentencepiece Unigram (multilingual-e5-*, bge-m3)",
                       ("xlmr-automaton", "xlmr-scores", "xlmr-normalizer", "xlmr-graphemes")),
    )
}

# OpenAI's BPE encodings: name -> the models that use it.
ENCODINGS: dict[str, str] = {name: entry.used_by for name, entry in CATALOG.items() if entry.family == "bpe"}

# The open models' tokenizers: name -> (what it is, the tables it reads).
OPEN_TOKENIZERS: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (entry.used_by, entry.tables) for name, entry in CATALOG.items() if entry.family != "bpe"
}
