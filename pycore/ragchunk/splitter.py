"""The structural splitter: cut at the largest boundary that fits, pack, then overlap.

>>> text = "# Guide\\n\\nRead this first. It is short.\\n\\n## Install\\n\\nRun the installer. Then restart.\\n"
>>> for c in split(text, by="headings", size=16, overlap=6).chunks:
...     print(repr(text[c.start:c.content_start]), repr(text[c.content_start:c.end]), c.heading_path, c.tokens)
'' '# Guide\\n\\nRead this first. It is short.' ('Guide',) 11
'It is short.' '\\n\\n## Install\\n\\nRun the installer. Then restart.' ('Guide', 'Install') 14

How a document is cut
---------------------
The text is a tree of units: heading sections (a heading and everything up to the next
heading of the same or a higher level, nested) → blocks (paragraph, code, table, list,
quote, HTML, rule, heading line) → list items, lines (code, tables, HTML) or sentences
(paragraphs, quotes, items) → words (maximal runs of non-whitespace) → grapheme clusters.
``by`` picks the level that is packed: ``headings`` packs sections, ``paragraphs`` blocks,
``sentences`` sentences (code, tables, HTML and rules stay whole blocks there).

Units of that level are packed greedily into a chunk while the chunk stays within
``size`` tokens; a chunk ends when the next unit does not fit. A unit bigger than ``size``
on its own is cut at the next finer level, and its pieces are packed among themselves, so
a chunk never mixes the tail of a cut section with the next section. Only a single word
bigger than ``size`` is cut inside, at a grapheme-cluster boundary (after a glued
sentence end such as ``。`` when there is one in the second half of the piece). A heading
line travels with what follows it.

Every chunk after the first starts with the tail of the previous chunk: at most
``overlap`` tokens, starting at a sentence start when one fits, otherwise at a word start
(the longest such tail). When the next unit does not fit together with that tail, a
shorter tail is taken, down to none, before the unit is cut finer. A word cut into pieces
carries no overlap.

Guarantees
----------
For any ``str`` (a leading BOM is not content): ``chunk.text == text[chunk.start:chunk.end]``;
``chunk.tokens`` is the exact count of ``chunk.text`` and at most ``size``;
``chunk.overlap_tokens`` is the exact count of ``text[chunk.start:chunk.content_start]``,
at most ``overlap``, and that text ends the previous chunk; the regions
``[content_start, end)`` are in order, disjoint, and hold every non-whitespace character
exactly once; a chunk starts or ends inside a word only when that word alone exceeds
``size``; ``heading_path`` is the path of headings in force at the first non-whitespace
character of the new content. A size smaller than what one character needs (an emoji can
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
encode) while a second thread scans its Markdown and turns each finished piece into token
ends (tiktoken releases the GIL while it encodes); the results are the same.
"""

from __future__ import annotations

import math
import re
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from queue import SimpleQueue
from typing import Any, NamedTuple

from .errors import RagchunkError
from .graphemes import floor_boundary
from .markdown import Block, heading_paths, list_items, parse_blocks
from .calculator import check_chunking, check_ratio
from .segmentation import iter_sentence_starts, sentence_spans
from .settings import DEFAULT_CHUNK_SIZE, DEFAULT_ENCODING, DEFAULT_OVERLAP
from .stats import Stats, compute_stats
from .tokenizers import (
    CharEstimate,
    TiktokenTokenizer,
    Tokenizer,
    WasmTokenizer,
    check_encoding,
    get_tokenizer,
    piece_cut,
)

__all__ = ["BY_CHOICES", "Chunk", "Split", "split", "unknown_by"]

BY_CHOICES: tuple[str, ...] = ("headings", "paragraphs", "sentences")


def unknown_by(value: str) -> RagchunkError:
    """The error for a boundary name that is not one of :data:`BY_CHOICES`."""
    choices = ", ".join(BY_CHOICES)
    return RagchunkError(
        "by", f"by ({value}) is not known: choose one of {choices}", "unknown_by", {"value": value, "choices": choices}
    )


class Chunk(NamedTuple):
    """One chunk of a split, located by code-point offsets into the source text.

    ``text == source[start:end]``. ``source[start:content_start]`` is the overlap carried
    from the previous chunk (``overlap_tokens`` tokens; empty for the first chunk) and
    ``source[content_start:end]`` the new content. ``heading`` is the nearest heading above
    the new content and ``heading_path`` the titles of all headings in force there,
    outermost first. ``tokens`` is the exact count of ``text``.

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


@dataclass(frozen=True, slots=True)
class Split:
    """The chunks of a text and their statistics, plus the settings that made them.

    ``tokenizer`` is the encoding name, or ``chars/<ratio>`` for the estimate.

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


