"""JSON in, JSON out: the facade the browser worker calls.

A request is ``(kind, payload_json, document)``; the reply is a JSON string, either
``{"ok": true, "result": {...}}`` or ``{"ok": false, "errors": [{"field", "message",
"code", "params"}]}`` for bad input (``code`` and ``params`` let the page say it in its
language; see :class:`ragchunk.errors.RagchunkError`), or ``{"ok": false, "internal": "..."}`` for a bug. Python objects never
leave this module: only plain JSON.

Kinds:
  ``spec``       defaults, limits, encodings and the version.
  ``calculate``  the calculator form (strings as typed) -> the plan. ``decimal_comma``
                 (true on a Russian page) reads "12,5" as 12.5.
  ``analyze``    count tokens of the document and cut the first windows. ``document`` is
                 the pasted text (str) or a file's bytes; without it the last document
                 is reused, so changing a setting does not send the text again.
  ``split``      the structural split of the document (same ``document`` rule): every
                 chunk, with its overlap and new text apart, and the statistics.
  ``export``     the JSONL of the last split, byte for byte what ``ragchunk split`` writes.
"""

from __future__ import annotations

import json
import traceback
from typing import Any, Callable

from . import __version__
from .errors import RagchunkError
from .fields import ErrorCollector, FormErrors, read_calc_form, read_count, read_ratio
from .calculator import check_chunking, chunk_count, plan
from .settings import DEFAULT_ENCODING, DEFAULT_PREVIEW_WINDOWS, MAX_CHUNK_SIZE, MAX_PAGE_DOCUMENT_BYTES, form_spec
from .splitter import Split, split
from .export import to_jsonl
from .textio import check_text, decode_document, text_empty
from .tokenizers import REGISTRY, CharEstimate, Registry, check_encoding, encode_in_pieces
from .windowing import Window, windows_of

MAX_PREVIEW_WINDOWS = 200


def window_json(window: Window, source: str) -> dict[str, Any]:
    """A window as the page shows it: ``head`` is the overlap with the previous window."""
    return {
        "index": window.index,
        "start": window.start,
        "end": window.end,
        "token_start": window.token_start,
        "token_end": window.token_end,
        "tokens": window.tokens,
        "overlap_tokens": window.overlap_tokens,
        "head": source[window.start : window.overlap_end],
        "body": source[window.overlap_end : window.end],
    }


