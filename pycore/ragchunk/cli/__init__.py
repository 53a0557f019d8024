"""Command line: ``python -m ragchunk calc | compare | models | tokens | preview | split``.

Bad input prints one line on stderr per flag or file at fault, naming it and the fix: a bad
flag or value exits with 2, a document that cannot be read (or PATH that holds none) with 1
(:data:`EXIT_CODES`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from .. import __version__
from ..calculator import CorpusPlan, Plan, plan_corpus
from ..settings.checks import check_chunking
from ..corpus import CorpusSummary, read_source, split_corpus
from ..errors import NotTextError, RagchunkError
from ..models import MODELS, Model, get_model, model_catalog, vector_storage
from ..options import SplitOptions, check_model_size, read_split_form
from ..options.fields import ErrorCollector, FormErrors, read_calc_form, read_count, read_price
from ..packing.context import DEFAULT_CONTEXT
from ..packing.stats import compute_stats, format_stats
from ..packing.windowing import windows
from ..readers import ReadOptions
from ..readers.formats import readable_formats
from ..readers.textio import check_text
from ..results.compare import compare
from ..settings import (
    DEFAULT_CHARS_PER_TOKEN,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_ENCODING,
    DEFAULT_PREVIEW_WINDOWS,
    MAX_CHUNK_SIZE,
    MAX_DOCUMENT_CHARS,
)
from ..text.structure import BY_CHOICES
from ..tokenizers import get_tokenizer, tokenizer_names
from .files import (
    STDIN,
    Found,
    cannot_read,
    find_files,
    is_archive,
    printable,
    read_file,
    same_file,
    shown_name,
    zip_documents,
)

FLAGS = {
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
    "documents": "--docs",
    "model": "--model",
    "prefix": "--prefix",
    "context": "--context",
    "max_chars": "--max-chars",
}
# calc, tokens and preview count a document whole; split sets its front matter apart as metadata.
FRONT_MATTER_COUNTED = "front matter (--- or +++ at the start) is counted, though split leaves it out"
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70
# calc and preview size by --size, or by --model's limit when it is empty (split and compare
# fall back to DEFAULT_CHUNK_SIZE, as the library does). What an empty --size says without
# --model (said with the other bad flags, on --size's line).
SIZE_REQUIRED = "chunk size is required: enter a number of tokens, or choose --model (its limit sets the size)"
PREFIX_HELP = "leave room for the model's document prefix (e5 'passage: ', nomic 'search_document: ')"
# What --help says; main's docstring and the README say the same.
EXIT_CODES = ("exit codes: 0 done; 1 a document that cannot be read or split, or PATH that holds no document"
              " (every command alike); 2 a bad flag or value; 130 interrupted; 70 a bug in ragchunk")


def say(line: str) -> None:
    """Print one line of ragchunk's on standard error, control characters escaped, so that no
    file name (nor a reader's message quoting it) can forge a line or move the terminal."""
    print(printable(line), file=sys.stderr)


class UsageError(Exception):
    """One line for stderr; the CLI exits with 2."""


class DocumentError(Exception):
    """The document of ``tokens`` or ``preview`` cannot be read or holds no text: its error is
    said and the CLI exits with 1, as ``split`` and ``calc`` do for a file they cannot read."""

    def __init__(self, error: RagchunkError) -> None:
        super().__init__(error.message)
        self.error = error


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> Parser:
    parser = Parser(prog="python -m ragchunk", description="RAG chunk calculator and text splitter.",
                    epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"ragchunk {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    calc = commands.add_parser("calc", help="chunks, embedded tokens and cost of fixed-size chunking")
    calc.add_argument("paths", metavar="PATH", nargs="*",
                      help="files or folders: exact tokens of each document, totals added up per document;"
                           f" {FRONT_MATTER_COUNTED}")
    length = calc.add_mutually_exclusive_group()
    length.add_argument("--tokens", metavar="N", help="document length in tokens")
    length.add_argument("--chars", metavar="N", help="document length in characters")
    calc.add_argument("--docs", metavar="N", default="1", help="how many documents of that length (default 1)")
    calc.add_argument("--chars-per-token", metavar="R", default=f"{DEFAULT_CHARS_PER_TOKEN:g}",
                      help="characters per token for --chars (default %(default)s)")
    counted = calc.add_mutually_exclusive_group()
    counted.add_argument("--encoding", choices=tokenizer_names(), metavar="E",
                         help=f"the tokens of PATH: one of {', '.join(tokenizer_names())} (default {DEFAULT_ENCODING})")
    counted.add_argument("--model", metavar="M",
                         help="an embedding model: its tokenizer counts PATH, its price and vectors are shown")
    calc.add_argument("--size", metavar="S", default="",
                      help="chunk size in tokens (default with --model: the most the model reads whole)")
    calc.add_argument("--overlap", metavar="O", required=True, help="overlap in tokens")
    calc.add_argument("--price", metavar="P", default="", help="price per million tokens")
    calc.add_argument("--json", action="store_true", help="print JSON")
    _add_walk_flags(calc)

    versus = commands.add_parser("compare", help="fixed windows and each structural level side by side, on your files")
    versus.add_argument("paths", metavar="PATH", nargs="+", help="files, folders (walked in sorted order) or -")
    versus.add_argument("--size", metavar="S", default="",
                        help=f"target chunk size in tokens (default with --model: its largest; else {DEFAULT_CHUNK_SIZE})")
    versus.add_argument("--overlap", metavar="O", default="",
                        help="overlap in tokens (default an eighth of the size)")
    compared = versus.add_mutually_exclusive_group()
    compared.add_argument("--encoding", metavar="E", choices=tokenizer_names(),
                          help=f"one of {', '.join(tokenizer_names())} (default {DEFAULT_ENCODING})")
    compared.add_argument("--model", metavar="M", help="an embedding model: its tokenizer, limit and price")
    compared.add_argument("--chars-per-token", metavar="R", help="estimate tokens as characters / R instead")
    versus.add_argument("--price", metavar="P", default="", help="price per million tokens")
    versus.add_argument("--context", metavar="C", default=DEFAULT_CONTEXT,
                        help="headings (the default) or none, as split's --context: heading lines count in each chunk")
    versus.add_argument("--prefix", action="store_true", help=PREFIX_HELP)
    versus.add_argument("--json", action="store_true", help="print JSON")
    _add_walk_flags(versus)

    listing = commands.add_parser("models", help="the embedding models ragchunk knows: tokenizer, limit, prefix, price")
    listing.add_argument("--json", action="store_true", help="print JSON")

    for name, text in (("tokens", "exact token count of a text"), ("preview", "the first fixed windows of a text")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("file", metavar="FILE",
                         help=f"a document (Markdown, text, HTML, PDF, Word, EPUB, notebook or reStructuredText),"
                              f" or - for standard input; {FRONT_MATTER_COUNTED}")
        counted = sub.add_mutually_exclusive_group()
        counted.add_argument("--encoding", choices=tokenizer_names(), metavar="E",
                             help=f"one of {', '.join(tokenizer_names())} (default {DEFAULT_ENCODING})")
        counted.add_argument("--model", metavar="M",
                             help="count with this embedding model's tokenizer (see: models)" if name == "tokens" else
                                  "window for this embedding model: its tokenizer, at most what it reads whole"
                                  " (see: models)")
        sub.add_argument("--json", action="store_true", help="print JSON")
        if name == "preview":
            sub.add_argument("--size", metavar="S", default="",
                             help="chunk size in tokens (default with --model: the most the model reads whole, less"
                                  " its document prefix with --prefix; required without --model)")
            sub.add_argument("--overlap", metavar="O", required=True, help="overlap in tokens")
            sub.add_argument("--prefix", action="store_true", help=PREFIX_HELP)
            sub.add_argument("--count", metavar="N", default=str(DEFAULT_PREVIEW_WINDOWS),
                             help="windows to show (default %(default)s; 0 for all)")

    cut = commands.add_parser("split", help="structural chunks of documents as JSONL")
    cut.add_argument("paths", metavar="PATH", nargs="+",
                     help="files, folders (walked in sorted order) or - for standard input")
    cut.add_argument("--by", metavar="B", default="headings",
                     help=f"the boundary packed: {', '.join(BY_CHOICES)} (default %(default)s)")
    cut.add_argument("--size", metavar="S", default="",
                     help=f"target chunk size in tokens (default with --model: the most the model reads whole;"
                          f" else {DEFAULT_CHUNK_SIZE}, as split() in Python)")
    cut.add_argument("--overlap", metavar="O", default="",
                     help="most tokens repeated from the previous chunk (default an eighth of the size)")
    sizer = cut.add_mutually_exclusive_group()
    sizer.add_argument("--encoding", metavar="E", choices=tokenizer_names(),
                       help=f"exact tokens of one of {', '.join(tokenizer_names())} (default {DEFAULT_ENCODING})")
    sizer.add_argument("--model", metavar="M",
                       help="size chunks for this embedding model: its tokenizer, at most what it reads whole")
    sizer.add_argument("--chars-per-token", metavar="R", help="estimate tokens as characters / R instead")
    cut.add_argument("--context", metavar="C", default=DEFAULT_CONTEXT,
                     help="headings (the default): give each chunk an embed_text, its heading path then its text,"
                          " counted in --size; none: embed the chunk as it is")
    cut.add_argument("--prefix", action="store_true", help=PREFIX_HELP)
    cut.add_argument("-o", metavar="OUT", dest="output", help="write the JSONL here instead of standard output")
    cut.add_argument("--format", choices=["jsonl", "parquet"], default=None,
                     help="jsonl, or parquet (needs -o and pyarrow: pip install ragchunk[parquet]); default: parquet"
                          " when OUT ends in .parquet, else jsonl")
    cut.add_argument("--stats", action="store_true", help="print the corpus's statistics to standard error")
    cut.add_argument("--price", metavar="P", default="", help="price per million tokens, for --stats")
    cut.add_argument("--jobs", metavar="N", default=None,
                     help=f"worker processes (default: the usable CPUs, {usable_cpus()} here)")
    cut.add_argument("--progress", action="store_true", help="show progress even when standard error is not a terminal")
    _add_walk_flags(cut)
    return parser


def _add_walk_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--include", metavar="GLOB", action="append", default=[],
                        help="only files of a folder whose path matches (repeatable; * also matches /)")
    parser.add_argument("--exclude", metavar="GLOB", action="append", default=[],
                        help="leave out files of a folder whose path matches (repeatable)")
    parser.add_argument("--hidden", action="store_true", help="also read hidden files and folders (.name)")
    parser.add_argument("--max-chars", metavar="N", default=str(MAX_DOCUMENT_CHARS),
                        help="most characters of text one document may give, checked while it is read; a document"
                             " past it fails alone (default %(default)s)")
    parser.add_argument("--follow-links", action="store_true",
                        help="follow links that lead outside the folder given, and links to folders (by default"
                             " they are skipped, and said)")
    parser.add_argument("--keep-boilerplate", action="store_true",
                        help="keep the navigation, headers, footers and tables of contents of HTML pages, "
                             "and the tables of contents of PDF, DOCX and EPUB files")


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


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
    sentence of :func:`no_document` when it holds none they could read, else how to name one."""
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


def format_plan(result: Plan) -> str:
    each = f" each, {result.documents:,} documents" if result.documents != 1 else ""
    lines = [
        f"document        {result.doc_tokens:,} tokens{each}",
        f"chunk size      {result.chunk_size:,} tokens, overlap {result.overlap:,} (step {result.step:,})",
        f"chunks          {result.chunks:,} (last one {result.last_chunk_tokens:,} tokens)",
        f"total embedded  {result.total_tokens:,} tokens",
        f"repeated        {result.repeated_tokens:,} tokens ({result.repeated_share * 100:.1f} % of the total)",
        f"extra           {result.extra_share * 100:.1f} % more than the document"
        + ("s" if result.documents != 1 else ""),
    ]
    if result.cost is not None:
        lines.append(f"cost            {result.cost:,.6f} at {result.price_per_million:g} per million tokens")
    return "\n".join(lines)


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


def run_calc_corpus(args: argparse.Namespace, out: TextIO, stdin: TextIO, errors: ErrorCollector) -> int:
    size = errors.attempt(read_count, "chunk_size", args.size, 1, MAX_CHUNK_SIZE)
    overlap = errors.attempt(read_count, "overlap", args.overlap, 0, MAX_CHUNK_SIZE - 1)
    price = errors.attempt(read_price, args.price) if args.price.strip() else None
    read_options = _read_options(args, errors)
    if size is not None and overlap is not None:
        errors.attempt(check_chunking, size, overlap)
    if errors:
        raise _all_errors(errors)
    model, name = counted_by(args)
    tokenizer = get_tokenizer(name)
    left_out: Counter = Counter()
    found, problems = _find(args, left_out)
    failed = _say_problems(problems)
    lengths: list[int] = []
    skipped: Counter = Counter()
    unreadable: list[str] = []
    for source, data in _read_all(found, stdin, unreadable):
        try:
            text = _text_or_skip(source, data, skipped, read_options)
        except RagchunkError as err:
            failed = _say_problems([(source, err.message)])
            continue
        if text is not None:
            lengths.append(tokenizer.count(text))
    failed = failed or bool(unreadable)
    result = plan_corpus(lengths, size, overlap, price)
    if args.json:
        data = {**result.to_json(), "skipped": dict(sorted(skipped.items())), "encoding": name}
        if model is not None:
            data.update(model=model.id, storage=vector_storage(result.chunks, model.dimensions))
        print(json.dumps(data), file=out)
    else:
        print(format_corpus_plan(result, skipped, name), file=out)
        if model is not None:
            print(format_storage(model, result.chunks), file=out)
    return _exit_code(args.paths, "count", len(lengths), skipped, left_out, failed)


def _all_errors(errors: Sequence[RagchunkError]) -> FormErrors:
    """``errors`` as one :class:`FormErrors`, each sentence once (a field read twice fails twice);
    an empty size (no --size, no --model) says how to give one."""
    unique: dict[tuple[str, str], RagchunkError] = {}
    for err in errors:
        if err.field == "chunk_size" and err.code == "empty":
            err = RagchunkError("chunk_size", SIZE_REQUIRED, err.code, err.params)  # the CLI's sentence
        unique.setdefault((err.field, err.message), err)
    return FormErrors(list(unique.values()))


def format_storage(model: Model, chunks: int) -> str:
    storage = vector_storage(chunks, model.dimensions)
    return (f"vectors         {chunks:,} of {model.dimensions:,} dimensions ({model.id}): "
            f"{_size(storage['float32_bytes'])} as float32, {_size(storage['int8_bytes'])} as int8, "
            f"{_size(storage['binary_bytes'])} binary")


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:,} bytes"


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


def run_compare(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    form = _sized_form(args, {
        "by": "headings", "chunk_size": _size_or_default(args), "overlap": args.overlap,
        "context": args.context, "prefix": str(args.prefix)})
    errors = ErrorCollector()
    price = errors.attempt(read_price, args.price) if args.price.strip() else None
    read_options = _read_options(args, errors)
    options = _read_form_with(form, errors)
    model = get_model(args.model) if args.model else None
    if price is None and model is not None:
        price = model.price_per_million
    left_out: Counter = Counter()
    found, problems = _find(args, left_out)
    failed = _say_problems(problems)
    texts: list[tuple[str, str]] = []
    skipped: Counter = Counter()
    unreadable: list[str] = []
    for source, data in _read_all(found, stdin, unreadable):
        try:
            text = _text_or_skip(source, data, skipped, read_options)
        except RagchunkError as err:
            failed = _say_problems([(source, err.message)])
            continue
        if text is not None:
            texts.append((source, text))
    failed = failed or bool(unreadable)
    rows = compare(texts, size=options.size, overlap=options.overlap, tokenizer=options.tokenizer, model=options.model,
                   price_per_million=price, context=options.context, prefix=options.prefix)
    if args.json:
        print(json.dumps({"documents": len(texts), "size": options.size, "overlap": options.overlap,
                          "tokenizer": options.sizing.name, "rows": [row.to_json() for row in rows]}), file=out)
    else:
        print(f"{len(texts):,} documents, size {options.size:,}, overlap {options.overlap:,}, tokens by"
              f" {options.sizing.name}", file=out)
        print(f"{'method':<12}{'chunks':>8}{'tokens':>11}{'cost':>11}{'min/median/max':>18}{'mid-sentence':>14}"
              f"{'heading':>9}", file=out)
        for row in rows:
            cost = "-" if row.cost is None else f"{row.cost:,.6f}"
            sizes = f"{row.min_tokens}/{row.median_tokens:g}/{row.max_tokens}"
            print(f"{row.method:<12}{row.chunks:>8,}{row.tokens:>11,}{cost:>11}{sizes:>18}"
                  f"{row.mid_sentence * 100:>13.1f}%{row.with_heading * 100:>8.1f}%", file=out)
    return _exit_code(args.paths, "compare", len(texts), skipped, left_out, failed)


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


def counted_by(args: argparse.Namespace):
    """The model (or None) and the tokenizer name that ``--model`` / ``--encoding`` choose."""
    model = get_model(args.model) if getattr(args, "model", None) else None
    return model, (model.tokenizer if model else args.encoding or DEFAULT_ENCODING)


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


def run_split(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    form = _sized_form(args, {"by": args.by, "chunk_size": _size_or_default(args), "overlap": args.overlap,
                              "prefix": str(args.prefix), "context": args.context})
    errors = ErrorCollector()
    jobs = usable_cpus() if args.jobs is None else errors.attempt(read_count, "jobs", args.jobs, 1, 1024, "processes")
    price = errors.attempt(read_price, args.price) if args.price.strip() else None
    read_options = _read_options(args, errors)
    options = _read_form_with(form, errors)
    left_out: Counter = Counter()
    found, problems = _find(args, left_out)
    failed = _say_problems(problems)
    if not found and not problems:  # said before OUT is opened, so no empty OUT is left behind
        return _exit_code(args.paths, "split", 0, Counter(), left_out, False)
    summary = CorpusSummary()
    total_bytes = sum(f.size for f in found)
    progress = Progress(len(found), total_bytes, enabled=args.progress or sys.stderr.isatty())
    unreadable: list[str] = []

    def documents() -> Iterator[tuple[str, bytes]]:
        return _read_all(found, stdin, unreadable, lambda item: progress.advance(item.size))

    kept = _without_output(found, args.output, args.paths)
    left_out["output"] += len(found) - len(kept)
    found = kept
    sizes = {f.source: f.size for f in found}
    writer = open_output(args.format, args.output, out)
    try:
        for result in split_corpus(documents(), options, jobs=min(jobs, max(1, len(found))), read_options=read_options):
            for note in result.notes:
                say(f"ragchunk: note: {note}")
            if not (result.error or result.skipped or result.chunks):
                # Text that is not blank always makes a chunk but for the front matter, which the
                # splitter sets apart as metadata: a file of front matter alone has no chunk.
                say(f"ragchunk: note: {result.source}: only front matter, no text to split")
            if result.error:
                flag = FLAGS.get(result.field, "")
                named = result.field == "file" and result.error.startswith(result.source)
                where = "" if named else f"{result.source}: "  # a reader's message names the file itself
                say(f"ragchunk: error: {where}{f'{flag}: ' if flag and flag != 'FILE' else ''}{result.error}")
            writer.write(result.jsonl)
            summary.add(result)
            progress.advance(sizes.get(result.source, 0))
    except KeyboardInterrupt:
        writer.close()
        progress.close()
        whole = ("the output holds whole records only" if args.output else
                 "standard output may end inside the record that was being written")
        done = summary.documents
        say(f"ragchunk: interrupted after {done:,} document{'' if done == 1 else 's'}: {whole}")
        return EXIT_INTERRUPTED
    writer.close()
    progress.close()
    if args.stats:
        for line in format_corpus(summary, options.sizing.name, options.size, price).splitlines():
            say(line)
    return _exit_code(args.paths, "split", summary.documents, summary.skipped, left_out,
                      bool(failed or unreadable or summary.failed))


def _without_output(found: list[Found], output: str | None, paths: Sequence[str]) -> list[Found]:
    """``found`` without OUT: a file named as an input is refused (writing would empty it
    before it is read); one met in a folder is left out with a note."""
    if not output:
        return found
    target = Path(output)
    if not target.exists():
        return found
    for item in found:
        if item.path is not None and same_file(item.path, target):
            if str(item.path) in paths or item.source in paths:
                raise RagchunkError("output", f"OUT ({shown_name(output)}) is also an input: writing it would empty it"
                                              " before it is read; write the chunks to another file")
            say(f"ragchunk: note: {item.source} is OUT, so it is not read as an input")
            return [f for f in found if f is not item]
    return found


def _exit_code(paths: Sequence[str], verb: str, documents: int, skipped: Counter, left_out: Counter,
               failed: bool) -> int:
    """The exit code of a command over PATH: 1 when a file failed (said as it was met), or
    when PATH held no document (said here: :func:`no_document`); else 0."""
    if not documents and not failed:
        say(f"ragchunk: error: {no_document(paths, verb, skipped, left_out)}")
        return EXIT_FAILED
    return EXIT_FAILED if failed else 0


def no_document(paths: Sequence[str], verb: str, skipped: Counter, left_out: Counter) -> str:
    """The sentence for PATH arguments that hold no document, the same in every command: what
    they are, why nothing was read (files skipped by kind, files left out, or none at all), and
    what ragchunk reads.

    >>> print(no_document(["docs"], "split", Counter({"png": 2}), Counter()))  # doctest: +ELLIPSIS
    docs holds no document to split (skipped: 2 png): ragchunk reads Markdown (.md), ... and reStructuredText (.rst)
    >>> print(no_document(["a", "b"], "count", Counter(), Counter({"glob": 1, "hidden": 3})))  # doctest: +ELLIPSIS
    a, b hold no document to count (1 file left out by --include/--exclude; 3 hidden, which --hidden reads): ...
    >>> print(no_document(["empty"], "compare", Counter(), Counter()))  # doctest: +ELLIPSIS
    empty holds no document to compare (no file in it): ...
    """
    where = ", ".join("standard input" if path == STDIN else shown_name(path) for path in paths)
    why = []
    if skipped:
        why.append("skipped: " + ", ".join(f"{count:,} {kind}" for kind, count in sorted(skipped.items())))
    if left_out["glob"]:
        count = left_out["glob"]
        why.append(f"{count:,} {'file' if count == 1 else 'files'} left out by --include/--exclude")
    if left_out["hidden"]:
        why.append(f"{left_out['hidden']:,} hidden, which --hidden reads")
    if left_out["output"]:
        why.append("OUT is not read as an input")
    if left_out["link"]:
        why.append(f"{left_out['link']:,} {'link' if left_out['link'] == 1 else 'links'} not followed, which"
                   " --follow-links follows")
    if left_out["special"]:
        why.append(f"{left_out['special']:,} FIFO, device or socket, never read")
    if not why:
        why.append(f"no file in {'it' if len(paths) == 1 else 'them'}")
    holds = "holds" if len(paths) == 1 else "hold"
    return f"{where} {holds} no document to {verb} ({'; '.join(why)}): ragchunk reads {readable_formats()}"


def _read_options(args: argparse.Namespace, errors: ErrorCollector) -> ReadOptions:
    """How the walk flags say to read (--keep-boilerplate, --max-chars); a bad --max-chars joins ``errors``."""
    limit = errors.attempt(read_count, "max_chars", args.max_chars, 1, 10**12, "characters")
    return ReadOptions(args.keep_boilerplate, MAX_DOCUMENT_CHARS if limit is None else limit)


def _read_all(found: Sequence[Found], stdin: TextIO, unreadable: list[str],
              done: Callable[[Found], None] | None = None) -> Iterator[tuple[str, bytes]]:
    """``(source, bytes)`` of each found file, and of each document in a .zip (``docs.zip/guide.md``,
    within the page's bounds: :func:`ragchunk.cli.files.zip_documents`). A file or archive that
    cannot be read is said, its source added to ``unreadable``, and the others go on."""
    for item in found:
        try:
            data = read_file(item, stdin)
        except OSError as err:
            unreadable.append(item.source)
            _say_problems([(item.source, cannot_read(item.source, err))])
            if done is not None:
                done(item)
            continue
        if not is_archive(item.source, data):
            yield item.source, data
            continue
        try:
            yield from zip_documents(item.source, data)
        except ValueError as err:
            unreadable.append(item.source)
            _say_problems([(item.source, f"{item.source} {err}")])
        if done is not None:
            done(item)


def _find(args: argparse.Namespace, left_out: Counter) -> tuple[list[Found], list[tuple[str, str]]]:
    """The files of PATH by the walk flags; each link or special file skipped is said in a note."""
    notes: list[str] = []
    found = find_files(args.paths, args.include, args.exclude, args.hidden, left_out, args.follow_links, notes)
    for note in notes:
        say(f"ragchunk: note: {note}")
    return found


def _say_problems(problems: Sequence[tuple[str, str]]) -> bool:
    """Say each ``(path, reason)``: the reason after the path, or alone when it names the file itself."""
    for path, reason in problems:
        say(f"ragchunk: error: {reason if reason.startswith(path) else f'{path}: {reason}'}")
    return bool(problems)


def _text_or_skip(source: str, data: bytes, skipped: Counter, read_options: ReadOptions) -> str | None:
    """The text a file's reader makes of it, or None (counted in ``skipped`` by kind) when it holds none."""
    if not data:
        skipped["empty"] += 1
        return None
    try:
        text = read_source(source, data, read_options).text
    except NotTextError as err:
        skipped[str(err.params.get("kind", "binary"))] += 1
        return None
    if not text.strip():
        skipped["empty"] += 1
        return None
    return text


class _Output:
    """Where the JSONL goes; every write is whole records, flushed as they come."""

    def __init__(self, path: str | None, out: TextIO) -> None:
        self.handle = None
        self.out = out
        if path:
            try:
                self.handle = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
            except OSError as err:
                raise RagchunkError("output", f"OUT ({path}) cannot be written: {err.strerror}; check the path") from None

    def write(self, data: str) -> None:
        if not data:
            return
        if self.handle is not None:
            self.handle.write(data)
        elif hasattr(self.out, "buffer"):
            # Bytes, so the JSONL is UTF-8 with \n line ends whatever the console's settings.
            self.out.flush()
            self.out.buffer.write(data.encode("utf-8"))
            self.out.buffer.flush()
        else:
            self.out.write(data)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def open_output(kind: str | None, path: str | None, out: TextIO) -> _Output | _ParquetOutput:
    """The writer of ``split``'s records: JSONL, or Parquet for ``--format parquet`` or an OUT ending in .parquet."""
    if kind is None:
        kind = "parquet" if path and path.lower().endswith(".parquet") else "jsonl"
    return _ParquetOutput(path) if kind == "parquet" else _Output(path, out)


class _ParquetOutput:
    """The records as rows of one Parquet file (the JSONL's records, column for column, in order)."""

    def __init__(self, path: str | None) -> None:
        if not path:
            raise RagchunkError("format", "parquet is written to a file, not standard output: add -o OUT.parquet")
        try:
            from ..integrations.arrow import ParquetWriter, schema

            schema()
        except RagchunkError:
            raise RagchunkError("format", 'parquet needs pyarrow: pip install "ragchunk[parquet]", or use --format'
                                          " jsonl") from None
        try:
            self.handle = open(path, "wb")  # noqa: SIM115
        except OSError as err:
            raise RagchunkError("output", f"OUT ({path}) cannot be written: {err.strerror}; check the path") from None
        self.writer = ParquetWriter(self.handle)

    def write(self, data: str) -> None:
        self.writer.write(json.loads(line) for line in data.splitlines())

    def close(self) -> None:
        self.writer.close()
        self.handle.close()


def format_corpus(summary: CorpusSummary, sizer: str, size: int, price: float | None) -> str:
    """The corpus summary of ``split --stats``: the chunk statistics, then the documents."""
    data = summary.to_json()
    stats = compute_stats(summary.sizes, [0] * len(summary.sizes), size)
    lines = format_stats(stats, sizer).splitlines()
    lines[3] = (f"overlap         {summary.overlap:,} tokens ({data['overlap_share'] * 100:.1f} % of the total)")
    skipped = ", ".join(f"{count:,} {kind}" for kind, count in data["skipped"].items())
    lines += [
        f"documents       {summary.documents:,}" + (f" (skipped: {skipped})" if skipped else ""),
        f"corpus          {summary.tokens:,} tokens, {summary.chars:,} characters",
    ]
    if summary.failed:
        lines.append(f"failed          {len(summary.failed):,} (named above)")
    if price is not None:
        lines.append(f"cost            {summary.embedded / 1_000_000 * price:,.6f} at {price:g} per million tokens")
    for rank, (tokens, source) in enumerate(summary.top()):
        lines.append(f"{'largest' if rank == 0 else '':<16}{tokens:,} tokens  {source}")
    return "\n".join(lines)


def format_corpus_plan(result: CorpusPlan, skipped: Counter, encoding: str) -> str:
    lines = [
        f"documents       {result.documents:,} ({result.doc_tokens:,} tokens by {encoding})"
        + (f", skipped {', '.join(f'{n:,} {kind}' for kind, n in sorted(skipped.items()))}" if skipped else ""),
        f"chunk size      {result.chunk_size:,} tokens, overlap {result.overlap:,}",
        f"chunks          {result.chunks:,} (counted per document)",
        f"total embedded  {result.total_tokens:,} tokens",
        f"repeated        {result.repeated_tokens:,} tokens ({result.repeated_share * 100:.1f} % of the total)",
        f"extra           {result.extra_share * 100:.1f} % more than the documents",
    ]
    if result.cost is not None:
        lines.append(f"cost            {result.cost:,.6f} at {result.price_per_million:g} per million tokens")
    return "\n".join(lines)


class Progress:
    """A progress bar on standard error: documents, bytes, rate, time left.

    tqdm draws it when it is installed (``pip install ragchunk[cli]``); otherwise one line
    is rewritten in place. ``enabled=False`` draws nothing.
    """

    def __init__(self, documents: int, total_bytes: int, enabled: bool) -> None:
        self.enabled = enabled and documents > 0
        self.total = documents
        self.done = 0
        self.bytes = 0
        self.total_bytes = total_bytes
        self.started = time.monotonic()
        self.shown = 0.0
        self.bar = None
        if self.enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total_bytes, unit="B", unit_scale=True, file=sys.stderr, leave=False,
                                desc="splitting", postfix=f"0/{documents:,} documents")

    def advance(self, size: int) -> None:
        if not self.enabled:
            return
        self.done += 1
        self.bytes += size
        if self.bar is not None:
            self.bar.update(size)
            self.bar.set_postfix_str(f"{self.done:,}/{self.total:,} documents", refresh=False)
            return
        now = time.monotonic()
        if now - self.shown < 0.2 and self.done < self.total:
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = self.bytes / elapsed
        left = (self.total_bytes - self.bytes) / rate if rate else 0
        print(f"\rsplitting {self.done:,}/{self.total:,} documents, {self.bytes / 1e6:,.1f}/"
              f"{self.total_bytes / 1e6:,.1f} MB, {rate / 1e6:,.1f} MB/s, {left:,.0f} s left ",
              end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.done:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run the CLI; return the exit code: 0; 2 for a bad flag or value (a usage error); 1 for a
    document that cannot be read or split (missing, unreadable, damaged, not text, empty: the
    same for every command), PATH that holds no document (an empty folder, every file skipped
    or left out) or an output that cannot be written; 130 on Ctrl-C; 70 for a bug."""
    out = out or sys.stdout
    stdin = stdin or sys.stdin
    try:
        args = build_parser().parse_args(argv)
        code = {"calc": lambda: run_calc(args, out, stdin),
                "tokens": lambda: run_tokens(args, out, stdin),
                "preview": lambda: run_preview(args, out, stdin),
                "split": lambda: run_split(args, out, stdin),
                "models": lambda: run_models(args, out),
                "compare": lambda: run_compare(args, out, stdin)}[args.command]()
        out.flush()  # here, so that a full disk is said as such, not at exit
    except UsageError as err:
        say(f"ragchunk: error: {err}")
        return EXIT_USAGE
    except DocumentError as failed:  # its message names the file, as split's and calc's do
        say(f"ragchunk: error: {failed.error.message}")
        return EXIT_FAILED
    except RagchunkError as err:
        errors = err.errors if isinstance(err, FormErrors) else [err]
        for error in errors:
            say(f"ragchunk: error: {FLAGS.get(error.field, error.field)}: {error.message}")
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        say("ragchunk: interrupted")
        return EXIT_INTERRUPTED
    except OSError as err:  # writing the output failed (a full disk, a closed terminal)
        say(f"ragchunk: error: cannot write the output: {err.strerror or err}")
        return EXIT_FAILED
    except Exception as err:  # a bug: one line, never a traceback (RAGCHUNK_DEBUG=1 shows it)
        if os.environ.get("RAGCHUNK_DEBUG"):
            raise
        say(f"ragchunk: internal error: {type(err).__name__}: {err} (this is a bug in ragchunk; "
            "RAGCHUNK_DEBUG=1 shows where)")
        return EXIT_INTERNAL
    return code or 0
