"""Errors raised by ragchunk: every one names the field at fault and the fix."""

from __future__ import annotations

from typing import Any


class RagchunkError(ValueError):
    """Bad input to ragchunk.

    ``field`` is the name of the input at fault (``"chunk_size"``, ``"text"`` ...), so
    the page can put the message next to that field and the CLI can name its flag.
    ``code`` is a stable id of the kind of mistake and ``params`` the values the message
    is made of, so the page can say it in the reader's language (``web/i18n/*.json`` has
    ``error.<code>``); ``message`` stays the English sentence the CLI prints. An error
    without a code (``None``) is shown in English.

    >>> err = RagchunkError("overlap", "overlap (512) must be smaller than chunk size (512): lower the overlap",
    ...                     "overlap_not_smaller", {"overlap": 512, "chunk_size": 512})
    >>> err.field, str(err), err.code
    ('overlap', 'overlap (512) must be smaller than chunk size (512): lower the overlap', 'overlap_not_smaller')
    """

    def __init__(self, field: str, message: str, code: str | None = None, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.code = code
        self.params = dict(params or {})

    def to_json(self) -> dict[str, Any]:
        """The error as the worker protocol sends it: ``{field, message, code, params}``."""
        return {"field": self.field, "message": self.message, "code": self.code, "params": self.params}


class UnknownEncodingError(RagchunkError):
    """The tokenizer name is not in the registry."""


class NotTextError(RagchunkError):
    """The bytes given as a document are not text (a PDF, an image, an archive ...)."""
