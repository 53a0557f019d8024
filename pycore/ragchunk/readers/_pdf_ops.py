"""A PDF content stream (decoded bytes) -> its operations ``(operands, operator)``.

pypdf's ``ContentStream`` reads the stream a byte at a time; on Chromium's output that
is most of a read. This tokenizer takes one regular-expression match per token over the
bytes read as Latin-1 (one character per byte), so a page's operators come out several
times faster. Operands are plain Python values: numbers are ``int``/``float``, names
``str`` with their ``/``, strings ``bytes``, arrays ``list``, dictionaries ``dict`` (name ->
value); operators are ``str``.

>>> list(operations(b"BT /F1 12 Tf 72 700 Td (Hello \\\\(world\\\\)) Tj [<41> -250 (B)] TJ ET"))
... # doctest: +NORMALIZE_WHITESPACE
[([], 'BT'), (['/F1', 12], 'Tf'), ([72, 700], 'Td'), ([b'Hello (world)'], 'Tj'),
 ([[b'A', -250, b'B']], 'TJ'), ([], 'ET')]

Malformed input never raises: an unbalanced ``)`` or ``]`` is skipped, an unclosed
string or array runs to the end, nesting deeper than :data:`MAX_DEPTH` is flattened.
Inline images (``BI`` ... ``ID`` data ``EI``) are skipped whole. The work is linear in the
length of the stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["MAX_DEPTH", "operations"]

MAX_DEPTH = 64
# One token after any whitespace, told apart by the group that matched (``lastindex``):
# 1 number, 2 name, 3 hex string, 4 literal string without nested parentheses, 5
# punctuation (a "(" here opens a string with nested parentheses), 6 keyword or operator,
# 7 comment, 8 any other character. Each branch is a character class or a bounded
# sequence of them, and the branches of the string's loop start with different
# characters, so no input makes it backtrack beyond one token.
TOKEN = re.compile(
    r"[\x00\t\n\x0c\r ]*(?:"
    r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?![^\x00\t\n\x0c\r ()<>\[\]{}/%])"
    r"|(/[^\x00\t\n\x0c\r ()<>\[\]{}/%]*)"
    r"|<(?!<)([^>]*)>?"
    r"|\(((?:[^()\\]|\\.)*)\)"
    r"|(<<|>>|[\[\]{}(])"
    r"|([^\x00\t\n\x0c\r ()<>\[\]{}/%]+)"
    r"|(%[^\r\n]*)"
    r"|(.))",
    re.DOTALL,
)
# Inside a literal string: the next character that matters.
STRING_SPECIAL = re.compile(r"[()\\]")
# The end of an inline image's data: whitespace, EI, then whitespace or the end.
INLINE_IMAGE_END = re.compile(r"[\x00\t\n\x0c\r ]EI(?=[\x00\t\n\x0c\r ]|$)")
HEX_JUNK = re.compile(r"[^0-9A-Fa-f]")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "(": "(", ")": ")", "\\": "\\"}
_OCTAL = frozenset("01234567")


def _literal(text: str, start: int) -> tuple[bytes, int]:
    """The literal string whose ``(`` is just before ``start``: (its bytes, the index after it)."""
    parts: list[str] = []
    depth = 1
    position = start
    search = STRING_SPECIAL.search
    while True:
        match = search(text, position)
        if match is None:
            parts.append(text[position:])
            return "".join(parts).encode("latin-1"), len(text)
        at = match.start()
        parts.append(text[position:at])
        char = text[at]
        if char == "\\":
            following = text[at + 1: at + 2]
            if following in _ESCAPES:
                parts.append(_ESCAPES[following])
                position = at + 2
            elif following in _OCTAL and following:
                end = at + 2
                while end < at + 4 and text[end: end + 1] in _OCTAL and text[end: end + 1]:
                    end += 1
                parts.append(chr(int(text[at + 1: end], 8) & 0xFF))
                position = end
            elif following == "\r":
                position = at + (3 if text[at + 2: at + 3] == "\n" else 2)
            elif following == "\n":
                position = at + 2
            else:
                position = at + 1  # a backslash before anything else is dropped
            continue
        if char == "(":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return "".join(parts).encode("latin-1"), at + 1
        parts.append(char)
        position = at + 1


def _hex(digits: str) -> bytes:
    try:
        return bytes.fromhex(digits)
    except ValueError:
        digits = HEX_JUNK.sub("", digits)
        return bytes.fromhex(digits + "0" if len(digits) % 2 else digits)


def _dictionary(items: list[Any]) -> dict[str, Any]:
    return {items[i]: items[i + 1] for i in range(0, len(items) - 1, 2) if isinstance(items[i], str)}


def operations(data: bytes) -> Iterator[tuple[list[Any], str]]:
    """The operations of a decoded content stream, in order (see the module)."""
    text = data.decode("latin-1")
    length = len(text)
    operands: list[Any] = []
    # Open arrays and dictionaries: (list being filled, is a dictionary).
    containers: list[tuple[list[Any], bool]] = []
    target = operands
    match_at = TOKEN.match
    position = 0
    while position < length:
        match = match_at(text, position)
        if match is None:
            break  # only whitespace is left
        position = match.end()
        kind = match.lastindex
        if kind == 1:
            token = match.group(1)
            target.append(float(token) if "." in token else int(token))
        elif kind == 6:
            token = match.group(6)
            if token == "true" or token == "false" or token == "null":
                target.append(True if token == "true" else False if token == "false" else None)
                continue
            if containers:
                # No operator can stand inside an array or dictionary: one was left open.
                containers.clear()
                target = operands
            if token == "BI":
                # Skip the inline image: its dictionary, "ID", one space, data, "EI".
                found = text.find("ID", position)
                end = INLINE_IMAGE_END.search(text, found + 3) if found >= 0 else None
                position = end.end() if end is not None else length
                operands = target = []
                continue
            yield operands, token
            operands = target = []
        elif kind == 3:
            target.append(_hex(match.group(3)))
        elif kind == 2:
            target.append(match.group(2))
        elif kind == 4:
            content = match.group(4)
            target.append(_literal(content + ")", 0)[0] if "\\" in content else content.encode("latin-1"))
        elif kind == 5:
            token = match.group(5)
            if token == "(":
                value, position = _literal(text, position)
                target.append(value)
            elif token == "[" or token == "<<":
                if len(containers) < MAX_DEPTH:
                    inner: list[Any] = []
                    containers.append((inner, token == "<<"))
                    target.append(inner)
                    target = inner
            elif (token == "]" or token == ">>") and containers:
                inner, is_dict = containers.pop()
                target = containers[-1][0] if containers else operands
                if is_dict:
                    target[-1] = _dictionary(inner)
