"""Errors raised by ragchunk: every one names the field at fault and the fix."""

from __future__ import annotations


class RagchunkError(ValueError):
    """Bad input to ragchunk.

    ``field`` is the name of the input at fault (``"chunk_size"``, ``"text"`` ...), so
    the page can put the message next to that field and the CLI can name its flag.

    >>> err = RagchunkError("overlap", "overlap (512) must be smaller than chunk size (512): lower the overlap")
    >>> err.field, str(err)
    ('overlap', 'overlap (512) must be smaller than chunk size (512): lower the overlap')
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def to_json(self) -> dict[str, str]:
        """The error as the worker protocol sends it: ``{"field": ..., "message": ...}``."""
        return {"field": self.field, "message": self.message}


class UnknownEncodingError(RagchunkError):
    """The tokenizer name is not in the registry."""


class NotTextError(RagchunkError):
    """The bytes given as a document are not text (a PDF, an image, an archive ...)."""
