"""Sizing: how many tokens a span of one text has, answered fast enough to pack by.

A *sizer* answers, for code-point spans of the one text being split:

- ``est(s, e)``: an estimate of the tokens of ``text[s:e]`` (cheap, used for packing);
- ``fits(s, e, n)``: ``est(s, e) <= n`` for ``n >= 1`` (cheaper: packing asks it per unit);
- ``exact(s, e)``: the exact count of ``text[s:e]``;
- ``reach(s, n, limit)``: about the furthest ``c <= limit`` with ``est(s, c) <= n``;
- ``lowest(e, n, floor)``: about the nearest ``c >= floor`` with ``est(c, e) <= n``.

:class:`TokenSizer` serves any exact tokenizer (:class:`ragchunk.tokenizers.Tokenizer`):
the text is encoded once; estimates bisect the token ends; an exact count reads the
document's own tokens between the span's first and last cut points and encodes only the
two edges (a cut is where the tokens on either side do not depend on what is across it).
:class:`CharSizer` is the characters-per-token estimate; :class:`CountSizer` serves an
object with nothing but ``count(text)`` (exact everywhere, slower).

:func:`prepare` makes the sizer of a text and its Markdown structure; on CPython, a
tokenizer that releases the GIL encodes a long text in pieces on the calling thread while
a second thread scans the Markdown and turns each finished piece into token ends.
:func:`prepare_and_run` goes on to run the packing on that second thread, which starts
while the calling thread still encodes: the sizer's questions wait for the pieces they need.
"""

from __future__ import annotations

import math
import os
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Generator
from queue import SimpleQueue
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..errors import RagchunkError
from ..settings.checks import check_ratio
from ..steps import drive
from ..text.structure import Structure
from ..tokenizers import CharEstimate, Tokenizer, check_tokenizer, get_tokenizer

__all__ = ["CharSizer", "CountSizer", "Sizer", "Sizing", "TokenSizer", "prepare", "prepare_and_run", "sizing_for"]

_MEMO_LIMIT = 256
Step = TypeVar("Step")
Result = TypeVar("Result")
# Spans up to this many code points are remembered by their text: a chunk's edges are a
# word or two ("The", " deleted."), and the same words start and end many chunks.
_SHORT_SPAN = 32
_SHORT_LIMIT = 1 << 14


@runtime_checkable
class Sizer(Protocol):
    """What the packer, the overlap and the splitter ask of a sizer (see the module's docstring).

    Positions are code-point offsets into the one text the sizer was made for; ``n`` is a
    number of tokens.

    >>> all(isinstance(sizer, Sizer) for sizer in (CharSizer(4), CountSizer("ab", len)))
    True
    """

    def est(self, s: int, e: int) -> int: ...

    def fits(self, s: int, e: int, n: int) -> bool: ...

    def exact(self, s: int, e: int) -> int: ...

    def reach(self, s: int, n: int, limit: int) -> int: ...

    def lowest(self, e: int, n: int, floor: int) -> int: ...
# Token count from which the token ends are kept in an array (about 4 MB of text).
_ARRAY_ENDS_FROM = 1 << 20


