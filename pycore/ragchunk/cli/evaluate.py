"""``python -m ragchunk evaluate``: settings tried on your own documents and questions.

Reads PATH as ``split`` does, the questions from ``--questions FILE`` (see
:mod:`ragchunk.evaluate.questions`), and prints a table per retriever and the
recommendation, or with ``--json`` one object (:meth:`ragchunk.evaluate.Evaluation.to_json`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ..errors import RagchunkError
from ..evaluate import DEFAULT_K, MAX_K, Evaluation, evaluate_steps, read_questions
from ..evaluate.grid import MAX_SIZE, MIN_SIZE
from ..evaluate.recommend import label as setting_label
from ..options.fields import ErrorCollector, read_count, read_price
from ..tokenizers import check_tokenizer
from .batch import _exit_code, read_texts
from .commands import DocumentError
from .files import cannot_read
from .forms import _all_errors, _read_options
from .output import say

__all__ = ["run_evaluate"]


def _listed(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def _questions(path: str) -> list:
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise DocumentError(RagchunkError("questions", cannot_read(path, err))) from None
    return read_questions(data, path)


class StageProgress:
    """One line on standard error, rewritten in place, as ``split``'s: which setting of how
    many, its stage, how far the stage is, and while embedding the rate and the time left.

    ``stream`` and ``clock`` are standard error and ``time.monotonic`` unless a test gives others.
    """

    def __init__(self, enabled: bool, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.clock = clock
        self.shown = -1.0
        self.setting = ""
        self.stage = ""
        self.first = (0.0, 0)  # when the stage was first heard, and how far it was then

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if stage != self.stage:
            self.stage, self.first = stage, (now, done)
        elif now - self.shown < 0.2 and done < total:
            return
        self.shown = now
        if stage.startswith("chunking "):
            self.setting = f"setting {done + 1:,}/{total:,}, "
            line = stage
        elif stage.startswith("embedding "):
            line = f"{stage}: {done:,}/{total:,} chunks"
            seconds, before = now - self.first[0], self.first[1]
            if done > before and seconds > 0:
                rate = (done - before) / seconds
                line += f", {rate:,.1f} chunks/s, {(total - done) / rate:,.0f} s left"
        else:
            line = f"{stage}: {done:,}/{total:,}"
        self.stream.write(f"\r\x1b[K{self.setting}{line}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.shown >= 0:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def print_table(result: Evaluation, out: TextIO) -> None:
    """The rows per retriever, then the recommendation and the quotes not found."""
    data = result.to_json()
    print(f"{data['questions']:,} questions, top {data['k']} chunks, tokens by {data['tokenizer']}", file=out)
    for retriever in dict.fromkeys(row["retriever"] for row in data["results"]):
        print(f"\n{retriever}", file=out)
        print(f"{'setting':<26}{'recall %':>9}{'interval':>14}{'IoU %':>7}{'prec. %':>8}{'Ω %':>6}{'hit %':>7}"
              f"{'MRR':>6}{'read':>8}{'chunks':>8}{'to embed':>10}", file=out)
        for row in (r for r in data["results"] if r["retriever"] == retriever):
            label = setting_label(row)
            interval = "-" if row["recall_interval"] is None else (
                f"{row['recall_interval'][0] * 100:.1f}–{row['recall_interval'][1] * 100:.1f}")
            mrr = "-" if row["mrr"] is None else f"{row['mrr']:.2f}"
            print(f"{label:<26}{_percent(row['recall']):>9}{interval:>14}{_percent(row['iou']):>7}"
                  f"{_percent(row['precision']):>8}{_percent(row['precision_omega']):>6}{_percent(row['hit_rate']):>7}"
                  f"{mrr:>6}{row['tokens_read']:>8,.0f}{row['chunks']:>8,}{row['tokens_to_embed']:>10,}", file=out)
            if row.get("chunks_past_model"):
                print(f"{'':<26}{row['chunks_past_model']:,} chunks are longer than the model reads: their tails"
                      " are invisible to it", file=out)
        answer = data["recommendation"].get(retriever)
        if answer:
            print(answer["sentence"], file=out)
    if not any(row["recall"] is not None for row in data["results"]):
        print("\nNo question has an answer to score: the rows show what each setting reads (--json lists what"
              " each question retrieved).", file=out)
    say_not_found(data["not_found"])


#: Quotes not found that are said one by one; the rest are counted.
SHOWN_NOT_FOUND = 10


def say_not_found(not_found: list[dict]) -> None:
    """One note per question whose answers were not found (the first few), then how many more."""
    by_question: dict[str, list[dict]] = {}
    for missing in not_found:
        by_question.setdefault(missing["id"], []).append(missing)
    absent = {}
    for ident, items in list(by_question.items()):
        if items[0]["source"] and items[0]["closest"] is None:
            absent.setdefault(items[0]["source"], []).append(ident)
            del by_question[ident]
    for source, idents in absent.items():
        say(f"ragchunk: note: {len(idents):,} questions name {source!r}, which is not among the documents given:"
            f" they are scored without answers (give that document to score them)")
    for ident, items in list(by_question.items())[:SHOWN_NOT_FOUND]:
        closest = items[0]["closest"]
        where = (f"; the closest passage is in {closest['source']}: {closest['text'][:100]!r}" if closest
                 else "; no passage shares a word with it")
        say(f"ragchunk: note: question {ident}: {len(items)} answer quote(s) not found, e.g."
            f" {items[0]['answer'][:80]!r}{where}")
    if len(by_question) > SHOWN_NOT_FOUND:
        say(f"ragchunk: note: {len(by_question) - SHOWN_NOT_FOUND:,} more questions have quotes not found"
            " (--json lists them all)")


def run_evaluate(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    errors = ErrorCollector()
    sizes = [errors.attempt(read_count, "chunk_size", raw, MIN_SIZE, MAX_SIZE) for raw in _listed(args.size)]
    overlap = errors.attempt(read_count, "overlap", args.overlap, 0, MAX_SIZE - 1) if args.overlap.strip() else None
    k = errors.attempt(read_count, "k", args.k, 1, MAX_K, "chunks")
    price = errors.attempt(read_price, args.price) if args.price.strip() else None
    if args.encoding:
        errors.attempt(check_tokenizer, args.encoding)
    read_options = _read_options(args, errors)
    if errors:
        raise _all_errors(errors)
    questions = _questions(args.questions)
    texts, skipped, left_out, failed = read_texts(args, stdin, read_options)
    if not texts:
        return _exit_code(args.paths, "evaluate", 0, skipped, left_out, failed)
    progress = StageProgress(args.progress or sys.stderr.isatty())
    steps = evaluate_steps(texts, questions, by=_listed(args.by), sizes=[s for s in sizes if s is not None],
                           overlap=overlap, context=args.context, retrievers=_listed(args.retriever), k=k or DEFAULT_K,
                           tokenizer=args.encoding or "cl100k_base", model=args.model or None, price=price,
                           siblings=args.siblings)
    try:
        while True:
            progress(*next(steps))
    except StopIteration as stop:
        result: Evaluation = stop.value
    finally:
        progress.close()
    if args.json:
        print(json.dumps(result.to_json()), file=out)
    else:
        print_table(result, out)
    return _exit_code(args.paths, "evaluate", len(texts), skipped, left_out, failed)
