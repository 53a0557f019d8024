"""Spark: a DataFrame of documents becomes a DataFrame of chunk rows, one per chunk.

::

    from pyspark.sql import SparkSession
    from ragchunk.integrations.spark import split_dataframe

    spark = SparkSession.builder.getOrCreate()
    docs = spark.read.parquet("documents.parquet")              # columns source, text
    split_dataframe(docs, size=512, overlap=64).write.parquet("chunks/")

Each partition goes through ``mapInPandas`` with :func:`spark_schema`, the explicit Spark
form of :func:`ragchunk.integrations.arrow.schema`; each pandas batch is turned into Arrow
and handed to :func:`ragchunk.integrations.arrow.split_batch`, so the rows are those of
the Ray path and of the CLI's JSONL.

Spark makes about one task per small file when it reads a folder of many files: load the
documents into a table once (Parquet, or ``spark.read.format("binaryFile")`` followed by a
``repartition``) and split that. Executors need ragchunk installed
(``pip install "ragchunk[spark]"``) and nothing else: no network.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..options import SplitOptions
from . import require
from ._options import check_on_error, split_options
from .arrow import COLUMNS, check_columns, split_batch

__all__ = ["spark_schema", "split_dataframe", "split_frames"]


def spark_schema() -> Any:
    """The Spark ``StructType`` of chunk rows: the columns of the Arrow schema, all nullable.

    >>> from ragchunk.integrations.arrow import schema
    >>> print(spark_schema()["heading_path"].dataType.simpleString(), spark_schema().names == schema().names)
    array<string> True
    """
    types = require("pyspark.sql.types", "spark")
    kinds = {"string": types.StringType(), "integer": types.LongType(),
             "list<string>": types.ArrayType(types.StringType(), containsNull=True),
             "list<list<string>>": types.ArrayType(types.ArrayType(types.StringType(), containsNull=True),
                                                   containsNull=True)}
    return types.StructType([types.StructField(f.name, kinds[f.type], nullable=True) for f in COLUMNS])


def split_frames(frames: Iterator[Any], *, text_column: str, source_column: str | None, on_error: str,
                 options: SplitOptions) -> Iterator[Any]:
    """The function ``mapInPandas`` runs: pandas frames of documents in, frames of chunk rows out."""
    pa = require("pyarrow", "spark")
    for frame in frames:
        table = split_batch(pa.Table.from_pandas(frame, preserve_index=False), text_column=text_column,
                            source_column=source_column, on_error=on_error, options=options)
        # Nullable integers stay integers (with None), not floats with NaN, on their way to Spark.
        yield table.to_pandas(integer_object_nulls=True)


def split_dataframe(df: Any, *, text_column: str = "text", source_column: str | None = "source",
                    on_error: str = "raise", **split_kwargs: Any) -> Any:
    """The chunks of every document of ``df`` as a Spark DataFrame, one row per chunk.

    ``text_column`` holds each document (a string, or a file's bytes as
    ``spark.read.format("binaryFile")`` gives them in ``content``) and ``source_column``
    its name (``None``: no such column). The settings are the keywords of
    :func:`ragchunk.split` (``by``, ``size``, ``overlap``, ``tokenizer``, ``model``,
    ``prefix``, ``context``), checked here, on the driver. ``on_error``: ``"raise"`` fails the job naming the
    document's source, ``"skip"`` leaves it out, ``"record"`` gives it one row with
    ``source`` and ``error``. Files that are not documents give no rows, as in the CLI.
    Lazy, like every Spark transform.

    Raises :class:`ragchunk.errors.RagchunkError` for bad settings, a column ``df`` does
    not have, or a missing ``pyspark``.
    """
    options = split_options(**split_kwargs)
    on_error = check_on_error(on_error)
    require("pyspark.sql", "spark")
    check_columns(df.columns, text_column, source_column)
    wanted = [name for name in (source_column, text_column) if name is not None]

    def run(frames: Iterator[Any]) -> Iterator[Any]:
        return split_frames(frames, text_column=text_column, source_column=source_column, on_error=on_error,
                            options=options)

    return df.select(*wanted).mapInPandas(run, spark_schema())
