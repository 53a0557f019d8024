"""Find an answer quote in the text a reader extracted, as a person copied it from the page.

A quote and the text are compared after the same normalisation, with every character of the
normalised text mapped back to its offset in the original:

- Unicode compatibility forms are folded (NFKC: ligatures, no-break spaces, full-width
  letters) and case is ignored;
- typographic quotes become ``'`` and ``"``, dashes and minus signs ``-``;
- the Markdown a reader adds around words is dropped: backticks, ``*`` and ``_``, a link's
  brackets and its ``(target)``, an image's ``!``, a backslash escape, and at the start of
  a line a heading's ``#``, a quote's ``>``, a list's marker and a table's ``|``;
- every run of white space is one space (and, if the quote is still not found, white space
  is ignored altogether).

>>> text = "## Install\\n\\nRun **the** `setup.py` script — see [the guide](https://x.org/g)."
>>> start, end = find_quote(text, "Install Run the setup.py script - see the guide")
>>> text[start:end]
'Install\\n\\nRun **the** `setup.py` script — see [the guide'
>>> find_quote(text, "not there") is None
True
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

__all__ = ["closest_passage", "find_quote", "normalise"]

_QUOTES = {c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4"} | {c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"}
_DASHES = {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"}
_DROPPED = frozenset("*_`")
# At the start of a line (after indentation): a heading's #s, a quote's >s, a list marker, a table's |.
_LINE_MARKUP = re.compile(r"[ \t]*(?:#{1,6}(?=[ \t]|$)|(?:>[ \t]?)+|[-*+](?=[ \t])|[0-9]{1,9}[.)](?=[ \t])|\|)?")
_LINK_TARGET = re.compile(r"\]\([^()\n]*\)|\]\[[^\[\]\n]*\]")
_WORD = re.compile(r"\w+")


def _characters(text: str) -> Iterator[tuple[int, str]]:
    """(offset, character) of ``text`` with the Markdown above dropped, before folding."""
    pos = 0
    n = len(text)
    at_line_start = True
    while pos < n:
        if at_line_start:
            at_line_start = False
            match = _LINE_MARKUP.match(text, pos)
            if match and match.end() > pos and text[pos:match.end()].strip():
                pos = match.end()
                continue
        char = text[pos]
        if char == "\n":
            at_line_start = True
        elif char == "\\" and pos + 1 < n and text[pos + 1] in "\\`*_{}[]()#+-.!|<>~":
            pos += 1
            char = text[pos]
            yield pos, char
            pos += 1
            continue
        elif char == "]":
            match = _LINK_TARGET.match(text, pos)
            pos = match.end() if match else pos + 1
            continue
        elif char == "[" or (char == "!" and text.startswith("[", pos + 1)) or char == "|":
            yield pos, " " if char == "|" else ""
            pos += 1
            continue
        elif char in _DROPPED:
            pos += 1
            continue
        yield pos, char
        pos += 1


def normalise(text: str, *, spaces: bool = True) -> tuple[str, list[int]]:
    """``text`` normalised (see the module's docstring) and, per character of it, its offset in ``text``.

    >>> normalise("A  “Quote” —\\n**bold**")[0]
    'a "quote" - bold'
    >>> normalise("a b\\tc", spaces=False)[0]
    'abc'
    """
    out: list[str] = []
    offsets: list[int] = []
    for offset, char in _characters(text):
        if not char:
            continue
        if char.isspace():
            if spaces and out and out[-1] != " ":
                out.append(" ")
                offsets.append(offset)
            continue
        folded = _QUOTES.get(char) or _DASHES.get(char)
        if folded is None:
            folded = unicodedata.normalize("NFKC", char).lower()
            if folded.isspace():
                if spaces and out and out[-1] != " ":
                    out.append(" ")
                    offsets.append(offset)
                continue
        for piece in folded:
            out.append(piece)
            offsets.append(offset)
    if out and out[-1] == " ":
        out.pop()
        offsets.pop()
    return "".join(out), offsets


@lru_cache(maxsize=16)
def _normalised(text: str, spaces: bool) -> tuple[str, list[int]]:
    """:func:`normalise` of a document, kept for the next quote looked for in it."""
    return normalise(text, spaces=spaces)


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """The span of ``text`` that ``quote`` copies (its first occurrence), or None."""
    for spaces in (True, False):
        needle, _ = normalise(quote, spaces=spaces)
        if not needle:
            return None
        haystack, offsets = _normalised(text, spaces)
        at = haystack.find(needle)
        if at >= 0:
            return offsets[at], offsets[at + len(needle) - 1] + 1
    return None


def closest_passage(text: str, quote: str) -> tuple[int, int] | None:
    """The span of ``text`` of as many words as ``quote`` sharing the most words with it (None
    when no word is shared): what a message shows beside a quote that was not found.

    >>> text = "The cat sat on the mat. Dogs bark at night."
    >>> start, end = closest_passage(text, "dogs barked at night")
    >>> text[start:end]
    'Dogs bark at night'
    """
    wanted = Counter(word.lower() for word in _WORD.findall(quote))
    if not wanted:
        return None
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    width = min(sum(wanted.values()), len(words))
    if not width:
        return None
    have: Counter = Counter()
    shared = 0
    best, best_at = 0, 0
    for index, (_, _, word) in enumerate(words):
        have[word] += 1
        if have[word] <= wanted[word]:
            shared += 1
        if index >= width:
            old = words[index - width][2]
            if have[old] <= wanted[old]:
                shared -= 1
            have[old] -= 1
        if shared > best:
            best, best_at = shared, max(0, index - width + 1)
    if not best:
        return None
    last = min(best_at + width, len(words)) - 1
    return words[best_at][0], words[last][1]
