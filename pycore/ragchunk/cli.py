"""Command line: ``python -m ragchunk calc | tokens | preview | split``.

Bad input prints one line on stderr naming the flag and the fix, and exits with 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from . import __version__
from .errors import RagchunkError
from .records import to_jsonl
from .calculator import Plan
from .fields import FormErrors, read_calc_form, read_count
from .options import read_split_form
from .settings import DEFAULT_CHARS_PER_TOKEN, DEFAULT_ENCODING, DEFAULT_PREVIEW_WINDOWS, ENCODINGS, MAX_CHUNK_SIZE
from .splitter import BY_CHOICES, split_with
from .stats import format_stats
from .textio import check_text, decode_document
from .tokenizers import get_tokenizer
from .windowing import windows

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
}
EXIT_USAGE = 2


class UsageError(Exception):
    """One line for stderr; the CLI exits with 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> Parser:
    parser = Parser(prog="python -m ragchunk", description="RAG chunk calculator and text splitter.")
    parser.add_argument("--version", action="version", version=f"ragchunk {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    calc = commands.add_parser("calc", help="chunks, embedded tokens and cost of fixed-size chunking")
    length = calc.add_mutually_exclusive_group(required=True)
    length.add_argument("--tokens", metavar="N", help="document length in tokens")
    length.add_argument("--chars", metavar="N", help="document length in characters")
    calc.add_argument("--chars-per-token", metavar="R", default=f"{DEFAULT_CHARS_PER_TOKEN:g}",
                      help="characters per token for --chars (default %(default)s)")
    calc.add_argument("--size", metavar="S", required=True, help="chunk size in tokens")
    calc.add_argument("--overlap", metavar="O", required=True, help="overlap in tokens")
    calc.add_argument("--price", metavar="P", default="", help="price per million tokens")
    calc.add_argument("--json", action="store_true", help="print JSON")

    for name, text in (("tokens", "exact token count of a text"), ("preview", "the first fixed windows of a text")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("file", metavar="FILE", help="a UTF-8 text file, or - for standard input")
        sub.add_argument("--encoding", default=DEFAULT_ENCODING, choices=list(ENCODINGS), metavar="E",
                         help=f"one of {', '.join(ENCODINGS)} (default %(default)s)")
        sub.add_argument("--json", action="store_true", help="print JSON")
        if name == "preview":
            sub.add_argument("--size", metavar="S", required=True, help="chunk size in tokens")
            sub.add_argument("--overlap", metavar="O", required=True, help="overlap in tokens")
            sub.add_argument("--count", metavar="N", default=str(DEFAULT_PREVIEW_WINDOWS),
                             help="windows to show (default %(default)s; 0 for all)")

    cut = commands.add_parser("split", help="structural chunks of a text as JSONL")
    cut.add_argument("file", metavar="FILE", help="a UTF-8 text or Markdown file, or - for standard input")
    cut.add_argument("--by", metavar="B", default="headings",
                     help=f"the boundary packed: {', '.join(BY_CHOICES)} (default %(default)s)")
    cut.add_argument("--size", metavar="S", required=True, help="target chunk size in tokens")
    cut.add_argument("--overlap", metavar="O", required=True, help="most tokens repeated from the previous chunk")
    sizer = cut.add_mutually_exclusive_group()
    sizer.add_argument("--encoding", metavar="E", choices=list(ENCODINGS),
                       help=f"exact tokens of one of {', '.join(ENCODINGS)} (default {DEFAULT_ENCODING})")
    sizer.add_argument("--chars-per-token", metavar="R", help="estimate tokens as characters / R instead")
    cut.add_argument("-o", metavar="OUT", dest="output", help="write the JSONL here instead of standard output")
    cut.add_argument("--stats", action="store_true", help="print statistics to standard error")
    return parser


def read_document(path: str, stdin: TextIO) -> str:
    if path == "-":
        data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode("utf-8")
        name = "standard input"
    else:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as err:
            raise RagchunkError("file", f"FILE ({path}) cannot be read: {err.strerror}; check the path") from None
        name = path
    document = decode_document(data, name)
    for note in document.notes:
        print(f"ragchunk: note: {note}", file=sys.stderr)
    return check_text(document.text)


def format_plan(result: Plan) -> str:
    lines = [
        f"document        {result.doc_tokens:,} tokens",
        f"chunk size      {result.chunk_size:,} tokens, overlap {result.overlap:,} (step {result.step:,})",
        f"chunks          {result.chunks:,} (last one {result.last_chunk_tokens:,} tokens)",
        f"total embedded  {result.total_tokens:,} tokens",
        f"repeated        {result.repeated_tokens:,} tokens ({result.repeated_share * 100:.1f} % of the total)",
        f"extra           {result.extra_share * 100:.1f} % more than the document",
    ]
    if result.cost is not None:
        lines.append(f"cost            {result.cost:,.6f} at {result.price_per_million:g} per million tokens")
    return "\n".join(lines)


def run_calc(args: argparse.Namespace, out: TextIO) -> None:
    form = {
        "unit": "chars" if args.chars is not None else "tokens",
        "doc": args.chars if args.chars is not None else args.tokens,
        "chars_per_token": args.chars_per_token,
        "chunk_size": args.size,
        "overlap": args.overlap,
        "price": args.price,
    }
    result = read_calc_form(form)
    if args.json:
        keys = ("doc_tokens", "chunk_size", "overlap", "chunks", "total_tokens", "repeated_tokens",
                "repeated_share", "extra_share", "cost")
        data = result.to_json()
        print(json.dumps({key: data[key] for key in keys}), file=out)
    else:
        print(format_plan(result), file=out)


def run_tokens(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    text = read_document(args.file, stdin)
    count = get_tokenizer(args.encoding).count(text)
    data = {"encoding": args.encoding, "tokens": count, "chars": len(text), "chars_per_token": len(text) / count}
    if args.json:
        print(json.dumps(data), file=out)
    else:
        print(f"{count:,} tokens ({args.encoding}), {len(text):,} characters, "
              f"{data['chars_per_token']:.2f} characters per token", file=out)


def run_preview(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    size = read_count("chunk_size", args.size, 1, MAX_CHUNK_SIZE)
    overlap = read_count("overlap", args.overlap, 0, MAX_CHUNK_SIZE - 1)
    count = read_count("preview", args.count, 0, 10**9)
    text = read_document(args.file, stdin)
    cut = windows(text, size, overlap, get_tokenizer(args.encoding), limit=count or None)
    if args.json:
        for window in cut:
            print(json.dumps(window.to_json(), ensure_ascii=False), file=out)
        return
    for window in cut:
        head = text[window.start : window.overlap_end]
        print(f"--- window {window.index + 1}: tokens {window.token_start}-{window.token_end} "
              f"({window.tokens}), chars {window.start}-{window.end}, overlap {window.overlap_tokens}", file=out)
        print(f"[{head}]{text[window.overlap_end:window.end]}" if head else window.text, file=out)


def run_split(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> None:
    form = {"by": args.by, "chunk_size": args.size, "overlap": args.overlap}
    if args.chars_per_token is not None:
        form["chars_per_token"] = args.chars_per_token
    else:
        form["encoding"] = args.encoding or DEFAULT_ENCODING
    options = read_split_form(form)
    text = read_document(args.file, stdin)
    result = split_with(text, options)
    data = to_jsonl(result)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(data)
        except OSError as err:
            message = f"OUT ({args.output}) cannot be written: {err.strerror}; check the path"
            raise RagchunkError("output", message) from None
    elif hasattr(out, "buffer"):
        # Bytes, so the JSONL is UTF-8 with \n line ends whatever the console's settings.
        out.flush()
        out.buffer.write(data.encode("utf-8"))
        out.buffer.flush()
    else:
        out.write(data)
    if args.stats:
        print(format_stats(result.stats, result.tokenizer), file=sys.stderr)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run the CLI; return the exit code (0, or 2 for bad input)."""
    out = out or sys.stdout
    stdin = stdin or sys.stdin
    try:
        args = build_parser().parse_args(argv)
        {"calc": lambda: run_calc(args, out),
         "tokens": lambda: run_tokens(args, out, stdin),
         "preview": lambda: run_preview(args, out, stdin),
         "split": lambda: run_split(args, out, stdin)}[args.command]()
    except UsageError as err:
        print(f"ragchunk: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except RagchunkError as err:
        errors = err.errors if isinstance(err, FormErrors) else [err]
        for error in errors[:1]:
            print(f"ragchunk: error: {FLAGS.get(error.field, error.field)}: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    return 0
