"""Chunk records as Apache Arrow: one fixed schema, the batch function the engines map, Parquet.

:func:`schema` is made from :data:`ragchunk.results.records.FIELDS` plus :data:`ERROR`, in that
order, the same for every batch and every document: ``heading_path`` is ``list<string>``
even when no chunk of a batch has a heading (a schema inferred per batch would make it
``list<null>`` there, and readers of the Parquet folder then refuse the mix), integers
are ``int64``, and every column is nullable: a field a record leaves out (``title``,
``page_start`` ...) is null, and a row that reports a document that could not be split
(``on_error="record"``) holds only ``source`` and ``error``.

:func:`split_batch` is what :mod:`ragchunk.integrations.ray` and
:mod:`ragchunk.integrations.spark` run on each batch of documents; it is public for
pipelines of your own. It goes through :func:`ragchunk.corpus.split_document`, so a row is
a record of the CLI's JSONL, column for column.

Needs ``pyarrow`` (``pip install "ragchunk[parquet]"``), imported on first use.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ..corpus import split_document
from ..errors import RagchunkError
from ..options import SplitOptions
from ..results.records import FIELDS, Field
from . import require
from ._options import check_on_error, split_options

__all__ = ["COLUMNS", "ERROR", "ParquetWriter", "check_columns", "document_records", "records_of", "schema",
           "split_batch", "table_of", "unknown_column"]

ERROR = Field("error", "string", False,
              "why the document gave no chunks (a row of on_error=\"record\" only; null in every chunk row)")
COLUMNS: tuple[Field, ...] = (*FIELDS, ERROR)
COLUMN_NAMES: tuple[str, ...] = tuple(f.name for f in COLUMNS)


def _pyarrow() -> Any:
    return require("pyarrow", "parquet")


@lru_cache(maxsize=1)
def schema() -> Any:
    """The Arrow schema of chunk rows: :data:`COLUMNS` in order, all nullable.

    >>> print(schema().field("heading_path").type, schema().field("tokens").type, schema().names[-1])
    list<item: string> int64 error
    """
    pa = _pyarrow()
    types = {"string": pa.string(), "integer": pa.int64(), "list<string>": pa.list_(pa.string()),
             "list<list<string>>": pa.list_(pa.list_(pa.string()))}
    return pa.schema([pa.field(f.name, types[f.type], nullable=True) for f in COLUMNS])


def table_of(records: Iterable[dict[str, Any]]) -> Any:
    """Records (as :func:`ragchunk.results.records.records` makes them) as a ``pyarrow.Table`` of :func:`schema`.

    A field a record leaves out is null; a key that is not a column raises ``ValueError``
    (a record schema and an Arrow schema that disagree are a bug, not data to drop).

    >>> from ragchunk import split
    >>> from ragchunk.results.records import records
    >>> table = table_of(records(split("# A\\n\\nOne.", size=64, overlap=0)))
    >>> table.num_rows, table.column("heading_path").to_pylist(), table.column("source").to_pylist()
    (1, [['A']], [None])
    """
    rows = list(records)
    known = set(COLUMN_NAMES)
    for row in rows:
        if not known.issuperset(row):
            raise ValueError(f"record keys {sorted(set(row) - known)} are not columns of the Arrow schema")
    columns = {name: [row.get(name) for row in rows] for name in COLUMN_NAMES}
    return _pyarrow().Table.from_pydict(columns, schema=schema())


def records_of(table: Any) -> list[dict[str, Any]]:
    """The rows of a chunk table as records again: columns in :data:`COLUMNS` order, nulls left out.

    For a table of chunk rows this gives back exactly the records :func:`table_of` was given.

    >>> from ragchunk import split
    >>> from ragchunk.results.records import records
    >>> made = list(records(split("One. Two.", size=64, overlap=0)))
    >>> records_of(table_of(made)) == made
    True
    """
    return [{key: value for key, value in row.items() if value is not None} for row in table.to_pylist()]


def document_records(source: str, document: Any, options: SplitOptions, on_error: str = "raise"
                     ) -> list[dict[str, Any]]:
    """The records of one document of a table, with what ``on_error`` says for one that fails.

    ``document`` is a text or a file's bytes (decoded as the CLI decodes files); a null
    (``None``) or a value of another type is a document that fails. A file that is not a
    document (an image, an empty file) gives no records in every mode, as in the CLI.
    ``"record"`` turns a failure into ``[{"source": source, "error": reason}]``.

    >>> from ragchunk.options import SplitOptions
    >>> document_records("a.md", None, SplitOptions(size=64, overlap=0), "record")
    [{'source': 'a.md', 'error': 'the document is null: give its text or bytes, or leave the row out'}]
    >>> len(document_records("a.md", "# A\\n\\nOne.", SplitOptions(size=64, overlap=0)))
    1
    >>> document_records("b.md", 7, SplitOptions(), "raise")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: b.md: the document is of type int, not text or bytes: put its text or bytes in the column
    """
    if document is None:
        reason, field = "the document is null: give its text or bytes, or leave the row out", "text"
    elif not isinstance(document, (str, bytes, bytearray, memoryview)):
        reason, field = (f"the document is of type {type(document).__name__}, not text or bytes: put its text or bytes"
                         " in the column"), "text"
    else:
        result = split_document(source, document, options)
        if not result.error:
            return result.records()
        reason, field = result.error, result.field or "text"
    if on_error == "raise":
        if source and reason.startswith(source):  # a reader's message names the file already
            raise RagchunkError(field, reason, "document_refused", {"source": source, "reason": reason})
        raise RagchunkError(field, f"{source}: {reason}", "document_failed", {"source": source, "reason": reason})
    if on_error == "skip":
        return []
    return [{"source": source, "error": reason}]


def split_batch(batch: Any, *, text_column: str = "text", source_column: str | None = "source",
                on_error: str = "raise", options: SplitOptions | None = None, **split_kwargs: Any) -> Any:
    """The chunk rows of a batch of documents, as a ``pyarrow.Table`` of :func:`schema`.

    ``batch`` is a ``pyarrow.Table`` or ``RecordBatch`` (Ray's ``batch_format="pyarrow"``),
    a pandas ``DataFrame`` or a dict of columns; ``text_column`` holds each document (text
    or bytes) and ``source_column`` its name (``None``: no column, every source ``""``).
    The settings are ``options`` or the keywords of :func:`ragchunk.split` (``by``,
    ``size``, ``overlap``, ``tokenizer``, ``model``, ``prefix``, ``context``). Rows come
    document by document in the batch's order, each document's chunks in order. Raises
    :class:`RagchunkError` for a missing column, bad settings, or (``on_error="raise"``) a
    document that fails; ``on_error`` is as for :func:`document_records`.

    >>> import pyarrow as pa
    >>> docs = pa.table({"source": ["a.md", "b.md"], "text": ["# A\\n\\nOne. Two.", None]})
    >>> rows = split_batch(docs, size=64, overlap=0, on_error="record")
    >>> rows.column("source").to_pylist(), rows.column("heading").to_pylist(), rows.column("error").to_pylist()
    (['a.md', 'b.md'], ['A', None], [None, 'the document is null: give its text or bytes, or leave the row out'])
    """
    on_error = check_on_error(on_error)
    if options is None:
        options = split_options(**split_kwargs)
    elif split_kwargs:
        raise TypeError(f"give options or split keywords, not both: {sorted(split_kwargs)}")
    texts = _column(batch, text_column, "text_column")
    sources = _column(batch, source_column, "source_column") if source_column is not None else [""] * len(texts)
    rows: list[dict[str, Any]] = []
    for source, document in zip(sources, texts, strict=True):
        rows.extend(document_records("" if source is None else str(source), document, options, on_error))
    return table_of(rows)


def _column(batch: Any, name: str, field: str) -> list[Any]:
    if hasattr(batch, "column_names") and hasattr(batch, "column"):  # pyarrow Table or RecordBatch
        names = list(batch.column_names)
        if name in names:
            return batch.column(name).to_pylist()
    else:
        names = [str(key) for key in (batch.columns if hasattr(batch, "columns") else batch.keys())]
        if name in names:
            return list(batch[name])
    raise unknown_column(field, name, names)


def unknown_column(field: str, name: str, names: Iterable[str]) -> RagchunkError:
    """The error for a column (``text_column``, ``source_column``) the documents do not have."""
    choices = ", ".join(names)
    return RagchunkError(field, f"{field} ({name}) is not a column of the documents: choose one of {choices}",
                         "unknown_column", {"field": field, "value": name, "choices": choices})


def check_columns(names: Iterable[str], text_column: str, source_column: str | None) -> None:
    """Raise :func:`unknown_column` unless ``text_column`` and ``source_column`` (when not None) are in ``names``."""
    names = list(names)
    for field, name in (("text_column", text_column), ("source_column", source_column)):
        if name is not None and name not in names:
            raise unknown_column(field, name, names)


class ParquetWriter:
    """Records into one Parquet file of :func:`schema`, a row group every ``group_rows`` records.

    What was written before :meth:`close` (also after an interruption) is a whole file
    whose rows are the records given, in order. ``path`` is a path or a writable binary
    file; an unwritable path raises ``OSError``.
    """

    def __init__(self, path: Any, group_rows: int = 20_000) -> None:
        parquet = require("pyarrow.parquet", "parquet")
        self.group_rows = group_rows
        self.pending: list[dict[str, Any]] = []
        self.writer = parquet.ParquetWriter(path, schema())

    def write(self, records: Iterable[dict[str, Any]]) -> None:
        self.pending.extend(records)
        if len(self.pending) >= self.group_rows:
            self._flush()

    def _flush(self) -> None:
        if self.pending:
            self.writer.write_table(table_of(self.pending))
            self.pending = []

    def close(self) -> None:
        if self.writer is not None:
            self._flush()
            self.writer.close()
            self.writer = None