class TokenSizer:
    """An exact tokenizer over one text: one encode, ends bisected, exact counts from cuts.

    ``ends[i]`` is the code-point offset where token ``i`` ends (see
    :class:`ragchunk.tokenizers.base.Encoded`).
    """

    def __init__(self, text: str, tokenizer: Tokenizer, ends: Any = None,
                 more: Callable[[], int] | None = None) -> None:
        self.text = text
        self.count = tokenizer.count
        self.next_cut = tokenizer.next_cut
        self.last_cut = tokenizer.last_cut
        # WordPiece and Unigram tokens never cover whitespace: a token may end a few spaces
        # before a cut and the next one start after it. BPE tokens cover every character, so
        # there the token before a cut must end on it.
        self.spaces_outside = getattr(tokenizer, "whitespace_outside_tokens", False)
        if ends is None:
            ends = tokenizer.encode_with_offsets(text).ends
        self.ends = ends
        # With ``more``, ``ends`` grows piece by piece while the text is still being encoded
        # (see prepare_and_run): ``more()`` adds the next piece's ends and returns where the
        # known ends stop. Every question first waits until they cover the span it is about.
        self.more = more
        self.covered = len(text) if more is None else 0
        # Consecutive chunks share edges (a chunk's last sentence is the next one's overlap):
        # remember recent counts of small spans instead of encoding them twice.
        self.memo: dict[tuple[int, int], int] = {}
        self.short: dict[str, int] = {}
        # fits() is asked again and again with the start of the chunk being filled.
        self.fit_start = -1
        self.fit_first = 0
        # exact(): (start, first cut, its token index, the end it was sought before) and
        # (end, last cut, its token index, the first cut it was sought from) of recent calls.
        self.first_for = (-1, 0, 0, 0)
        self.last_for = (-1, 0, 0, 0)

    def _count(self, s: int, e: int) -> int:
        if e - s <= _SHORT_SPAN:
            piece = self.text[s:e]
            short = self.short
            found = short.get(piece)
            if found is None:
                if len(short) >= _SHORT_LIMIT:
                    short.clear()
                found = short[piece] = self.count(piece)
            return found
        memo = self.memo
        key = (s, e)
        found = memo.get(key)
        if found is None:
            if len(memo) > _MEMO_LIMIT:
                memo.clear()
            found = memo[key] = self.count(self.text[s:e])
        return found

    def _wait(self, pos: int) -> None:
        """Wait for the pieces whose ends cover the text up to ``pos``."""
        while self.covered < pos:
            self.covered = self.more()

    def tokens(self) -> int:
        """How many tokens the whole text has."""
        self._wait(len(self.text))
        return len(self.ends)

    def est(self, s: int, e: int) -> int:
        if e <= s:
            return 0
        if e > self.covered:
            self._wait(e)
        ends = self.ends
        first = bisect_right(ends, s)
        return bisect_left(ends, e, first) - first + 1

    def fits(self, s: int, e: int, n: int) -> bool:
        if e <= s:
            return True
        if s >= self.covered:
            self._wait(s + 1)
        ends = self.ends
        if s != self.fit_start:
            self.fit_start = s
            self.fit_first = bisect_right(ends, s)
        # est(s, e) <= n exactly when the n-th token from the one holding s ends at e or later.
        # Only that token need be known, not the ends up to e (a unit may reach far ahead).
        k = self.fit_first + n - 1
        if k < len(ends) - 1:
            return ends[k] >= e
        while k >= len(ends) - 1 and self.covered < len(self.text):
            self._wait(self.covered + 1)
        return k >= len(ends) - 1 or ends[k] >= e

    def reach(self, s: int, n: int, limit: int) -> int:
        if limit > self.covered:
            self._wait(limit)
        ends = self.ends
        last = bisect_right(ends, s) + n - 1
        while last >= len(ends) - 1 and self.covered < len(self.text):
            self._wait(self.covered + 1)  # whether that token is the text's last decides
        if last >= len(ends) - 1:
            return limit
        return max(s, min(limit, ends[last]))

    def lowest(self, e: int, n: int, floor: int) -> int:
        if e > self.covered:
            self._wait(e)
        ends = self.ends
        before = bisect_left(ends, e) - n
        if before < 0:
            return floor
        return max(floor, ends[before])

    def exact(self, s: int, e: int) -> int:
        if e <= s:
            return 0
        if e > self.covered:
            self._wait(e)
        # A chunk's overlap and the chunk share their start, and the overlap ends where the
        # previous chunk ended: the last call's first cut (with its token index) and the
        # last cut found for each end are reused while they still apply.
        first_for = self.first_for
        if s == first_for[0] and e >= first_for[3]:
            # A cut whose context lay inside [s, e') still does in [s, e) for e >= e'.
            _, first, i_first, _ = first_for
        else:
            first = self.next_cut(self.text, s, e)
            if first is None:
                return self._count(s, e)
            i_first = bisect_right(self.ends, first)
            self.first_for = (s, first, i_first, e)
        last_for = self.last_for
        if last_for[0] == e and last_for[3] <= first <= last_for[1]:
            # Found in a span that holds this one, and inside this one: still the last.
            last, i_last = last_for[1], last_for[2]
        else:
            found = self.last_cut(self.text, first, e)
            last = first if found is None else found
            i_last = bisect_right(self.ends, last)
            self.last_for = (e, last, i_last, first)
        # Every token before a cut ends at or before it, and the one just before ends on it
        # (or, where tokens leave whitespace out, only whitespace lies between).
        ends = self.ends
        if not ((not i_first or ends[i_first - 1] == first or self._ends_at(i_first, first))
                and (not i_last or ends[i_last - 1] == last or self._ends_at(i_last, last))):
            return self.count(self.text[s:e])  # not a token boundary after all: count the plain way
        head = self._count(s, first) if first > s else 0
        tail = self._count(last, e) if last < e else 0
        return head + (i_last - i_first) + tail


    def _ends_at(self, index: int, cut: int) -> bool:
        """Whether the tokens before token ``index`` are those before ``cut``: none, or the
        last of them ends at ``cut`` (or before a run of whitespace up to it, when tokens
        never cover whitespace)."""
        if not index:
            return True
        end = self.ends[index - 1]
        return end == cut or (self.spaces_outside and end < cut and not self.text[end:cut].strip(" \t\n\r"))


