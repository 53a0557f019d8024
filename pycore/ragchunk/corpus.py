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

import signal
import statistics
import threading
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from queue import SimpleQueue
from typing import Any, NamedTuple

from .errors import NotTextError, RagchunkError
from .options import SplitOptions
from .readers import MARKDOWN_KINDS, Extracted, ReadOptions
from .readers.formats import read_document
from .readers.safety import text_too_large
from .readers.text import of_text
from .readers.textio import check_text
from .results.records import Document, jsonl_line, records
from .splitter import split_with

__all__ = ["CorpusSummary", "DocumentResult", "read_source", "split_corpus", "split_document"]


class DocumentResult(NamedTuple):
    """What became of one document of a corpus.

    ``jsonl`` holds the records of its chunks ("" when it has none, was skipped or failed);
    ``tokens`` its length in tokens of the sizer; ``chunk_tokens`` what each chunk costs to
    embed (its ``embed_tokens`` when it has context lines).
    ``skipped`` is the kind of a file that is not a document (``"pdf"``, ``"png"``,
    ``"empty"`` ...) and ``error`` the reason a document could not be read or split
    (``field`` names the setting at fault when it is one, e.g. ``chunk_size``; ``code`` is the
    error's stable code, e.g. ``reader_failed``, ``worker_died``, ``document_out_of_memory``).
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
    code: str = ""

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
        limit = (read_options or ReadOptions()).max_chars
        if len(document) > limit:
            raise text_too_large(source, limit)
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
        try:
            result = split_with(doc.text, options, threads=threads, markdown_titles=doc.kind in MARKDOWN_KINDS)
            jsonl = "".join(jsonl_line(record) for record in records(result, doc))
        except (RagchunkError, MemoryError):
            raise
        except Exception as err:  # noqa: BLE001 - one document fails alone, whatever the splitter met
            raise split_failed(source, err) from err
    except NotTextError as err:
        return DocumentResult(source, skipped=str(err.params.get("kind", "binary")))
    except RagchunkError as err:
        return DocumentResult(source, error=err.message, notes=notes, field=err.field, code=err.code or "")
    except MemoryError:
        err = out_of_memory(source)
        return DocumentResult(source, error=err.message, notes=notes, field=err.field, code=err.code or "")
    except Exception as err:  # noqa: BLE001 - a text given as text meets no reader, yet must fail alone too
        failed = split_failed(source, err)
        return DocumentResult(source, error=failed.message, notes=notes, field=failed.field, code=failed.code or "")
    return DocumentResult(source, jsonl, len(doc.text), result.document_tokens,
                          tuple(c.embedded_tokens for c in result.chunks), result.stats.overlap_tokens, notes=notes)


def split_failed(source: str, err: BaseException) -> RagchunkError:
    """``split_failed``: splitting ``source`` met an exception; the document fails alone.

    >>> split_failed("a.md", ValueError("bad")).message  # doctest: +ELLIPSIS
    'a.md could not be split (ValueError: bad): this is a bug in ragchunk; ...'
    """
    detail = f"{type(err).__name__}: {err}"
    detail = detail if len(detail) <= 200 else detail[:199] + "…"
    return RagchunkError("file", f"{source or 'the document'} could not be split ({detail}): this is a bug in ragchunk;"
                         " report it with the file, and split the other documents meanwhile", "split_failed",
                         {"name": source, "detail": detail})


def out_of_memory(source: str) -> RagchunkError:
    """``document_out_of_memory``: reading or splitting ``source`` needed more memory than there is.

    >>> out_of_memory("big.docx").message  # doctest: +ELLIPSIS
    'big.docx needs more memory than this machine gave it: split it into smaller files, ...'
    """
    return RagchunkError("file", f"{source or 'the document'} needs more memory than this machine gave it: split it"
                         " into smaller files, or run it alone with more memory", "document_out_of_memory",
                         {"name": source})


# --- many documents ----------------------------------------------------------------------

def _serve(connection: Any, options: SplitOptions, read_options: ReadOptions | None) -> None:
    """A worker process: split each batch it receives and send back its results; ``None`` ends it.

    A thread receives the batches while the process splits and sends: the parent may send the
    next batch while this process sends a result, and neither may wait for the other to read.
    """
    # Ctrl-C reaches every process of the terminal's group: the parent stops the workers, so a
    # worker ignores it (a worker that died of it would be taken for one that crashed).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox: SimpleQueue = SimpleQueue()

    def receive() -> None:
        while True:
            try:
                batch = connection.recv()
            except (EOFError, OSError):
                batch = None
            inbox.put(batch)
            if batch is None:
                return

    threading.Thread(target=receive, daemon=True).start()
    while (batch := inbox.get()) is not None:
        try:
            connection.send([(number, split_document(source, document, options, read_options=read_options))
                             for number, source, document in batch])
        except (BrokenPipeError, OSError):
            return


def worker_died(source: str, exitcode: int | None) -> DocumentResult:
    """The result of a document whose worker process died twice while splitting it (killed by
    the system's memory killer, most often, or a crash in native code).

    >>> worker_died("big.pdf", -9).error  # doctest: +ELLIPSIS
    "big.pdf stopped the worker process that read it twice (killed by signal 9, ..."
    """
    how = f"killed by signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit code {exitcode}"
    err = RagchunkError("file", f"{source or 'the document'} stopped the worker process that read it twice ({how},"
                        " most often the system's memory killer): split it into smaller files, or run it alone"
                        " with more memory", "worker_died", {"name": source, "how": how})
    return DocumentResult(source, error=err.message, field=err.field, code=err.code or "")


class _Worker:
    """One worker process, its end of the pipe, and the batches it holds, oldest first.

    A worker holds up to :data:`DEPTH` batches, so it starts the next one as soon as it sends
    a result, without waiting for the parent to read it; a worker given a document to retry
    holds that one alone (``retry``).
    """

    def __init__(self, context: Any, options: SplitOptions, read_options: ReadOptions | None) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, options, read_options), daemon=True)
        self.process.start()
        theirs.close()
        self.batches: deque[list[tuple[int, str, Any]]] = deque()
        self.retry = False

    def give(self, batch: list[tuple[int, str, Any]], retry: bool) -> None:
        self.batches.append(batch)
        self.retry = retry
        self.connection.send(batch)

    def takes(self) -> bool:
        """Whether it may be given another batch now."""
        return not self.retry and len(self.batches) < DEPTH

    def stop(self, wait: float = 1.0) -> None:
        try:
            self.connection.send(None)
        except (OSError, ValueError):
            pass
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _pooled(batches: Iterator[list[tuple[str, str | bytes]]], options: SplitOptions, jobs: int,
            read_options: ReadOptions | None, context: str | None) -> Iterator[DocumentResult]:
    """The results of ``batches`` split by ``jobs`` worker processes, in order.

    Each worker holds at most :data:`DEPTH` batches, so the parent always knows which
    documents a worker held when it died: those are sent again one by one to fresh workers,
    and a document whose worker dies again gets :func:`worker_died`. Batches are read only as
    far ahead as :data:`AHEAD` results wait for an earlier, slower one.
    """
    import multiprocessing  # only here: the page and one-process runs never start a process
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context(context)
    workers = [_Worker(ctx, options, read_options) for _ in range(jobs)]
    done: dict[int, DocumentResult] = {}
    retries: list[tuple[int, str, Any]] = []
    next_out = 0
    sent = 0
    exhausted = False
    try:
        while True:
            for worker in workers:
                if retries and not worker.batches:
                    worker.give([retries.pop(0)], True)
            # Batches go to the least busy worker first, one round at a time, until each holds DEPTH.
            while not retries and not exhausted and sent - next_out < AHEAD * jobs * BATCH_DOCUMENTS:
                open_workers = [worker for worker in workers if worker.takes()]
                if not open_workers:
                    break
                batch = next(batches, None)
                if batch is None:
                    exhausted = True
                    break
                numbered = [(sent + i, source, document) for i, (source, document) in enumerate(batch)]
                sent += len(batch)
                min(open_workers, key=lambda w: len(w.batches)).give(numbered, False)
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
            busy = [worker for worker in workers if worker.batches]
            if not busy:
                if exhausted and not retries:
                    return
                continue
            ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
            for index, worker in enumerate(workers):
                if not worker.batches or (worker.connection not in ready and worker.process.sentinel not in ready):
                    continue
                results = None
                if worker.connection in ready:
                    try:
                        results = worker.connection.recv()
                    except (EOFError, OSError):
                        results = None
                if results is not None:
                    done.update(results)
                    worker.batches.popleft()
                    worker.retry = False
                    continue
                # The worker died holding its batches: their documents go again, one by one, to fresh ones.
                worker.process.join()
                if worker.retry:
                    number, source, _ = worker.batches[0][0]
                    done[number] = worker_died(source, worker.process.exitcode)
                else:
                    retries.extend(item for batch in worker.batches for item in batch)
                    retries.sort(key=lambda item: item[0])
                worker.connection.close()
                workers[index] = _Worker(ctx, options, read_options)
    finally:
        for worker in workers:
            if worker.batches:
                worker.process.kill()
            worker.stop()


#: How many batches per worker may be read ahead of the next result to yield.
AHEAD = 4
#: How many batches a worker holds at once: the one it splits and the next, so it never waits
#: for the parent between two batches.
DEPTH = 2
#: With ``min_parallel_bytes``, a corpus smaller than this stays in this process
#: (see :func:`split_corpus`).
PARALLEL_BYTES = 1024 * 1024


#: A batch sent to a worker holds at most this many documents and, past its first, this many
#: bytes: small documents travel together (one round trip for several), a large one alone,
#: so neighbours in sorted order (a folder of big changelogs) spread over the workers.
BATCH_DOCUMENTS = 16
BATCH_BYTES = 64 * 1024


def _weight(document: str | bytes | Extracted) -> int:
    return len(document.text) if isinstance(document, Extracted) else len(document)


def _batches(documents: Iterable[tuple[str, str | bytes]]) -> Iterator[list[tuple[str, str | bytes]]]:
    """Consecutive documents grouped by :data:`BATCH_DOCUMENTS` and :data:`BATCH_BYTES`.

    >>> [len(b) for b in _batches([("a", "x" * 70_000), ("b", "y"), ("c", "z"), ("d", "w" * 70_000)])]
    [1, 2, 1]
    """
    batch: list[tuple[str, str | bytes]] = []
    size = 0
    for item in documents:
        weight = _weight(item[1])
        if batch and (len(batch) >= BATCH_DOCUMENTS or size + weight > BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += weight
    if batch:
        yield batch


def split_corpus(documents: Iterable[tuple[str, str | bytes]], options: SplitOptions, *, jobs: int = 1,
                 context: str | None = None, read_options: ReadOptions | None = None,
                 min_parallel_bytes: int = 0, threads: int | None = 1) -> Iterator[DocumentResult]:
    """Split every ``(source, document)`` pair, yielding results in the order given.

    ``jobs`` worker processes split documents in parallel (1: in this process, with at
    most ``threads`` threads per split, see :func:`ragchunk.split`; a worker process
    uses one); ``context`` names the multiprocessing start method ("spawn",
    "fork", "forkserver"; default: the platform's). Worker processes need options they can
    receive: a registry name or a :class:`ragchunk.tokenizers.CharEstimate` as the
    tokenizer. Closing the iterator stops the workers. A document never stops the others:
    one that fails gets its error (:func:`split_document`), and one whose worker process
    dies (the memory killer) is tried again alone in a fresh worker, then reported
    (``worker_died``).

    With ``min_parallel_bytes`` (the command line's default passes :data:`PARALLEL_BYTES`),
    documents are read ahead until that many bytes have come: a corpus that ends before
    stays in this process, where starting workers would cost more than they save.

    >>> from ragchunk.options import SplitOptions
    >>> [r.source for r in split_corpus([("b.md", "Two."), ("a.md", "One.")], SplitOptions(size=8, overlap=0))]
    ['b.md', 'a.md']
    """
    if jobs < 1:
        raise RagchunkError("jobs", f"jobs ({jobs}) must be at least 1: use 1 to split in this process",
                            "too_small", {"value": str(jobs), "minimum": 1})
    if jobs > 1 and not isinstance(options.tokenizer, str) and options.sizing.ratio is None:
        raise RagchunkError(
            "tokenizer",
            "a tokenizer object cannot be sent to worker processes: pass its registry name, or use jobs=1",
        )
    batches = _batches(documents)
    head: list[list[tuple[str, str | bytes]]] = []
    if jobs > 1 and min_parallel_bytes > 0:
        size = 0
        while size < min_parallel_bytes and (batch := next(batches, None)) is not None:
            head.append(batch)
            size += sum(_weight(document) for _, document in batch)
        if size < min_parallel_bytes:
            jobs = 1
    if jobs == 1:
        for source, document in chain.from_iterable(chain(head, batches)):
            yield split_document(source, document, options, threads, read_options)
        return
    yield from _pooled(chain(head, batches), options, jobs, read_options, context)


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
