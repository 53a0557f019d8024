"""The split settings every adapter takes, turned into one :class:`ragchunk.options.SplitOptions`.

The adapters take the keywords of :func:`ragchunk.split` (``by``, ``size``, ``overlap``,
``tokenizer``, ``model``, ``prefix``, ``context``) and build their options here only, so a
setting means the same in Ray, Spark, LangChain and LlamaIndex as in the library and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import RagchunkError
from ..options import SplitOptions
from ..packing.context import DEFAULT_CONTEXT
from ..tokenizers import CharEstimate

__all__ = ["ON_ERROR", "check_on_error", "counter", "split_options"]

ON_ERROR = ("raise", "skip", "record")


def split_options(*, by: str = "headings", size: int | None = None, overlap: int | None = None,
                  tokenizer: Any = None, model: str | None = None, prefix: bool = False,
                  context: str = DEFAULT_CONTEXT) -> SplitOptions:
    """The validated options of a split, from the keywords of :func:`ragchunk.split`.

    ``model`` (see :mod:`ragchunk.models`) picks the tokenizer and caps the size at what
    it reads whole (the size defaults to that); ``overlap`` defaults to an eighth of the
    size, as in :func:`ragchunk.split`; ``prefix`` leaves room for its document
    prefix; ``context="headings"`` gives each record an ``embed_text``. Raises
    :class:`RagchunkError` naming the field for a bad value (an unknown keyword is a
    ``TypeError``, as for any Python function).

    >>> split_options(by="sentences", size=128, overlap=16).sizing.name
    'cl100k_base'
    >>> options = split_options(model="bge-small-en-v1.5")
    >>> options.size, options.sizing.name
    (510, 'bert-base-uncased')
    >>> split_options(size=64, overlap=64)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (64) must be smaller than chunk size (64): lower the overlap
    """
    return SplitOptions(by, size, overlap, tokenizer, model, prefix, context)


def check_on_error(value: object) -> str:
    """Validate what an engine does with a document that cannot be split.

    ``"raise"`` stops the job with the document's source and the reason, ``"skip"`` gives
    it no rows, ``"record"`` gives it one row with its ``source`` and an ``error``.

    >>> check_on_error("record")
    'record'
    >>> check_on_error("ignore")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: on_error (ignore) is not known: choose one of raise, skip, record
    """
    if value not in ON_ERROR:
        choices = ", ".join(ON_ERROR)
        raise RagchunkError("on_error", f"on_error ({value}) is not known: choose one of {choices}",
                            "unknown_on_error", {"value": str(value), "choices": choices})
    return str(value)


def counter(options: SplitOptions) -> Callable[[str], int]:
    """``count(text)`` of the sizer of ``options``: what a framework calls a length function.

    >>> counter(split_options(tokenizer="cl100k_base"))("hello world")
    2
    """
    sizing = options.sizing
    if sizing.tokenizer is not None:
        return sizing.tokenizer.count
    if sizing.ratio is not None:
        return CharEstimate(sizing.ratio).count
    return sizing.count
