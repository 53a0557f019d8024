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

HF walks a trie of the pieces from every position (the pieces that *start* there); here an
Aho-Corasick automaton over the same pieces (``xlmr-automaton``) takes one step per
character and its state names every piece that *ends* there, so each position costs one
transition and one pass over a precomputed tuple of candidates, longest first. Taking the
first best candidate per end position is the same path as HF's: for a given end, HF meets
the candidates in the order of their starts and keeps the first of equal scores.

User text is ordinary text: ``"<s>"`` in a document is not a special token (HF with
``encode_special_tokens = True``). Counts exclude ``<s>``/``</s>`` (``special_tokens = 2``).

Words are tokenized one at a time and remembered (a cache per tokenizer; :meth:`count`
keeps only the counts), which is what makes pure Python fast on real text. Grapheme
clusters are found by one regular expression over the word written in class codes
(:data:`_CLUSTER`), so a word without a rule that could apply to a cluster costs a few
``str.translate`` calls. A *word* here is a run of characters between
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
import sys
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain, compress, repeat
from operator import add, is_, itemgetter, sub

from ..tables.xlmr import Automaton
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
_WORDS = re.compile(r"[^ \t\n\r\x0c\x85\u2028\u2029]+")
_SEPARATOR = re.compile(r"[ \t\n\r\x0c\x85\u2028\u2029]")
_SEPARATORS = re.compile(r"[ \t\n\r\x0c\x85\u2028\u2029]+")
# The grapheme clusters of two or more characters, over a word whose characters are
# written as their class (chr(class); OTHER stays the character itself, never one of
# \x01-\x09): a control stands alone; prepends join what follows unless it is a control;
# extend, linker, ZWJ and spacing marks join what precedes (GB9, GB9a, GB9b); a consonant
# joins a consonant before it across [extend ZWJ linker]* holding a linker (GB9c); a
# pictograph joins one before it across extend* ZWJ (GB11). Single characters in between
# are clusters of their own, so a search that skips them lands on cluster starts only.
# Every repetition is possessive or over characters its follower cannot start with.
_CLUSTER = re.compile(
    r"\x07++(?:\x09(?:[\x03\x05]*+\x04[\x03-\x05]*+\x09)*+|\x08(?:[\x02-\x04]*+\x05\x08)*+|[^\x01\x07\x08\x09])[\x02-\x06]*+"
    r"|\x07{2,}+"
    r"|\x09(?:[\x03\x05]*+\x04[\x03-\x05]*+\x09)++[\x02-\x06]*+"
    r"|\x08(?:[\x02-\x04]*+\x05\x08)++[\x02-\x06]*+"
    r"|[^\x01\x07][\x02-\x06]++"
)
# Where a cluster of two or more characters can start: such a cluster has a prepend first
# or a joiner (extend, linker, ZWJ, spacing mark) second (see _clusters_of).
_CLUSTER_HINT = re.compile(r"[\x02-\x07]")
_CACHE_WORDS = 1 << 17
_CHUNK_WORDS = _CACHE_WORDS // 2
_NEG = float("-inf")
# Joins the cold words of a text for one normalization: a separator that is a control
# (no cluster crosses it), that no rule changes and no replacement holds.
_BATCH = "\x85"
_FLAGS = bytes.maketrans(b"\x00\xff", b"\x01\x00")