def split(
    text: str,
    *,
    by: str = "headings",
    size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_OVERLAP,
    tokenizer: str | Tokenizer | CharEstimate = DEFAULT_ENCODING,
    progress: Callable[[int, int], None] | None = None,
) -> Split:
    """Cut ``text`` (Markdown or plain) into chunks of at most ``size`` tokens.

    ``by`` is ``"headings"``, ``"paragraphs"`` or ``"sentences"`` (the level packed);
    ``overlap`` is the most tokens a chunk repeats from the previous one; ``tokenizer`` is
    an encoding name of the registry, a :class:`Tokenizer` or a :class:`CharEstimate`.

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

    Empty or whitespace-only text gives no chunks. Raises :class:`RagchunkError` for an
    unknown ``by`` or encoding, an invalid size, overlap or ratio, a ``progress`` that is
    not callable, text with unpaired surrogates, or a size smaller than one character of
    the text needs.
    """
    if by not in BY_CHOICES:
        raise unknown_by(by)
    size, overlap = check_chunking(size, overlap)
    sizer_factory, name, parallel = _sizer_factory(tokenizer)
    if progress is not None and not callable(progress):
        raise RagchunkError(
            "progress",
            f"progress ({type(progress).__name__}) must be callable as progress(done, total) or None",
        )
    if not isinstance(text, str):
        raise RagchunkError("text", f"text must be a string, not {type(text).__name__}: decode the file first")
    try:
        if not text.isascii():
            text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise RagchunkError(
            "text",
            f"text has an unpaired surrogate at offset {err.start}: replace it (ragchunk.textio.check_text does)",
            "text_surrogate",
            {"offset": err.start},
        ) from None
    chunks: list[Chunk] = []
    # Not text.strip(): that copies the whole text when it ends with a line break.
    if text and not text.isspace():
        sizer, structure = _prepare(text, sizer_factory, parallel)
        chunks = _Splitter(text, by, size, overlap, sizer, structure, progress).run()
    if progress is not None:
        progress(len(text), len(text))
    stats = compute_stats([c.tokens for c in chunks], [c.overlap_tokens for c in chunks], size)
    return Split(chunks, stats, name, by, size, overlap)


# --- sizers -------------------------------------------------------------------------------
#
# A sizer answers, for code-point spans of the one text being split:
#   est(s, e)            an estimate of the tokens of text[s:e] (cheap, used for packing)
#   fits(s, e, n)        est(s, e) <= n, for n >= 1 (cheaper: packing asks it per unit)
#   exact(s, e)          the exact count of text[s:e]
#   reach(s, n, limit)   about the furthest c <= limit with est(s, c) <= n
#   lowest(e, n, floor)  about the nearest c >= floor with est(c, e) <= n

# Places that end a pre-tokenizer piece in cl100k, o200k, p50k and r50k whatever surrounds
# them: no piece of those patterns runs from a line break into a visible ASCII character
# other than "/" (o200k glues "/" to punctuation before a line break), nor from a visible
# character over a single space into an ASCII letter (the space starts the next piece).
# The cut point is the second character of a match; the character there is one token alone.
_SYNC = re.compile(r"\n[!-.0-~]|[!-~] [A-Za-z]")
_SYNC_REVERSED = re.compile(r"[!-.0-~]\n|[A-Za-z] [!-~]")
_SYNC_ENCODINGS = frozenset({"cl100k_base", "o200k_base", "p50k_base", "r50k_base"})
_VISIBLE_ASCII = frozenset(chr(c) for c in range(0x21, 0x7F))
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LINE_STARTS = frozenset(chr(c) for c in range(0x21, 0x7F) if chr(c) != "/")
_MEMO_LIMIT = 256
# Token count from which the token ends are kept in an array (about 4 MB of text).
_ARRAY_ENDS_FROM = 1 << 20
_ENDS_SLICE = 1 << 18


