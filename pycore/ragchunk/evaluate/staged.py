"""all-MiniLM-L6-v2 run outside Python: the ids made here, the forward pass done by the caller.

The page's worker has no ``onnxruntime`` for Python (and no numpy); it runs the model with
``onnxruntime-web`` in JavaScript. :class:`StagedMiniLM` is the embedder an evaluation is
given there: it tokenizes in Python with ragchunk's WordPiece exactly as :class:`.minilm.MiniLM`
does (``[CLS]``, the ids cut at 256 tokens, ``[SEP]``), and asks for the vectors one batch at a
time as a step ``(stage, done, total, {"ids": rows})``; whoever drives the steps sends back
the batch's mean-pooled, L2-normalised vectors, row after row, as float32 bytes (or a
sequence of floats). :func:`drive_with` is that driver on CPython, for tests and benchmarks.

>>> class Ones:  # a model whose every vector is (1, 0, ..., 0)
...     def run(self, rows): return [[1.0] + [0.0] * (DIMENSIONS - 1) for _ in rows]
>>> vectors = drive_with(StagedMiniLM().steps(["Hello world", "Hi"], "embedding"), Ones())
>>> len(vectors), vectors[0][:2]
(2, [1.0, 0.0])
"""

from __future__ import annotations

import array
from collections.abc import Callable, Generator, Sequence
from typing import Any, Protocol

from ..errors import RagchunkError
from .minilm import BATCH, MODEL_NAME, MiniLM, token_ids

__all__ = ["DIMENSIONS", "OnnxRuntime", "StagedMiniLM", "drive_with"]

#: The length of all-MiniLM-L6-v2's vectors.
DIMENSIONS = 384

Step = tuple[str, int, int, dict[str, Any]]


def vectors_of(data: Any, rows: int) -> list[list[float]]:
    """``rows`` vectors out of what the caller sent: float32 bytes (a JS ``Float32Array``'s
    ``to_bytes()``) or a flat or nested sequence of floats."""
    if hasattr(data, "to_bytes"):  # a JS typed array in Pyodide
        data = data.to_bytes()
    if isinstance(data, (bytes, bytearray, memoryview)):
        flat: Sequence[float] = array.array("f", bytes(data)).tolist()
    elif data and isinstance(data[0], (list, tuple)):
        flat = [value for row in data for value in row]
    else:
        flat = list(data or ())
    if len(flat) != rows * DIMENSIONS:
        raise RagchunkError("model", f"the {MODEL_NAME} model gave {len(flat):,} numbers for {rows:,} texts, not"
                            f" {rows * DIMENSIONS:,}: reload the page", "model_output",
                            {"model": MODEL_NAME, "given": len(flat), "rows": rows, "expected": rows * DIMENSIONS})
    return [flat[i * DIMENSIONS:(i + 1) * DIMENSIONS] for i in range(rows)]


class StagedMiniLM:
    """The embedder of an evaluation whose model runs elsewhere (see the module's doc)."""

    name = "minilm"

    def __init__(self, batch: int = BATCH) -> None:
        self.batch = batch

    def __call__(self, texts: Sequence[str], progress: Any = None) -> list[Any]:
        raise RagchunkError("model", f"the {MODEL_NAME} model runs in the page's worker: drive the evaluation's"
                            " steps there", "model_staged", {"model": MODEL_NAME})

    def steps(self, texts: Sequence[str], stage: str, read: Callable[[Sequence[str]], list[list[int]]] | None = None
              ) -> Generator[Step, Any, list[list[float]]]:
        """Ask for the vectors of ``texts``, one batch a step; returns them in order. A batch is
        tokenized when its step comes (so a cancel is heard between batches), by ``read`` (what the
        model reads of each text: :func:`.minilm.token_ids` unless given)."""
        read = read or (lambda batch: [token_ids(text) for text in batch])
        out: list[list[float]] = []
        for first in range(0, len(texts), self.batch):
            rows = read(texts[first:first + self.batch])
            sent = yield (stage, first, len(texts), {"ids": rows})
            out.extend(vectors_of(sent, len(rows)))
        return out


class OnnxRuntime:
    """The forward pass the page's worker does with onnxruntime-web, here with ``onnxruntime``
    on CPython (``ragchunk[evaluate]``): a batch of id rows to their mean-pooled, L2-normalised
    vectors as float32 bytes (:meth:`.minilm.MiniLM.embed_ids`). For tests and benchmarks;
    ``threads`` 0 is onnxruntime's default."""

    def __init__(self, threads: int = 0) -> None:
        self._model = MiniLM(threads=threads)

    def run(self, rows: list[list[int]]) -> bytes:
        return b"".join(vector.astype("float32").tobytes() for vector in self._model.embed_ids(rows))


class Model(Protocol):
    def run(self, rows: list[list[int]]) -> Any: ...


def drive_with(steps: Generator[Any, Any, Any], model: Model, progress: Any = None) -> Any:
    """Run ``steps`` to the end, answering each request for vectors with ``model.run(ids rows)``;
    ``progress(stage, done, total)`` hears every step. Returns what the steps return."""
    sent = None
    try:
        while True:
            step = steps.send(sent)
            sent = None
            if len(step) > 3 and step[3].get("ids") is not None:
                sent = model.run(step[3]["ids"])
            if progress is not None:
                progress(*step[:3])
    except StopIteration as stop:
        return stop.value
