"""A split as JSONL: one JSON object per chunk, one line each (no file I/O here).

The browser calls the same functions, so a download from the page and the CLI's output
are byte for byte the same for the same input and settings.
"""

from __future__ import annotations

import json
from typing import Any

from .splitter import Chunk, Split

JSONL_KEYS: tuple[str, ...] = (
    "id",
    "text",
    "heading",
    "heading_path",
    "tokens",
    "start",
    "end",
    "overlap_tokens",
    "tokenizer",
)

# json.dumps leaves these raw with ensure_ascii=False; they are line breaks to
# str.splitlines() and to some JSONL readers, so they are escaped to keep one line per chunk.
_LINE_BREAKS = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def chunk_record(chunk: Chunk, tokenizer: str) -> dict[str, Any]:
    """The JSONL object of one chunk, keys in :data:`JSONL_KEYS` order.

    >>> from ragchunk import split
    >>> chunk_record(split("Hello there.", size=8, overlap=0).chunks[0], "cl100k_base")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'id': 0, 'text': 'Hello there.', 'heading': '', 'heading_path': [], 'tokens': 3, 'start': 0,
     'end': 12, 'overlap_tokens': 0, 'tokenizer': 'cl100k_base'}
    """
    return {
        "id": chunk.id,
        "text": chunk.text,
        "heading": chunk.heading,
        "heading_path": list(chunk.heading_path),
        "tokens": chunk.tokens,
        "start": chunk.start,
        "end": chunk.end,
        "overlap_tokens": chunk.overlap_tokens,
        "tokenizer": tokenizer,
    }


def to_jsonl(result: Split) -> str:
    """The chunks of ``result`` as JSONL text: one line per chunk, each ending in ``\\n``.

    Non-ASCII text is written as is (UTF-8 when saved); U+0085, U+2028 and U+2029 are
    escaped so every chunk stays on one line for any line splitter. No chunks give ``""``.

    >>> from ragchunk import CharEstimate, split
    >>> print(to_jsonl(split("# Привет\\n\\nМир.", size=50, overlap=0, tokenizer=CharEstimate(4))), end="")
    ... # doctest: +NORMALIZE_WHITESPACE
    {"id": 0, "text": "# Привет\\n\\nМир.", "heading": "Привет", "heading_path": ["Привет"], "tokens": 4,
     "start": 0, "end": 14, "overlap_tokens": 0, "tokenizer": "chars/4"}
    """
    name = result.tokenizer
    return "".join(
        json.dumps(chunk_record(chunk, name), ensure_ascii=False).translate(_LINE_BREAKS) + "\n"
        for chunk in result.chunks
    )