class _TokenSizer:
    """An exact tokenizer with ``encode`` and ``code_point_counts``: one encode of the whole text.

    ``ends[i]`` is the code-point offset where token ``i`` ends: the number of characters
    whose first byte lies in tokens ``0..i``. A character split between tokens belongs to
    the token with its first byte, so offsets never need converting from bytes.
    """

    def __init__(self, text: str, tokenizer: Any, sync: bool, ends: list[int] | array | None = None) -> None:
        self.text = text
        self.count = tokenizer.count
        if ends is None:
            ids = tokenizer.encode(text)
            ends = _token_ends(ids, tokenizer.code_point_counts(), 0, len(ids) >= _ARRAY_ENDS_FROM)
        self.ends = ends
        self.sync = sync
        # Consecutive chunks share edges (a chunk's last sentence is the next one's overlap):
        # remember recent counts of small spans instead of encoding them twice.
        self.memo: dict[tuple[int, int], int] = {}
        # fits() is asked again and again with the start of the chunk being filled.
        self.fit_start = -1
        self.fit_first = 0
        # exact(): (start, first sync point, end of its match, its token index) and
        # (end, last sync point, its token index, the first sync point it was sought from)
        # of recent calls.
        self.first_for = (-1, 0, 0, 0)
        self.last_for = (-1, 0, 0, 0)

    def _count(self, s: int, e: int) -> int:
        memo = self.memo
        key = (s, e)
        found = memo.get(key)
        if found is None:
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
            found = memo[key] = self.count(self.text[s:e])
        return found

    def est(self, s: int, e: int) -> int:
        if e <= s:
            return 0
        ends = self.ends
        first = bisect_right(ends, s)
        return bisect_left(ends, e, first) - first + 1

    def fits(self, s: int, e: int, n: int) -> bool:
        if e <= s:
            return True
        ends = self.ends
        if s != self.fit_start:
            self.fit_start = s
            self.fit_first = bisect_right(ends, s)
        # est(s, e) <= n exactly when the n-th token from the one holding s ends at e or later.
        k = self.fit_first + n - 1
        return k >= len(ends) - 1 or ends[k] >= e

    def reach(self, s: int, n: int, limit: int) -> int:
        ends = self.ends
        last = bisect_right(ends, s) + n - 1
        if last >= len(ends) - 1:
            return limit
        return max(s, min(limit, ends[last]))

    def lowest(self, e: int, n: int, floor: int) -> int:
        ends = self.ends
        before = bisect_left(ends, e) - n
        if before < 0:
            return floor
        return max(floor, ends[before])

    def exact(self, s: int, e: int) -> int:
        text = self.text
        if not self.sync:
            return self.count(text[s:e])
        # A chunk's overlap and the chunk share their start, and the overlap ends where the
        # previous chunk ended: the last call's first sync point (with its token index) and
        # the last sync point found for each end are reused when they still apply.
        if s == self.first_for[0] and self.first_for[2] <= e:
            _, first, _, i_first = self.first_for
        else:
            if s and text[s - 1] == "\n" and text[s] in _LINE_STARTS:
                first, reach = s, s + 1
            else:
                found = _SYNC.search(text, s, e)
                if found is None:
                    return self._count(s, e)
                first, reach = found.start() + 1, found.end()
            i_first = bisect_right(self.ends, first)
            self.first_for = (s, first, reach, i_first)
        last_for = self.last_for
        if last_for[0] == e and last_for[3] <= first <= last_for[1]:
            # Found in a span that holds this one, and inside this one: still the last.
            last, i_last = last_for[1], last_for[2]
        else:
            last = _last_sync(text, first, e)
            i_last = bisect_right(self.ends, last)
            self.last_for = (e, last, i_last, first)
        ends = self.ends
        # The character before a sync point is ASCII (one byte): a token that ends after it
        # ends exactly there, in bytes too.
        if ends[i_first - 1] != first or ends[i_last - 1] != last:
            return self.count(text[s:e])  # not a token boundary after all: count the plain way
        # text[s:first + 1] ends with one ASCII character that is a piece (one token) of its own.
        head = self._count(s, first + 1) - 1 if first > s else 0
        return head + (i_last - i_first) + self._count(last, e)


def _token_ends(ids: Any, counts: Any, offset: int, compact: bool) -> list[int] | array:
    """The code-point end of every token of ``ids`` (tokens of a text starting at ``offset``).

    itemgetter reads the counts of many ids at C speed. A list bisects faster than an
    array, but holds an end in 36 bytes instead of 4: ``compact`` ends come in an array,
    built slice by slice so that no list of a Python int per token is ever made.
    """
    if not compact:
        if len(ids) < 2:
            return [offset + counts[ids[0]]] if ids else []
        running = accumulate(itemgetter(*ids)(counts), initial=offset)
        next(running)  # the initial value itself
        return list(running)
    ends = array("I")
    total = offset
    for first in range(0, len(ids), _ENDS_SLICE):
        part = ids[first : first + _ENDS_SLICE]
        running = accumulate(itemgetter(*part)(counts) if len(part) > 1 else (counts[part[0]],), initial=total)
        next(running)  # the initial value itself
        ends.extend(running)
        total = ends[-1]
    return ends


def _last_sync(text: str, first: int, e: int) -> int:
    """The cut point of the last ``_SYNC`` match in ``text[first - 1:e]``, else ``first``."""
    # The last match is the one with the largest cut point. Usually it is a space in the
    # span's last line, or the line break before that line: found with rfind, no regex.
    newline = text.rfind("\n", first - 1, e - 1)
    low = max(first, newline + 1)
    space = text.rfind(" ", low, e - 1)
    for _ in range(8):
        if space < low:
            break
        if text[space - 1] in _VISIBLE_ASCII and text[space + 1] in _ASCII_LETTERS:
            return space
        space = text.rfind(" ", low, space)
    else:
        return _last_sync_scan(text, first, e)  # a line of many spaces: let the regex look
    if newline < first:
        return first  # no line break, or the one before first: its cut point is first anyway
    if text[newline + 1] in _LINE_STARTS:
        return newline + 1
    return _last_sync_scan(text, first, newline + 1)


def _last_sync_scan(text: str, first: int, e: int) -> int:
    """:func:`_last_sync` by a regex over growing windows, from the end backwards."""
    width = 32  # a chunk usually ends a few words after its last sync point
    while True:
        a = max(first - 1, e - width)
        # The first match in the reversed window is the last one in the text.
        found = _SYNC_REVERSED.search(text[a:e][::-1])
        if found is not None:
            return max(first, e - found.end() + 1)
        if a == first - 1:
            return first
        width *= 4


class _CharSizer:
    """The characters-per-token estimate: every count is ``ceil(characters / ratio)``."""

    def __init__(self, ratio: float) -> None:
        self.ratio = ratio

    def est(self, s: int, e: int) -> int:
        return math.ceil((e - s) / self.ratio) if e > s else 0

    exact = est

    def fits(self, s: int, e: int, n: int) -> bool:
        return self.est(s, e) <= n

    def _chars(self, n: int) -> int:
        ratio = self.ratio
        chars = int(n * ratio)
        while chars and math.ceil(chars / ratio) > n:
            chars -= 1
        while math.ceil((chars + 1) / ratio) <= n:
            chars += 1
        return chars

    def reach(self, s: int, n: int, limit: int) -> int:
        return min(limit, s + self._chars(n))

    def lowest(self, e: int, n: int, floor: int) -> int:
        return max(floor, e - self._chars(n))


