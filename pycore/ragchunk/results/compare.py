"""See the choice side by side: fixed windows and each structural level, on the same documents.

For a person's own documents and one size, overlap and tokenizer, :func:`compare` gives one
row per way of cutting — the calculator's fixed windows, then ``headings``,
``paragraphs`` and ``sentences`` — with what each costs and how its chunks read: chunks,
tokens to embed, cost, chunk size min / median / max, the share of chunks that end in the
middle of a sentence, and the share that start at a heading.

Every row sees the same text: front matter, which the structural levels never pack, is left
out of the fixed windows too, so their tokens to embed compare.

A chunk *ends mid-sentence* when its end is neither the end of a sentence (of prose) nor
the end of a block (code, a table, a list item, a heading). Counts are per document, added
up over the corpus.

A chunk *starts at a heading* when what is embedded opens with one: its new content (after
any overlap) opens with a heading line, or, with heading context, it is embedded after its
heading path. A fixed window has no context: it starts at a heading only when a heading line
opens it; a heading further inside names just the text after it.

>>> rows = compare([("a.md", "# A\\n\\nOne sentence here. Another one.\\n\\n## B\\n\\nMore.")], size=8, overlap=0)
>>> [(row.method, row.chunks) for row in rows]
[('fixed', 2), ('headings', 3), ('paragraphs', 3), ('sentences', 3)]

A chunk that does not open with its own heading is embedded after its heading path, which
counts in its size (the default context). Without that line the sections still go to chunks
of their own (the default, siblings="apart"):

>>> [row.chunks for row in compare([("a.md", "# A\\n\\nOne sentence here. Another one.\\n\\n## B\\n\\nMore.")], size=8, overlap=0,
...                                 context="none")]
[2, 3, 3, 3]
"""

from __future__ import annotations

import re
import statistics
from bisect import bisect_left
from collections.abc import Generator, Iterable
from dataclasses import asdict, dataclass

from ..options import SplitOptions
from ..packing.context import DEFAULT_CONTEXT, PATH_SEPARATOR
from ..packing.packer import DEFAULT_SIBLINGS
from ..packing.windowing import windows_of
from ..settings.checks import check_price
from ..splitter import Chunk, pack, prepare_text
from ..steps import drive
from ..text.segmentation import sentence_spans
from ..text.structure import BY_CHOICES, Structure

__all__ = ["Comparison", "compare", "compare_steps"]

METHODS: tuple[str, ...] = ("fixed", *BY_CHOICES)
_NONSPACE = re.compile(r"\S")


@dataclass(frozen=True, slots=True)
class Comparison:
    """One way of cutting, over the whole corpus."""

    method: str
    chunks: int
    tokens: int
    cost: float | None
    min_tokens: int
    median_tokens: float
    max_tokens: int
    mid_sentence: float
    with_heading: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)


class _Tally:
    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.mid = 0
        self.headed = 0

    def add(self, tokens: int, mid: bool, headed: bool) -> None:
        self.sizes.append(tokens)
        self.mid += mid
        self.headed += headed

    def row(self, method: str, price: float | None) -> Comparison:
        sizes = self.sizes
        n = len(sizes)
        total = sum(sizes)
        return Comparison(method, n, total, None if price is None else total / 1_000_000 * price, min(sizes, default=0),
                          statistics.median(sizes) if sizes else 0, max(sizes, default=0),
                          self.mid / n if n else 0.0, self.headed / n if n else 0.0)


def _ends(text: str, structure: Structure) -> list[int]:
    """Sorted offsets where a sentence or a block ends: a chunk ending elsewhere ends mid-sentence."""
    ends = []
    for block in structure.blocks:
        if block.kind in ("paragraph", "quote", "list"):
            ends.extend(block.start + end for _, end in sentence_spans(text[block.start : block.end]))
        if block.kind in ("code", "table", "html", "list"):
            line_end = text.find("\n", block.start, block.end)
            while line_end >= 0:  # a line of code or a table row ends a unit too
                ends.append(len(text[block.start : line_end].rstrip()) + block.start)
                line_end = text.find("\n", line_end + 1, block.end)
        ends.append(block.end)
    ends.sort()
    return ends


