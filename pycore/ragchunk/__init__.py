"""ragchunk: RAG chunk calculator and structural text splitter.

>>> import ragchunk
>>> ragchunk.plan(10_000, 512, 64).chunks
23
>>> ragchunk.sentences("Dr. Smith arrived at 5 p.m. He left.")
['Dr. Smith arrived at 5 p.m.', 'He left.']

``ragchunk.evaluate`` is the evaluation's package, and calling it calls
:func:`ragchunk.evaluate.evaluate`: ``ragchunk.evaluate(documents, questions, settings=...)``.
"""

from .calculator import Plan, chunk_count, plan, tokens_from_chars
from .corpus import DocumentResult, split_corpus, split_document
from .errors import NotTextError, RagchunkError, UnknownEncodingError
from . import evaluate
from .evaluate import Evaluation, Question, read_questions
from .llms import LLMS, ContextPlan, get_llm, plan_context
from .models import MODELS, Model, get_model
from .options import SplitOptions
from .packing.stats import Stats, compute_stats, format_stats
from .packing.windowing import Window, windows
from .readers.textio import decode_document
from .results.records import chunk_record, to_jsonl
from .settings import DEFAULT_ENCODING
from .settings import VERSION as __version__
from .splitter import BY_CHOICES, Chunk, Split, split
from .text.segmentation import sentence_spans, sentences
from .tokenizers import ENCODINGS, CharEstimate, Tokenizer, get_tokenizer

__all__ = [
    "BY_CHOICES",
    "CharEstimate",
    "Chunk",
    "ContextPlan",
    "DocumentResult",
    "Evaluation",
    "MODELS",
    "Model",
    "SplitOptions",
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "LLMS",
    "NotTextError",
    "Plan",
    "Question",
    "RagchunkError",
    "Split",
    "Stats",
    "Tokenizer",
    "UnknownEncodingError",
    "Window",
    "__version__",
    "chunk_count",
    "chunk_record",
    "compute_stats",
    "decode_document",
    "evaluate",
    "format_stats",
    "get_llm",
    "get_model",
    "get_tokenizer",
    "plan",
    "plan_context",
    "read_questions",
    "sentence_spans",
    "sentences",
    "split",
    "split_corpus",
    "split_document",
    "to_jsonl",
    "tokens_from_chars",
    "windows",
]