class _CountSizer:
    """Any tokenizer with only ``count``: exact counts everywhere (slower, still correct)."""

    def __init__(self, text: str, count: Callable[[str], int]) -> None:
        self.text = text
        self.count = count

    def est(self, s: int, e: int) -> int:
        return self.count(self.text[s:e]) if e > s else 0

    exact = est

    def fits(self, s: int, e: int, n: int) -> bool:
        return self.est(s, e) <= n

    def reach(self, s: int, n: int, limit: int) -> int:
        lo, hi = s, limit  # est(s, lo) <= n; find the largest such position by bisection
        if self.est(s, hi) <= n:
            return hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.est(s, mid) <= n:
                lo = mid
            else:
                hi = mid
        return lo

    def lowest(self, e: int, n: int, floor: int) -> int:
        lo, hi = floor, e
        if self.est(lo, e) <= n:
            return lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.est(mid, e) <= n:
                hi = mid
            else:
                lo = mid
        return hi


# Below this length a thread costs more than the scan it hides.
_PARALLEL_MIN_CHARS = 1 << 16
# Where the pieces of a parallel encode end, as shares of the text: the first piece is
# long enough to hide the Markdown scan, the last short so that little work follows it.
_PIECE_SHARES = (0.5, 0.8, 0.95)
# How far each cut is looked for (a text without any place to cut is one piece).
_PIECE_SEARCH = 1 << 16


class _Structure(NamedTuple):
    """The Markdown blocks of a text and what the splitter derives from them."""

    blocks: list[Block]
    paths: list[tuple[str, ...]]  # heading path in force at each block
    block_starts: list[int]
    section_end: list[int]  # see _section_ends


def _structure(text: str) -> _Structure:
    blocks = parse_blocks(text)
    return _Structure(blocks, heading_paths(blocks), [b.start for b in blocks], _section_ends(blocks))


def _prepare(text: str, sizer_factory: Callable[[str], Any], parallel: Any) -> tuple[Any, _Structure]:
    """The sizer of ``text`` (its one encode) and its Markdown structure.

    ``parallel`` is a tiktoken tokenizer (CPython) or None. tiktoken releases the GIL
    while it encodes, so for a long text the calling thread encodes it in a few pieces
    (cut where every encoding of the registry cuts, so the ids are those of one encode)
    while a second thread scans the Markdown, then turns each finished piece into token
    ends: on a machine with a free core that work costs no wall time. The encode stays
    on the calling thread (tiktoken measured ~25 % slower on a thread other than the one
    that first used it). The results are the same either way.
    """
    if parallel is None or len(text) < _PARALLEL_MIN_CHARS:
        return sizer_factory(text), _structure(text)
    cuts = [0]
    for share in _PIECE_SHARES:
        at = max(cuts[-1], int(len(text) * share))
        cut = piece_cut(text, at, at + _PIECE_SEARCH)
        if cut is not None:
            cuts.append(cut)
    cuts.append(len(text))
    counts = parallel.code_point_counts()
    compact = len(text) >= 4 * _ARRAY_ENDS_FROM  # about as many tokens as the one-piece rule
    pieces: SimpleQueue = SimpleQueue()
    ends: list[Any] = []  # the whole text's, extended piece by piece (pieces come in order)
    structure: list[_Structure] = []
    failed: list[BaseException] = []
    # The scan starts once this thread is about to encode: begun at once, it would hold the
    # GIL while Thread.start() waits for it, and this thread would get the GIL back only
    # after the switch interval (5 ms).
    encoding = threading.Event()

    def work() -> None:
        try:
            encoding.wait()
            structure.append(_structure(text))
            while (piece := pieces.get()) is not None:
                index, ids = piece
                part = _token_ends(ids, counts, cuts[index], compact)
                if ends:
                    ends[0].extend(part)
                else:
                    ends.append(part)
        except BaseException as err:  # re-raised on the calling thread below
            failed.append(err)

    worker = threading.Thread(target=work, name="ragchunk-markdown", daemon=True)
    worker.start()
    try:
        for index in range(len(cuts) - 1):
            piece = text[cuts[index] : cuts[index + 1]]
            encoding.set()
            pieces.put((index, parallel.encode(piece)))
    finally:
        encoding.set()
        pieces.put(None)
        worker.join()
    if failed:
        raise failed[0]
    return _TokenSizer(text, parallel, _syncs(parallel), ends[0]), structure[0]


