"""Glue used only inside Pyodide: turns the worker's JavaScript objects into plain Python."""

from __future__ import annotations

from typing import Any

from .api import Session
from .tokenizers import REGISTRY, WasmTokenizer


def provide_encoder(name: str, encoder: Any, bpe_ranks: str) -> None:
    """Register the WASM ``Tiktoken`` the worker built for ``name`` from ``bpe_ranks``."""
    REGISTRY.provide(name, lambda: WasmTokenizer(name, encoder, bpe_ranks))


def handle(session: Session, kind: str, payload_json: str, document: Any = None) -> str:
    """:meth:`Session.handle` for a document that may be a JS ``Uint8Array`` (a dropped file)."""
    if document is not None and hasattr(document, "to_bytes"):
        document = document.to_bytes()
    return session.handle(kind, payload_json, document)
