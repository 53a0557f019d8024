"""Ray Data: a Dataset of documents becomes a Dataset of chunk rows, one per chunk.

::

    import ray
    from ragchunk.integrations.ray import split_dataset

    docs = ray.data.read_binary_files("docs/", include_paths=True)   # columns bytes, path
    chunks = split_dataset(docs, text_column="bytes", source_column="path", size=512, overlap=64)
    chunks.write_parquet("chunks/")

Each batch of documents goes through :func:`ragchunk.integrations.arrow.split_batch`
(``map_batches`` with ``batch_format="pyarrow"``), which returns a ``pyarrow.Table`` of
the one fixed schema :func:`ragchunk.integrations.arrow.schema`: the JSONL fields of the
CLI, ``source`` and ``error``. Row dicts would make Ray infer each block's schema, and a
block whose chunks all lack headings would get ``heading_path: list<null>``, which Spark
then refuses in the Parquet folder.

Workers need ragchunk installed (``pip install "ragchunk[ray]"``) and nothing else: the
tokenizer tables are inside the package, so no worker reaches the network.
"""

from __future__ import annotations

from typing import Any

from . import require
from ._options import check_on_error, split_options
from .arrow import check_columns, split_batch

__all__ = ["split_batch", "split_dataset"]


def split_dataset(ds: Any, *, text_column: str = "text", source_column: str | None = "source",
                  on_error: str = "raise", batch_size: int | None = 16, ray_options: dict[str, Any] | None = None,
                  **split_kwargs: Any) -> Any:
    """The chunks of every document of ``ds`` as a Ray Dataset, one row per chunk.

    ``text_column`` holds each document (text, or a file's bytes decoded as the CLI
    decodes files) and ``source_column`` its name (``None``: no such column). The
    settings are the keywords of :func:`ragchunk.split` (``by``, ``size``, ``overlap``,
    ``tokenizer``, ``model``, ``prefix``, ``context``), checked here, before any work is
    scheduled.
    ``on_error`` says what a document that cannot be split does: ``"raise"`` stops the job
    naming its source, ``"skip"`` leaves it out, ``"record"`` gives it one row with
    ``source`` and ``error`` (every other column null). Files that are not documents
    (images, empty files) give no rows, as in the CLI.

    ``batch_size`` documents go to each call of the batch function; ``ray_options`` go to
    ``Dataset.map_batches`` as they are (``concurrency``, ``num_cpus``, ``memory`` ...).
    Ray runs one task per block, and a read of a few small files can make one block of
    them all: ``ds.repartition(n)`` first when the Dataset has fewer blocks than CPUs.
    Lazy, like every Ray transform: nothing runs until the Dataset is consumed.

    Raises :class:`ragchunk.errors.RagchunkError` for bad settings, a column the Dataset
    does not have (when its schema is known without running it), or a missing ``ray``.
    """
    options = split_options(**split_kwargs)
    on_error = check_on_error(on_error)
    require("ray.data", "ray")
    known = ds.columns(fetch_if_missing=False)
    if known is not None:
        check_columns(known, text_column, source_column)
    return ds.map_batches(
        split_batch,
        batch_format="pyarrow",
        batch_size=batch_size,
        fn_kwargs={"text_column": text_column, "source_column": source_column, "on_error": on_error,
                   "options": options},
        **(ray_options or {}),
    )