def _sizer_factory(tokenizer: object) -> tuple[Callable[[str], Any], str, Any]:
    """Validate the tokenizer argument; return a sizer factory (text -> sizer), its name,
    and the tokenizer when its encode releases the GIL (so that the Markdown scan may run
    beside it), else None."""
    if isinstance(tokenizer, str):
        real = get_tokenizer(check_encoding(tokenizer))
        # Pieces are cut where the registry's encodings cut (see tokenizers.piece_cut).
        parallel = real if isinstance(real, TiktokenTokenizer) and real.name in _SYNC_ENCODINGS else None
        return (lambda text: _TokenSizer(text, real, _syncs(real))), real.name, parallel
    if isinstance(tokenizer, CharEstimate):
        ratio = check_ratio(tokenizer.ratio)
        return (lambda text: _CharSizer(ratio)), CharEstimate(ratio).name, None
    count = getattr(tokenizer, "count", None)
    if not callable(count):
        raise RagchunkError(
            "tokenizer",
            f"tokenizer ({type(tokenizer).__name__}) has no count(text) method:"
            " pass an encoding name, a Tokenizer or a CharEstimate",
        )
    name = str(getattr(tokenizer, "name", type(tokenizer).__name__))
    if getattr(tokenizer, "exact", False) and callable(getattr(tokenizer, "encode", None)) and callable(
        getattr(tokenizer, "code_point_counts", None)
    ):
        return (lambda text: _TokenSizer(text, tokenizer, _syncs(tokenizer))), name, None
    return (lambda text: _CountSizer(text, count)), name, None


def _syncs(tokenizer: object) -> bool:
    """Whether the document's own tokens may stand in for a recount between sync points."""
    return isinstance(tokenizer, (TiktokenTokenizer, WasmTokenizer)) and tokenizer.name in _SYNC_ENCODINGS


# --- units --------------------------------------------------------------------------------
#
# A unit is a tuple (start, end, kind, a, b): code-point offsets of its trimmed text, then
# what its children are made from. Tuples keep the per-unit cost low on big documents.

_SECTION = 0  # a, b: blocks[a:b] (a heading block and what it governs, or the preamble)
_BLOCK = 1  # a: block index
_ITEM = 2  # a list item
_SENTENCE = 3  # a sentence (glued sentences with no space between are one unit)
_GLUE = 4  # a: tuple of heading units, b: the unit they introduce
_WORDS = 5  # span packed word by word
_LINES = 6  # span packed line by line (code, tables, HTML)

_CLOSE = None  # on the work stack: the units of one parent are done, close the chunk

_WORD = re.compile(r"\S+")
_NONSPACE = re.compile(r"\S")
_WORD_START = re.compile(r"(?<!\S)\S")
_SPACE = re.compile(r"\s")
# Characters that can end a sentence (line breaks included): a window without any has none.
_TERMINATOR = re.compile(r"[.!?…。！？｡।॥\n]")
# How much text before a tail the sentence splitter reads: enough for the word before a mark.
_BEFORE_MARK = 48
# Where a too-long word is best cut: after a sentence end that needs no space (CJK, Hindi).
_GLUED_END = re.compile(r"[。！？｡।॥!?][」』）】〕〉》\"'”’»)\]]*")


class _Open:
    """The chunk being filled."""

    __slots__ = ("content_start", "end", "start", "tail", "units")

    def __init__(self, start: int, content_start: int, end: int, units: list, tail: int | None) -> None:
        self.start = start
        self.content_start = content_start
        self.end = end
        self.units = units
        self.tail = tail


