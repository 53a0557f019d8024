"""The settings an evaluation tries, and the chunks each one makes: exactly ``split``'s
(or, for ``fixed``, the calculator's token windows), with what a retriever indexes.

>>> [s.label for s in grid(by=("fixed", "headings"), sizes=(128, 256))]
['fixed 128/16', 'fixed 256/32', 'headings 128/16', 'headings 256/32']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RagchunkError
from ..options import check_siblings
from ..packing.context import DEFAULT_CONTEXT
from ..packing.packer import DEFAULT_SIBLINGS
from ..packing.windowing import windows
from ..settings import DEFAULT_OVERLAP_SHARE, LABELS
from ..settings.checks import check_whole, overlap_not_smaller
from ..splitter import split
from ..text.structure import BY_CHOICES
from ..tokenizers import Tokenizer, get_tokenizer

__all__ = ["BY_EVALUATED", "DEFAULT_SIZES", "MAX_SETTINGS", "MAX_SIZE", "MIN_SIZE", "IndexedChunk", "Setting", "chunks_of", "grid", "listed"]

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


def listed(settings: Iterable[Setting | str | tuple | Mapping[str, Any]], *,
           context: str = DEFAULT_CONTEXT, siblings: str = DEFAULT_SIBLINGS) -> list[Setting]:
    """Settings given one by one instead of as a grid: :class:`Setting` objects, strings as
    their labels read (``"headings 512/64"``; ``"headings 512"`` overlaps an eighth),
    ``(by, size)`` or ``(by, size, overlap)`` tuples, or mappings with those keys (and
    ``context``). Repeats count once; order is kept.

    >>> [s.label for s in listed(["fixed 256/32", ("headings", 512), {"by": "sentences", "size": 128, "overlap": 0}])]
    ['fixed 256/32', 'headings 512/64', 'sentences 128/0']

    Raises :class:`RagchunkError` naming ``settings`` for an item it cannot read, ``by`` for
    an unknown way, ``chunk_size`` or ``overlap`` for a number out of range, and
    ``settings`` for none or more than :data:`MAX_SETTINGS`.
    """
    check_siblings(siblings)
    if isinstance(settings, str | Setting):
        settings = [settings]
    out: list[Setting] = []
    for number, item in enumerate(settings, 1):
        way_siblings = siblings
        if isinstance(item, Setting):
            by, size, overlap, way_context, way_siblings = item.by, item.size, item.overlap, item.context, item.siblings
        elif isinstance(item, str):
            by, size, overlap = _label(item, number)
            way_context = context
        elif isinstance(item, Mapping):
            by, size, overlap = item.get("by"), item.get("size"), item.get("overlap")
            way_context = item.get("context", context)
            way_siblings = check_siblings(item.get("siblings", siblings))
        elif isinstance(item, tuple) and len(item) in (2, 3):
            by, size, overlap = (*item, None) if len(item) == 2 else item
            way_context = context
        else:
            raise _unreadable(number, item)
        if by not in BY_EVALUATED:
            choices = ", ".join(BY_EVALUATED)
            raise RagchunkError("by", f"setting {number}: boundary ({by}) is not known: choose one of {choices}",
                                "unknown_by", {"value": str(by), "choices": choices})
        size = check_whole("chunk_size", LABELS["chunk_size"], size, MIN_SIZE, MAX_SIZE)
        overlap = size // DEFAULT_OVERLAP_SHARE if overlap is None else check_whole(
            "overlap", LABELS["overlap"], overlap, 0, MAX_SIZE - 1)
        if overlap >= size:
            raise overlap_not_smaller(overlap, size)
        setting = Setting(by, size, overlap, "none" if by == "fixed" else way_context,
                          DEFAULT_SIBLINGS if by == "fixed" else way_siblings)
        if setting not in out:
            out.append(setting)
    if not out:
        raise RagchunkError("settings", "settings is empty: give at least one, e.g. \"headings 512/64\"",
                            "no_settings", {})
    if len(out) > MAX_SETTINGS:
        raise RagchunkError("settings", f"{len(out)} settings are more than {MAX_SETTINGS}: give fewer",
                            "too_many_settings", {"count": len(out), "maximum": MAX_SETTINGS})
    return out


def _label(text: str, number: int) -> tuple[str, int, int | None]:
    """``by size`` or ``by size/overlap`` (a :attr:`Setting.label` without its suffix)."""
    parts = text.split()
    if len(parts) == 2:
        size, _, overlap = parts[1].partition("/")
        if size.isdigit() and (overlap.isdigit() or not overlap):
            return parts[0], int(size), int(overlap) if overlap else None
    raise _unreadable(number, text)


def _unreadable(number: int, item: object) -> RagchunkError:
    return RagchunkError("settings", f"setting {number} ({item!r}) is not a setting: write it as"
                         " \"headings 512/64\", (\"headings\", 512, 64) or {\"by\": \"headings\", \"size\": 512}",
                         "bad_setting", {"number": number})


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
