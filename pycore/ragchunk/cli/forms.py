"""The parsed flags made into settings by the readers of the page's forms
(:func:`ragchunk.options.read_split_form`, :func:`ragchunk.options.fields.read_calc_form`), so the
command line and the page agree on every default and every error; the bad flags of one run are
said together, each named by its flag (:data:`FLAGS`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..errors import RagchunkError
from ..models import get_model
from ..options import SplitOptions, read_split_form
from ..options.fields import ErrorCollector, FormErrors, read_count
from ..readers import ReadOptions
from ..settings import DEFAULT_CHUNK_SIZE, DEFAULT_ENCODING, MAX_DOCUMENT_CHARS

FLAGS = {
    "llm": "--llm",
    "system": "--system",
    "tools": "--tools",
    "history": "--history",
    "question": "--question",
    "chunks": "--chunks",
    "template": "--template",
    "answer": "--answer",
    "window": "--window",
    "input_price": "--input-price",
    "output_price": "--output-price",
    "ratio": "--ratio",
    "doc_tokens": "--tokens",
    "doc_chars": "--chars",
    "chars_per_token": "--chars-per-token",
    "chunk_size": "--size",
    "overlap": "--overlap",
    "price_per_million": "--price",
    "encoding": "--encoding",
    "tokenizer": "--encoding",
    "preview": "--count",
    "file": "FILE",
    "text": "FILE",
    "by": "--by",
    "output": "-o",
    "format": "--format",
    "jobs": "--jobs",
    "k": "--k",
    "questions": "--questions",
    "retriever": "--retriever",
    "settings": "--by/--size",
    "documents": "--docs",
    "model": "--model",
    "prefix": "--prefix",
    "context": "--context",
    "siblings": "--siblings",
    "max_chars": "--max-chars",
}
# calc and preview size by --size, or by --model's limit when it is empty (split and compare
# fall back to DEFAULT_CHUNK_SIZE, as the library does). What an empty --size says without
# --model (said with the other bad flags, on --size's line).
SIZE_REQUIRED = "chunk size is required: enter a number of tokens, or choose --model (its limit sets the size)"


def _all_errors(errors: Sequence[RagchunkError]) -> FormErrors:
    """``errors`` as one :class:`FormErrors`, each sentence once (a field read twice fails twice);
    an empty size (no --size, no --model) says how to give one."""
    unique: dict[tuple[str, str], RagchunkError] = {}
    for err in errors:
        if err.field == "chunk_size" and err.code == "empty":
            err = RagchunkError("chunk_size", SIZE_REQUIRED, err.code, err.params)  # the CLI's sentence
        unique.setdefault((err.field, err.message), err)
    return FormErrors(list(unique.values()))


def _sized_form(args: argparse.Namespace, form: dict[str, str]) -> dict[str, str]:
    """``form`` with how tokens are counted (--model, --chars-per-token where the command has
    it, else --encoding); without a model, an empty --size is the form's error (see :func:`_all_errors`)."""
    if args.model:
        form["model"] = args.model
    elif getattr(args, "chars_per_token", None) is not None:
        form["chars_per_token"] = args.chars_per_token
    else:
        form["encoding"] = args.encoding or DEFAULT_ENCODING
    return form


def _size_or_default(args: argparse.Namespace) -> str:
    """--size as typed; without it, the model's largest (an empty size) or the library's default."""
    return args.size or ("" if args.model else str(DEFAULT_CHUNK_SIZE))


def _read_form_with(form: dict[str, str], errors: ErrorCollector) -> SplitOptions:
    """``read_split_form(form)``, its bad fields said together with ``errors`` (the command's
    other flags, read before it), so one run names every flag at fault."""
    try:
        options = read_split_form(form)
    except FormErrors as err:
        raise _all_errors(err.errors + errors) from None
    if errors:
        raise _all_errors(errors)
    return options


def counted_by(args: argparse.Namespace):
    """The model (or None) and the tokenizer name that ``--model`` / ``--encoding`` choose."""
    model = get_model(args.model) if getattr(args, "model", None) else None
    return model, (model.tokenizer if model else args.encoding or DEFAULT_ENCODING)


def _read_options(args: argparse.Namespace, errors: ErrorCollector) -> ReadOptions:
    """How the walk flags say to read (--keep-boilerplate, --max-chars); a bad --max-chars joins ``errors``."""
    limit = errors.attempt(read_count, "max_chars", args.max_chars, 1, 10**12, "characters")
    return ReadOptions(args.keep_boilerplate, MAX_DOCUMENT_CHARS if limit is None else limit)
