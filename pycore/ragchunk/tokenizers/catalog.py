"""The tokenizers ragchunk knows, in one place: name -> family, what uses it, the tables it reads.

Everything else is a view of :data:`CATALOG`: the encodings a person may choose
(:data:`ENCODINGS`), the open models' tokenizers whose tables the page fetches on first use
(:data:`OPEN_TOKENIZERS`), the names a message lists, and which module builds each one.

>>> [entry.family for entry in CATALOG.values()]
['bpe', 'bpe', 'bpe', 'bpe', 'bpe', 'bpe', 'bpe', 'wordpiece', 'unigram']
>>> CATALOG["llama3"].tables
('llama3',)
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

    ``tables`` names the tables it reads. The page fetches an open model's from its own
    origin when the tokenizer is first chosen; a BPE encoding reads one rank table, which the
    page fetches as ``encoders/<name>.json`` and hands to tiktoken's WASM build.
    """

    name: str
    family: Family
    used_by: str
    tables: tuple[str, ...] = ()


CATALOG: dict[str, TokenizerEntry] = {
    entry.name: entry
    for entry in (
        TokenizerEntry("cl100k_base", "bpe", "GPT-4, GPT-3.5, text-embedding-3-*, text-embedding-ada-002",
                       ("tiktoken-cl100k_base",)),
        TokenizerEntry("o200k_base", "bpe", "GPT-4o, GPT-4.1, o1, o3", ("tiktoken-o200k_base",)),
        TokenizerEntry("p50k_base", "bpe", "Codex, text-davinci-002/003", ("tiktoken-p50k_base",)),
        TokenizerEntry("r50k_base", "bpe", "GPT-3 (davinci), GPT-2", ("tiktoken-r50k_base",)),
        TokenizerEntry("llama3", "bpe", "Llama 3, 3.1, 3.2, 3.3 (Meta)", ("llama3",)),
        TokenizerEntry("qwen2", "bpe", "Qwen2, Qwen2.5, Qwen3 (Alibaba; text normalized to NFC first)", ("qwen2",)),
        TokenizerEntry("deepseek", "bpe", "DeepSeek-V4, DeepSeek-V3, R1 (one vocabulary)", ("deepseek",)),
        TokenizerEntry("bert-base-uncased", "wordpiece",
                       "WordPiece, uncased (all-MiniLM, bge-*-en-v1.5, e5-*-v2, gte-*, nomic-embed-text)",
                       ("bert-uncased-vocab", "bert-uncased-chars")),
        TokenizerEntry("xlm-roberta", "unigram", "XLM-R sentencepiece Unigram (multilingual-e5-*, bge-m3)",
                       ("xlmr-automaton", "xlmr-scores", "xlmr-normalizer", "xlmr-graphemes")),
    )
}

# The BPE encodings (OpenAI's, then the open LLMs'), run by tiktoken's engine: name -> the models that use it.
ENCODINGS: dict[str, str] = {name: entry.used_by for name, entry in CATALOG.items() if entry.family == "bpe"}

# The open models' tokenizers: name -> (what it is, the tables it reads).
OPEN_TOKENIZERS: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (entry.used_by, entry.tables) for name, entry in CATALOG.items() if entry.family != "bpe"
}
