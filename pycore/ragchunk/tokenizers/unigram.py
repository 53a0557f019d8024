"""XLM-RoBERTa's sentencepiece Unigram tokenizer in pure Python, id for id like HF ``tokenizers``.

Reproduces what HF ``tokenizers`` does with xlm-roberta-base's ``tokenizer.json`` (the
tokenizer of multilingual-e5-*, bge-m3, paraphrase-multilingual-* and others):

1. *Precompiled normalizer* (sentencepiece's 2019 ``nmt_nfkc`` rules): the text is cut
   into grapheme clusters; a cluster shorter than 6 UTF-8 bytes whose start matches a
   rule is replaced whole by the replacement of its *shortest* matching prefix (so
   ``"ｅ\\u0301"`` becomes ``"e"``: the accent goes with the cluster), any other cluster
   character by character. Rules map whitespace to a space, delete controls, apply NFKC.
2. *WhitespaceSplit*, then *Metaspace* (``"▁"`` before every word, always).
3. *Unigram*: the Viterbi path over the 250,002 pieces, scores added as float64 in HF's
   order (ties keep the earlier path), a character no piece covers is ``<unk>`` (id 3) at
   the lowest score minus 10, and runs of ``<unk>`` fuse into one.

User text is ordinary text: ``"<s>"`` in a document is not a special token (HF with
``encode_special_tokens = True``). Counts exclude ``<s>``/``</s>`` (``special_tokens = 2``).

Words are tokenized one at a time and remembered (a cache per tokenizer), which is what
makes pure Python fast on real text. A *word* here is a run of characters between
``" \\t\\n\\r\\f\\x85\\u2028\\u2029"``: each of these becomes whitespace and never joins the
characters around it into a cluster that a rule could rewrite (the controls always end a
cluster; a space starts one, and no rule starts with a space), so words are independent.
That is also the cut rule: a text can be cut just before any of those characters.

Offsets follow HF's: a normalized character is aligned with the original character at the
same position in its cluster (extra ones with the cluster's last character, missing ones
dropped), ``"▁"`` with its word's first character, and a token spans from the start of
its first character's original to the end of its last one. Two differences, both where
the rules delete characters: the last token of a word ends where the word ends (HF leaves
deleted trailing characters to no token), and offsets after characters deleted at the
very start of a text are not shifted (HF shifts all of them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .base import Encoded

__all__ = ["UnigramTokenizer", "load"]

# Grapheme classes, as the probed table numbers them (tests/tables/probe_xlmr.py).
OTHER, CONTROL, EXTEND, INCB_EXTEND, LINKER, ZWJ, SPACING_MARK, PREPEND, PICTOGRAPHIC, CONSONANT = range(10)
_JOINS_BEFORE = frozenset((EXTEND, INCB_EXTEND, LINKER, ZWJ, SPACING_MARK))
_GCB_EXTEND = frozenset((EXTEND, INCB_EXTEND, LINKER))
_INCB_KEEP = frozenset((INCB_EXTEND, ZWJ))

UNK_ID = 3
UNK_PENALTY = 10.0
RULE_BYTES = 6
META = "\u2581"
SEPARATORS = " \t\n\r\x0c\x85\u2028\u2029"
# One optional space before a word says the word follows a space (a cluster that starts
# with the space may take the word's leading combining marks); the rest is the word.
_WORD = re.compile(r"( ?)([^ \t\n\r\x0c\x85\u2028\u2029]+)")
_SEPARATOR = re.compile(r"[ \t\n\r\x0c\x85\u2028\u2029]")
_CACHE_WORDS = 1 << 17


class UnigramTokenizer:
    """XLM-R's tokenizer: ``pieces`` and ``scores`` in id order, the normalizer's ``rules``
    (key -> replacement, keys shorter than 6 UTF-8 bytes) and grapheme ``classes``
    (code point -> class, absent: OTHER).

    >>> tokenizer = load()
    >>> tokenizer.encode("Hello World!")
    [35378, 6661, 38]
    >>> tokenizer.encode_with_offsets("ﬁne  day")
    Encoded(ids=[5885, 5155], starts=[0, 5], ends=[3, 8])
    >>> tokenizer.count("ｅ\\u0301 e\\u0301"), tokenizer.decode(tokenizer.encode("ｅ\\u0301 e\\u0301"))
    (2, 'e é')
    """

    name = "xlm-roberta"
    exact = True
    special_tokens = 2

    def __init__(self, pieces: Sequence[str], scores: Sequence[float], rules: dict[str, str],
                 classes: dict[int, int]) -> None:
        if len(pieces) != len(scores):
            raise ValueError(f"{len(pieces)} pieces but {len(scores)} scores")
        self._pieces = pieces
        self._ids = dict(zip(pieces, range(len(pieces))))
        self._scores = scores
        self._unk_score = min(scores) - UNK_PENALTY
        # The longest piece starting with each pair of characters bounds the lookups from
        # a position (a lone character is looked up on its own).
        longest: dict[str, int] = {}
        get = longest.get
        for piece in pieces:
            if len(piece) > 1:
                pair = piece[:2]
                if len(piece) > get(pair, 0):
                    longest[pair] = len(piece)
        self._longest = longest
        self._rules = rules
        self._table = str.maketrans({key: value for key, value in rules.items() if len(key) == 1})
        self._classes = classes
        self._joiners = frozenset(chr(cp) for cp, value in classes.items()
                                  if value in _JOINS_BEFORE or value == PREPEND)
        self._words: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}

    # --- the sizing interface -------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` without ``<s>``/``</s>``."""
        ids: list[int] = []
        words = self._words
        for space, word in _WORD.findall(text):
            key = " " + word if space and word[0] in self._joiners else word
            known = words.get(key)
            ids.extend((known or self._word(key))[0])
        return ids

    def count(self, text: str) -> int:
        """``len(encode(text))``."""
        total = 0
        words = self._words
        joiners = self._joiners
        for space, word in _WORD.findall(text):
            key = " " + word if space and word[0] in joiners else word
            known = words.get(key)
            total += len((known or self._word(key))[0])
        return total

    def encode_with_offsets(self, text: str) -> Encoded:
        """The ids of ``text`` with each token's code-point span in ``text``."""
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        words = self._words
        for match in _WORD.finditer(text):
            space, word = match.groups()
            key = " " + word if space and word[0] in self._joiners else word
            known = words.get(key) or self._word(key)
            at = match.start(2)
            ids.extend(known[0])
            starts.extend([at + s for s in known[1]])
            ends.extend([at + e for e in known[2]])
        return Encoded(ids, starts, ends)

    def next_cut(self, text: str, at: int, stop: int) -> int | None:
        """The first cut ``c`` with ``at <= c < stop``: just before a space, tab or line break.

        >>> load().next_cut("one two", 0, 7), load().next_cut("one two", 4, 7)
        (3, None)
        """
        found = _SEPARATOR.search(text, at, stop)
        return None if found is None else found.start()

    def last_cut(self, text: str, low: int, high: int) -> int | None:
        """The last cut ``c`` with ``low < c < high``.

        >>> load().last_cut("one two three", 0, 13), load().last_cut("one two", 3, 7)
        (7, None)
        """
        best = max(text.rfind(separator, low + 1, high) for separator in SEPARATORS)
        return None if best < 0 else best

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids`` as HF's Metaspace decoder gives it (normalized text).

        >>> load().decode([35378, 6661, 38])
        'Hello World!'
        """
        text = "".join(self._pieces[i] for i in ids).replace(META, " ")
        return text[1:] if text.startswith(" ") else text

    # --- one word ---------------------------------------------------------------------

    def _word(self, key: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Ids and spans (relative to the word) of one word; ``key`` starts with a space
        when the word follows one and starts with a combining character."""
        if key[0] == " ":
            normal, origin = self._normalize(key)
            normal, origin = normal[1:], [o - 1 for o in origin[1:]]
        else:
            normal, origin = self._normalize(key)
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        at = 0
        for part in normal.split():
            at = normal.index(part, at)
            for begin, end, piece in self._viterbi(META + part):
                # Position 0 is the "▁", which HF aligns with the part's first character.
                first = at + begin - 1 if begin else at
                last = at + end - 2 if end > 1 else at
                ids.append(piece)
                starts.append(origin[first])
                ends.append(origin[last] + 1)
            at += len(part)
        if ends:
            # Characters the rules delete at the end of a word belong to its last token,
            # so that a word's tokens end where the word does.
            ends[-1] = len(key) - 1 if key[0] == " " else len(key)
        found = (tuple(ids), tuple(starts), tuple(ends))
        if len(self._words) >= _CACHE_WORDS:
            self._words.clear()
        self._words[key] = found
        return found

    def _normalize(self, word: str) -> tuple[str, list[int]]:
        """The normalized word and, for each of its characters, the index of the original
        character HF aligns it with."""
        if self._joiners.isdisjoint(word):
            normal = word.translate(self._table)
            if normal == word:
                return word, list(range(len(word)))
            return self._rewrite(word, [(index, index + 1) for index in range(len(word))])
        return self._rewrite(word, self._clusters(word))

    def _rewrite(self, word: str, clusters: list[tuple[int, int]]) -> tuple[str, list[int]]:
        """Apply the rules cluster by cluster, recording changes as HF's Precompiled
        normalizer does: each new character replaces one original (change 0); extra ones
        are insertions (change 1) and a shortfall is removed after the last new character
        so far (a negative change), which may turn an earlier insertion into a
        replacement. Replaying the changes over the original characters aligns them."""
        rules = self._rules
        chars: list[str] = []
        changes: list[int] = []
        skipped = 0
        for start, end in clusters:
            replacement = None
            if end - start > 1 and len(word[start:end].encode("utf-8")) < RULE_BYTES:
                cluster = word[start:end]
                for length in range(1, end - start + 1):
                    replacement = rules.get(cluster[:length])
                    if replacement is not None:
                        break
            if replacement is None:
                for index in range(start, end):
                    char = word[index]
                    found = rules.get(char)
                    if found is None:
                        chars.append(char)
                        changes.append(0)
                    else:
                        skipped = _replace(chars, changes, found, 1, skipped)
            else:
                skipped = _replace(chars, changes, replacement, end - start, skipped)
        origin = []
        position = skipped
        for change in changes:
            if change > 0:
                origin.append(position - 1)
            else:
                origin.append(position)
                position += 1 - change
        return "".join(chars), origin

    def _clusters(self, word: str) -> list[tuple[int, int]]:
        """The extended grapheme clusters of ``word`` as HF's ``unicode-segmentation`` cuts
        them, by the rules that can matter here (UAX #29 GB3-GB5, GB9-GB9c, GB11; regional
        indicators and Hangul only ever join 3- and 4-byte characters that no rule starts
        with, so they cannot change a normalization)."""
        classes = self._classes
        spans = []
        start = 0
        previous = classes.get(ord(word[0]), OTHER)
        incb = 1 if previous == CONSONANT else 0
        emoji = 1 if previous == PICTOGRAPHIC else 0
        for index in range(1, len(word)):
            current = classes.get(ord(word[index]), OTHER)
            if previous == CONTROL or current == CONTROL:
                joined = word[index - 1] == "\r" and word[index] == "\n"
            elif current in _JOINS_BEFORE or previous == PREPEND:
                joined = True
            elif current == CONSONANT:
                joined = incb == 2
            elif current == PICTOGRAPHIC:
                joined = emoji == 2
            else:
                joined = False
            if not joined:
                spans.append((start, index))
                start = index
            if current == CONSONANT:
                incb = 1
            elif current == LINKER:
                incb = 2 if incb else 0
            elif current not in _INCB_KEEP:
                incb = 0
            if current == PICTOGRAPHIC:
                emoji = 1
            elif current in _GCB_EXTEND:
                emoji = 1 if emoji == 1 else 0
            elif current == ZWJ:
                emoji = 2 if emoji == 1 else 0
            else:
                emoji = 0
            previous = current
        spans.append((start, len(word)))
        return spans

    def _viterbi(self, text: str) -> list[tuple[int, int, int]]:
        """The best segmentation of ``text`` as ``(start, end, id)`` triples, like HF's
        ``Unigram::encode_optimized``: positions left to right, pieces by length, a
        candidate replaces the best path into its end only if strictly better."""
        size = len(text)
        get = self._ids.get
        scores = self._scores
        longest = self._longest
        unk_score = self._unk_score
        best = [0.0] + [float("-inf")] * size
        back = [0] * (size + 1)
        token = [0] * (size + 1)
        for start in range(size):
            base = best[start]
            piece = get(text[start])
            single = piece is not None
            if single:
                score = base + scores[piece]
                if score > best[start + 1]:
                    best[start + 1] = score
                    back[start + 1] = start
                    token[start + 1] = piece
            limit = min(size, start + longest.get(text[start:start + 2], 0))
            for end in range(start + 2, limit + 1):
                piece = get(text[start:end])
                if piece is not None:
                    score = base + scores[piece]
                    if score > best[end]:
                        best[end] = score
                        back[end] = start
                        token[end] = piece
            if not single:
                score = base + unk_score
                if score > best[start + 1]:
                    best[start + 1] = score
                    back[start + 1] = start
                    token[start + 1] = UNK_ID
        found: list[tuple[int, int, int]] = []
        end = size
        while end > 0:
            start = back[end]
            piece = token[end]
            if piece == UNK_ID and found and found[-1][2] == UNK_ID:
                found[-1] = (start, found[-1][1], UNK_ID)
            else:
                found.append((start, end, piece))
            end = start
        found.reverse()
        return found


def _replace(chars: list[str], changes: list[int], replacement: str, replaced: int, skipped: int) -> int:
    """Append ``replacement`` for ``replaced`` original characters (HF's ``replace``);
    returns how many characters the text starts with that nothing replaced."""
    chars.extend(replacement)
    changes.extend([0] * len(replacement))
    diff = len(replacement) - replaced
    if diff > 0:
        changes[-diff:] = [1] * diff
    elif diff < 0:
        if changes:
            changes[-1] += diff
        else:
            # HF loses this removal and shifts every later offset; count it instead.
            skipped -= diff
    return skipped


def load() -> UnigramTokenizer:
    """XLM-R's tokenizer from ragchunk's tables (``xlmr-*``), built once per call.

    Raises :class:`ragchunk.tables.TableError` when a table is missing or altered.
    """
    from ..tables import read
    from ..tables.xlmr import parse_classes, parse_normalizer, parse_pieces, parse_scores

    return UnigramTokenizer(
        parse_pieces(read("xlmr-pieces")),
        parse_scores(read("xlmr-scores")),
        parse_normalizer(read("xlmr-normalizer")),
        parse_classes(read("xlmr-graphemes")),
    )
