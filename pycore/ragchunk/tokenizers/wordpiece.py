"""The bert-base-uncased WordPiece tokenizer, in pure Python, with the ids of HF ``tokenizers``.

all-MiniLM-L6-v2, bge-*-en-v1.5, e5-*-v2, gte-* and nomic-embed-text-v1.5 count their
input with this tokenizer. HF's pipeline is: a normalizer (drop NUL, U+FFFD and control
characters, turn whitespace into spaces, put spaces around CJK ideographs, NFD, drop
combining marks, lowercase each code point), a pre-tokenizer (split at whitespace, isolate
punctuation) and WordPiece (greedy longest match, ``##`` before a piece that continues a
word, ``[UNK]`` for a word with no match or longer than 100 characters).

Every step but WordPiece works one code point at a time, so it comes down to one table
``F``: what each code point becomes, with the whitespace the pre-tokenizer splits on
written as a space and each punctuation mark it isolates written between spaces. The
words of a text are the space-separated pieces of ``text.translate(F)``. ``F`` is probed
from HF itself (``tests/tables/probe_bert.py``): its Rust crates use older Unicode data
than any Python's ``unicodedata``, so nothing here asks ``unicodedata``, and CPython 3.11
and Pyodide's 3.14 give the same ids. (NFD also reorders combining marks across code
points; the probe shows no mark survives the filter, so that cannot show.)

Cuts (see :mod:`.base`): a position is a cut when ``F`` of the character before it ends
with a space, or ``F`` of the character at it starts with one (whitespace, punctuation, a
CJK ideograph): the words on either side are then the words of the whole.
"""

from __future__ import annotations

import gzip
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import chain

from .. import tables
from .base import Encoded

__all__ = ["CharTable", "WordPieceTokenizer", "load", "parse_chars", "parse_vocab"]

MAX_WORD_CHARS = 100
PREFIX = "##"
UNKNOWN = "[UNK]"
SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
CACHE_WORDS = 1 << 17
BLOCK_CHARS = 1 << 20

# Runs of characters that are not whitespace to HF (Unicode White_Space less U+000B, U+000C
# and U+0085, which its normalizer deletes as control characters first); the tests check
# that this is exactly where ``F`` is a lone space.
_CHUNK = re.compile(r"[^\t\n\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
# A character that may be a separator: ASCII whitespace or punctuation, or anything not ASCII.
_MAYBE_SEPARATOR = re.compile(r"[\t\n\r !-/:-@\[-`{-~]|[^\x00-\x7f]")
_BLOCK_CUT = re.compile(r"[\t\n\r ]")
_SPACES = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
           "\u2028\u2029\u202f\u205f\u3000")
_TRAILING_SPACE = re.compile(r"[\t\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]\n")


class CharTable(dict):
    """``F`` as a ``str.translate`` mapping: code point -> what it becomes, filled on first use.

    Made by :func:`parse_chars` from runs ``(first code point, kind)``; a kind is ``"="``
    (itself), ``"-"`` (removed), ``"_"`` (a space), ``"|"`` (itself between spaces),
    ``"h"`` (a Hangul syllable's jamo), an ``int`` (the code point that many further on)
    or a tuple (one value per code point of the run).

    >>> table = parse_chars("0 =\\n41 >32\\n5b |\\n5c -\\n5d =\\n")
    >>> "AB[c\\\\".translate(table), table[0x5c]
    ('ab [ c', '')
    """

    __slots__ = ("_starts", "_kinds")

    def __init__(self, starts: list[int], kinds: list[object]) -> None:
        super().__init__()
        self._starts = starts
        self._kinds = kinds

    def __missing__(self, code: int) -> str:
        value = self[code] = self.value(code)
        return value

    def value(self, code: int) -> str:
        """What code point ``code`` becomes, computed from the runs (nothing is remembered)."""
        index = bisect_right(self._starts, code) - 1
        kind = self._kinds[index]
        if kind == "=":
            value = chr(code)
        elif kind == "-":
            value = ""
        elif kind == "_":
            value = " "
        elif kind == "|":
            value = f" {chr(code)} "
        elif kind == "h":
            value = _hangul(code)
        elif isinstance(kind, int):
            value = chr(code + kind)
        else:
            value = kind[code - self._starts[index]]
        return value


