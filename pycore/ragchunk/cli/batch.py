"""The commands over PATH (``calc PATH``, ``compare``, ``split``): the files the walk flags find,
read one at a time; a file that fails is said as it is met and the others go on, and the exit
code says whether one failed or PATH held no document (:func:`no_document`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from ..calculator import plan_corpus
from ..corpus import PARALLEL_BYTES, CorpusSummary, read_source, split_corpus
from ..errors import NotTextError, RagchunkError
from ..models import get_model, vector_storage
from ..options.fields import ErrorCollector, read_count, read_price
from ..readers import ReadOptions
from ..readers.formats import readable_formats
from ..results.compare import compare
from ..settings import MAX_CHUNK_SIZE
from ..settings.checks import check_chunking
from ..tokenizers import get_tokenizer
from .files import (
    STDIN,
    Found,
    cannot_read,
    find_files,
    is_archive,
    read_file,
    same_file,
    shown_name,
    zip_documents,
)
from .forms import FLAGS, _all_errors, _read_form_with, _read_options, _size_or_default, _sized_form, counted_by
from .output import Progress, format_corpus, format_corpus_plan, format_storage, open_output, say
from .parser import EXIT_FAILED, EXIT_INTERRUPTED, usable_cpus


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
    texts = Texts(args, stdin, read_options)
    lengths = [tokenizer.count(text) for _, text in texts]  # one text in memory at a time
    skipped, left_out, failed = texts.skipped, texts.left_out, texts.failed
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


class Texts:
    """The ``(source, text)`` of every document of PATH, read one at a time as they are iterated;
    afterwards ``skipped`` and ``left_out`` count the files set aside by kind and ``failed``
    says whether one failed (each failure said as it is met)."""

    def __init__(self, args: argparse.Namespace, stdin: TextIO, read_options: ReadOptions) -> None:
        self.args, self.stdin, self.read_options = args, stdin, read_options
        self.skipped: Counter = Counter()
        self.left_out: Counter = Counter()
        self.failed = False

    def __iter__(self) -> Iterator[tuple[str, str]]:
        found, problems = _find(self.args, self.left_out)
        self.failed = _say_problems(problems)
        unreadable: list[str] = []
        for source, data in _read_all(found, self.stdin, unreadable):
            try:
                text = _text_or_skip(source, data, self.skipped, self.read_options)
            except RagchunkError as err:
                self.failed = _say_problems([(source, err.message)])
                continue
            if text is not None:
                yield source, text
        self.failed = self.failed or bool(unreadable)


def read_texts(args: argparse.Namespace, stdin: TextIO,
               read_options: ReadOptions) -> tuple[list[tuple[str, str]], Counter, Counter, bool]:
    """Every ``(source, text)`` of PATH at once (see :class:`Texts`), with the counts and ``failed``."""
    texts = Texts(args, stdin, read_options)
    return list(texts), texts.skipped, texts.left_out, texts.failed


def run_compare(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    form = _sized_form(args, {
        "by": "headings", "chunk_size": _size_or_default(args), "overlap": args.overlap,
        "context": args.context, "siblings": args.siblings, "prefix": str(args.prefix)})
    errors = ErrorCollector()
    price = errors.attempt(read_price, args.price) if args.price.strip() else None
    read_options = _read_options(args, errors)
    options = _read_form_with(form, errors)
    model = get_model(args.model) if args.model else None
    if price is None and model is not None:
        price = model.price_per_million
    texts, skipped, left_out, failed = read_texts(args, stdin, read_options)
    rows = compare(texts, size=options.size, overlap=options.overlap, tokenizer=options.tokenizer, model=options.model,
                   price_per_million=price, context=options.context, prefix=options.prefix,
                   siblings=options.siblings)
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


def run_split(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    form = _sized_form(args, {"by": args.by, "chunk_size": _size_or_default(args), "overlap": args.overlap,
                              "prefix": str(args.prefix), "context": args.context, "siblings": args.siblings})
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
        # The default goes to worker processes only when the corpus is big enough for them to pay.
        least = PARALLEL_BYTES if args.jobs is None else 0
        # A document split in this process (one file, or a small corpus) may use a second
        # thread unless --jobs 1 asked for one core.
        for result in split_corpus(documents(), options, jobs=min(jobs, max(1, len(found))), read_options=read_options,
                                   min_parallel_bytes=least, threads=1 if jobs == 1 else None):
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


def _find(args: argparse.Namespace, left_out: Counter) -> tuple[list[Found], list[tuple[str, str]]]:
    """The files of PATH by the walk flags; each link or special file skipped is said in a note."""
    notes: list[str] = []
    found = find_files(args.paths, args.include, args.exclude, args.hidden, left_out, args.follow_links, notes)
    for note in notes:
        say(f"ragchunk: note: {note}")
    return found


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
