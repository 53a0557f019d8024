"""Glue used only inside Pyodide: turns the worker's JavaScript objects into plain Python."""

from __future__ import annotations

from typing import Any

from .api import Session
from .tokenizers import REGISTRY, WasmTokenizer


class JsText(str):
    """A document that also keeps the JavaScript string it was copied from.

    The worker already holds the text as a JS string; the WASM encoder reads that one
    (``source``) instead of a second copy converted back from Python, which costs about a
    fifth of the encoding time. Slices are plain ``str``.
    """

    source: Any


def provide_encoder(name: str, encoder: Any, bpe_ranks: str, encode_source: Any) -> None:
    """Register the WASM ``Tiktoken`` the worker built for ``name`` from ``bpe_ranks``.

    ``encode_source(source)`` is the worker's function that encodes a ``{text}`` wrapper's
    JS string with the same encoder.
    """
    REGISTRY.provide(name, lambda: WasmTokenizer(name, encoder, bpe_ranks, encode_source))


def handle(session: Session, kind: str, payload_json: str, document: Any = None, progress: Any = None) -> str:
    """:meth:`Session.handle` for a document sent by the worker.

    ``document`` is a JS ``Uint8Array`` (a dropped file), a ``{text}`` wrapper of a pasted
    JS string, or ``None``; ``progress(done, total)`` is a JS function told how far a split
    has come.
    """
    if document is not None and hasattr(document, "to_bytes"):
        document = document.to_bytes()
    elif document is not None and hasattr(document, "text"):
        source = document
        document = JsText(source.text)
        document.source = source
    return session.handle(kind, payload_json, document, progress=progress)