def _hangul(code: int) -> str:
    # A precomposed Hangul syllable's canonical decomposition (Unicode 3.12; fixed since 2.0).
    index = code - 0xAC00
    tail = index % 28
    return chr(0x1100 + index // 588) + chr(0x1161 + index % 588 // 28) + (chr(0x11A7 + tail) if tail else "")


def parse_chars(text: str) -> CharTable:
    """The :class:`CharTable` of the probed table's text (format: ``tests/tables/probe_bert.py``).

    >>> parse_chars("# comment\\n0 =\\n37e :20.3b.20\\n37f =\\n")[0x37E]
    ' ; '

    Raises :class:`ragchunk.tables.TableError` on a line it cannot read.
    """
    starts: list[int] = []
    kinds: list[object] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        try:
            first, kind = line.split(" ", 1)
            starts.append(int(first, 16))
            if kind[0] == ">":
                kinds.append(int(kind[1:]))
            elif kind[0] == ":":
                kinds.append(tuple("".join(chr(int(x, 16)) for x in value.split(".")) if value != "-" else ""
                                   for value in kind[1:].split(" ")))
            elif kind in ("=", "-", "_", "|", "h"):
                kinds.append(kind)
            else:
                raise ValueError(kind)
        except (ValueError, IndexError):
            raise tables.TableError("tokenizer", f"line {number:,} of the BERT character table cannot be read:"
                                    " reinstall ragchunk", "table_unreadable", {"line": number}) from None
    if not starts or starts[0] != 0 or starts != sorted(starts):
        raise tables.TableError("tokenizer", "the BERT character table does not start at U+0000 in order:"
                                " reinstall ragchunk", "table_unreadable", {"line": 0})
    return CharTable(starts, kinds)


def parse_vocab(text: str) -> list[str]:
    """The pieces of a ``vocab.txt`` (line ``i`` is id ``i``), read as HF reads it.

    >>> parse_vocab("[PAD]\\nhello\\n##s  \\n")
    ['[PAD]', 'hello', '##s']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # HF trims the end of each line (Rust's trim_end: Unicode White_Space); most files have
    # nothing to trim, and a search of the whole text is cheaper than a strip of each line.
    if _TRAILING_SPACE.search(text) is None and (not lines or lines[-1][-1:] not in _SPACES):
        return lines
    return [line.rstrip(_SPACES) for line in lines]


class _Memo(dict):
    """key -> ``make(key)``, computed on first use; emptied when it holds :data:`CACHE_WORDS` keys."""

    __slots__ = ("_make", "_empty")

    def __init__(self, make, empty) -> None:
        super().__init__()
        self._make = make
        self._empty = empty
        self[""] = empty

    def __missing__(self, key: str):
        if len(self) >= CACHE_WORDS:
            self.clear()
            self[""] = self._empty
        value = self[key] = self._make(key)
        return value


def _longest_by_prefix(pieces: Iterable[str]) -> dict[str, int]:
    """The length of the longest of ``pieces`` that starts with each two-character prefix;
    a slice whose first two characters are not a key can match only its first character.

    >>> _longest_by_prefix(["ab", "abc", "b", "bcd", ""])
    {'ab': 3, 'bc': 3}
    """
    longest: dict[str, int] = {}
    for piece in pieces:
        if len(piece) > longest.get(piece[:2], 1):
            longest[piece[:2]] = len(piece)
    return longest


def _pieces(text: str) -> list[str]:
    # Spaces, line breaks and tabs always separate words, so the pieces between them can be
    # counted one by one (and remembered); the rest of the whitespace is left to ``F``.
    return text.replace("\n", " ").replace("\t", " ").split(" ")


class WordPieceTokenizer:
    """bert-base-uncased's tokenizer: ids equal to HF ``tokenizers`` (``BertWordPieceTokenizer``,
    lowercase), without ``[CLS]``/``[SEP]`` (``special_tokens`` says the model adds 2).

    ``vocab`` is the list of pieces (id = index), ``chars`` the probed :class:`CharTable`.
    User text is always ordinary text: ``"[SEP]"`` in it is three tokens (``[``, ``sep``,
    ``]``), as with HF's ``encode_special_tokens``. Words met once are remembered (up to
    :data:`CACHE_WORDS` of them), which makes a second pass over similar text faster.

    >>> tok = load()
    >>> tok.encode("Héllo, WORLD! 日本"), tok.count("unaffable"), tok.decode([7592, 1010, 2088])
    ([7592, 1010, 2088, 999, 1864, 1876], 3, 'hello, world')
    >>> tok.encode_with_offsets("Héllo, wörld")
    Encoded(ids=[7592, 1010, 2088], starts=[0, 5, 7], ends=[5, 6, 12])
    >>> text = "one two,three"
    >>> tok.next_cut(text, 1, len(text)), tok.last_cut(text, 0, len(text))
    (3, 8)
    """

    exact = True
    special_tokens = 2
    # No token covers whitespace (see ragchunk.packing.sizing.TokenSizer.exact).
    whitespace_outside_tokens = True

    def __init__(self, vocab: Sequence[str], chars: CharTable, name: str = "bert-base-uncased") -> None:
        self.name = name
        self._vocab = list(vocab)
        pieces = dict(zip(self._vocab, range(len(self._vocab))))  # a repeated piece keeps its last id, as in HF
        cut = len(PREFIX)
        continuations = {piece[cut:]: index for piece, index in pieces.items() if piece.startswith(PREFIX)}
        lengths = [len(piece) - cut if piece.startswith(PREFIX) else len(piece) for piece in self._vocab]
        if UNKNOWN not in pieces:
            raise tables.TableError("tokenizer", f"the vocabulary has no {UNKNOWN} piece: reinstall ragchunk",
                                    "table_unreadable", {"line": 0})
        self._unknown = pieces[UNKNOWN]
        self._pieces = pieces
        self._continuations = continuations
        # The longest piece (and continuation) that starts with each two characters: the
        # greedy match tries no longer slice than that (most pairs of characters of most
        # scripts start no piece, so only the first character is looked up).
        self._longest = _longest_by_prefix(pieces)
        self._longest_continuation = _longest_by_prefix(continuations)
        self._lengths = lengths
        self._special = frozenset(pieces[s] for s in SPECIAL if s in pieces)
        self._chars = chars
        # Four caches, each a dict whose misses compute the value: normalized word -> ids and
        # -> count; space-separated piece of the original text -> ids and -> count (most
        # pieces of a text recur, and a hit skips the per-character translation).
        words = self._words = _Memo(self._split_word, ())
        counts = self._word_counts = _Memo(lambda word: len(words[word]), 0)
        self._piece_ids = _Memo(
            lambda piece: tuple(chain.from_iterable(map(words.__getitem__, piece.translate(chars).split(" ")))), ())
        self._piece_counts = _Memo(lambda piece: sum(map(counts.__getitem__, piece.translate(chars).split(" "))), 0)
        self._chunks: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}

    # --- WordPiece ----------------------------------------------------------------------

    def _split_word(self, word: str) -> tuple[int, ...]:
        """The ids of one normalized word: greedy longest match, or ``[UNK]`` for all of it."""
        found = self._pieces.get(word)
        if found is not None:
            return (found,)
        size = len(word)
        if size > MAX_WORD_CHARS:
            return (self._unknown,)
        ids = []
        table, longest, start = self._pieces, self._longest, 0
        end = min(size - 1, longest.get(word[:2], 1))  # the whole word is not a piece
        while True:
            while end > start:
                found = table.get(word[start:end])
                if found is not None:
                    break
                end -= 1
            else:
                return (self._unknown,)
            ids.append(found)
            if end == size:
                break
            table, longest, start = self._continuations, self._longest_continuation, end
            end = min(size, start + longest.get(word[start:start + 2], 1))
        return tuple(ids)

    def _blocks(self, text: str) -> Iterable[str]:
        # Long texts go through in blocks cut at whitespace, which keeps memory bounded.
        if len(text) <= BLOCK_CHARS:
            yield text
            return
        start = 0
        while start < len(text):
            found = _BLOCK_CUT.search(text, start + BLOCK_CHARS)
            end = len(text) if found is None else found.start()
            yield text[start:end]
            start = end

    # --- the sizing interface -------------------------------------------------------------

    def count(self, text: str) -> int:
        """How many ids ``text`` has (no special tokens)."""
        counts = self._piece_counts.__getitem__
        return sum(sum(map(counts, _pieces(block))) for block in self._blocks(text))

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (no special tokens)."""
        ids = self._piece_ids.__getitem__
        return list(chain.from_iterable(
            chain.from_iterable(map(ids, _pieces(block))) for block in self._blocks(text)))

    def encode_with_offsets(self, text: str) -> Encoded:
        """The ids of ``text`` with each token's span in code points of ``text``.

        A token covers the characters its normalized letters come from (HF's offsets);
        characters that normalization removes count in a token only between two of its
        letters. A character that normalizes to several letters split between tokens (a
        Hangul syllable's jamo) belongs to each of them.
        """
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        cache = self._chunks
        for found in _CHUNK.finditer(text):
            chunk = found.group()
            spans = cache.get(chunk)
            if spans is None:
                if len(cache) >= CACHE_WORDS:
                    cache.clear()
                spans = cache[chunk] = self._chunk_spans(chunk)
            chunk_ids, chunk_starts, chunk_ends = spans
            ids += chunk_ids
            base = found.start()
            if base:
                starts += [base + s for s in chunk_starts]
                ends += [base + e for e in chunk_ends]
            else:
                starts += chunk_starts
                ends += chunk_ends
        return Encoded(ids, starts, ends)

    def _chunk_spans(self, chunk: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Ids and spans (relative to the chunk) of a run of characters without whitespace."""
        chars = self._chars
        origin: list[int] = []
        parts: list[str] = []
        for index, char in enumerate(chunk):
            value = chars[ord(char)]
            if value:
                parts.append(value)
                origin += [index] * len(value)
        normalized = "".join(parts)
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        words, lengths, unknown = self._words, self._lengths, self._unknown
        position = 0
        for word in normalized.split(" "):
            if word:
                pieces = words[word]
                ids += pieces
                if pieces == (unknown,):
                    starts.append(origin[position])
                    ends.append(origin[position + len(word) - 1] + 1)
                else:
                    at = position
                    for piece in pieces:
                        starts.append(origin[at])
                        at += lengths[piece]
                        ends.append(origin[at - 1] + 1)
            position += len(word) + 1
        return tuple(ids), tuple(starts), tuple(ends)

    def _opens(self, char: str) -> bool:
        return self._chars[ord(char)][:1] == " "

    def _closes(self, char: str) -> bool:
        return self._chars[ord(char)][-1:] == " "

    def next_cut(self, text: str, at: int, stop: int) -> int | None:
        """The first cut ``c`` with ``at <= c < stop`` (see the module's rule), or None.

        >>> load().next_cut("abc def", 0, 7), load().next_cut("abc def", 0, 3), load().next_cut("abcdef", 0, 6)
        (3, None, None)
        """
        stop = min(stop, len(text))
        at = max(at, 0)
        if at >= stop:
            return None
        if at > 0 and self._closes(text[at - 1]):
            return at
        chars = self._chars
        position = at
        while True:
            found = _MAYBE_SEPARATOR.search(text, position, stop)
            if found is None:
                return None
            index = found.start()
            value = chars[ord(text[index])]
            if value[:1] == " ":
                return index
            if value[-1:] == " " and index + 1 < stop:
                return index + 1
            position = index + 1

    def last_cut(self, text: str, low: int, high: int) -> int | None:
        """The last cut ``c`` with ``low < c < high`` (see the module's rule), or None.

        >>> load().last_cut("abc def", 0, 7), load().last_cut("abc def", 3, 7), load().last_cut("日本", 0, 2)
        (4, 4, 1)
        """
        low = max(low, 0)
        high = min(high, len(text))
        chars = self._chars
        end, width = high, 64
        while end > low:
            begin = max(low, end - width)
            best = None
            for found in _MAYBE_SEPARATOR.finditer(text, begin, end):
                index = found.start()
                value = chars[ord(text[index])]
                if value[-1:] == " " and index + 1 < high:
                    best = index + 1
                elif value[:1] == " " and index > low:
                    best = index
            if best is not None:
                return best
            end, width = begin, width * 2
        return None

    def decode(self, ids: Iterable[int]) -> str:
        """Text for ``ids`` as HF's WordPiece decoder writes it (special tokens and unknown ids
        left out, ``##`` pieces joined, HF's clean-up of spaces before punctuation).

        >>> load().decode([101, 7592, 1010, 2088, 999, 2123, 1005, 1056, 102])
        "hello, world! don ' t"
        """
        vocab, special = self._vocab, self._special
        tokens = [vocab[i] for i in ids if 0 <= i < len(vocab) and i not in special]
        out = []
        for index, token in enumerate(tokens):
            if index:
                token = token[len(PREFIX):] if token.startswith(PREFIX) else " " + token
            out.append(_cleanup(token))
        return "".join(out)


_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def _cleanup(token: str) -> str:
    for dirty, clean in _CLEANUP:
        token = token.replace(dirty, clean)
    return token


def load(name: str = "bert-base-uncased") -> WordPieceTokenizer:
    """The tokenizer built from the tables (``bert-uncased-vocab``, ``bert-uncased-chars``).

    The caller keeps it: each call parses the tables again (a few tens of milliseconds).
    Raises :class:`ragchunk.tables.TableError` when a table is missing or altered.
    """
    vocab = parse_vocab(tables.read("bert-uncased-vocab").decode("utf-8"))
    chars = parse_chars(gzip.decompress(tables.read("bert-uncased-chars")).decode("utf-8"))
    return WordPieceTokenizer(vocab, chars, name)

