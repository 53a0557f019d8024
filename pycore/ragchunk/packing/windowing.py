"""Fixed token windows over a text, with character offsets into that text."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..calculator import chunk_count
from ..settings import MAX_TOTAL_TOKENS
from ..settings.checks import check_chunking, check_whole
from ..tokenizers import Encoded, Tokenizer


@dataclass(frozen=True, slots=True)
class Window:
    """One fixed window of tokens.

    ``text == source[start:end]`` (code-point offsets). ``source[start:overlap_end]`` is
    the part shared with the previous window (its ``overlap_tokens`` tokens); it is empty
    for the first window. A window boundary inside a multi-byte character widens the
    window to the whole character, so no text is lost and no U+FFFD appears.
    """

    index: int
    text: str
    start: int
    end: int
    token_start: int
    token_end: int
    tokens: int
    overlap_tokens: int
    overlap_end: int

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def windows(text: str, chunk_size: int, overlap: int, tokenizer: Tokenizer, limit: int | None = None) -> list[Window]:
    """Cut ``text`` into the windows of the formula: ``chunk_size`` tokens, ``overlap`` shared.

    Window k holds tokens ``[k·step, k·step + chunk_size)`` with ``step = chunk_size − overlap``;
    there are exactly :func:`ragchunk.calculator.chunk_count` of them. ``limit`` keeps only the
    first windows (the count is still the formula's).

    >>> from ragchunk import get_tokenizer
    >>> [w.text for w in windows("one two three four five", 3, 1, get_tokenizer())]
    ['one two three', ' three four five']

    Raises :class:`RagchunkError` (a ``ValueError``) naming the argument, before any text is
    encoded: a size below 1, a negative overlap or one not smaller than the size, a value
    that is not a whole number, a negative ``limit``.
    """
    size, over = check_chunking(chunk_size, overlap)
    check_limit(limit)
    return windows_of(text, tokenizer.encode_with_offsets(text), size, over, limit)


def check_limit(limit: int | None) -> int | None:
    """Validate the number of windows to keep: ``None`` (all) or a whole number from 0.

    >>> check_limit(None), check_limit(5)
    (None, 5)
    >>> check_limit(-1)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: limit (-1) must be at least 0: enter a larger number
    """
    if limit is None:
        return None
    return check_whole("preview", "limit", limit, 0, MAX_TOTAL_TOKENS, unit="windows")


def windows_of(text: str, encoded: Encoded, chunk_size: int, overlap: int, limit: int | None = None,
               first: int = 0) -> list[Window]:
    """:func:`windows` for a text already encoded (``tokenizer.encode_with_offsets(text)``),
    from window ``first`` on (the windows before it are not made: a preview of window 900
    reads the offsets of its own tokens only).

    A window spans from the first character its first token covers to the last character
    its last token covers (:class:`ragchunk.tokenizers.base.Encoded`). Raises as :func:`windows` does.
    """
    chunk_size, overlap = check_chunking(chunk_size, overlap)
    limit = check_limit(limit)
    step = chunk_size - overlap
    n = len(encoded.ids)
    count = chunk_count(n, chunk_size, overlap)
    if limit is not None:
        count = min(count, limit)
    starts, ends = encoded.starts, encoded.ends
    result = []
    # Where the window before the first one made ends.
    previous_end = ends[min((first - 1) * step + chunk_size, n) - 1] if 0 < first < count else 0
    for k in range(max(0, first), count):
        token, stop = k * step, min(k * step + chunk_size, n)
        start, end = starts[token], ends[stop - 1]
        shared = min(overlap, stop - token) if k else 0
        overlap_end = min(max(previous_end, start), end) if k else start
        result.append(Window(k, text[start:end], start, end, token, stop, stop - token, shared, overlap_end))
        previous_end = end
    return result
