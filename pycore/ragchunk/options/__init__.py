"""The settings of a split, validated once: the library, the CLI and the worker share them.

:class:`SplitOptions` checks its values when it is made and keeps the sizer choice
resolved (:class:`ragchunk.packing.sizing.Sizing`); :func:`read_split_form` makes one from the
strings a person typed (form fields, CLI flags), reporting every bad field at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import RagchunkError
from ..models import Model, get_model
from ..packing.context import CONTEXT_CHOICES, DEFAULT_CONTEXT
from ..packing.packer import DEFAULT_SIBLINGS, SIBLINGS_CHOICES
from ..packing.sizing import Sizing, sizing_for
from ..settings import DEFAULT_CHUNK_SIZE, DEFAULT_ENCODING, DEFAULT_OVERLAP_SHARE, MAX_CHUNK_SIZE
from ..settings.checks import check_chunking
from ..text.structure import BY_CHOICES
from ..tokenizers import CharEstimate, check_tokenizer
from .fields import ErrorCollector, FormErrors, read_count, read_ratio, shown

__all__ = ["SplitOptions", "check_model_size", "check_siblings", "read_split_form", "unknown_by"]


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
    :class:`ragchunk.tokenizers.CharEstimate` or any object with ``count(text)``; by
    default the ``model``'s tokenizer, else :data:`DEFAULT_ENCODING`. With a ``model``
    (see :mod:`ragchunk.models`) the size may not exceed what it reads whole — its limit
    less its special tokens, and less its document prefix when ``prefix`` — and defaults
    to that; without one it defaults to :data:`DEFAULT_CHUNK_SIZE`. ``siblings`` is ``"pack"``
    (small sections share a chunk while they fit) or ``"apart"`` (each section's text goes to
    chunks of its own; see :mod:`ragchunk.packing.packer`). ``overlap`` defaults to
    an eighth of the size (:data:`DEFAULT_OVERLAP_SHARE`), so a chunk repeats the same share
    of its neighbour at every size. ``sizing`` is the tokenizer choice resolved. Raises
    :class:`RagchunkError` naming the field.

    >>> SplitOptions(by="sentences", size=128, overlap=16).sizing.name
    'cl100k_base'
    >>> SplitOptions().overlap, SplitOptions(size=128).overlap, SplitOptions(size=7).overlap
    (64, 16, 0)
    >>> options = SplitOptions(model="e5-small-v2", prefix=True, overlap=32)
    >>> options.size, options.sizing.name
    (508, 'bert-base-uncased')
    >>> SplitOptions(size=64, overlap=64)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (64) must be smaller than chunk size (64): lower the overlap
    """

    by: str = "headings"
    size: int | None = None
    overlap: int | None = None
    tokenizer: Any = None
    model: str | None = None
    prefix: bool = False
    context: str = DEFAULT_CONTEXT
    siblings: str = DEFAULT_SIBLINGS
    sizing: Sizing = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_by(self.by)
        check_context(self.context)
        check_siblings(self.siblings)
        model = get_model(self.model) if self.model is not None else None
        tokenizer = self.tokenizer
        if model is not None:
            if tokenizer is not None and tokenizer != model.tokenizer:
                raise RagchunkError(
                    "tokenizer",
                    f"tokenizer ({getattr(tokenizer, 'name', tokenizer)}) is not the tokenizer of {model.id}"
                    f" ({model.tokenizer}): give the model or a tokenizer, not both",
                    "tokenizer_not_model", {"value": str(getattr(tokenizer, "name", tokenizer)), "model": model.id,
                                            "tokenizer": model.tokenizer},
                )
            tokenizer = model.tokenizer
            object.__setattr__(self, "model", model.id)
        elif self.prefix:
            raise RagchunkError("prefix", "prefix needs a model (its document prefix): choose a model or drop the prefix",
                                "prefix_without_model")
        if tokenizer is None:
            tokenizer = DEFAULT_ENCODING
        size = self.size
        if size is None:
            size = model.max_chunk_tokens(self.prefix) if model is not None else DEFAULT_CHUNK_SIZE
        overlap = self.overlap
        if overlap is None:
            overlap = size // DEFAULT_OVERLAP_SHARE if isinstance(size, int) and not isinstance(size, bool) else 0
        size, overlap = check_chunking(size, overlap)
        if model is not None:
            check_model_size(model, size, self.prefix)
        object.__setattr__(self, "tokenizer", tokenizer)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "overlap", overlap)
        object.__setattr__(self, "sizing", sizing_for(tokenizer))

    def __reduce__(self):
        # Sent to worker processes as the settings that made it; the sizer is resolved there.
        return (SplitOptions, (self.by, self.size, self.overlap, self.tokenizer, self.model, self.prefix,
                               self.context, self.siblings))

    @property
    def sizer_name(self) -> str:
        """What records say made the counts: an encoding name or ``chars/<ratio>``."""
        return self.sizing.name


