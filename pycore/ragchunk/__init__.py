"""ragchunk: RAG chunk calculator and structural text splitter.

>>> import ragchunk
>>> ragchunk.plan(10_000, 512, 64).chunks
23
"""

__version__ = "0.1.0"

from .errors import NotTextError, RagchunkError, UnknownEncodingError
from .plan import Plan, chunk_count, plan, tokens_from_chars
from .settings import DEFAULT_ENCODING, ENCODINGS
from .textio import decode_document
from .tokenizers import CharEstimate, Tokenizer, get_tokenizer
from .windows import Window, windows

__all__ = [
    "CharEstimate",
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "NotTextError",
    "Plan",
    "RagchunkError",
    "Tokenizer",
    "UnknownEncodingError",
    "Window",
    "__version__",
    "chunk_count",
    "decode_document",
    "get_tokenizer",
    "plan",
    "tokens_from_chars",
    "windows",
]
