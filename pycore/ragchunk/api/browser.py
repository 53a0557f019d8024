"""Glue used only inside Pyodide: turns the worker's JavaScript objects into plain Python.

The worker drives :func:`start`'s generator one step at a time (``next()``), posting each
``(stage, done, total)`` as progress and yielding to its event loop in between, so a
cancel message is heard between steps; ``return()`` abandons the request. The reply is
the generator's return value: a JSON string.
"""

from __future__ import annotations

from typing import Any

from .. import tables
from ..tokenizers import REGISTRY, WasmTokenizer
from . import Steps, Workspace


class JsText(str):
    """A document that also keeps the JavaScript string it was copied from.

    The worker already holds the text as a JS string; the WASM encoder reads that one
    (``source``) instead of a second copy converted back from Python, which costs about a
    fifth of the encoding time. Slices are plain ``str``.
    """

    source: Any


def provide_encoder(name: str, encoder: Any, bpe_ranks: str, encode_source: Any, normalizer: str = "") -> None:
    """Register the WASM ``Tiktoken`` the worker built for ``name`` from ``bpe_ranks``.

    ``encode_source(source)`` is the worker's function that encodes a ``{text}`` wrapper's
    JS string with the same encoder; ``normalizer`` is the table's (``"NFC"`` for Qwen):
    Python normalizes, so a text not in NFC never reaches ``encode_source``.
    """
    REGISTRY.provide(name, lambda: WasmTokenizer(name, encoder, bpe_ranks, encode_source, normalizer or ""))


def warm(name: str, sample: str) -> int:
    """Make ready what the first count with encoding ``name`` needs: its token tables, and
    one encode of ``sample`` (the browser compiles the encoder's hot code after a first use).
    Returns the tokens of ``sample``; the worker calls it once it is ready, before any request.

    >>> warm("cl100k_base", "hello world")
    2
    """
    return len(REGISTRY.get(name).encode_with_offsets(sample).ids)


def provide_table(name: str, data: Any) -> None:
    """Hand in table ``name`` the worker fetched from the site (a JS ``Uint8Array``); hash-checked."""
    tables.provide(name, data.to_bytes() if hasattr(data, "to_bytes") else bytes(data))


def start(workspace: Workspace, kind: str, payload_json: str, document: Any = None) -> Steps:
    """:meth:`Workspace.run` for a document sent by the worker.

    ``document`` is a JS ``Uint8Array`` (a dropped file), a ``{text}`` wrapper of a pasted
    JS string, or ``None``.
    """
    if document is not None and hasattr(document, "to_bytes"):
        document = document.to_bytes()
    elif document is not None:
        # Read once: each read of the attribute copies the whole JS string into Python.
        text = getattr(document, "text", None)
        if text is not None:
            source = document
            document = JsText(text)
            document.source = source
    return workspace.run(kind, payload_json, document)