def check_context(context: object) -> str:
    """Validate the context a chunk is embedded with (``none`` or ``headings``)."""
    if context not in CONTEXT_CHOICES:
        choices = ", ".join(CONTEXT_CHOICES)
        raise RagchunkError("context", f"context ({shown(str(context))}) is not known: choose one of {choices}",
                            "unknown_context", {"value": shown(str(context)), "choices": choices})
    return str(context)


def check_siblings(siblings: object) -> str:
    """Validate what a chunk does with small sibling sections (``pack`` or ``apart``).

    >>> check_siblings("apart")
    'apart'
    >>> check_siblings("merge")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: siblings (merge) is not known: choose one of pack, apart
    """
    if siblings not in SIBLINGS_CHOICES:
        choices = ", ".join(SIBLINGS_CHOICES)
        raise RagchunkError("siblings", f"siblings ({shown(str(siblings))}) is not known: choose one of {choices}",
                            "unknown_siblings", {"value": shown(str(siblings)), "choices": choices})
    return str(siblings)


def check_model_size(model: Model, size: int, prefix: bool = False) -> int:
    """Refuse a chunk size the model would truncate, naming the model, its limit and the largest size.

    >>> check_model_size(get_model("all-MiniLM-L6-v2"), 300)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: chunk size (300) is too large for all-MiniLM-L6-v2: it reads 256 tokens, 2 of them its own special tokens; enter at most 254
    """
    largest = model.max_chunk_tokens(prefix)
    if size > largest:
        params = {"chunk_size": size, "model": model.id, "limit": model.limit, "special_tokens": model.special_tokens,
                  "maximum": largest}
        spent = f"{model.special_tokens} of them its own special tokens"
        code = "chunk_size_over_model"
        if prefix and model.document_prefix:
            params |= {"prefix": repr(model.document_prefix.strip()), "prefix_tokens": model.prefix_tokens()}
            spent += f" and {params['prefix_tokens']} its prefix {params['prefix']}"
            code = "chunk_size_over_model_prefix"
        raise RagchunkError(
            "chunk_size",
            f"chunk size ({size:,}) is too large for {model.id}: it reads {model.limit:,} tokens, {spent};"
            f" enter at most {largest:,}",
            code,
            params,
        )
    return size


def read_split_form(form: dict[str, str], *, decimal_comma: bool = False) -> SplitOptions:
    """Split settings from strings as typed: ``by``, ``chunk_size`` (empty with a model: the
    model's largest), ``overlap`` (empty: an eighth of the size), and either ``model`` (with ``prefix`` "true" to leave
    room for its document prefix), ``chars_per_token`` (the estimate) or ``encoding``
    (default :data:`DEFAULT_ENCODING`).

    Every field is read, so one call reports every bad field (as :class:`FormErrors`).

    >>> read_split_form({"by": "paragraphs", "chunk_size": "256", "overlap": "32", "chars_per_token": "3,5"},
    ...                 decimal_comma=True).sizing.name
    'chars/3.5'
    """
    errors = ErrorCollector()
    attempt = errors.attempt
    by = attempt(check_by, form.get("by", "headings"), True)
    model = None
    if form.get("model"):
        model = attempt(get_model, str(form["model"]))
    raw_size = str(form.get("chunk_size", ""))
    # An empty size asks for the named model's largest: an unknown model is its one error.
    size = None if form.get("model") and not raw_size.strip() else attempt(
        read_count, "chunk_size", raw_size, 1, MAX_CHUNK_SIZE, "tokens", decimal_comma)
    prefix = str(form.get("prefix", "")).strip().lower() in ("1", "true", "yes", "on")
    if model is not None and size is not None:
        # Here, not only in SplitOptions, so a size the model would truncate is said with the other bad fields.
        attempt(check_model_size, model, size, prefix)
    raw_overlap = str(form.get("overlap", ""))
    overlap = None if not raw_overlap.strip() else attempt(
        read_count, "overlap", raw_overlap, 0, MAX_CHUNK_SIZE - 1, "tokens", decimal_comma)
    context = attempt(check_context, str(form.get("context") or DEFAULT_CONTEXT))
    siblings = attempt(check_siblings, str(form.get("siblings") or DEFAULT_SIBLINGS))
    tokenizer: Any = None
    if model is not None:
        pass
    elif form.get("chars_per_token") is not None:
        ratio = attempt(read_ratio, str(form["chars_per_token"]), decimal_comma)
        tokenizer = None if ratio is None else CharEstimate(ratio)
    else:
        tokenizer = attempt(check_tokenizer, str(form.get("encoding") or DEFAULT_ENCODING))
    if size is not None and overlap is not None:
        attempt(check_chunking, size, overlap)
    if errors:
        raise FormErrors(errors)
    try:
        return SplitOptions(by, size, overlap, tokenizer, None if model is None else model.id, prefix, context,
                            siblings)
    except RagchunkError as err:
        raise FormErrors([err]) from None
