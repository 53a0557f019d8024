"""The commands that read no folder: ``calc`` (of a length; of PATH it hands over to
:func:`ragchunk.cli.batch.run_calc_corpus`), ``models``, and ``tokens`` and ``preview``, which
read one document (:func:`read_document`).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import TextIO

from ..corpus import read_source
from ..errors import RagchunkError
from ..models import MODELS, get_model, model_catalog, vector_storage
from ..options import check_model_size
from ..options.fields import ErrorCollector, FormErrors, read_calc_form, read_count
from ..packing.windowing import windows
from ..readers import ReadOptions
from ..readers.textio import check_text
from ..settings import MAX_CHUNK_SIZE
from ..tokenizers import get_tokenizer
from .batch import _text_or_skip, no_document, run_calc_corpus
from .files import STDIN, Found, cannot_read, find_files, read_file, shown_name
from .forms import _all_errors, _read_form_with, _sized_form, counted_by
from .output import format_plan, format_storage, say
from .parser import UsageError


class DocumentError(Exception):
    """The document of ``tokens`` or ``preview`` cannot be read or holds no text: its error is
    said and the CLI exits with 1, as ``split`` and ``calc`` do for a file they cannot read."""

    def __init__(self, error: RagchunkError) -> None:
        super().__init__(error.message)
        self.error = error


def read_document(path: str, stdin: TextIO, command: str, verb: str) -> str:
    """The text of the one document of ``tokens`` / ``preview``; its notes go to stderr.

    Raises :class:`DocumentError` when the file is missing or unreadable, is not a
    document, is damaged or holds no text, or is a folder (:func:`folder_given`).
    """
    if path != STDIN and Path(path).is_dir():
        raise DocumentError(RagchunkError("file", folder_given(path, command, verb)))
    if path == "-":
        found = Found("standard input", None, 0)
    else:
        found = Found(shown_name(path), Path(path), 0)
    try:
        data = read_file(found, stdin)
    except OSError as err:
        raise DocumentError(RagchunkError("file", cannot_read(found.source, err))) from None
    try:
        document = read_source(found.source, data)
        for note in document.notes:
            say(f"ragchunk: note: {note.get('message', '')}")
        if not document.text.strip():
            raise RagchunkError("file", f"{found.source} holds no text: give a file with some words in it")
        return check_text(document.text)
    except RagchunkError as err:
        raise DocumentError(err) from None


def folder_given(path: str, command: str, verb: str) -> str:
    """The sentence for a folder given to ``tokens`` or ``preview``, which read one file: the
    sentence of :func:`ragchunk.cli.batch.no_document` when it holds none they could read, else
    how to name one."""
    found, _ = find_files([path], hidden=True)
    skipped: Counter = Counter()
    for item in found:
        try:
            if _text_or_skip(item.source, read_file(item, None), skipped, ReadOptions()) is None:
                continue
        except (OSError, RagchunkError):
            pass  # a file it would try, and say why it fails
        return (f"{shown_name(path)} is a folder, and {command} reads one file: name one of its files, or give the folder"
                " to calc, compare or split")
    return no_document([path], verb, skipped, Counter())


def run_calc(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    model = get_model(args.model) if args.model else None
    # Every bad field is said, not only the first: the model's limit joins the form's errors.
    errors = ErrorCollector()
    if model is not None:
        if not args.price.strip() and model.price_per_million is not None:
            args.price = f"{model.price_per_million:g}"
        if not args.size.strip():
            args.size = str(model.max_chunk_tokens())
        size = errors.attempt(read_count, "chunk_size", args.size, 1, MAX_CHUNK_SIZE)
        if size is not None:
            errors.attempt(check_model_size, model, size)
    if args.paths:
        if args.tokens is not None or args.chars is not None:
            raise UsageError("PATH and --tokens/--chars exclude each other: give files or a length, not both")
        return run_calc_corpus(args, out, stdin, errors)
    if args.tokens is None and args.chars is None:
        raise UsageError("give PATH (files or folders) or one of --tokens N, --chars N")
    form = {
        "unit": "chars" if args.chars is not None else "tokens",
        "doc": args.chars if args.chars is not None else args.tokens,
        "chars_per_token": args.chars_per_token,
        "chunk_size": args.size,
        "overlap": args.overlap,
        "price": args.price,
        "documents": args.docs,
    }
    try:
        result = read_calc_form(form)
    except FormErrors as err:
        raise _all_errors(errors + err.errors) from None
    if errors:
        raise _all_errors(errors)
    if args.json:
        keys = ("doc_tokens", "chunk_size", "overlap", "chunks", "total_tokens", "repeated_tokens",
                "repeated_share", "extra_share", "cost")
        data = result.to_json()
        shown = {key: data[key] for key in keys}
        if result.documents != 1:
            shown["documents"] = result.documents
        if model is not None:
            shown.update(model=model.id, storage=vector_storage(result.chunks, model.dimensions))
        print(json.dumps(shown), file=out)
    else:
        print(format_plan(result), file=out)
        if model is not None:
            print(format_storage(model, result.chunks), file=out)
    return 0


def run_models(args: argparse.Namespace, out: TextIO) -> int:
    if args.json:
        print(json.dumps(model_catalog(), ensure_ascii=False, indent=2), file=out)
        return 0
    print(f"{'model':<24}{'tokenizer':<19}{'limit':>7}{'chunk':>7}{'dims':>6}  {'prefix':<21}price/M", file=out)
    for model in MODELS:
        price = f"${model.price_per_million:.2f}" if model.price_per_million is not None else "open"
        prefix = repr(model.document_prefix) if model.document_prefix else "-"
        print(f"{model.id:<24}{model.tokenizer:<19}{model.limit:>7,}{model.max_chunk_tokens():>7,}"
              f"{model.dimensions:>6,}  {prefix:<21}{price}", file=out)
    print("chunk: the largest chunk the model reads whole (its limit less its special tokens)", file=out)
    return 0


def run_tokens(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    model, name = counted_by(args)
    tokenizer = get_tokenizer(name)
    text = read_document(args.file, stdin, "tokens", "count")
    count = tokenizer.count(text)
    data: dict[str, object] = {"encoding": name, "tokens": count, "chars": len(text),
                               "chars_per_token": len(text) / count if count else None}
    if model is not None:
        data.update(model=model.id, limit=model.limit, special_tokens=model.special_tokens,
                    prefix=model.document_prefix, prefix_tokens=model.prefix_tokens(),
                    max_chunk_tokens=model.max_chunk_tokens(), fits=count + model.special_tokens <= model.limit)
    if args.json:
        print(json.dumps(data, ensure_ascii=False), file=out)
        return
    ratio = f", {data['chars_per_token']:.2f} characters per token" if count else " (the tokenizer drops them all)"
    print(f"{count:,} {'token' if count == 1 else 'tokens'} ({name}), {len(text):,} characters{ratio}", file=out)
    if model is not None:
        verdict = "fits" if data["fits"] else f"is cut off after {model.limit - model.special_tokens:,} tokens"
        prefix = (f"; its prefix {model.document_prefix!r} costs {data['prefix_tokens']} more"
                  if model.document_prefix else "")
        print(f"{model.id} reads {model.limit:,} tokens with its {model.special_tokens} special tokens: this text"
              f" {verdict}{prefix}", file=out)


def run_preview(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    # split's settings, so a model sizes the windows as it sizes split's chunks: an empty --size
    # is its largest chunk (less its prefix with --prefix) and a larger one is refused.
    form = _sized_form(args, {"chunk_size": args.size, "overlap": args.overlap, "prefix": str(args.prefix)})
    errors = ErrorCollector()
    count = errors.attempt(read_count, "preview", args.count, 0, 10**9)
    options = _read_form_with(form, errors)
    text = read_document(args.file, stdin, "preview", "preview")
    cut = windows(text, options.size, options.overlap, get_tokenizer(options.tokenizer), limit=count or None)
    if args.json:
        for window in cut:
            print(json.dumps(window.to_json(), ensure_ascii=False), file=out)
        return
    for window in cut:
        head = text[window.start : window.overlap_end]
        print(f"--- window {window.index + 1}: tokens {window.token_start}-{window.token_end} "
              f"({window.tokens}), chars {window.start}-{window.end}, overlap {window.overlap_tokens}", file=out)
        print(f"[{head}]{text[window.overlap_end:window.end]}" if head else window.text, file=out)
