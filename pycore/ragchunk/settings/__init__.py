"""Defaults and limits: the one place the library, the CLI and the page take them from.

``build.py`` writes :func:`ragchunk.api.form_spec` (made of these) into the page, so the form's defaults, limits and
messages never disagree with the library. :mod:`.checks` holds the checks every number a
person gives passes against these limits.
"""

from __future__ import annotations

# The core's version: the wheel's, the CLI's --version and the worker's handshake.
VERSION = "0.1.0"

DEFAULT_DOC_TOKENS = 10_000
DEFAULT_CHUNK_SIZE = 512
# A split's default overlap is this share of its size (an eighth): 64 at the default size.
DEFAULT_OVERLAP_SHARE = 8
DEFAULT_OVERLAP = DEFAULT_CHUNK_SIZE // DEFAULT_OVERLAP_SHARE
DEFAULT_CHARS_PER_TOKEN = 4.0
DEFAULT_ENCODING = "cl100k_base"
DEFAULT_PREVIEW_WINDOWS = 5

MAX_DOC_TOKENS = 10**12
MAX_DOCUMENTS = 10**9
MAX_DOC_CHARS = 4 * 10**12
MAX_CHUNK_SIZE = 10_000_000
MAX_CHARS_PER_TOKEN = 100.0
MAX_PRICE_PER_MILLION = 1_000_000.0
# Every count must stay exact in a JavaScript number (the page mirrors the formula).
MAX_TOTAL_TOKENS = 2**53 - 1
# The library and the CLI: a guard against the wrong file, not a memory budget.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
# Characters a reader may extract from one document (``--max-chars``, ``ReadOptions.max_chars``),
# checked while reading: a 4 MB Word file can inflate to 500 MB of text within the ZIP
# ratio check, and a few PDF pages can draw one content stream hundreds of times. The
# bound is on what comes out, so a reader stops early instead of filling the memory.
MAX_DOCUMENT_CHARS = 64 * 1024 * 1024
# The page's bound on extracted characters: its documents stop at 50,000,000 bytes.
MAX_PAGE_DOCUMENT_CHARS = 50_000_000
# The page (Pyodide in a worker, one wasm32 heap of at most 4 GiB). Measured with
# bench/bench_memory.py on 1 MB of real Markdown repeated: splitting 10 MB peaks at
# ~1 GiB of renderer memory and 50 MB at ~3.5 GiB (58 s); a split needs ~65 bytes of
# memory per byte of text, so much past 50 MB the worker runs out. Bigger documents go
# to the command line, which has no such ceiling.
MAX_PAGE_DOCUMENT_BYTES = 50_000_000
# Formats whose readers need several times their size in memory (pure-Python PDF parsing,
# a compressed Word file or e-book holding many times its size of XML) take less.
MAX_PAGE_BYTES_BY_KIND: dict[str, int] = {"pdf": 20_000_000, "docx": 20_000_000, "epub": 20_000_000}

LABELS: dict[str, str] = {
    "doc_tokens": "document length",
    "doc_chars": "document length",
    "chars_per_token": "characters per token",
    "chunk_size": "chunk size",
    "overlap": "overlap",
    "price_per_million": "price per million tokens",
    "encoding": "encoding",
    "text": "text",
    "preview": "preview count",
    "documents": "number of documents",
    "model": "model",
    "prefix": "prefix",
    "context": "context",
    "siblings": "sibling sections",
    "jobs": "jobs",
    "k": "chunks retrieved per question",
    "max_chars": "most characters of a document",
}

# A value of each field that a message offers as an example of what to type.
EXAMPLES: dict[str, str] = {
    "doc_tokens": "10000",
    "doc_chars": "40000",
    "chars_per_token": "4",
    "chunk_size": "512",
    "overlap": "64",
    "price_per_million": "0.02",
    "documents": "1000",
    "preview": "5",
    "bins": "20",
    "jobs": "2",
    "k": "5",
    "window": "8192",
}
