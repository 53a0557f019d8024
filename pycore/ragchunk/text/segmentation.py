"""Sentence boundaries with code-point offsets (English, Russian, Hindi, CJK and more scripts).

One forward pass: a compiled pattern finds candidate terminators (``. ! ? …`` runs and
the full stops of other scripts) and line breaks, and each candidate is accepted or
rejected by checks of a bounded stretch of characters around it (the word before, the
word after). No pattern can backtrack over more than the run it sits on and no stretch
is read more than a bounded number of times, so time is linear in the length of the text.

>>> sentences("Dr. Smith arrived at 5 p.m. on Jan. 3. He left, i.e. he went home.")
['Dr. Smith arrived at 5 p.m. on Jan. 3.', 'He left, i.e. he went home.']
>>> sentences("मेरा नाम राम है। मैं दिल्ली में रहता हूँ।")
['मेरा नाम राम है।', 'मैं दिल्ली में रहता हूँ।']
>>> sentences("1) The first item 2) The second item")
['1) The first item', '2) The second item']

Rules:

- ``। ॥ 。 ！ ？ ｡`` (Devanagari and Bengali, CJK), ``؟ ۔`` (Arabic, Urdu), ``։``
  (Armenian), ``። ፧`` (Ethiopic) and ``။`` (Myanmar) always end a sentence, space or not.
- ``. ! ? …`` and runs of them (``?!``, ``...``), plus closing quotes and brackets, end a
  sentence only before whitespace or the end of the text; ``?`` and ``!`` also end one
  right before a Devanagari, Myanmar or CJK character (``क्या?हाँ``).
- The letter that decides is the first one after the terminator, skipping opening quotes,
  brackets and a dash (``? – спросила``). A lowercase letter never starts a sentence, in
  any cased script.
- Spaced dots: ``. . .`` is an ellipsis inside the sentence; ``. . . .`` after a space ends
  it before a capital; a period glued to its word and then ``. . .`` ends the sentence at
  the period when a capital follows, the ellipsis opening the next one
  (``compounds. | . . . The practice``). An ellipsis in brackets (``[...]``) is an omission.
- ``?`` / ``!``: a break otherwise. An ellipsis (``..``, ``...``, ``…``): a break only
  before a capital or caseless letter (``Wait... What?`` splits, ``Wait... 5`` does not).
- A single ``.`` looks at the word before it:

  * titles and prefixes (``Dr. Mr. St. vs. e.g. approx. ул. им. пгт. डॉ.`` …): never a break;
  * abbreviations that may close a sentence or precede a number (``etc. Inc. Jr. a.m.
    Jan. No. N°. Fig. ext. ft. т. д. и др. руб. стр. рис. тел.`` …): a break only before a
    capital or caseless letter, so ``etc. and``, ``Jan. 3``, ``No. 5``, ``ext. 12`` and
    ``Тел. 123-45-67`` stay together while ``etc. The`` splits (``No`` only capitalised:
    ``said no. 5 people`` splits);
  * ``см.`` after a number is a unit (``5 см. Потом`` may split), ``г. гг.`` after a
    number a year, which ends a sentence only before a word that usually opens one, as
    initials do (``1999 г. Потом`` splits, ``в 2000 г. Путин стал`` does not); elsewhere
    all three are prefixes (``г. Москва``, ``см. выше``);
  * a time or year after a number (``a.m. p.m. г. гг.``) that closes an opening phrase of
    one word and the number is not a break: ``At 5 a.m. Mr. Smith went``,
    ``В 2010-2012 гг. Виктор посещал``;
  * one letter (``J. R. R. Tolkien``, ``А. С. Пушкин``) or dotted single letters
    (``U.S.``, ``E.U.``): initials, a break only before a word that usually opens a
    sentence (``The How Did It Это Он`` …), so ``in the U.S. How about you?`` and
    ``you and I. Did you`` split while ``the U.S. Government`` and ``Albert I. Jones`` do not;
  * any other number or word: a break.

- A sentence that opens with a list marker (``1.``, ``1.)``, ``1)``, ``a.``, ``• 9.``,
  ``⁃9.``) ends right before the next marker of the same kind (``2.``, ``b.``, ``• 10.``):
  ``1. The first item 2. The second item`` is two sentences. The period of the opening
  marker never ends the sentence (``1. Intro. It starts.``: ``1. Intro.`` is one).
- Inside a «quotation» that closes within 300 characters, before a blank line, no weak
  terminator ends the sentence that holds it (``«Куда? – спросила мама. – Домой».``).
- A blank line always ends a sentence. A single newline ends one only before a list
  item (``- ``, ``* ``, ``+ ``, ``• ``, ``1. ``, ``1) ``), or after a list item when the
  next line is not indented (an indented line continues the item).

Spans are trimmed of whitespace, ordered, disjoint, and together hold every
non-whitespace character of the text exactly once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from enum import Enum
from itertools import chain
from types import MappingProxyType

__all__ = ["iter_sentence_starts", "sentence_spans", "sentences"]

_WEAK = ".!?…"
_STRONG = "।॥。！？｡؟۔։።፧။"
_CLOSERS = "\"'”’»)\\]}」』）】〕〉》〗〙〛＂＇"
_OPENERS = "\"'“‘«„‚([{¿¡「『（【〔〈《"
# Skipped between a terminator and the letter that tells whether a sentence starts there,
# with the spaces after a dash: the dash of direct speech ("? – спросила мама") does not
# start a sentence.
_DASHES = "–—"
_LEAD_IN = _OPENERS + _DASHES
# Scripts written without spaces (or with terminators glued to the next sentence).
_GLUED = "\u0900-\u097f\u1000-\u109f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_BULLETS = "•⁃‣◦▪"

# Every candidate starts with one character of a single class, so the engine can skip
# ordinary text at C speed. The lookbehind rejects the inside of a terminator run in
# constant time and the possessive quantifiers never give characters back, so the scan
# stays linear even on megabytes of dots. ``lastindex`` tells the kinds apart: 1 when
# group 1 holds the second newline of a blank line, 2 for a line break before a list
# item, None for any other line break, and 3 for a terminator run (group 3 is its rest
# after the first character). A plain line break is thus rejected without another regex.
_LIST_ITEM_BODY = r"[^\S\n]*+(?:[-*+•‣◦▪–]|\d{1,3}[.)])[^\S\n]"
_CANDIDATE = re.compile(
    rf"[{_WEAK}{_STRONG}\n](?<![{_WEAK}{_STRONG}][{_WEAK}{_STRONG}])"
    rf"(?:(?<=\n)(?:([^\S\n]*+\n)|(?={_LIST_ITEM_BODY})())?|([{_WEAK}{_STRONG}]*+)[{_CLOSERS}]*+)"
)
_STRONG_MARK = re.compile(f"[{_STRONG}]")
_GLUED_LETTER = re.compile(f"[{_GLUED}]")
_NONSPACE = re.compile(r"\S")
# The lookbehind lets a match start only where a run of spaces starts, so a search (not
# only a match at a line start) cannot rescan the same long run from every position in it.
_LIST_ITEM = re.compile(rf"(?<![^\S\n]){_LIST_ITEM_BODY}")
# A marker of an item of a list written on one line: optional bullet, label, style. A
# Cyrillic letter only before ")": "г." and "д." are abbreviations.
_INLINE_MARKER = rf"(?<!\S)(?:([{_BULLETS}])[^\S\n]*+)?(\d{{1,3}}|[a-z]|[а-я](?=\)))(\.\)|\.|\))(?!\S)"
_INLINE_ITEM = re.compile(_INLINE_MARKER)
# The whitespace before a sentence, then the list marker it opens with if it has one.
_OPENING = re.compile(rf"\s*+{_INLINE_MARKER}|\s*+")
# The rest of a spaced ellipsis after its first dot (" . . ." of "word. . . ."), closers included.
_SPACED_DOTS = re.compile(rf"(?:[^\S\n]\.(?=[\s{_CLOSERS}]|\Z))++[{_CLOSERS}]*+")
_BLANK_LINE = re.compile(r"\n[^\S\n]*+\n")
_LETTERS = re.compile(r"[^\W\d_]+")

# How far back to look for the word before a period; longer words are never abbreviations.
_LOOKBACK = 32
_OPENER_SKIP = 4
# A «quotation» longer than this is not kept in one sentence: a stray « must not glue a
# whole paragraph together.
_QUOTE_SPAN = 300
# Longer than any word of _STARTERS.
_STARTER_READ = 16


class _Kind(Enum):
    NEVER = "never"
    MAY_END = "may_end"
    UNIT_AFTER_NUMBER = "unit_after_number"
    YEAR_AFTER_NUMBER = "year_after_number"
    AFTER_WORD = "after_word"
    NEVER_AFTER_WORD = "never_after_word"


def _table() -> Mapping[str, tuple[_Kind, str]]:
    """Abbreviation (without its final period) -> how it treats a following capital."""
    never = """
        mr mrs ms mx dr prof st mt messrs mme mlle rev hon pres gov sen rep gen
        col lt capt cmdr sgt adm maj supt insp det fr vs v cf viz approx ca
        e.g i.e n.b
        т.е т.к т.н ул пер просп пл наб им проф акад доц канд ген полк тов гр пгт
        ср напр ред изд вып англ лат франц нем рус
        डॉ प्रो
    """
    may_end = """
        etc inc ltd co corp llc plc bros jr sr al ave rd blvd ft est dept univ assn assoc bldg
        a.m p.m jan feb mar apr jun jul aug sep sept oct nov dec
        No Nos Nr n° nº fig figs vol vols ch chap sec sect art eq eqs pp pg tab ref pt pts ext tel
        т.д т.п и.т.д и.т.п руб коп тыс млн млрд трлн долл км кг мм мин сек прим
        стр рис табл гл ст кв п.п тел №
    """
    units = "см"
    years = "г гг"
    after_word = {"д": "т.", "п": "т.", "др": "и", "пр": "и"}
    # The second half of a spaced "т. е." / "т. к." / "т. н."; elsewhere an initial.
    never_after_word = {"е": "т.", "к": "т.", "н": "т."}
    table: dict[str, tuple[_Kind, str]] = {}
    for words, kind in ((never, _Kind.NEVER), (may_end, _Kind.MAY_END), (units, _Kind.UNIT_AFTER_NUMBER),
                        (years, _Kind.YEAR_AFTER_NUMBER)):
        for word in words.split():
            table[word] = (kind, "")
    for word, before in after_word.items():
        table[word] = (_Kind.AFTER_WORD, before)
    for word, before in never_after_word.items():
        table[word] = (_Kind.NEVER_AFTER_WORD, before)
    return MappingProxyType(table)


# Keys are lowercase except "No", "Nos", "Nr", which are looked up as written so that
# "said no. 5 people" still splits.
_ABBREVIATIONS = _table()
_DOTTED_LETTERS = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")
# Times and years after a number that a sentence often opens with ("At 5 a.m. Mr. Smith").
_OPENING_TIMES = frozenset({"a.m", "p.m", "г", "гг"})
# Words that usually open a sentence and are rarely a name: after initials or dotted
# letters they tell a sentence end ("in the U.S. How about") from a name ("U.S. Army").
_STARTERS = frozenset("""
    A An The This That These Those There Then Thus He She It I We You They His Her Its Our Their My Your
    What When Where Which Who Why How However But And Or So Yet If In On At For From After Before As
    Although Because Since While Did Do Does Is Are Was Were Being Many More Most Some All Each Every Both
    Это Он Она Оно Они Мы Вы Но Однако Когда Где Что Как Так Там Тогда Потом Затем Если Хотя Поэтому
