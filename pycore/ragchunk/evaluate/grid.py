"""The settings an evaluation tries, and the chunks each one makes: exactly ``split``'s
(or, for ``fixed``, the calculator's token windows), with what a retriever indexes.

>>> [s.label for s in grid(by=("fixed", "headings"), sizes=(128, 256))]
['fixed 128/16', 'fixed 256/32', 'headings 128/16', 'headings 256/32']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import RagchunkError
from ..options import check_siblings
from ..packing.context import DEFAULT_CONTEXT
from ..packing.packer import DEFAULT_SIBLINGS
from ..packing.windowing import windows
from ..settings import DEFAULT_OVERLAP_SHARE
from ..splitter import split
from ..text.structure import BY_CHOICES
from ..tokenizers import Tokenizer, get_tokenizer

__all__ = ["BY_EVALUATED", "DEFAULT_SIZES", "MAX_SETTINGS", "MAX_SIZE", "MIN_SIZE", "IndexedChunk", "Setting", "chunks_of", "grid"]

#: The ways of cutting an evaluation compares: the calculator's fixed windows, then split's levels.
BY_EVALUATED = ("fixed", *BY_CHOICES)
DEFAULT_SIZES = (128, 256, 512)
#: The chunk sizes the CLI and the page accept for an evaluation (the overlap stays below the largest).
MIN_SIZE, MAX_SIZE = 8, 8192
#: More settings than this in one evaluation are refused: each is a full split and index.
MAX_SETTINGS = 48


@dataclass(frozen=True, slots=True)
class Setting:
    """One way of chunking: ``by`` (``fixed`` or a level of :func:`ragchunk.split`), ``size``,
    ``overlap``, ``context`` (``none`` for fixed windows, which have no headings) and
    ``siblings`` (whether small sections share a chunk: ``pack``, or ``apart``)."""

    by: str
    size: int
    overlap: int
    context: str
    siblings: str = DEFAULT_SIBLINGS

    @property
    def label(self) -> str:
        """``by size/overlap``, then ``(no context)`` for a structural setting without its heading
        line and ``(sections packed)`` or ``(sections apart)`` when it is not the default's.

        >>> Setting("headings", 256, 32, "none", "pack").label
        'headings 256/32 (no context) (sections packed)'
        """
        structural = self.by != "fixed"
        suffix = " (no context)" if structural and self.context == "none" else ""
        if structural and self.siblings != DEFAULT_SIBLINGS:
            suffix += " (sections packed)" if self.siblings == "pack" else " (sections apart)"
        return f"{self.by} {self.size}/{self.overlap}{suffix}"


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """A chunk as a retriever sees it: its span of the document, the text indexed (its
    ``embed_text`` when it has one), its tokens and what embedding it costs."""

    source: str
    start: int
    end: int
    indexed: str
    tokens: int
    embed_tokens: int


def grid(*, by: Iterable[str] = BY_EVALUATED, sizes: Iterable[int] = DEFAULT_SIZES, overlap: int | None = None,
         context: str = DEFAULT_CONTEXT, siblings: str = DEFAULT_SIBLINGS) -> list[Setting]:
    """Every setting of ``by`` × ``sizes``; ``overlap`` None is an eighth of each size.

    Raises :class:`RagchunkError` naming ``by`` or ``size`` for a value split does not know,
    and ``settings`` for more than :data:`MAX_SETTINGS`.
    """
    ways = list(dict.fromkeys(by))
    unknown = [way for way in ways if way not in BY_EVALUATED]
    if unknown or not ways:
        value, choices = ", ".join(unknown), ", ".join(BY_EVALUATED)
        raise RagchunkError("by", f"boundary ({value}) is not known: choose one of {choices}", "unknown_by",
                            {"value": value, "choices": choices})
    check_siblings(siblings)
    sizes = list(dict.fromkeys(sizes))
    if not sizes:
        raise RagchunkError("chunk_size", "chunk size is empty: enter a number", "empty", {"label": "chunk size"})
    settings = [Setting(way, size, size // DEFAULT_OVERLAP_SHARE if overlap is None else overlap,
                        "none" if way == "fixed" else context, DEFAULT_SIBLINGS if way == "fixed" else siblings)
                for way in ways for size in sizes]
    if len(settings) > MAX_SETTINGS:
        raise RagchunkError("settings", f"{len(settings)} settings are more than {MAX_SETTINGS}: give fewer"
                            " ways of cutting or sizes", "too_many_settings",
                            {"count": len(settings), "maximum": MAX_SETTINGS})
    return settings


def chunks_of(setting: Setting, documents: Sequence[tuple[str, str]], tokenizer: str | Tokenizer,
              model: str | None = None) -> list[IndexedChunk]:
    """The chunks ``setting`` makes of every ``(source, text)``, in document order.

    ``fixed`` is :func:`ragchunk.windows` with the tokenizer; the others are
    :func:`ragchunk.split` with the same options a person would give it (``model`` sizes
    for an embedding model, as ``split --model`` does).
    """
    out: list[IndexedChunk] = []
    for source, text in documents:
        if not text.strip():
            continue
        if setting.by == "fixed":
            encoder = get_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer
            for window in windows(text, setting.size, setting.overlap, encoder):
                out.append(IndexedChunk(source, window.start, window.end, window.text, window.tokens, window.tokens))
            continue
        result = split(text, by=setting.by, size=setting.size, overlap=setting.overlap, context=setting.context,
                       siblings=setting.siblings, tokenizer=None if model else tokenizer, model=model)
        for chunk in result.chunks:
            indexed = chunk.embed_text or chunk.text
            out.append(IndexedChunk(source, chunk.start, chunk.end, indexed, chunk.tokens,
                                    chunk.embed_tokens or chunk.tokens))
    return out
