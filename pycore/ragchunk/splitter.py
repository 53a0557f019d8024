"""The structural splitter: cut at the largest boundary that fits, pack, then overlap.

>>> text = "# Guide\\n\\nRead this first. It is short.\\n\\n## Install\\n\\nRun the installer. Then restart. Check the log for errors.\\n"
>>> for c in split(text, by="headings", size=14, overlap=6).chunks:
...     print(repr(text[c.start:c.content_start]), repr(text[c.content_start:c.end]), c.heading_path, c.tokens)
'' '# Guide\\n\\nRead this first. It is short.' ('Guide',) 11
'' '## Install\\n\\nRun the installer. Then restart.' ('Guide', 'Install') 10
'Then restart.' ' Check the log for errors.' ('Guide', 'Install') 9

How a document is cut
---------------------
The text is a tree of units: heading sections (a heading and everything up to the next
heading of the same or a higher level, nested) → blocks (paragraph, code, table, list,
quote, HTML, rule, heading line) → list items, lines (code, tables, HTML, and paragraphs
whose lines are paragraphs: not hard-wrapped, see :mod:`ragchunk.text.structure`) or sentences
(paragraphs, quotes, items) → words (maximal runs of non-whitespace) → grapheme clusters.
``by`` picks the level that is packed: ``headings`` packs sections, ``paragraphs`` blocks,
``sentences`` sentences (code, tables, HTML and rules stay whole blocks there).

Units of that level are packed greedily into a chunk while the chunk stays within
``size`` tokens. A unit that does not fit in the room left but fits a chunk on its own
starts the next chunk, so a block that fits is never cut. A unit bigger than ``size`` on
its own is cut where it stands, at the next finer level: its first pieces fill the chunk
before it, and its last piece stays open for the units after it, so chunks are full and
still end at boundaries. Sections keep to themselves: a section bigger than ``size`` starts
a new chunk and its last piece ends one, unless that chunk would hold at most a quarter
of ``size`` (a chunk of small whole sections goes on into the first pieces of the big one;
a small last piece takes the next section along). A run of words is cut at the last
word end that fits, or at a better place in the second half of the chunk: after a
sentence mark (also where no sentence starts, as in all-lowercase text), else at a line
end, else after ``;`` or ``:``, else after ``,``. Only a single word bigger than
``size`` is cut inside, at a grapheme-cluster boundary (after a glued sentence end such as
``。`` when there is one in the second half of the piece). A heading line travels with
what follows it.

Every chunk after the first starts with the tail of the previous chunk: at most
``overlap`` tokens, starting at a sentence start when one fits, otherwise at a word start
(the longest such tail). When the next unit does not fit together with that tail, a
shorter tail is taken, down to none, before the unit is cut finer. A word cut into pieces
carries no overlap, and neither does a chunk that opens with a heading: the end of the
section before it is not what it is about.

Guarantees
----------
For any ``str`` (a leading BOM is not content): ``chunk.text == text[chunk.start:chunk.end]``;
``chunk.tokens`` is the exact count of ``chunk.text`` and at most ``size``;
``chunk.overlap_tokens`` is the exact count of ``text[chunk.start:chunk.content_start]``,
at most ``overlap``, and that text ends the previous chunk; the regions
``[content_start, end)`` are in order, disjoint, and hold every non-whitespace character
exactly once; a chunk starts or ends inside a word only when that word alone exceeds
``size``; ``sections`` is the heading path of every section ``chunk.text`` holds (in order,
a path repeated in a row once) and ``heading_path`` the longest path they all share: for a
chunk of one section, the path in force at its new content; for small sibling sections
packed together, only the headings above them all. A size smaller than what one character needs (an emoji can
be 4 tokens) cannot keep these promises and raises an error naming ``chunk_size``.

Speed
-----
An exact tokenizer encodes the document once. Token ids become cumulative code-point
ends (C speed, from a per-token table of how many characters start in it), and a span's
size is estimated by bisecting those ends. Packing uses the estimates; each final chunk
(and its overlap) is counted exactly once. For the registry's encodings that count is mostly read from the document's
own tokens: a line break before a visible ASCII character (except ``/``), and a single
space between a visible character and an ASCII letter, are boundaries of every
pre-tokenizer piece in cl100k, o200k, p50k and r50k, so the tokens between the first and
the last such point inside a chunk are the document's tokens there, and only the two ends
are re-encoded. When an exact count exceeds ``size`` (BPE merges differ at the edges),
the chunk is shrunk (shorter overlap, last unit dropped, or the unit cut finer) and
counted again; each step removes something, so this ends. All work is linear in the
length of the text. On CPython, a long text named by its encoding is encoded by the
calling thread in four pieces (cut where every encoding cuts, so the ids are those of one
encode) while a second thread scans its Markdown, turns each finished piece into token
ends and packs the chunks of what is encoded so far (tiktoken releases the GIL while it
encodes; a question about text not yet encoded waits for its piece); the results are the
same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from .errors import RagchunkError
from .options import SplitOptions, unknown_by
from .packing.context import DEFAULT_CONTEXT, Context
from .packing.packer import DEFAULT_SIBLINGS, Packer
from .packing.sizing import Sizer, Sizing, prepare, prepare_and_run
from .packing.stats import Stats, compute_stats
from .steps import drive
from .text.structure import BY_CHOICES, Structure, UnitTree, shared_path
from .tokenizers import CharEstimate, Tokenizer

__all__ = ["BY_CHOICES", "Chunk", "Prepared", "Split", "check_split_text", "pack", "pack_steps", "prepare_text",
           "split", "split_with", "unknown_by"]

_NONSPACE = re.compile(r"\S")


class Chunk(NamedTuple):
    """One chunk of a split, located by code-point offsets into the source text.

    ``text == source[start:end]``. ``source[start:content_start]`` is the overlap carried
    from the previous chunk (``overlap_tokens`` tokens; empty for the first chunk) and
    ``source[content_start:end]`` the new content. ``sections`` holds the heading path (titles,
    outermost first) of every section the chunk's text holds, in order; ``heading_path`` is
    the path they all share (the headings the whole chunk is under) and ``heading`` its last
    title ("" when none): a chunk that packs the sections "Setup" and "Install" is under
    neither. ``tokens`` is the exact count of ``text``. ``embed_text`` is the text
    to embed when the chunk has context lines (its heading path with ``context="headings"``,
    the header of a cut table), and ``embed_tokens`` its exact count; both are empty/0 when
    the chunk is embedded as it is (see :mod:`ragchunk.packing.context`).

    >>> source = "# Setup\\n\\nInstall it. Then run it.\\n\\nDone."
    >>> first, second = split(source, by="sentences", size=10, overlap=4).chunks
    >>> second.text, source[second.start:second.content_start], second.overlap_tokens, second.heading
    ('Then run it.\\n\\nDone.', 'Then run it.', 4, 'Setup')

    A named tuple: a split can make hundreds of thousands of chunks.
    """

    id: int
    text: str
    start: int
    end: int
    content_start: int
    heading: str
    heading_path: tuple[str, ...]
    tokens: int
    overlap_tokens: int
    embed_text: str = ""
    embed_tokens: int = 0
    sections: tuple[tuple[str, ...], ...] = ()

    @property
    def embedded_tokens(self) -> int:
        """What embedding the chunk costs: ``embed_tokens`` when it has an ``embed_text``,
        else ``tokens``. The size bounds this count; statistics are of it."""
        return self.embed_tokens if self.embed_text else self.tokens


@dataclass(frozen=True, slots=True)
class Split:
    """The chunks of a text and their statistics, plus the settings that made them.

    ``tokenizer`` is the tokenizer's name, or ``chars/<ratio>`` for the estimate;
    ``document_tokens`` the whole text's length in those tokens; ``model`` the model the
    chunks were sized for ("" when none).

    >>> result = split("Short text.", size=64, overlap=8, tokenizer=CharEstimate(4))
    >>> len(result.chunks), result.stats.total_tokens, result.tokenizer
    (1, 3, 'chars/4')
    """

    chunks: list[Chunk]
    stats: Stats
    tokenizer: str
    by: str
    size: int
    overlap: int
    document_tokens: int = 0
    model: str = ""


def split(
    text: str,
    *,
    by: str = "headings",
    size: int | None = None,
    overlap: int | None = None,
    tokenizer: str | Tokenizer | CharEstimate | None = None,
    model: str | None = None,
    prefix: bool = False,
    context: str = DEFAULT_CONTEXT,
    siblings: str = DEFAULT_SIBLINGS,
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
) -> Split:
    """Cut ``text`` (Markdown or plain) into chunks of at most ``size`` tokens.

    ``by`` is ``"headings"``, ``"paragraphs"`` or ``"sentences"`` (the level packed);
    ``overlap`` is the most tokens a chunk repeats from the previous one (by default an
    eighth of ``size``: 64 at 512); ``tokenizer`` is
    a tokenizer name of the registry (default ``cl100k_base``), a :class:`Tokenizer` or a
    :class:`CharEstimate`. With a ``model`` (``"bge-small-en-v1.5"``, ``"BAAI/bge-m3"`` ...)
    its tokenizer counts, and ``size`` defaults to, and may not exceed, what the model
    reads whole (less its document prefix when ``prefix``); without one ``size`` defaults
    to 512. ``context`` is ``"headings"`` by default: a chunk under a heading it does not
    itself open with gets an ``embed_text``, its heading path on a line, then its text,
    counted within ``size`` (see :mod:`ragchunk.packing.context`); a chunk without one is embedded
    as it is. ``context="none"`` leaves the heading path out. ``siblings`` is ``"apart"`` by
    default: each section's text goes to chunks of its own, so a small section stays a small
    chunk; with ``"pack"`` small sections share a chunk while they fit (its ``heading_path``
    is then the path they share, its ``sections`` each one's).

    >>> text = "# Setup\\n\\nRun setup.\\n\\n# Install\\n\\nRun the installer."
    >>> [(c.heading_path, c.text) for c in split(text).chunks]
    [(('Setup',), '# Setup\\n\\nRun setup.'), (('Install',), '# Install\\n\\nRun the installer.')]
    >>> [(c.heading_path, c.sections) for c in split(text, siblings="pack").chunks]
    [((), (('Setup',), ('Install',)))]

    >>> s = split("One. Two. Three.", by="sentences", size=3, overlap=0)
    >>> [c.text for c in s.chunks], s.stats.total_tokens
    (['One.', 'Two.', 'Three.'], 6)
    >>> split(" \\n ", size=8, overlap=0).chunks
    []

    ``progress``, when given, is called as ``progress(done, total)`` with code-point
    offsets into ``text`` (``total == len(text)``): while chunks are made, with the end of
    the latest chunk, at most 100 times and with ``done`` strictly increasing and below
    ``total``; then exactly once with ``(total, total)`` when the split is complete, also
    for empty text (``(0, 0)``). An exception it raises stops the split and propagates
    (a way to cancel).

    >>> calls = []
    >>> _ = split("One. Two. Three.", by="sentences", size=3, overlap=0, progress=lambda *a: calls.append(a))
    >>> calls
    [(4, 16), (9, 16), (16, 16)]

    ``threads`` caps the threads one split may use (see :func:`ragchunk.packing.sizing.prepare`;
    by default two when the process may use more than one core); pass 1 in a process pool.

    Empty or whitespace-only text gives no chunks. Raises :class:`RagchunkError` for an
    unknown ``by`` or encoding, an invalid size, overlap or ratio, a ``progress`` that is
    not callable, text with unpaired surrogates, or a size smaller than one character of
    the text needs.
    """
    return split_with(text, SplitOptions(by, size, overlap, tokenizer, model, prefix, context, siblings), progress,
                      threads)


def split_with(text: str, options: SplitOptions, progress: Callable[[int, int], None] | None = None,
               threads: int | None = None, markdown_titles: bool = True) -> Split:
    """:func:`split` with its settings already validated (see :class:`ragchunk.options.SplitOptions`;
    ``markdown_titles``: see :func:`ragchunk.text.markdown.parse_blocks`)."""
    _check_progress(progress)
    check_split_text(text)
    sizing = options.sizing
    if not text or text.isspace():
        steps = pack_steps(Prepared(text, sizing.name, None, None), options)
    else:
        # On two threads the packing starts while the end of the text is still being encoded.
        steps = prepare_and_run(
            text, sizing, lambda sizer, structure: pack_steps(Prepared(text, sizing.name, sizer, structure), options),
            threads, markdown_titles)
    try:
        return drive(steps, None if progress is None else lambda step: progress(step[1], step[2]))
    finally:
        steps.close()  # a progress that raised stops the packing thread now, not when collected


@dataclass(frozen=True, slots=True)
class Prepared:
    """A text made ready for packing with one sizer: its one encode and its Markdown structure.

    Packing the same text again with another size, overlap or ``by`` (and the same sizer)
    reuses it; the sizer's caches of exact counts stay valid for the same text.
    """

    text: str
    sizing_name: str
    sizer: Sizer
    structure: Structure | None


def check_split_text(text: object) -> str:
    """Validate a text to split: a ``str`` without unpaired surrogates (a leading BOM is not content)."""
    if not isinstance(text, str):
        raise RagchunkError("text", f"text must be a string, not {type(text).__name__}: decode the file first")
    try:
        if not text.isascii():
            text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise RagchunkError(
            "text",
            f"text has an unpaired surrogate at offset {err.start}: replace it (ragchunk.readers.textio.check_text does)",
            "text_surrogate",
            {"offset": err.start},
        ) from None
    return text


def prepare_text(text: str, sizing: Sizing, threads: int | None = None, markdown_titles: bool = True) -> Prepared:
    """Encode ``text`` once with ``sizing`` and parse its Markdown (see :func:`ragchunk.packing.sizing.prepare`)."""
    check_split_text(text)
    # Not text.strip(): that copies the whole text when it ends with a line break.
    if not text or text.isspace():
        return Prepared(text, sizing.name, None, None)
    sizer, structure = prepare(text, sizing, threads, markdown_titles)
    return Prepared(text, sizing.name, sizer, structure)


def pack(prepared: Prepared, options: SplitOptions, progress: Callable[[int, int], None] | None = None) -> Split:
    """The chunks of a prepared text under ``options`` (whose sizer must be the one it was
    prepared with); ``progress(done, total)`` as for :func:`split`."""
    return drive(pack_steps(prepared, options), None if progress is None else lambda step: progress(step[1], step[2]))


def pack_steps(prepared: Prepared, options: SplitOptions) -> Generator[tuple[str, int, int], None, Split]:
    """:func:`pack` step by step: yields ``("splitting", done, total)`` at most 100 times
    while chunks are made (``done``: the end of the latest chunk, strictly increasing,
    below ``total``), then ``("splitting", total, total)``; returns the :class:`Split`.
    Closing the generator stops the packing."""
    if prepared.sizing_name != options.sizing.name:
        raise RagchunkError(
            "tokenizer",
            f"the text was prepared with {prepared.sizing_name}, not {options.sizing.name}: prepare it again",
        )
    text = prepared.text
    total = len(text)
    chunks: list[Chunk] = []
    if prepared.sizer is not None:
        emitter = _Emitter(text, prepared.structure)
        for done in emitter.run(prepared.sizer, options):
            yield ("splitting", done, total)
        chunks = emitter.chunks
    yield ("splitting", total, total)
    size = options.size
    stats = compute_stats([c.embedded_tokens for c in chunks], [c.overlap_tokens for c in chunks], size)
    return Split(chunks, stats, options.sizing.name, options.by, size, options.overlap, _length(prepared),
                 options.model or "")


def _length(prepared: Prepared) -> int:
    """The prepared text's length in tokens of its sizer."""
    sizer = prepared.sizer
    if sizer is None:
        return 0
    tokens = getattr(sizer, "tokens", None)
    return tokens() if tokens is not None else sizer.exact(0, len(prepared.text))


def _check_progress(progress: object) -> None:
    if progress is not None and not callable(progress):
        raise RagchunkError(
            "progress",
            f"progress ({type(progress).__name__}) must be callable as progress(done, total) or None",
        )


class _Emitter:
    """Turns the packer's spans into :class:`Chunk` records: heading paths, ids, progress points."""

    def __init__(self, text: str, structure: Structure) -> None:
        self.text = text
        self.structure = structure
        self.chunks: list[Chunk] = []
        # A step ends when a chunk ends at or past the next hundredth of the text.
        self.report_step = -(-len(text) // 100)
        self.next_report = self.report_step
        self.done = 0
        self.context: Context | None = None

    def run(self, sizer: Sizer, options: SplitOptions) -> Iterator[int]:
        """Pack; yields the end of the latest chunk at each hundredth of the text passed."""
        size = options.size
        text, structure = self.text, self.structure
        apart = options.siblings == "apart"
        tree = UnitTree(text, structure, options.by, sizer.est, size // 2, apart)
        context = None
        # Tables (in lists and quotes too) carry their header into later pieces whatever the context.
        if options.context == "headings" or structure.tables:
            tokenizer = options.sizing.tokenizer
            count = tokenizer.count if tokenizer is not None else (lambda part: _count_of(sizer, part))
            context = Context(text, structure, size, options.context == "headings", count,
                              getattr(tokenizer, "next_cut", None), getattr(tokenizer, "whitespace_outside_tokens", False))
        self.context = context
        budget = (lambda _pos: size) if context is None else context.budget
        check = None if context is None else context.fits
        for _ in Packer(text, tree, sizer, budget, options.overlap, self.emit, check, structure.section_starts,
                        structure.owners_of if apart else None).run():
            yield self.done

    def emit(self, start: int, content_start: int, end: int, tokens: int, overlap_tokens: int) -> bool:
        text, context = self.text, self.context
        # Every section the chunk's text holds, overlap included; it is under the path they share.
        if context is None:
            first = _NONSPACE.search(text, start, end)
            sections = self.structure.sections_in(first.start() if first else start, end)
            embed_text, embed_tokens = "", 0
        else:
            sections = context.sections(start, end)
            embed_text, embed_tokens = context.embed(content_start, start, end, tokens)
        path = sections[0] if len(sections) == 1 else shared_path(sections)
        chunk = (len(self.chunks), text[start:end], start, end, content_start, path[-1] if path else "", path,
                 tokens, overlap_tokens, embed_text, embed_tokens, sections)
        self.chunks.append(tuple.__new__(Chunk, chunk))
        if end < self.next_report:
            return False
        if end >= len(text):
            self.next_report = math.inf  # the end is reported once, after the last chunk
            return False
        self.next_report = (end // self.report_step + 1) * self.report_step
        self.done = end
        return True


def _count_of(sizer: Sizer, text: str) -> int:
    """A count of any string by a sizer without a tokenizer (the estimate, or a count-only object)."""
    count = getattr(sizer, "count", None)
    if callable(count):
        return count(text)
    return sizer.est(0, len(text))
