"""A whole corpus: many documents split with one set of options, in order, on several cores.

:func:`split_corpus` takes ``(source, document)`` pairs — ``document`` a text or a file's
bytes — and yields one :class:`DocumentResult` per document, in the order given, with the
JSONL of its chunks (every record has its ``source``). With ``jobs`` above 1 the documents
are split in worker processes (spawn and fork alike); the results, and so the bytes of the
JSONL, are the same for any ``jobs``. A document that is not text is *skipped* (its kind
says what it is); one that cannot be read is *failed* (its message says why); neither
stops the others. :class:`CorpusSummary` adds the results up.

No I/O here: the caller reads the files (``ragchunk.cli`` walks folders) and writes the
output; documents are read lazily, a few ahead of the workers, so memory stays bounded.
"""

from __future__ import annotations

import multiprocessing
import signal
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import NotTextError, RagchunkError
from .options import SplitOptions
from .readers import MARKDOWN_KINDS, Extracted, ReadOptions
from .readers.formats import read_document
from .readers.text import of_text
from .records import Document, jsonl_line, records
from .splitter import split_with
from .textio import check_text

__all__ = ["CorpusSummary", "DocumentResult", "read_source", "split_corpus", "split_document"]


class DocumentResult(NamedTuple):
    """What became of one document of a corpus.

    ``jsonl`` holds the records of its chunks ("" when it has none, was skipped or failed);
    ``tokens`` its length in tokens of the sizer; ``chunk_tokens`` what each chunk costs to
    embed (its ``embed_tokens`` when it has context lines).
    ``skipped`` is the kind of a file that is not a document (``"pdf"``, ``"png"``,
    ``"empty"`` ...) and ``error`` the reason a document could not be read or split
    (``field`` names the setting at fault when it is one, e.g. ``chunk_size``).
    """

    source: str
    jsonl: str = ""
    chars: int = 0
    tokens: int = 0
    chunk_tokens: tuple[int, ...] = ()
    overlap_tokens: int = 0
    skipped: str = ""
    error: str = ""
    notes: tuple[str, ...] = ()
    field: str = ""

    @property
    def chunks(self) -> int:
        return len(self.chunk_tokens)

    def records(self) -> list[dict[str, Any]]:
        """The records of its chunks as dicts (parsed from :attr:`jsonl`)."""
        import json

        return [json.loads(line) for line in self.jsonl.splitlines()]


def read_source(source: str, document: str | bytes | Extracted, read_options: ReadOptions | None = None) -> Document:
    """A corpus document from a text, a file's bytes (read by the reader of its format) or an
    :class:`~ragchunk.readers.Extracted`. Raises :class:`RagchunkError` for one that cannot be read."""
    if isinstance(document, Extracted):
        extracted = document
    elif isinstance(document, (bytes, bytearray, memoryview)):
        extracted = read_document(bytes(document), source, read_options)
    else:
        extracted = of_text(document)
    return Document(source, check_text(extracted.text) if extracted.text.strip() else extracted.text,
                    extracted.title, extracted.kind, extracted.pages, extracted.anchors, extracted.notes)


def split_document(source: str, document: str | bytes | Extracted, options: SplitOptions, threads: int | None = 1,
                   read_options: ReadOptions | None = None) -> DocumentResult:
    """Split one document of a corpus; never raises for a bad document (see :class:`DocumentResult`).

    Bytes are read by the reader of their format (:mod:`ragchunk.readers`: HTML, PDF,
    DOCX, EPUB, notebooks, reStructuredText, text and Markdown), so the records are
    slices of the extracted text and carry its pages, anchors and title.

    >>> from ragchunk.options import SplitOptions
    >>> result = split_document("a.md", b"# A\\n\\nOne. Two.", SplitOptions(size=64, overlap=0))
    >>> result.chunks, result.tokens, result.jsonl.startswith('{"source": "a.md", "id": 0')
    (1, 7, True)
    >>> split_document("b.png", b"\\x89PNG\\r\\n\\x1a\\n", SplitOptions()).skipped
    'png'
    """
    notes: tuple[str, ...] = ()
    try:
        if isinstance(document, (bytes, bytearray, memoryview)) and not len(document):
            return DocumentResult(source, skipped="empty")
        doc = read_source(source, document, read_options)
        notes = tuple(note.get("message", "") for note in doc.notes)
        if not doc.text.strip():
            return DocumentResult(source, skipped="empty", notes=notes)
        result = split_with(doc.text, options, threads=threads, markdown_titles=doc.kind in MARKDOWN_KINDS)
    except NotTextError as err:
        return DocumentResult(source, skipped=str(err.params.get("kind", "binary")))
    except RagchunkError as err:
        return DocumentResult(source, error=err.message, notes=notes, field=err.field)
    jsonl = "".join(jsonl_line(record) for record in records(result, doc))
    return DocumentResult(source, jsonl, len(doc.text), result.document_tokens,
                          tuple(c.embedded_tokens for c in result.chunks), result.stats.overlap_tokens, notes=notes)


# --- many documents ----------------------------------------------------------------------

_WORKER_OPTIONS: list = []


def _start_worker(options: SplitOptions, read_options: ReadOptions | None) -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent stops the pool, so a
    # worker ignores it (a worker that died of it would leave the parent waiting for its batch).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_OPTIONS[:] = [options, read_options]