class CharSizer:
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


class CountSizer:
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


class Sizing:
    """A validated sizer choice: what sizes chunks, by name, and how to make its sizer.

    ``tokenizer`` is the exact tokenizer (None for the estimate and for count-only
    objects); ``name`` is what records say made the counts (an encoding name, or
    ``chars/<ratio>``).
    """

    __slots__ = ("count", "name", "ratio", "tokenizer")

    def __init__(self, name: str, tokenizer: Tokenizer | None = None, ratio: float | None = None,
                 count: Callable[[str], int] | None = None) -> None:
        self.name = name
        self.tokenizer = tokenizer
        self.ratio = ratio
        self.count = count

    def sizer(self, text: str, ends: Any = None) -> Sizer:
        """The sizer of ``text`` (``ends``: token ends already computed for it)."""
        if self.tokenizer is not None:
            return TokenSizer(text, self.tokenizer, ends)
        if self.ratio is not None:
            return CharSizer(self.ratio)
        return CountSizer(text, self.count)


def sizing_for(tokenizer: object) -> Sizing:
    """Validate the ``tokenizer`` argument of the splitter: a registry name, a
    :class:`Tokenizer`, a :class:`CharEstimate` or any object with ``count(text)``.

    >>> sizing_for("cl100k_base").name, sizing_for(CharEstimate(3.5)).name
    ('cl100k_base', 'chars/3.5')
    """
    if isinstance(tokenizer, str):
        real = get_tokenizer(check_tokenizer(tokenizer))
        return Sizing(real.name, tokenizer=real)
    if isinstance(tokenizer, CharEstimate):
        ratio = check_ratio(tokenizer.ratio)
        return Sizing(CharEstimate(ratio).name, ratio=ratio)
    count = getattr(tokenizer, "count", None)
    if not callable(count):
        raise RagchunkError(
            "tokenizer",
            f"tokenizer ({type(tokenizer).__name__}) has no count(text) method:"
            " pass an encoding name, a Tokenizer or a CharEstimate",
        )
    name = str(getattr(tokenizer, "name", type(tokenizer).__name__))
    if getattr(tokenizer, "exact", False) and all(
        callable(getattr(tokenizer, method, None)) for method in ("encode_with_offsets", "next_cut", "last_cut")
    ):
        return Sizing(name, tokenizer=tokenizer)
    return Sizing(name, count=count)


# Below this length a thread costs more than the scan it hides.
PARALLEL_MIN_CHARS = 1 << 16
# Where the pieces of a parallel encode end, as shares of the text: the first piece is
# long enough to hide the Markdown scan, the last short so that little work follows it.
_PIECE_SHARES = (0.5, 0.8, 0.95)
# How far each cut is looked for (a text without any place to cut is one piece).
_PIECE_SEARCH = 1 << 16