class _Splitter:
    """One run of the algorithm over one text (see the module docstring)."""

    def __init__(self, text: str, by: str, size: int, overlap: int, sizer: Any, structure: _Structure,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.text = text
        self.by = by
        self.size = size
        self.overlap = overlap
        self.sizer = sizer
        self.slack = 2 + size // 64
        self.blocks, self.paths, self.block_starts, self.section_end = structure
        self.chunks: list[Chunk] = []
        self.cur: _Open | None = None
        # The last chunk emitted: (start, end, starts of its units that begin a sentence).
        self.prev: tuple[int, int, list[int]] | None = None
        # Progress is reported when a chunk ends at or past the next hundredth of the text;
        # without a callback that point is never reached, so the check costs one comparison.
        self.progress = progress
        self.report_step = -(-len(text) // 100)
        self.next_report = self.report_step if progress is not None else math.inf

    # -- driver ---------------------------------------------------------------------------

    def run(self) -> list[Chunk]:
        size, fits = self.size, self.sizer.fits
        stack: list = [_CLOSE, *reversed(self._top_units())]
        while stack:
            unit = stack.pop()
            if unit is _CLOSE:
                rest = self._close()
                if rest:  # dropped units still belong to this parent: close again after them
                    stack.append(_CLOSE)
                    stack.extend(reversed(rest))
                continue
            cur = self.cur
            if unit[2] >= _WORDS:
                if cur is not None:
                    stack.append(unit)
                    stack.extend(reversed(self._close()))
                    continue
                self._pack_span(unit[0], unit[1], unit[2])
                continue
            if cur is not None:
                if fits(cur.start, unit[1], size):
                    cur.units.append(unit)
                    cur.end = unit[1]
                    continue
                stack.append(unit)
                stack.extend(reversed(self._close()))
                continue
            if not self._open(unit):
                stack.append(_CLOSE)
                stack.extend(reversed(self._children(unit)))
        return self.chunks

    def _open(self, unit: tuple) -> bool:
        """Start a chunk with ``unit`` and the longest tail that fits with it; False if none fits."""
        size, sizer = self.size, self.sizer
        # Near the target the estimate may be a token or two high: ask the exact count.
        if not sizer.fits(unit[0], unit[1], size) and (
            not sizer.fits(unit[0], unit[1], size + self.slack) or sizer.exact(unit[0], unit[1]) > size
        ):
            return False
        tail = self._choose_tail(unit[1])
        if tail is None:
            self.cur = _Open(unit[0], unit[0], unit[1], [unit], None)
        else:
            self.cur = _Open(tail, self.prev[1], unit[1], [unit], tail)
        return True

    def _close(self) -> list:
        """Count the open chunk exactly and emit it, shrinking it first if it is too big.

        Returns what must be packed next, in document order: units dropped from the end of
        the chunk, or the children of its single unit (then a close) when that unit alone
        is too big.
        """
        cur = self.cur
        if cur is None:
            return []
        self.cur = None
        exact, size, overlap = self.sizer.exact, self.size, self.overlap
        dropped: list = []
        while True:
            units = cur.units
            overlap_tokens = 0
            if cur.tail is not None:
                overlap_tokens = exact(cur.start, cur.content_start)
                if overlap_tokens > overlap:
                    self._shorten(cur)
                    continue
            tokens = exact(cur.start, cur.end)
            if tokens <= size:
                self._emit(cur.start, cur.content_start, cur.end, tokens, overlap_tokens, [u[0] for u in units])
                dropped.reverse()
                return dropped
            if cur.tail is not None:
                self._shorten(cur)
            elif len(units) > 1:
                dropped.append(units.pop())
                cur.end = units[-1][1]
            else:
                dropped.reverse()
                return [*self._children(units[0]), _CLOSE, *dropped]

    def _shorten(self, cur: _Open) -> None:
        """Replace the chunk's tail with the next shorter one (or none)."""
        tail = self._choose_tail(cur.end, after=cur.tail + 1)
        cur.tail = tail
        if tail is None:
            cur.start = cur.content_start = cur.units[0][0]
        else:
            cur.start = tail

    # -- overlap --------------------------------------------------------------------------

    def _choose_tail(self, unit_end: int, after: int = 0) -> int | None:
        """Start of the longest tail of the previous chunk that fits before ``unit_end``.

        The tail has at most ``overlap`` tokens and leaves room for the new content up to
        ``unit_end``; it starts at a sentence start when one qualifies, else at a word start.
        """
        if self.prev is None or not self.overlap:
            return None
        ps, pe, _ = self.prev
        sizer = self.sizer
        lo = max(ps, after, sizer.lowest(pe, self.overlap, ps), sizer.lowest(unit_end, self.size, ps))
        if lo >= pe:
            return None
        start = self._sentence_start(lo, pe)
        if start is not None:
            return start
        found = _WORD_START.search(self.text, lo, pe)
        return found.start() if found else None

    def _sentence_start(self, lo: int, pe: int) -> int | None:
        """The first sentence start after whitespace in ``[lo, pe)``, or None.

        Units of the previous chunk start sentences. Before the first of them, the sentence
        splitter reads from a little before ``lo`` (so the word before a mark is seen) and
        stops at the first start it finds: the cost stays near the distance to that start,
        at most the length of the tail.
        """
        text = self.text
        unit_starts = self.prev[2]  # ascending
        index = bisect_left(unit_starts, lo)
        best = unit_starts[index] if index < len(unit_starts) and unit_starts[index] < pe else None
        stop = pe if best is None else best
        if _TERMINATOR.search(text, max(lo - 1, 0), stop) is None:
            return best
        a = max(self.prev[0], lo - _BEFORE_MARK)
        starts = iter_sentence_starts(text[a:stop])
        # The first span may begin mid-sentence: it is not a sentence start.
        next(starts, None)
        for s in starts:
            start = a + s
            if start >= lo and text[start - 1].isspace():
                return start
        return best

    # -- emitting -------------------------------------------------------------------------

    def _emit(self, start: int, content_start: int, end: int, tokens: int, overlap_tokens: int,
              unit_starts: list[int]) -> None:
        text = self.text
        first = _NONSPACE.search(text, content_start, end)
        block = bisect_right(self.block_starts, first.start() if first else content_start) - 1
        path = self.paths[block] if block >= 0 else ()
        chunk = (len(self.chunks), text[start:end], start, end, content_start, path[-1] if path else "", path,
                 tokens, overlap_tokens)
        self.chunks.append(tuple.__new__(Chunk, chunk))
        self.prev = (start, end, unit_starts)
        if end >= self.next_report:
            self._report(end)

    def _report(self, done: int) -> None:
        total = len(self.text)
        if done < total:
            step = self.report_step
            self.next_report = (done // step + 1) * step
            self.progress(done, total)
        else:
            self.next_report = math.inf  # split() reports the end itself, once

    # -- spans: word by word, line by line, piece by piece ----------------------------------

    def _pack_span(self, s: int, e: int, kind: int) -> None:
        """Pack ``text[s:e]`` by words (``_WORDS``) or lines (``_LINES``), jumping by estimate."""
        text, sizer, size, overlap = self.text, self.sizer, self.size, self.overlap
        est, exact = sizer.est, sizer.exact
        pos = s
        while pos < e:
            first_end = _segment_end(text, pos, e, kind)
            tail = self._choose_tail(first_end)
            start = pos if tail is None else tail
            if tail is None and est(pos, first_end) > size:
                # Estimates are off by a token or two at the edges: only an exact count
                # may decide that a word is too big to stay whole.
                if exact(pos, first_end) > size:
                    self._too_big(pos, first_end, kind)
                    pos = _next_start(text, first_end, e)
                    continue
                end = first_end
            else:
                end = _segment_end_before(text, sizer.reach(start, size, e), first_end, e, kind)
            while True:
                overlap_tokens = 0
                if tail is not None:
                    overlap_tokens = exact(tail, self.prev[1])
                    if overlap_tokens > overlap:
                        tail = self._choose_tail(end, after=tail + 1)
                        start = pos if tail is None else tail
                        continue
                tokens = exact(start, end)
                if tokens <= size:
                    self._emit(start, pos if tail is None else self.prev[1], end, tokens, overlap_tokens, [])
                    break
                if end > first_end:
                    # Aim below by the excess; always at least one segment less.
                    aim = min(end - 1, sizer.reach(start, max(1, 2 * size - tokens), e))
                    end = _segment_end_before(text, aim, first_end, e, kind)
                elif tail is not None:
                    tail = self._choose_tail(end, after=tail + 1)
                    start = pos if tail is None else tail
                else:
                    self._too_big(pos, first_end, kind)
                    break
            pos = _next_start(text, end, e)

    def _too_big(self, s: int, e: int, kind: int) -> None:
        """One line or one word that is bigger than a chunk on its own."""
        if kind == _LINES and _SPACE.search(self.text, s, e):
            self._pack_span(s, e, _WORDS)
        else:
            self._pieces(s, e)

    def _pieces(self, s: int, e: int) -> None:
        """Cut one word bigger than a chunk at grapheme boundaries; pieces carry no overlap."""
        text, sizer, size = self.text, self.sizer, self.size
        est, exact = sizer.est, sizer.exact
        pos = s
        while pos < e:
            if est(pos, e) <= size:
                tokens = exact(pos, e)
                if tokens <= size:
                    self._emit(pos, pos, e, tokens, 0, [])
                    return
            cut = self._piece_end(pos, sizer.reach(pos, size, e), e)
            while True:
                tokens = exact(pos, cut)
                if tokens <= size:
                    break
                aim = min(cut - 1, sizer.reach(pos, max(1, 2 * size - tokens), e))
                boundary = floor_boundary(text, aim, pos)
                cut = boundary if boundary > pos else aim
                if cut <= pos:
                    self._refuse(pos)
            self._emit(pos, pos, cut, tokens, 0, [])
            pos = cut

    def _piece_end(self, pos: int, aim: int, e: int) -> int:
        """Where to end a piece that starts at ``pos``: a grapheme boundary at or before ``aim``."""
        text = self.text
        aim = max(aim, pos + 1)
        half = pos + (aim - pos) // 2
        glued = None
        for glued in _GLUED_END.finditer(text, half, aim):
            pass
        if glued is not None and glued.end() < e and floor_boundary(text, glued.end(), pos) == glued.end():
            return glued.end()
        cut = floor_boundary(text, aim, pos)
        # A single cluster bigger than the chunk: cut between its code points.
        return cut if cut > pos else aim

    def _refuse(self, pos: int) -> None:
        char = self.text[pos]
        need = self.sizer.exact(pos, pos + 1)
        raise RagchunkError(
            "chunk_size",
            f"chunk size ({self.size:,}) is too small for this text: the character U+{ord(char):04X} alone is"
            f" {need:,} tokens; enter at least {need:,}",
            "chunk_size_below_character",
            {"chunk_size": self.size, "char": f"U+{ord(char):04X}", "need": need},
        )

    # -- the unit tree --------------------------------------------------------------------

    def _top_units(self) -> list[tuple]:
        blocks = self.blocks
        if self.by == "headings":
            units = []
            first_heading = next((i for i, b in enumerate(blocks) if b.kind == "heading"), len(blocks))
            if first_heading:
                units.append(self._section(0, first_heading))
            index = first_heading
            while index < len(blocks):
                units.append(self._section(index, self.section_end[index]))
                index = self.section_end[index]
            return units
        if self.by == "paragraphs":
            return self._glue([(b.start, b.end, _BLOCK, i, None) for i, b in enumerate(blocks)])
        units = []
        for index, block in enumerate(blocks):
            if block.kind in ("paragraph", "quote", "list"):
                units.extend(self._sentences(block.start, block.end))
            else:
                units.append((block.start, block.end, _BLOCK, index, None))
        return self._glue(units)

    def _section(self, first: int, stop: int) -> tuple:
        return (self.blocks[first].start, self.blocks[stop - 1].end, _SECTION, first, stop)

    def _children(self, unit: tuple) -> list[tuple]:
        """The units one level finer than ``unit``; never just ``unit`` itself again."""
        while True:
            kids = self._kids(unit)
            if len(kids) == 1 and kids[0][2] < _WORDS and kids[0][0] == unit[0] and kids[0][1] == unit[1]:
                unit = kids[0]
                continue
            return kids

    def _kids(self, unit: tuple) -> list[tuple]:
        start, end, kind, a, b = unit
        if kind == _SECTION:
            blocks = self.blocks
            units = []
            index = a
            if blocks[a].kind == "heading":
                units.append((blocks[a].start, blocks[a].end, _BLOCK, a, None))
                index += 1
            while index < b:
                if blocks[index].kind == "heading":
                    units.append(self._section(index, self.section_end[index]))
                    index = self.section_end[index]
                else:
                    units.append((blocks[index].start, blocks[index].end, _BLOCK, index, None))
                    index += 1
            return self._glue(units)
        if kind == _BLOCK:
            block_kind = self.blocks[a].kind
            if block_kind in ("paragraph", "quote"):
                sentences = self._sentences(start, end)
                return sentences if len(sentences) > 1 else [(start, end, _WORDS, None, None)]
            if block_kind == "list":
                items = list_items(self.text, self.blocks[a])
                return [(s, e, _ITEM, None, None) for s, e in items]
            if block_kind in ("code", "table", "html"):
                return [(start, end, _LINES, None, None)]
            return [(start, end, _WORDS, None, None)]
        if kind == _ITEM:
            sentences = self._sentences(start, end)
            return sentences if len(sentences) > 1 else [(start, end, _WORDS, None, None)]
        if kind == _SENTENCE:
            return [(start, end, _WORDS, None, None)]
        # _GLUE: the headings go with the first child of what they introduce.
        kids = self._children(b)
        first = kids[0]
        if first[2] >= _WORDS:
            return [(start, first[1], first[2], None, None), *kids[1:]]
        if first[2] == _GLUE:
            return [(start, first[1], _GLUE, a + first[3], first[4]), *kids[1:]]
        return [(start, first[1], _GLUE, a, first), *kids[1:]]

    def _sentences(self, s: int, e: int) -> list[tuple]:
        """Sentence units of ``text[s:e]``; sentences with no whitespace between are one unit."""
        text = self.text
        units: list[tuple] = []
        for a, b in sentence_spans(text[s:e]):
            a += s
            b += s
            if units and units[-1][1] == a:
                units[-1] = (units[-1][0], b, _SENTENCE, None, None)
            else:
                units.append((a, b, _SENTENCE, None, None))
        return units

    def _sticky(self, unit: tuple) -> bool:
        return unit[2] == _BLOCK and self.blocks[unit[3]].kind == "heading"

    def _glue(self, units: list[tuple]) -> list[tuple]:
        """Join each run of heading lines to the unit after it, so a chunk never ends on one.

        Only as many of the run's last headings as fill half a chunk are joined: a run of
        thousands of headings must not become one unit that can never be placed whole.
        """
        out: list[tuple] = []
        heads: list[tuple] = []
        limit = self.size // 2
        est = self.sizer.est
        for unit in units:
            if self._sticky(unit):
                heads.append(unit)
                continue
            if heads:
                keep = len(heads)
                while keep and est(heads[keep - 1][0], heads[-1][1]) <= limit:
                    keep -= 1
                out.extend(heads[:keep])
                if keep < len(heads):
                    unit = (heads[keep][0], unit[1], _GLUE, tuple(heads[keep:]), unit)
                heads = []
            out.append(unit)
        out.extend(heads)
        return out


def _section_ends(blocks: list[Block]) -> list[int]:
    """For each heading block, the index of the first block after its section (others: 0)."""
    ends = [0] * len(blocks)
    open_headings: list[int] = []
    for index, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        while open_headings and blocks[open_headings[-1]].level >= block.level:
            ends[open_headings.pop()] = index
        open_headings.append(index)
    for index in open_headings:
        ends[index] = len(blocks)
    return ends


def _segment_end(text: str, pos: int, e: int, kind: int) -> int:
    """End of the word or line (trimmed) that starts at ``pos``."""
    if kind == _WORDS:
        return _WORD.match(text, pos, e).end()
    stop = _line_break(text, pos, e)
    return pos + len(text[pos:stop].rstrip())


def _line_break(text: str, pos: int, e: int) -> int:
    newline = text.find("\n", pos, e)
    ret = text.find("\r", pos, newline if newline >= 0 else e)
    if ret >= 0:
        return ret
    return newline if newline >= 0 else e


def _segment_end_before(text: str, aim: int, low: int, e: int, kind: int) -> int:
    """The last word or line end in ``[low, aim]`` (``low`` is one); ``e`` ends the span."""
    if aim >= e:
        return e
    if aim <= low:
        return low
    if kind == _WORDS:
        if not text[aim].isspace() and not text[aim - 1].isspace():
            aim = _last_space(text, aim, low) + 1  # inside a word: back to its start
    else:
        aim = max(text.rfind("\n", low, aim + 1), text.rfind("\r", low, aim + 1))
    if aim <= low:
        return low
    return low + len(text[low:aim].rstrip())


def _last_space(text: str, pos: int, low: int) -> int:
    """Index of the last whitespace character in ``text[low:pos]``, or ``low - 1``."""
    width = 64
    while True:
        a = max(low, pos - width)
        found = _SPACE.search(text[a:pos][::-1])
        if found is not None:
            return pos - 1 - found.start()
        if a == low:
            return low - 1
        width *= 4


def _next_start(text: str, pos: int, e: int) -> int:
    found = _NONSPACE.search(text, pos, e)
    return found.start() if found else e
