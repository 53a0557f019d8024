"""Sentence boundaries with code-point offsets (English, Russian, Hindi, CJK).

One forward pass: a compiled pattern finds candidate terminators (``. ! ? …`` runs,
``। ॥ 。 ！ ？``) and line breaks, and each candidate is accepted or rejected by
constant-time checks of the characters around it (the word before, the letter after).
No pattern can backtrack over more than the run it sits on, so time is linear in the
length of the text.

>>> sentences("Dr. Smith arrived at 5 p.m. on Jan. 3. He left, i.e. he went home.")
['Dr. Smith arrived at 5 p.m. on Jan. 3.', 'He left, i.e. he went home.']
>>> sentences("मेरा नाम राम है। मैं दिल्ली में रहता हूँ।")
['मेरा नाम राम है।', 'मैं दिल्ली में रहता हूँ।']

Rules, in the order they are applied:

- ``। ॥ 。 ！ ？ ｡`` always end a sentence, space or not.
- ``. ! ? …`` and runs of them (``?!``, ``...``), plus closing quotes and brackets, end a
  sentence only before whitespace or the end of the text; ``?`` and ``!`` also end one
  right before a Devanagari or CJK character (``क्या?हाँ``).
- A lowercase letter after the terminator (skipping opening quotes/brackets) never
  starts a sentence, in any cased script.
- ``?`` / ``!``: a break otherwise. An ellipsis (``..``, ``...``, ``…``): a break only
  before a capital or caseless letter (``Wait... What?`` splits, ``Wait... 5`` does not).
- A single ``.`` looks at the word before it:

  * titles and prefixes (``Dr. Mr. St. vs. e.g. approx. ул. им. डॉ.`` …): never a break;
  * abbreviations that may close a sentence or precede a number (``etc. Inc. Jr. a.m.
    Jan. No. Fig. ft. т. д. и др. руб. стр.`` …): a break only before a capital or
    caseless letter, so ``etc. and``, ``Jan. 3`` and ``No. 5`` stay together while
    ``etc. The`` splits (``No`` only capitalised: ``said no. 5 people`` splits);
  * ``г. гг. см.`` after a number are units (``1999 г. Потом`` may split), elsewhere
    prefixes (``г. Москва``, ``см. выше``);
  * one letter (``J. R. R. Tolkien``, ``А. С. Пушкин``) or dotted single letters
    (``U.S.``, ``U.K.``): initials, never a break (so ``in the U.S. The`` stays one
    sentence, and so does ``said I. Then``);
  * a number of at most three digits opening the sentence is a list marker
    (``1. First item``); any other number or word: a break.

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
_STRONG = "।॥。！？｡"
_CLOSERS = "\"'”’»)\\]}」』）】〕〉》〗〙〛＂＇"
_OPENERS = "\"'“‘«„‚([{¿¡「『（【〔〈《"
# Scripts written without spaces (or with terminators glued to the next sentence).
_GLUED = "\u0900-\u097f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

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
_SPACE = re.compile(r"\s")
# The lookbehind lets a match start only where a run of spaces starts, so a search (not
# only a match at a line start) cannot rescan the same long run from every position in it.
_LIST_ITEM = re.compile(rf"(?<![^\S\n]){_LIST_ITEM_BODY}")

# How far back to look for the word before a period; longer words are never abbreviations.
_LOOKBACK = 32
_OPENER_SKIP = 4


class _Kind(Enum):
    NEVER = "never"
    MAY_END = "may_end"
    UNIT_AFTER_NUMBER = "unit_after_number"
    AFTER_WORD = "after_word"


def _table() -> Mapping[str, tuple[_Kind, str]]:
    """Abbreviation (without its final period) -> how it treats a following capital."""
    never = """
        mr mrs ms mx dr prof st mt messrs mme mlle rev hon pres gov sen rep gen
        col lt capt cmdr sgt adm maj supt insp det fr vs v cf viz approx ca
        e.g i.e n.b
        т.е т.к т.н ул пер просп пл наб им проф акад доц канд ген полк тов гр
        ср напр ред изд вып англ лат франц нем рус
        डॉ प्रो
    """
    may_end = """
        etc inc ltd co corp llc plc bros jr sr al ave rd blvd ft est dept univ assn assoc bldg
        a.m p.m jan feb mar apr jun jul aug sep sept oct nov dec
        No Nos Nr fig figs vol vols ch chap sec sect art eq eqs pp tab ref pt pts
        т.д т.п и.т.д и.т.п руб коп тыс млн млрд трлн долл км кг мм мин сек прим
        стр рис табл гл ст кв п.п №
    """
    units = "г гг см"
    after_word = {"д": "т.", "п": "т.", "др": "и", "пр": "и"}
    table: dict[str, tuple[_Kind, str]] = {}
    for words, kind in ((never, _Kind.NEVER), (may_end, _Kind.MAY_END), (units, _Kind.UNIT_AFTER_NUMBER)):
        for word in words.split():
            table[word] = (kind, "")
    for word, before in after_word.items():
        table[word] = (_Kind.AFTER_WORD, before)
    return MappingProxyType(table)


# Keys are lowercase except "No", "Nos", "Nr", which are looked up as written so that
# "said no. 5 people" still splits.
_ABBREVIATIONS = _table()
_DOTTED_LETTERS = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")


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


def _period_verdict(text: str, ts: int, c: str, floor: int) -> bool | None:
    """Decide a single ``.`` at ``ts`` followed by whitespace and then ``c`` (not lowercase).

    Only ``text[floor:ts]`` is read, ``floor`` being the start of the current sentence,
    so a sentence is split the same way whatever precedes it.
    Returns True (break), False (no break) or None: the word is a short number, which
    is a list marker when it opens the sentence and a break otherwise.
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
    entry = _ABBREVIATIONS.get(word) or _ABBREVIATIONS.get(word.lower())
    if entry is None:
        if word.isdecimal() and len(word) <= 3:
            return None
        if _is_initial(word) or _DOTTED_LETTERS.fullmatch(word):
            return False
        return True
    kind, before = entry
    if kind is _Kind.NEVER:
        return False
    if kind is _Kind.MAY_END:
        return _capital_like(c)
    previous = words[-2].lstrip(_OPENERS) if len(words) > 1 else ""
    if kind is _Kind.UNIT_AFTER_NUMBER:
        return previous[-1:].isdecimal() and _capital_like(c)
    return previous.lower() == before and _capital_like(c)


