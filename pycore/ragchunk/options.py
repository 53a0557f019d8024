"""The settings of a split, validated once: the library, the CLI and the worker share them.

:class:`SplitOptions` checks its values when it is made and keeps the sizer choice
resolved (:class:`ragchunk.sizing.Sizing`); :func:`read_split_form` makes one from the
strings a person typed (form fields, CLI flags), reporting every bad field at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .calculator import check_chunking
from .errors import RagchunkError
from .fields import ErrorCollector, FormErrors, read_count, read_ratio, shown
from .settings import DEFAULT_CHUNK_SIZE, DEFAULT_ENCODING, DEFAULT_OVERLAP, MAX_CHUNK_SIZE
from .sizing import Sizing, sizing_for
from .structure import BY_CHOICES
from .tokenizers import CharEstimate, check_encoding

__all__ = ["SplitOptions", "read_split_form", "unknown_by"]


def unknown_by(value: str) -> RagchunkError:
    """The error for a boundary name that is not one of :data:`BY_CHOICES`."""
    choices = ", ".join(BY_CHOICES)
    return RagchunkError(
        "by", f"by ({value}) is not known: choose one of {choices}", "unknown_by", {"value": value, "choices": choices}
    )


def check_by(by: object, typed: bool = False) -> str:
    """Validate the boundary packed (``headings``, ``paragraphs``, ``sentences``); ``typed``
    input is echoed shortened in the message."""
    if by not in BY_CHOICES:
        raise unknown_by(shown(str(by)) if typed else str(by))
    return str(by)


@dataclass(frozen=True, slots=True)
class SplitOptions:
    """How to split: the level packed, the target size, the overlap and what counts tokens.

    ``tokenizer`` is a registry name, a :class:`ragchunk.tokenizers.Tokenizer`, a
    :class:`ragchunk.tokenizers.CharEstimate` or any object with ``count(text)``;
    ``sizing`` is that choice resolved. Raises :class:`RagchunkError` naming the field.

    >>> SplitOptions(by="sentences", size=128, overlap=16).sizing.name
    'cl100k_base'
    >>> SplitOptions(size=64, overlap=64)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (64) must be smaller than chunk size (64): lower the overlap
    """

    by: str = "headings"
    size: int = DEFAULT_CHUNK_SIZE
    overlap: int = DEFAULT_OVERLAP
    tokenizer: Any = DEFAULT_ENCODING
    sizing: Sizing = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_by(self.by)
        size, overlap = check_chunking(self.size, self.overlap)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "overlap", overlap)
        object.__setattr__(self, "sizing", sizing_for(self.tokenizer))

    def __reduce__(self):
        # Sent to worker processes as the settings that made it; the sizer is resolved there.
        return (SplitOptions, (self.by, self.size, self.overlap, self.tokenizer))

    @property
    def sizer_name(self) -> str:
        """What records say made the counts: an encoding name or ``chars/<ratio>``."""
        return self.sizing.name


def read_split_form(form: dict[str, str], *, decimal_comma: bool = False) -> SplitOptions:
    """Split settings from strings as typed: ``by``, ``chunk_size``, ``overlap``, and either
    ``chars_per_token`` (the estimate) or ``encoding`` (default :data:`DEFAULT_ENCODING`).

    Every field is read, so one call reports every bad field (as :class:`FormErrors`).

    >>> read_split_form({"by": "paragraphs", "chunk_size": "256", "overlap": "32", "chars_per_token": "3,5"},
    ...                 decimal_comma=True).sizing.name
    'chars/3.5'
    """
    errors = ErrorCollector()
    attempt = errors.attempt
    by = attempt(check_by, form.get("by", "headings"), True)
    size = attempt(read_count, "chunk_size", str(form.get("chunk_size", "")), 1, MAX_CHUNK_SIZE, "tokens", decimal_comma)
    overlap = attempt(read_count, "overlap", str(form.get("overlap", "")), 0, MAX_CHUNK_SIZE - 1, "tokens",
                      decimal_comma)
    tokenizer: Any = None
    if form.get("chars_per_token") is not None:
        ratio = attempt(read_ratio, str(form["chars_per_token"]), decimal_comma)
        tokenizer = None if ratio is None else CharEstimate(ratio)
    else:
        tokenizer = attempt(check_encoding, str(form.get("encoding") or DEFAULT_ENCODING))
    if size is not None and overlap is not None:
        attempt(check_chunking, size, overlap)
    if errors:
        raise FormErrors(errors)
    try:
        return SplitOptions(by, size, overlap, tokenizer)
    except RagchunkError as err:
        raise FormErrors([err]) from None