def _opens_at(points: list[int], text: str, start: int, end: int) -> bool:
    """Whether the first non-whitespace character of ``text[start:end]`` is one of the sorted ``points``."""
    found = _NONSPACE.search(text, start, end)
    if found is None:
        return False
    index = bisect_left(points, found.start())
    return index < len(points) and points[index] == found.start()


def _after_path(chunk: Chunk) -> bool:
    """Whether the chunk is embedded after its heading path (``context="headings"``).

    Its embedding text is the context lines, then its text; the path line comes first and
    is the path, or the path shortened from the outside in. A table's header line alone is
    not a heading.
    """
    if not chunk.embed_text or not chunk.heading_path:
        return False
    first = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)].partition("\n")[0]
    path = chunk.heading_path
    return any(first == PATH_SEPARATOR.join(path[i:]) for i in range(len(path)))


def _first_content(text: str, start: int) -> int:
    """The offset of the first non-whitespace character at or after ``start`` (``len(text)`` when none)."""
    found = _NONSPACE.search(text, start)
    return len(text) if found is None else found.start()


def compare(documents: Iterable[tuple[str, str]], *, size: int | None = None, overlap: int | None = None,
            tokenizer: object = None, model: str | None = None, price_per_million: float | None = None,
            context: str = DEFAULT_CONTEXT, prefix: bool = False,
            siblings: str = DEFAULT_SIBLINGS) -> list[Comparison]:
    """One :class:`Comparison` per way of cutting (:data:`METHODS`), over every ``(source, text)``.

    Each document is encoded and parsed once; every method packs that preparation. The
    settings are a split's (:class:`ragchunk.options.SplitOptions`): with ``prefix``, the
    size leaves room for ``model``'s document prefix, and a size that does not is refused.
    """
    return drive(compare_steps(documents, size=size, overlap=overlap, tokenizer=tokenizer, model=model,
                               price_per_million=price_per_million, context=context, prefix=prefix,
                               siblings=siblings))


def compare_steps(documents: Iterable[tuple[str, str]], *, size: int | None = None, overlap: int | None = None,
                  tokenizer: object = None, model: str | None = None, price_per_million: float | None = None,
                  context: str = DEFAULT_CONTEXT, prefix: bool = False,
                  siblings: str = DEFAULT_SIBLINGS) -> Generator[int, None, list[Comparison]]:
    """:func:`compare`, yielding the number of documents done after each one."""
    price = check_price(price_per_million)
    tallies = {method: _Tally() for method in METHODS}
    options = {by: SplitOptions(by, size, overlap, tokenizer, model, prefix, context, siblings) for by in BY_CHOICES}
    sizing = options["headings"].sizing
    size, overlap = options["headings"].size, options["headings"].overlap
    done = 0
    for _, text in documents:
        prepared = prepare_text(text, sizing, threads=1)
        done += 1
        if prepared.structure is None:
            yield done
            continue
        structure = prepared.structure
        ends = _ends(text, structure)
        heading_starts = [b.start for b in structure.blocks if b.kind == "heading"]
        for by in BY_CHOICES:
            for chunk in pack(prepared, options[by]).chunks:
                index = bisect_left(ends, chunk.end)
                tallies[by].add(chunk.embedded_tokens, not (index < len(ends) and ends[index] == chunk.end),
                                _after_path(chunk) or _opens_at(heading_starts, text, chunk.content_start, chunk.end))
        # The windows start where the structural levels do: after the front matter, which is never packed.
        skip = 0 if structure.front_matter is None else _first_content(text, structure.front_matter.end)
        if sizing.tokenizer is not None and skip < len(text):
            body = text[skip:]
            encoded = sizing.tokenizer.encode_with_offsets(body)
            for window in windows_of(body, encoded, size, overlap):
                kept = window.text.rstrip()
                end = skip + (window.start + len(kept) if kept else len(body[: window.start].rstrip()))
                index = bisect_left(ends, end)
                tallies["fixed"].add(window.tokens, not (index < len(ends) and ends[index] == end),
                                     _opens_at(heading_starts, text, skip + window.overlap_end, skip + window.end))
        yield done
    # Fixed windows need token positions: the characters-per-token estimate has none.
    return [tallies[method].row(method, price) for method in METHODS
            if method != "fixed" or sizing.tokenizer is not None]