class Session:
    """One page's conversation with the core: keeps the last document and its token ids."""

    def __init__(self, registry: Registry = REGISTRY) -> None:
        self._registry = registry
        self._text: str | None = None
        self._notes: list[str] = []
        self._note_details: list[dict[str, Any]] = []
        self._ids: dict[str, Any] = {}
        self._split: Split | None = None

    def handle(self, kind: str, payload_json: str = "{}", document: str | bytes | None = None,
               progress: Callable[[int, int], None] | None = None) -> str:
        """Answer one request; never raises. ``progress(done, total)`` follows a ``split``
        and the encoding of a long text by ``analyze`` (code-point offsets)."""
        try:
            payload = json.loads(payload_json or "{}")
            handler = {
                "spec": self._spec,
                "calculate": self._calculate,
                "analyze": self._analyze,
                "split": self._split_document,
                "export": self._export,
            }.get(kind)
            if handler is None or not isinstance(payload, dict):
                raise RagchunkError(
                    "request",
                    f"request kind ({kind}) is not known: use spec, calculate, analyze, split or export",
                    "unknown_request",
                    {"kind": str(kind)},
                )
            if kind in ("split", "analyze"):
                result = handler(payload, document, progress)
            else:
                result = handler(payload, document)
            return json.dumps({"ok": True, "result": result}, ensure_ascii=False)
        except FormErrors as err:
            return json.dumps({"ok": False, "errors": [e.to_json() for e in err.errors]}, ensure_ascii=False)
        except RagchunkError as err:
            return json.dumps({"ok": False, "errors": [err.to_json()]}, ensure_ascii=False)
        except MemoryError:
            # The page's Python has one wasm32 heap (4 GiB at most): a document can outgrow it.
            self._ids, self._split = {}, None
            error = RagchunkError(
                "text",
                "the document needs more memory than the page has: split it into smaller files, "
                "or use the command line: python -m ragchunk split FILE",
                "out_of_memory",
            )
            return json.dumps({"ok": False, "errors": [error.to_json()]}, ensure_ascii=False)
        except Exception as err:  # a bug: report it instead of killing the worker
            detail = "".join(traceback.format_exception_only(err)).strip()
            return json.dumps({"ok": False, "internal": detail}, ensure_ascii=False)

    def _spec(self, payload: dict, document: object) -> dict[str, Any]:
        return {**form_spec(), "version": __version__}

    def _calculate(self, payload: dict, document: object) -> dict[str, Any]:
        form = {key: str(payload.get(key, "")) for key in ("unit", "doc", "chars_per_token", "chunk_size", "overlap", "price")}
        return read_calc_form(form, decimal_comma=payload.get("decimal_comma") is True).to_json()

    def _analyze(self, payload: dict, document: str | bytes | None,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        encoding = check_encoding(str(payload.get("encoding", DEFAULT_ENCODING)))
        if document is not None:
            self._load(document, str(payload.get("name") or ""))
        if self._text is None:
            raise text_empty()
        text = self._text
        tokenizer = self._registry.get(encoding)
        if encoding not in self._ids:
            self._ids[encoding] = encode_in_pieces(tokenizer, text, progress)
        encoded = self._ids[encoding]
        ids = encoded.ids
        result: dict[str, Any] = {
            "encoding": encoding,
            "chars": len(text),
            "tokens": len(ids),
            "chars_per_token": len(text) / len(ids) if len(ids) else None,
            "notes": list(self._notes),
            "note_details": list(self._note_details),
            "window_count": None,
            "windows": None,
            "window_errors": [],
        }
        try:
            size, overlap = check_chunking(payload.get("chunk_size"), payload.get("overlap"))
        except RagchunkError as err:
            result["window_errors"] = [err.to_json()]
            return result
        first = max(0, int(payload.get("first", 0)))
        count = min(MAX_PREVIEW_WINDOWS, max(1, int(payload.get("count", DEFAULT_PREVIEW_WINDOWS))))
        cut = windows_of(text, encoded, size, overlap, limit=first + count)[first:]
        result["window_count"] = chunk_count(len(ids), size, overlap)
        result["windows"] = [window_json(w, text) for w in cut]
        result["plan"] = plan(len(ids), size, overlap).to_json() if len(ids) else None
        return result

    def _split_document(self, payload: dict, document: str | bytes | None,
                        progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        if document is not None:
            self._load(document, str(payload.get("name") or ""))
        errors = ErrorCollector()
        attempt = errors.attempt
        comma = payload.get("decimal_comma") is True

        size = attempt(read_count, "chunk_size", str(payload.get("chunk_size", "")), 1, MAX_CHUNK_SIZE, "tokens", comma)
        overlap = attempt(read_count, "overlap", str(payload.get("overlap", "")), 0, MAX_CHUNK_SIZE - 1, "tokens", comma)
        if "chars_per_token" in payload:
            ratio = attempt(read_ratio, str(payload["chars_per_token"]), comma)
            sizer = None if ratio is None else CharEstimate(ratio)
        else:
            encoding = attempt(check_encoding, str(payload.get("encoding", DEFAULT_ENCODING)))
            sizer = None if encoding is None else self._registry.get(encoding)
        if size is not None and overlap is not None:
            attempt(check_chunking, size, overlap)
        if self._text is None:
            errors.append(text_empty())
        if errors:
            raise FormErrors(errors)
        text = self._text
        result = split(text, by=str(payload.get("by", "headings")), size=size, overlap=overlap, tokenizer=sizer,
                       progress=progress)
        self._split = result
        return {
            "tokenizer": result.tokenizer,
            "by": result.by,
            "size": result.size,
            "overlap": result.overlap,
            "chars": len(text),
            "notes": list(self._notes),
            "note_details": list(self._note_details),
            "stats": result.stats.to_json(),
            "chunks": [
                {
                    "id": c.id,
                    "start": c.start,
                    "end": c.end,
                    "content_start": c.content_start,
                    "heading": c.heading,
                    "heading_path": list(c.heading_path),
                    "tokens": c.tokens,
                    "overlap_tokens": c.overlap_tokens,
                    "overlap_text": text[c.start : c.content_start],
                    "new_text": text[c.content_start : c.end],
                }
                for c in result.chunks
            ],
        }

    def _export(self, payload: dict, document: object) -> dict[str, Any]:
        if self._split is None:
            raise RagchunkError("text", "nothing is split yet: paste some text or drop a file first", "nothing_split")
        return {"jsonl": to_jsonl(self._split)}

    def _load(self, document: str | bytes, name: str) -> None:
        # Everything is checked before the last document is dropped: a refused file (binary,
        # empty, too large) leaves the page's previous document and results as they were.
        check_page_size(document, name)
        if isinstance(document, (bytes, bytearray, memoryview)):
            if not len(document):
                label = name or "the file"
                raise RagchunkError("text", f"{label} is empty (0 bytes): drop a file that holds text", "file_empty",
                                    {"name": name})
            decoded = decode_document(bytes(document), name)
            text, notes, details = decoded.text, decoded.notes, decoded.note_details
        else:
            text, notes, details = document, [], []
        text = check_text(text)
        self._text, self._ids, self._notes, self._note_details, self._split = text, {}, notes, details, None


def check_page_size(document: str | bytes, name: str) -> None:
    """Refuse a document bigger than the page handles (:data:`MAX_PAGE_DOCUMENT_BYTES`), naming the CLI.

    A pasted text is measured in code points (each is at least one byte of UTF-8).
    """
    limit = MAX_PAGE_DOCUMENT_BYTES
    if isinstance(document, str):
        if len(document) > limit:
            raise RagchunkError(
                "text",
                f"the pasted text is too large for the page ({len(document):,} characters): the page handles up to "
                f"{limit:,} bytes; save it as a file and use the command line: python -m ragchunk split FILE",
                "paste_too_large",
                {"size": len(document), "limit": limit},
            )
    elif len(document) > limit:
        label = name or "the file"
        raise RagchunkError(
            "file",
            f"{label} is too large for the page ({len(document):,} bytes): the page handles up to {limit:,} bytes; "
            "use the command line: python -m ragchunk split FILE",
            "file_too_large_for_page",
            {"name": name, "size": len(document), "limit": limit},
        )