def _opens_sentence(text: str, opening: int, ts: int) -> bool:
    """Whether the word ending at ``ts`` (a short number) starts at the sentence's first character."""
    return ts - opening <= _LOOKBACK and _SPACE.search(text, opening, ts) is None


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
    # First non-space offset of the current sentence, computed only when a number
    # needs it (list marker check), then reused until the next cut.
    opening = -1
    in_item = _LIST_ITEM.match(text) is not None
    for m in _CANDIDATE.finditer(text):
        kind = m.lastindex
        if kind is None:
            # A line break inside a paragraph cuts only after a list item, before a line
            # that is not indented (an indented one continues the item).
            if not in_item:
                continue
            line = m.end()
            if line == n or text[line].isspace():
                continue
            in_item = False
            cut = m.start()
        elif kind == 1:
            in_item = _LIST_ITEM.match(text, m.end()) is not None
            cut = m.start()
        elif kind == 2:
            in_item = True
            cut = m.start()
        else:
            ts = m.start()
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
                stop = k + _OPENER_SKIP
                while k < n and k < stop and text[k] in _OPENERS:
                    k += 1
                c = text[k] if k < n else ""
                # A lowercase start is never a new sentence, whatever the mark.
                if c.islower():
                    continue
                if "?" in mark or "!" in mark:
                    verdict = True
                elif mark == ".":
                    verdict = _period_verdict(text, ts, c, last_cut)
                    if verdict is None:
                        if opening < last_cut:
                            opening = _NONSPACE.search(text, last_cut).start()
                        verdict = not _opens_sentence(text, opening, ts)
                else:
                    verdict = _capital_like(c)
                if not verdict:
                    continue
                cut = ce
        yield cut
        last_cut = cut


def sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, each trimmed of surrounding whitespace.

    Same as ``[text[s:e] for s, e in sentence_spans(text)]``; see the module docstring
    for the rules.

    >>> sentences("Wait... what? No. 5 is J. R. R. Tolkien's. Fine!")
    ['Wait... what?', "No. 5 is J. R. R. Tolkien's.", 'Fine!']
    """
    return [text[start:end] for start, end in sentence_spans(text)]