def _threads_usable() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def prepare(text: str, sizing: Sizing, threads: int | None = None,
            markdown_titles: bool = True) -> tuple[Any, Structure]:
    """The sizer of ``text`` (its one encode) and its Markdown structure (``markdown_titles``:
    see :func:`ragchunk.text.markdown.parse_blocks`).

    With ``threads`` above 1 (by default: when the process may use more than one core),
    a tokenizer that releases the GIL (tiktoken) and a long text, the calling thread
    encodes the text in a few pieces, cut at the tokenizer's cut points so the ids are
    those of one encode, while a second thread scans the Markdown, then turns each
    finished piece into token ends: on a machine with a free core that work costs no wall
    time. The encode stays on the calling thread (tiktoken measured ~25 % slower on a
    thread other than the one that first used it). The results are the same either way.
    Pass ``threads=1`` in a process pool: each process then keeps to one core.
    """
    return drive(prepare_and_run(text, sizing, _every_end, threads, markdown_titles))


def _every_end(sizer: Any, structure: Structure) -> Generator[Any, None, tuple[Any, Structure]]:
    """A run for :func:`prepare_and_run` that only waits for all the token ends."""
    yield from ()
    if isinstance(sizer, TokenSizer):
        sizer.tokens()
    return sizer, structure


def prepare_and_run(text: str, sizing: Sizing, run: Callable[[Any, Structure], Generator[Step, None, Result]],
                    threads: int | None = None, markdown_titles: bool = True) -> Generator[Step, None, Result]:
    """:func:`prepare`, then the steps of ``run(sizer, structure)``; returns what it returns.

    On two threads (see :func:`prepare`), ``run`` starts on the second one as soon as the
    Markdown is scanned, while the calling thread still encodes the rest of the text: the
    sizer's token ends grow piece by piece, and a question about a span waits until they
    cover it (packing goes through the text in order, so it rarely waits). The steps come
    back to the calling thread, where the caller hears them; closing this generator stops
    ``run`` at its next step. Either way the results are the same.
    """
    tokenizer = sizing.tokenizer
    # The cheap questions first: a short text never asks how many cores there are.
    if len(text) < PARALLEL_MIN_CHARS or tokenizer is None or not getattr(tokenizer, "releases_gil", False) \
            or (threads if threads is not None else 2 if _threads_usable() > 1 else 1) < 2:
        return (yield from run(sizing.sizer(text), Structure.of(text, markdown_titles)))
    cuts = [0]
    for share in _PIECE_SHARES:
        at = max(cuts[-1], int(len(text) * share))
        cut = tokenizer.next_cut(text, at, at + _PIECE_SEARCH)
        if cut is not None and cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(len(text))
    compact = len(text) >= 4 * _ARRAY_ENDS_FROM  # about as many tokens as the one-piece rule
    pieces: SimpleQueue = SimpleQueue()  # (index, ids, the piece's text) in order, then None
    steps: SimpleQueue = SimpleQueue()  # ("step", step)..., then ("done", result) or ("failed", error)
    # The scan starts once this thread is about to encode: begun at once, it would hold the
    # GIL while Thread.start() waits for it, and this thread would get the GIL back only
    # after the switch interval (5 ms).
    encoding = threading.Event()
    stop = threading.Event()
    ends: Any = array("I") if compact else []

    def more() -> int:
        piece = pieces.get()
        if piece is None:
            raise RagchunkError("text", "the text was not encoded to its end: the encoding thread stopped")
        index, ids, source = piece
        ends.extend(tokenizer.ends_of(ids, cuts[index], compact, source))
        return cuts[index + 1]

    def work() -> None:
        try:
            encoding.wait()
            structure = Structure.of(text, markdown_titles)
            running = run(TokenSizer(text, tokenizer, ends, more), structure)
            while not stop.is_set():
                try:
                    step = next(running)
                except StopIteration as finished:
                    steps.put(("done", finished.value))
                    return
                steps.put(("step", step))
            running.close()
        except BaseException as err:  # re-raised on the calling thread
            steps.put(("failed", err))

    worker = threading.Thread(target=work, name="ragchunk-markdown", daemon=True)
    worker.start()
    try:
        try:
            for index in range(len(cuts) - 1):
                piece = text[cuts[index] : cuts[index + 1]]
                encoding.set()
                pieces.put((index, tokenizer.encode(piece), piece))
        finally:
            encoding.set()
            pieces.put(None)
        while True:
            kind, value = steps.get()
            if kind == "failed":
                raise value
            if kind == "done":
                return value
            yield value
    finally:
        stop.set()
        worker.join()