""".split())


def _capital_like(c: str) -> bool:
    """Whether ``c`` is a letter that can start a sentence: uppercase or from a caseless script."""
    return c.isalpha() and not c.islower()


def _is_initial(word: str) -> bool:
    """One letter, optionally followed by combining marks (Devanagari ``पी``)."""
    if not word or not word[0].isalpha():
        return False
    if len(word) == 1:
        return True
    return len(word) <= 3 and all("\u0900" <= ch <= "\u097f" and not ch.isalpha() for ch in word[1:])


def _starter_at(text: str, k: int) -> bool:
    """Whether the word at ``k`` is one of :data:`_STARTERS` (and not itself an initial: ``A.``)."""
    found = _LETTERS.match(text, k, k + _STARTER_READ)
    return found is not None and found.group() in _STARTERS and text[found.end():found.end() + 1] != "."


def _period_verdict(text: str, ts: int, c: str, k: int, floor: int) -> bool:
    """Whether a single ``.`` at ``ts``, then whitespace and ``c`` (not lowercase) at ``k``, ends a sentence.

    Before the period only ``text[floor:ts]`` is read, ``floor`` being the start of the
    current sentence, so a sentence is split the same way whatever precedes it; after it
    only the word at ``k``.
    """
    if ts == floor or text[ts - 1].isspace():
        return True
    lo = ts - _LOOKBACK if ts - _LOOKBACK > floor else floor
    words = text[lo:ts].split()
    if lo > floor and not text[lo - 1].isspace() and not text[lo].isspace():
        words = words[1:]
    if not words:
        return True
    word = words[-1].lstrip(_OPENERS)
    key = word.lower()
    entry = _ABBREVIATIONS.get(word) or _ABBREVIATIONS.get(key)
    if entry is None:
        if _is_initial(word) or _DOTTED_LETTERS.fullmatch(word):
            return _starter_at(text, k)
        # A short number the sentence opens with, behind a quote or bracket: a list marker ("(1. First)").
        return not (word.isdecimal() and len(word) <= 3 and lo == floor and len(words) == 1)
    kind, before = entry
    if kind is _Kind.NEVER:
        return False
    previous = words[-2].lstrip(_OPENERS) if len(words) > 1 else ""
    after_number = previous[-1:].isdecimal()
    # The whole sentence so far is "<word> <number> <time>": an opening phrase, not a sentence.
    if key in _OPENING_TIMES and after_number and lo == floor and len(words) == 3 and words[0][:1].isalpha():
        return False
    if kind is _Kind.MAY_END:
        return _capital_like(c)
    if kind is _Kind.UNIT_AFTER_NUMBER:
        return after_number and _capital_like(c)
    if kind is _Kind.YEAR_AFTER_NUMBER:
        # "в 2000 г. Путин стал": a name often follows a year inside its sentence, so, as
        # after initials, only a word that usually opens a sentence makes this an end.
        return after_number and _starter_at(text, k)
    if kind is _Kind.NEVER_AFTER_WORD:
        return previous.lower() != before and _starter_at(text, k)
    return previous.lower() == before and _capital_like(c)


def _past_lead_in(text: str, k: int) -> tuple[int, str]:
    """Offset and character after up to a few lead-in characters from ``k`` (``""`` at the end of the text)."""
    stop = k + _OPENER_SKIP
    n = len(text)
    while k < n and k < stop and (text[k] in _LEAD_IN or text[k] in " \u00a0" and text[k - 1] in _DASHES):
        k += 1
    return k, text[k] if k < n else ""


def _spaced_ellipsis_cut(text: str, ts: int, ce: int, end: int, floor: int) -> int | None:
    """Where a period at ``ts`` followed by spaced dots up to ``end`` ends its sentence, or None.

    Four dots or more (a period and an ellipsis) end the sentence before a capital: after
    the period when it is glued to its word (the ellipsis then opens the next sentence),
    else after the dots. Three spaced dots are an ellipsis inside the sentence. What
    follows a blank line is another paragraph and cannot decide.
    """
    if text.count(".", ts, end) < 4:
        return None
    after = _NONSPACE.search(text, end)
    if after is None:
        return None
    k, c = _past_lead_in(text, after.start())
    if not _capital_like(c) or _BLANK_LINE.search(text, end, k) is not None:
        return None
    return ce if ts > floor and not text[ts - 1].isspace() else end


def _in_quotation(text: str, floor: int, ts: int, ce: int) -> bool:
    """Whether a terminator ``text[ts:ce]`` sits inside a short «quotation» opened in this sentence."""
    lo = ts - _QUOTE_SPAN if ts - _QUOTE_SPAN > floor else floor
    start = text.rfind("«", lo, ts)
    if start < 0 or text.find("»", start, ce) >= 0:
        return False
    end = text.find("»", ce, start + _QUOTE_SPAN)
    return end >= 0 and _BLANK_LINE.search(text, ce, end) is None


def _next_label(label: str) -> str | None:
    """The label after ``label`` in a list (``9`` -> ``10``, ``a`` -> ``b``), or None at the end."""
    if label.isdecimal():
        return None if label == "999" else str(int(label) + 1)
    return chr(ord(label) + 1) if label not in "zя" else None


def _following(marker: re.Match) -> tuple[str, str, str] | None:
    """``(label, style, bullet)`` of the marker after an inline list ``marker``, or None if the labels end."""
    label = _next_label(marker.group(2))
    return None if label is None else (label, marker.group(3), marker.group(1) or "")


def _opening(text: str, cut: int, limit: int) -> tuple[int, tuple[str, str, str] | None, int]:
    """What the scan needs of the sentence after ``cut``, whose first character is before ``limit``.

    ``(marker_end, next_item, searched)``: the end of the list marker it opens with (else
    the offset of its first character), the next item's marker (or None), and the offset
    up to which the text holds no next marker.
    """
    found = _OPENING.match(text, cut, limit)
    if found.lastindex is None:
        return found.end(), None, found.end()
    return found.end(), _following(found), found.end()


def _items(
    text: str, next_item: tuple[str, str, str], searched: int, stop: int
) -> tuple[list[int], int, tuple[str, str, str] | None, int]:
    """The starts of the next items of an inline list whose markers end by ``stop``.

    Returns them with ``(marker_end, next_item, searched)`` as :func:`_opening` gives
    them for the sentence of the last one (``marker_end`` is -1 when there is none).
    """
    starts = []
    marker_end = -1
    end = stop + 1 if stop < len(text) else stop
    while next_item is not None:
        found = _INLINE_ITEM.search(text, searched, end)
        if found is None:
            searched = stop
            break
        if (found.group(2), found.group(3), found.group(1) or "") != next_item:
            searched = found.start() + 1
            continue
        starts.append(found.start())
        marker_end = searched = found.end()
        next_item = _following(found)
    return starts, marker_end, next_item, searched


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` of ``text[start:end]`` without surrounding whitespace, or None if blank."""
    found = _NONSPACE.search(text, start, end)
    if found is None:
        return None
    first = found.start()
    if text[end - 1].isspace():
        end = first + len(text[first:end].rstrip())
    return first, end


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` code-point offsets of the sentences of ``text``.

    ``text[start:end]`` is one sentence without surrounding whitespace; spans are in
    order, do not overlap and cover every non-whitespace character exactly once.
    Empty or whitespace-only text gives ``[]``. Runs in time linear in ``len(text)``.

    >>> sentence_spans("He said \\"Stop.\\" Then left.")
    [(0, 15), (16, 26)]
    >>> sentence_spans("  \\n ")
    []
    """
    spans: list[tuple[int, int]] = []
    last_cut = 0
    for cut in _cuts(text):
        span = _trimmed(text, last_cut, cut)
        if span is not None:
            spans.append(span)
        last_cut = cut
    if last_cut < len(text):
        span = _trimmed(text, last_cut, len(text))
        if span is not None:
            spans.append(span)
    return spans


def iter_sentence_starts(text: str) -> Iterator[int]:
    """Yield the starts of the spans of :func:`sentence_spans`, reading only as far as needed.

    A sentence's start is known as soon as the cut before it is (the first non-whitespace
    character after the cut), so a caller that stops at the first start it likes does not
    pay for the rest of the text.

    >>> list(iter_sentence_starts(" One. Two.  Three."))
    [1, 6, 12]
    """
    previous = -1
    for cut in chain((0,), _cuts(text)):
        found = _NONSPACE.search(text, cut)
        if found is None:
            return
        start = found.start()
        # A blank stretch between two cuts holds no sentence: its start repeats.
        if start != previous:
            previous = start
            yield start


def _cuts(text: str) -> Iterator[int]:
    """The offsets where the text is cut between sentences, in order."""
    n = len(text)
    last_cut = 0
    # The current sentence as _opening sees it, worked out on first need: ``opened`` is
    # the cut it follows (-1: not yet, or a new sentence).
    opened = -1
    marker_end = 0
    next_item = None
    searched = 0
    # Candidates before this offset belong to a spaced ellipsis already decided.
    skip_to = 0
    quotes = "«" in text
    in_item = _LIST_ITEM.match(text) is not None
    for m in _CANDIDATE.finditer(text):
        ts = m.start()
        if ts < skip_to:
            continue
        kind = m.lastindex
        if kind == 3:
            if opened != last_cut:
                opened = last_cut
                marker_end, next_item, searched = _opening(text, last_cut, n)
            if next_item is not None:
                starts, end, next_item, searched = _items(text, next_item, searched, m.end())
                if starts:
                    yield from starts
                    last_cut = opened = starts[-1]
                    marker_end = end
            # The period of the marker the sentence opens with ("1. Intro").
            if ts < marker_end:
                continue
            run_end = m.end(3)
            ce = m.end()
            if run_end - ts == 1:
                mark = text[ts]
                strong = mark in _STRONG
            else:
                mark = text[ts:run_end]
                strong = _STRONG_MARK.search(text, ts, run_end) is not None
            if strong:
                cut = ce
            elif ce == n:
                break
            elif not text[ce].isspace():
                # Glued to the next character: only "?"/"!" before Devanagari or CJK cut,
                # so decimals, URLs, e-mails and file names stay whole.
                if "?" not in mark and "!" not in mark or _GLUED_LETTER.match(text, ce) is None:
                    continue
                cut = ce
            else:
                after = _NONSPACE.search(text, ce)
                if after is None:
                    break
                k = after.start()
                c = text[k]
                if c in _LEAD_IN:
                    k, c = _past_lead_in(text, k)
                elif c == "." and mark == ".":
                    spaced = _SPACED_DOTS.match(text, ce)
                    # Two dots are no ellipsis: each is looked at alone.
                    if spaced is not None and text.count(".", ts, spaced.end()) >= 3:
                        skip_to = spaced.end()
                        cut = _spaced_ellipsis_cut(text, ts, ce, skip_to, last_cut)
                        if cut is None:
                            continue
                        yield cut
                        last_cut = cut
                        opened = -1
                        continue
                # A lowercase start is never a new sentence, whatever the mark.
                if c.islower():
                    continue
                if "?" in mark or "!" in mark:
                    verdict = True
                elif mark == ".":
                    verdict = _period_verdict(text, ts, c, k, last_cut)
                elif ts > last_cut and text[ts - 1] in "[(":
                    verdict = False
                else:
                    verdict = _capital_like(c)
                if not verdict or quotes and _in_quotation(text, last_cut, ts, ce):
                    continue
                yield ce
                last_cut = ce
                # Most sentences open with a capital, never a list marker: no _opening needed.
                first = text[after.start()]
                if first.isdecimal() or first in _BULLETS:
                    opened = -1
                else:
                    opened, marker_end, next_item = ce, 0, None
                continue
        else:
            if kind is None:
                # A line break inside a paragraph cuts only after a list item, before a line
                # that is not indented (an indented one continues the item).
                if not in_item:
                    continue
                line = m.end()
                if line == n or text[line].isspace():
                    continue
                in_item = False
            elif kind == 1:
                in_item = _LIST_ITEM.match(text, m.end()) is not None
            else:
                in_item = True
            cut = ts
            if opened != last_cut:
                opened = last_cut
                marker_end, next_item, searched = _opening(text, last_cut, cut)
            if next_item is not None:
                yield from _items(text, next_item, searched, cut)[0]
        yield cut
        last_cut = cut
        # Two cuts can fall on one offset (a period before a line break): look again.
        opened = -1
    if opened != last_cut:
        marker_end, next_item, searched = _opening(text, last_cut, n)
    if next_item is not None:
        yield from _items(text, next_item, searched, n)[0]


def sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, each trimmed of surrounding whitespace.

    Same as ``[text[s:e] for s, e in sentence_spans(text)]``; see the module docstring
    for the rules.

    >>> sentences("Wait... what? No. 5 is J. R. R. Tolkien's. Fine!")
    ['Wait... what?', "No. 5 is J. R. R. Tolkien's.", 'Fine!']
    """
    return [text[start:end] for start, end in sentence_spans(text)]
