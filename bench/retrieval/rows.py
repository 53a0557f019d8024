"""The chunkers compared: ragchunk's levels, fixed windows and the peers, all sized in cl100k_base.

A row is a name and a function ``text -> [(start, end, chunk_text)]`` for one target and
overlap. Spans are code-point offsets into the text: ragchunk's and chonkie's chunks carry
them, semantic-text-splitter gives the start, the others are located with
:func:`retrieval.spans.locate`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

PYCORE = Path(__file__).resolve().parents[2] / "pycore"
sys.path.insert(0, str(PYCORE))
# The rank files build.py prepares (buildsteps.tables.prepare_tables), when node_modules has none.
if (PYCORE / "ragchunk" / "tables" / "data" / "cl100k_base.json").is_file():
    os.environ.setdefault("RAGCHUNK_ENCODERS", str(PYCORE / "ragchunk" / "tables" / "data"))

from ragchunk import get_tokenizer, split, windows  # noqa: E402

from .spans import locate  # noqa: E402

ENCODING = "cl100k_base"
Spans = list[tuple[int, int, str]]


class Row(NamedTuple):
    name: str  # what is shown, target and overlap aside
    family: str  # "ragchunk", "fixed" or "peer"
    overlap: int
    chunk: Callable[[str], Spans]


def plain_encoding():
    """ragchunk's cl100k_base as a ``tiktoken.Encoding`` without special tokens.

    Handed to tiktoken's registry too: offline, ``tiktoken.get_encoding`` would try to
    download the table, and peers that call ``encode`` would refuse "<|endoftext|>".
    """
    import tiktoken
    import tiktoken.registry

    encoding = get_tokenizer(ENCODING)._encoding
    plain = tiktoken.Encoding(ENCODING, pat_str=encoding._pat_str, mergeable_ranks=encoding._mergeable_ranks,
                              special_tokens={})
    tiktoken.registry.ENCODINGS[ENCODING] = plain
    return plain


def _located(text: str, chunks: list[str]) -> Spans:
    spans = locate(text, chunks)
    missing = sum(1 for s in spans if s is None)
    if missing:
        raise ValueError(f"{missing} of {len(chunks)} chunks could not be located in the text")
    return [(s, e, c) for (s, e), c in zip(spans, chunks)]


def ragchunk_rows(target: int, overlap: int, levels: tuple[str, ...] = ("headings", "paragraphs", "sentences"),
                  context: str = "none", **split_options) -> list[Row]:
    """``split`` at each level with this overlap and context; ``split_options`` reach
    :func:`ragchunk.split`. With ``context="headings"`` a chunk is indexed by its
    ``embed_text`` (its heading path, then its text, counted within the size) while its
    span, which the measures score, stays the chunk's own text."""
    rows = []
    suffix = "" if context == "none" else " +context"
    for by in levels:
        def run(text: str, by: str = by) -> Spans:
            result = split(text, by=by, size=target, overlap=overlap, tokenizer=ENCODING, context=context,
                           **split_options)
            return [(c.start, c.end, c.embed_text or c.text) for c in result.chunks]

        rows.append(Row(f"ragchunk {by}{suffix}", "ragchunk", overlap, run))
    return rows


def context_rows(target: int, overlap: int) -> list[Row]:
    """``split`` at each level with ``context="headings"``."""
    return ragchunk_rows(target, overlap, context="headings")


def default_row(target: int) -> Row:
    """``split(text, size=target)``: every other setting the library's default (overlap: an
    eighth of the size); a chunk is indexed by its ``embed_text`` when it has one."""
    def run(text: str) -> Spans:
        return [(c.start, c.end, c.embed_text or c.text) for c in split(text, size=target).chunks]

    from ragchunk.options import SplitOptions

    return Row("ragchunk default", "ragchunk", SplitOptions(size=target).overlap, run)


def fixed_row(target: int, overlap: int) -> Row:
    tokenizer = get_tokenizer(ENCODING)

    def run(text: str) -> Spans:
        return [(w.start, w.end, w.text) for w in windows(text, target, overlap, tokenizer)]

    return Row("fixed windows", "fixed", overlap, run)


def peer_rows(target: int, overlap: int) -> tuple[list[Row], list[str]]:
    """The importable peers at this target and overlap, and the missing ones' names."""
    plain = plain_encoding()
    rows: list[Row] = []
    missing: list[str] = []
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        langchain = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODING, chunk_size=target, chunk_overlap=overlap, disallowed_special=()
        )
        rows.append(Row("LangChain Recursive", "peer", overlap, lambda text: _located(text, langchain.split_text(text))))
    except ImportError as err:
        missing.append(f"langchain-text-splitters ({err})")
    if overlap == 0:  # chonkie's RecursiveChunker has no overlap setting
        try:
            from chonkie import RecursiveChunker

            def chonkie_run(text: str) -> Spans:
                chunks = RecursiveChunker(tokenizer=plain, chunk_size=target).chunk(text)
                return [(c.start_index, c.end_index, c.text) for c in chunks]

            rows.append(Row("chonkie Recursive", "peer", 0, chonkie_run))
        except ImportError as err:
            missing.append(f"chonkie ({err})")
    try:
        from llama_index.core.node_parser import SentenceSplitter

        llama = SentenceSplitter(chunk_size=target, chunk_overlap=overlap, tokenizer=plain.encode_ordinary)
        rows.append(Row("LlamaIndex Sentence", "peer", overlap, lambda text: _located(text, llama.split_text(text))))
    except ImportError as err:
        missing.append(f"llama-index-core ({err})")
    try:
        from semantic_text_splitter import MarkdownSplitter, TextSplitter

        for label, kind in (("Markdown", MarkdownSplitter), ("Text", TextSplitter)):
            # "gpt-4" is tiktoken-rs's cl100k_base, counted in Rust.
            splitter = kind.from_tiktoken_model("gpt-4", target, overlap=overlap)

            def sts_run(text: str, splitter=splitter) -> Spans:
                return [(at, at + len(chunk), chunk) for at, chunk in splitter.chunk_indices(text)]

            rows.append(Row(f"semantic-text-splitter {label}", "peer", overlap, sts_run))
    except ImportError as err:
        missing.append(f"semantic-text-splitter ({err})")
    return rows, missing
