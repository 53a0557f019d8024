"""What the commands print: plans and statistics as aligned lines (``format_*``), ``split``'s
records as JSONL or Parquet (:func:`open_output`), its :class:`Progress` bar, and :func:`say`,
which every line on standard error goes through.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from typing import TextIO

from ..calculator import CorpusPlan, Plan
from ..corpus import CorpusSummary
from ..errors import RagchunkError
from ..models import Model, vector_storage
from ..packing.stats import compute_stats, format_stats
from .files import printable


def say(line: str) -> None:
    """Print one line of ragchunk's on standard error, control characters escaped, so that no
    file name (nor a reader's message quoting it) can forge a line or move the terminal."""
    print(printable(line), file=sys.stderr)


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