class UnigramTokenizer:
    """XLM-R's tokenizer: the pieces' ``automaton`` (see :func:`ragchunk.tables.xlmr.build_automaton`),
    the ``scores`` in id order, the normalizer's ``rules`` (key -> replacement, keys shorter
    than 6 UTF-8 bytes) and grapheme ``classes`` (code point -> class, absent: OTHER).

    >>> tokenizer = load()
    >>> tokenizer.encode("Hello World!")
    [35378, 6661, 38]
    >>> tokenizer.encode_with_offsets("ﬁne  day")
    Encoded(ids=[5885, 5155], starts=[0, 5], ends=[3, 8])
    >>> tokenizer.count("ｅ\\u0301 e\\u0301"), tokenizer.decode(tokenizer.encode("ｅ\\u0301 e\\u0301"))
    (2, 'e é')

    Raises ValueError when the automaton names a piece id that has no score, or its node 1
    is not the piece ``"▁"``.
    """

    name = "xlm-roberta"
    exact = True
    special_tokens = 2
    # No token covers whitespace (see ragchunk.packing.sizing.TokenSizer.exact).
    whitespace_outside_tokens = True

    def __init__(self, automaton: Automaton, scores: Sequence[float], rules: dict[str, str],
                 classes: dict[int, int]) -> None:
        labels, children, fail, piece = automaton
        if max(piece) >= min(len(scores), 1 << 24) or min(piece) < -1:
            raise ValueError(f"the automaton names pieces {min(piece)} to {max(piece)} but there are {len(scores)} scores")
        if labels[:1] != META or piece[1] < 0:
            raise ValueError(f"node 1 of the automaton must be the piece {META!r}")
        nodes = len(piece)
        # Node n's label is labels[n] and its children are the nodes off[n] .. off[n + 1] - 1.
        self._labels = "\0" + labels
        self._off = off = array("I", accumulate(children, initial=1))
        self._fail = fail
        self._piece = piece
        self._unk_score = min(scores) - UNK_PENALTY
        # The root and "▁" have thousands of children: a dict finds one faster than a scan.
        # Failing at "▁" leads to the root, so its dict holds the root's children too.
        root = dict(zip(self._labels[1:off[1]], range(1, off[1])))
        self._hubs = (root, {**root, **dict(zip(self._labels[off[1]:off[2]], range(off[1], off[2])))})
        # Nodes come breadth first: a level's children are the next level.
        self._depth = depth = bytearray(nodes)
        levels = [(0, 1)]
        while levels[-1][1] < nodes:
            low, high = levels[-1]
            levels.append((off[low], off[high]))
            depth[off[low]:off[high]] = bytes([len(levels) - 1]) * (off[high] - off[low])
        # What a state ends with: the pieces that are suffixes of the text read so far,
        # longest first, as a chain of links (minus the piece's length, its score, the next
        # link or None): the piece a node spells, then those of its failure link, and <unk>
        # when no piece is the last character alone. Built level by level (a failure link
        # is on a shallower level) with C-speed iterators: one tuple per piece.
        owns = _piece_flags(piece)
        self._unk = unk = (-1, self._unk_score, None)
        links: list[tuple[int, float, tuple | None]] = [unk] * nodes
        for level, (low, high) in enumerate(levels[1:], 1):
            owned = owns[low:high]
            if level == 1:
                tails = repeat(None)
            else:
                links[low:high] = map(links.__getitem__, fail[low:high])
                tails = map(links.__getitem__, compress(fail[low:high], owned))
            own = zip(repeat(-level), map(scores.__getitem__, compress(piece[low:high], owned)), tails)
            deque(map(links.__setitem__, compress(range(low, high), owned), own), maxlen=0)
        # A tuple of untracked tuples leaves the garbage collector's scans once it has seen
        # it (a list of 500,000 items would be walked by every full collection).
        self._links = tuple(links)
        # HF fuses runs of id 3: the piece "<unk>" as well as characters no piece covers.
        self._unk_piece = self._links[piece.index(UNK_ID)] if UNK_ID in piece else unk
        self._meta_score = scores[piece[1]]
        self._scores = scores
        self._rules = rules
        self._table = str.maketrans({key: value for key, value in rules.items() if len(key) == 1})
        self._codes = str.maketrans({cp: chr(value) for cp, value in classes.items()}
                                    | {cp: "\0" for cp in range(1, 10) if cp not in classes})
        self._joiners = frozenset(chr(cp) for cp, value in classes.items()
                                  if value in _JOINS_BEFORE or value == PREPEND)
        if classes.get(ord(_BATCH)) != CONTROL or _BATCH in rules or any(_BATCH in value for value in rules.values()):
            raise ValueError(f"the rules or classes change {_BATCH!r}, which joins words to normalize them together")
        self._counts: dict[str, int] = {}
        self._words: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
        self._cluster_rules: dict[str, str | None] = {}
        self._pieces: list[str] | None = None

    # --- the sizing interface -------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` without ``<s>``/``</s>``."""
        ids: list[int] = []
        words = self._words
        for key in self._keys(text):
            known = words.get(key)
            ids.extend((known or self._word(key))[0])
        return ids

    def count(self, text: str) -> int:
        """``len(encode(text))``."""
        keys = self._keys(text)
        counts = self._counts
        total = 0
        for at in range(0, len(keys), _CHUNK_WORDS):
            chunk = keys[at:at + _CHUNK_WORDS]
            missing = set(chunk).difference(counts)
            if missing:
                if len(counts) + len(missing) > _CACHE_WORDS:
                    counts.clear()
                    missing = set(chunk)
                self._count_words(missing)
            total += sum(map(counts.__getitem__, chunk))
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
        pieces = self._pieces or self._spell_pieces()
        text = "".join(pieces[i] for i in ids).replace(META, " ")
        return text[1:] if text.startswith(" ") else text

    # --- one word ---------------------------------------------------------------------

    def _keys(self, text: str) -> list[str]:
        """The words of ``text`` as the caches know them: a word that follows a space and
        starts with a combining character keeps the space (its cluster may take it)."""
        words = _WORDS.findall(text)
        marked = list(compress(range(len(words)), map(self._joiners.__contains__, map(itemgetter(0), words))))
        if marked:
            # Separator runs and words alternate: the run before word j is runs[j - lead].
            runs = _SEPARATORS.findall(text)
            lead = 0 if text[0] in SEPARATORS else 1
            for at in marked:
                if at >= lead and runs[at - lead][-1] == " ":
                    words[at] = " " + words[at]
        return words

    def _count_words(self, keys: Iterable[str]) -> None:
        """Put the token count of every word of ``keys`` in the cache. The words are
        normalized in one piece, joined by a separator no word holds and no rule touches
        (clusters never cross it: it is a control); their parts are then taken in sorted
        order (see :meth:`_paths`)."""
        keys = list(keys)
        normals = self._normal_text(_BATCH.join(keys)).split(_BATCH)
        parts = sorted(set(" ".join(normals).split()))
        tokens = dict(zip(parts, self._count_parts(parts)))
        found = list(map(tokens.get, normals))
        for at in compress(range(len(found)), map(is_, found, repeat(None))):
            found[at] = sum(map(tokens.__getitem__, normals[at].split()))
        self._counts.update(zip(keys, found))

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
            for begin, end, piece in self._viterbi(part):
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

    def _normal_text(self, text: str) -> str:
        """The normalized ``text`` (without the alignment :meth:`_normalize` records)."""
        table = self._table
        if self._joiners.isdisjoint(text):
            return text.translate(table)
        known = self._cluster_rules
        out = []
        at = 0
        for start, end in _clusters_of(text.translate(self._codes)):
            cluster = text[start:end]
            replacement = known.get(cluster, cluster)
            if replacement is cluster:
                replacement = self._cluster_rule(cluster)
            if replacement is not None:
                out.append(text[at:start].translate(table))
                out.append(replacement)
                at = end
        out.append(text[at:].translate(table))
        return "".join(out)

    def _cluster_rule(self, cluster: str) -> str | None:
        """The replacement of a cluster of two or more characters: the rule of its shortest
        prefix that has one, if the cluster is shorter than 6 UTF-8 bytes; else None (its
        characters are replaced one by one)."""
        known = self._cluster_rules
        if cluster in known:
            return known[cluster]
        replacement = None
        if len(cluster.encode("utf-8")) < RULE_BYTES:
            for length in range(1, len(cluster) + 1):
                replacement = self._rules.get(cluster[:length])
                if replacement is not None:
                    break
        if len(known) >= _CACHE_WORDS:
            known.clear()
        known[cluster] = replacement
        return replacement

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
            replacement = self._cluster_rule(word[start:end]) if end - start > 1 else None
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
        them, by the rules that can matter here (UAX #29 GB3-GB5, GB9-GB9c, GB11, see
        :data:`_CLUSTER`; regional indicators and Hangul only ever join 3- and 4-byte
        characters that no rule starts with, so they cannot change a normalization)."""
        spans = []
        at = 0
        for start, end in _clusters_of(word.translate(self._codes)):
            spans.extend((index, index + 1) for index in range(at, start))
            spans.append((start, end))
            at = end
        spans.extend((index, index + 1) for index in range(at, len(word)))
        return spans

    # --- the pieces of one part ---------------------------------------------------------

    def _paths(self, parts: Iterable[str]) -> Iterator[tuple[list[float], list[int]]]:
        """For each of ``parts`` (sorted, no repeats, no whitespace), the best score of
        ``"▁" + part`` up to each position and the automaton's state there. The same two
        lists come each time, rewritten only from the first position where a part differs
        from the one before: the scores up to a position depend only on the characters
        before it."""
        off = self._off
        find = self._labels.find
        fail = self._fail
        hubs = self._hubs
        links = self._links
        best = [0.0, self._meta_score]
        states = [0, 1]
        # The part before, and a space no part holds: where they differ comes before the
        # end of either (a part that is a prefix of the one before sorts first).
        previous = " "
        for part in parts:
            shared = 0
            while part[shared] == previous[shared]:
                shared += 1
            del best[shared + 2:], states[shared + 2:]
            state = states[-1]
            for char in part[shared:]:
                while state > 1:
                    found = find(char, off[state], off[state + 1])
                    if found > 0:
                        state = found
                        break
                    state = fail[state]
                else:
                    state = hubs[state].get(char, 0)
                back, top, link = links[state]
                top += best[back]
                while link:
                    back, score, link = link
                    score += best[back]
                    if score > top:  # noqa: PLR1730 -- cheaper than calling max() in this loop
                        top = score
                # Not bound to names once: since Python 3.11 a plain list.append is
                # specialized and faster than calling a bound method (15 % of this loop).
                best.append(top)
                states.append(state)
            yield best, states
            previous = part + " "

    def _count_parts(self, parts: list[str]) -> list[int]:
        """How many tokens ``"▁" + part`` has, for each of the (best sorted) ``parts``: the
        best path is taken back from the end, at each position the first candidate of the
        state whose score gives the best one, as the forward pass kept it."""
        links = self._links
        unk = self._unk
        unk_piece = self._unk_piece
        found = []
        for best, states in self._paths(parts):
            count = 0
            after_unk = False
            end = len(best) - 1
            while end:
                top = best[end]
                link = links[states[end]]
                while best[end + link[0]] + link[1] != top:
                    link = link[2]
                is_unk = link is unk or link is unk_piece
                if not (is_unk and after_unk):
                    count += 1
                after_unk = is_unk
                end += link[0]
            found.append(count)
        return found

    def _viterbi(self, part: str) -> list[tuple[int, int, int]]:
        """The best segmentation of ``"▁" + part`` as ``(start, end, id)`` triples, like
        HF's ``Unigram::encode_optimized``: for each end, the first of the best candidates
        in the order of their starts; runs of id 3 (``<unk>``) fused."""
        best, states = next(self._paths((part,)))
        links = self._links
        depth = self._depth
        fail = self._fail
        found: list[tuple[int, int, int]] = []
        end = len(part) + 1
        while end:
            top = best[end]
            state = states[end]
            link = links[state]
            while best[end + link[0]] + link[1] != top:
                link = link[2]
            start = end + link[0]
            if link is self._unk:
                piece = UNK_ID
            else:
                while depth[state] > end - start:
                    state = fail[state]
                piece = self._piece[state]
            if piece == UNK_ID and found and found[-1][2] == UNK_ID:
                found[-1] = (start, found[-1][1], UNK_ID)
            else:
                found.append((start, end, piece))
            end = start
        found.reverse()
        return found

    def _spell_pieces(self) -> list[str]:
        """The pieces in id order, spelled from the automaton (for :meth:`decode`)."""
        labels, off = self._labels, self._off
        nodes = len(self._piece)
        spelled = [""] * nodes
        low, high = 0, 1
        while high < nodes:
            first, last = off[low], off[high]
            parents = chain.from_iterable(map(repeat, range(low, high), map(sub, off[low + 1:high + 1], off[low:high])))
            spelled[first:last] = map(add, map(spelled.__getitem__, parents), labels[first:last])
            low, high = first, last
        pieces = [""] * len(self._scores)
        for node, piece in enumerate(self._piece):
            if piece >= 0:
                pieces[piece] = spelled[node]
        self._pieces = pieces
        return pieces


def _clusters_of(coded: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_CLUSTER.finditer(coded)``, found faster: every branch of
    :data:`_CLUSTER` starts with a prepend (``\\x07``) or has a joiner (``\\x02-\\x06``)
    second (a consonant or pictograph that opens a cluster is followed by one), so no match
    starts before the character just ahead of the next ``[\\x02-\\x07]``, and a scan for
    that one class runs at C speed where the five branches are tried at every position.
    Consonants and pictographs alone (every Devanagari letter) are not stopped at.

    >>> list(_clusters_of("ab\\x02c\\x07d\\x01\\x02")) == [m.span() for m in _CLUSTER.finditer("ab\\x02c\\x07d\\x01\\x02")]
    True
    """
    hint = _CLUSTER_HINT.search
    match = _CLUSTER.match
    at = 0
    while (found := hint(coded, at)) is not None:
        start = found.start()
        cluster = (start > at and match(coded, start - 1)) or match(coded, start)
        if cluster is None:
            at = start + 1
        else:
            at = cluster.end()
            yield cluster.span()


def _piece_flags(piece: array) -> bytes:
    """1 for each node that spells a piece, else 0, from its 32-bit piece ids (-1 or below
    2**24): the high byte of an id is 0 and that of -1 is 255, so one byte translation does it."""
    high = piece.tobytes()[3::4] if sys.byteorder == "little" else piece.tobytes()[::4]
    return high.translate(_FLAGS)


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
    from ..tables.xlmr import parse_automaton, parse_classes, parse_normalizer, parse_scores

    return UnigramTokenizer(
        parse_automaton(read("xlmr-automaton")),
        parse_scores(read("xlmr-scores")),
        parse_normalizer(read("xlmr-normalizer")),
        parse_classes(read("xlmr-graphemes")),
    )