def _work(batch: list[tuple[str, str | bytes]]) -> list[DocumentResult]:
    return [split_document(source, document, _WORKER_OPTIONS[0], read_options=_WORKER_OPTIONS[1])
            for source, document in batch]


#: A batch sent to a worker holds at most this many documents and, past its first, this many
#: bytes: small documents travel together (one round trip for several), a large one alone,
#: so neighbours in sorted order (a folder of big changelogs) spread over the workers.
BATCH_DOCUMENTS = 16
BATCH_BYTES = 64 * 1024


def _batches(documents: Iterable[tuple[str, str | bytes]]) -> Iterator[list[tuple[str, str | bytes]]]:
    """Consecutive documents grouped by :data:`BATCH_DOCUMENTS` and :data:`BATCH_BYTES`.

    >>> [len(b) for b in _batches([("a", "x" * 70_000), ("b", "y"), ("c", "z"), ("d", "w" * 70_000)])]
    [1, 2, 1]
    """
    batch: list[tuple[str, str | bytes]] = []
    size = 0
    for item in documents:
        weight = len(item[1].text) if isinstance(item[1], Extracted) else len(item[1])
        if batch and (len(batch) >= BATCH_DOCUMENTS or size + weight > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += weight
    if batch:
        yield batch


def split_corpus(documents: Iterable[tuple[str, str | bytes]], options: SplitOptions, *, jobs: int = 1,
                 context: str | None = None, read_options: ReadOptions | None = None) -> Iterator[DocumentResult]:
    """Split every ``(source, document)`` pair, yielding results in the order given.

    ``jobs`` worker processes split documents in parallel (1: in this process, one
    thread per split); ``context`` names the multiprocessing start method ("spawn",
    "fork", "forkserver"; default: the platform's). Worker processes need options they can
    receive: a registry name or a :class:`ragchunk.tokenizers.CharEstimate` as the
    tokenizer. Closing the iterator stops the workers.

    >>> from ragchunk.options import SplitOptions
    >>> [r.source for r in split_corpus([("b.md", "Two."), ("a.md", "One.")], SplitOptions(size=8, overlap=0))]
    ['b.md', 'a.md']
    """
    if jobs < 1:
        raise RagchunkError("jobs", f"jobs ({jobs}) must be at least 1: use 1 to split in this process",
                            "too_small", {"value": str(jobs), "minimum": 1})
    if jobs == 1:
        for source, document in documents:
            yield split_document(source, document, options, read_options=read_options)
        return
    if not isinstance(options.tokenizer, str) and options.sizing.ratio is None:
        raise RagchunkError(
            "tokenizer",
            "a tokenizer object cannot be sent to worker processes: pass its registry name, or use jobs=1",
        )
    pool = multiprocessing.get_context(context).Pool(jobs, _start_worker, (options, read_options))
    try:
        # Small batches keep the order cheap and the memory bounded: imap reads ahead only as
        # far as the workers have room.
        for results in pool.imap(_work, _batches(documents)):
            yield from results
        pool.close()
    finally:
        pool.terminate()
        pool.join()


@dataclass
class CorpusSummary:
    """The totals of a corpus split (see :meth:`add`), for ``--stats`` and the page.

    ``tokens`` is the corpus's own length, ``embedded`` what embedding every chunk costs
    (``overlap`` of it repeats text), ``largest`` the biggest documents by tokens.
    """

    documents: int = 0
    skipped: Counter = field(default_factory=Counter)
    failed: list[tuple[str, str]] = field(default_factory=list)
    chars: int = 0
    tokens: int = 0
    embedded: int = 0
    overlap: int = 0
    sizes: list[int] = field(default_factory=list)
    largest: list[tuple[int, str]] = field(default_factory=list)
    keep_largest: int = 5

    def add(self, result: DocumentResult) -> None:
        if result.skipped:
            self.skipped[result.skipped] += 1
            return
        if result.error:
            self.failed.append((result.source, result.error))
            return
        self.documents += 1
        self.chars += result.chars
        self.tokens += result.tokens
        self.embedded += sum(result.chunk_tokens)
        self.overlap += result.overlap_tokens
        self.sizes.extend(result.chunk_tokens)
        self.largest.append((result.tokens, result.source))
        if len(self.largest) > 4 * self.keep_largest:
            self.largest = sorted(self.largest, key=lambda pair: (-pair[0], pair[1]))[: self.keep_largest]

    @property
    def chunks(self) -> int:
        return len(self.sizes)

    def top(self) -> list[tuple[int, str]]:
        return sorted(self.largest, key=lambda pair: (-pair[0], pair[1]))[: self.keep_largest]

    def to_json(self) -> dict[str, Any]:
        sizes = self.sizes
        return {
            "documents": self.documents,
            "skipped": dict(sorted(self.skipped.items())),
            "failed": [{"source": s, "error": e} for s, e in self.failed],
            "chars": self.chars,
            "tokens": self.tokens,
            "chunks": len(sizes),
            "embedded_tokens": self.embedded,
            "overlap_tokens": self.overlap,
            "overlap_share": self.overlap / self.embedded if self.embedded else 0.0,
            "min_tokens": min(sizes, default=0),
            "median_tokens": statistics.median(sizes) if sizes else 0,
            "max_tokens": max(sizes, default=0),
            "largest": [{"source": s, "tokens": t} for t, s in self.top()],
        }
