"""Front matter: the YAML (``---``) or TOML (``+++``) block at the very start of a Markdown file.

Read only at the start, closed within a bounded number of lines, and only when every line
inside is that syntax; otherwise the lines stay Markdown (a rule, a setext heading ...).
Only the title is kept: it becomes the document's title, and the block is metadata, never
a heading nor a chunk. YAML is read by hand (the subset a title needs), TOML by the
standard library's ``tomllib``: no dependency, the same on CPython and in Pyodide.
"""

from __future__ import annotations


# Front matter (YAML between "---" lines, TOML between "+++" lines) is read only at the very
# start, closed within this many lines, and only when every line inside is its syntax.
_FRONT_MATTER_LINES = 2000
_FRONT_MATTER_CLOSE = {"---": ("---", "..."), "+++": ("+++",)}
FRONT_MATTER_OPENINGS = ("---", "+++", "\ufeff---", "\ufeff+++")
# YAML indicators that cannot start a plain key ("-" and quotes are read apart).
_YAML_KEY_INDICATORS = frozenset("[]{},&*!|>%@`?:#")
_YAML_NULLS = frozenset(["", "~", "null", "Null", "NULL"])
_YAML_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
                 "r": "\r", "e": "\x1b", " ": " ", "/": "/", "N": "\x85", "_": "\xa0", "L": "\u2028",
                 "P": "\u2029", '"': '"', "\\": "\\"}
_YAML_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def scan_front_matter(lines: list[str]) -> tuple[str, int, int, int, str] | None:
    """The front-matter block at the start of ``lines`` as a ``_scan`` tuple (title in the last field), or None.

    The block opens with a ``---`` (YAML) or ``+++`` (TOML) line, closes at the next
    ``---`` or ``...`` (YAML) or ``+++`` (TOML) line within :data:`_FRONT_MATTER_LINES`
    lines, and every line between must be that syntax (see ``_yaml_title`` and
    ``_toml_title``); otherwise the lines are Markdown (a rule, a setext heading ...).

    >>> scan_front_matter(["---", "title: 'Hello'", "tags: [a, b]", "---", "", "# Body"])
    ('front_matter', 0, 3, 0, 'Hello')
    >>> scan_front_matter(["---", "Just a paragraph", "---"]) is None  # a setext heading after a rule
    True
    """
    opening = lines[0].rstrip() if lines and lines[0][:1] in "-+" else ""
    closers = _FRONT_MATTER_CLOSE.get(opening)
    if closers is None:
        return None
    for index in range(1, min(len(lines), _FRONT_MATTER_LINES)):
        if lines[index].rstrip() in closers:
            body = lines[1:index]
            title = _toml_title(body) if opening == "+++" else _yaml_title(body)
            return None if title is None else ("front_matter", 0, index, 0, title)
    return None


def _yaml_title(body: list[str]) -> str | None:
    """The title of YAML front matter with the lines ``body`` ("" when none), or None if it is not YAML.

    Every line must be blank, a comment, a top-level ``key:`` (any key text, quoted or not),
    or, after a key, an indented line (a nested value, a block scalar, a continued scalar)
    or a ``-`` list item. A key must be quoted or free of spaces at least once: prose such
    as "Note that: it runs" is not read as a mapping. Empty front matter has no title.

    >>> _yaml_title(["title: Doc # a note", "Last Modified: 2024-01-01", "og.image: x.png"])
    'Doc'
    >>> _yaml_title(["title: >", "  A folded", "  title", "tags:", "- a"])
    'A folded title'
    >>> _yaml_title(["'title': 'It''s # not a comment'"])
    "It's # not a comment"
    >>> _yaml_title(["title: [a, b]"]), _yaml_title(["title: ~"]), _yaml_title(["this is prose: and more"])
    ('', '', None)
    """
    keyed = False  # a top-level key was read: indented lines and "- " items continue its value
    unambiguous = False  # some key was quoted or had no space in it
    title: tuple[int, str] | None = None
    for index, line in enumerate(body):
        if not line.strip():
            continue
        head = line[0]
        if head in (" ", "\t"):
            if not keyed:
                return None
            continue
        if head == "#":
            continue
        if head == "-" and line[1:2] in ("", " ", "\t"):
            if not keyed:
                return None
            continue
        found = _yaml_key(line)
        if found is None:
            return None
        key, value, quoted = found
        keyed = True
        unambiguous = unambiguous or quoted or len(key.split()) == 1
        if key == "title" and title is None:
            title = (index, value)
    if not keyed:
        return None if any(line.strip() for line in body) else ""
    if not unambiguous:
        return None
    if title is None:
        return ""
    index, value = title
    more = []
    for line in body[index + 1 :]:
        if line[:1] not in (" ", "\t", ""):
            break
        more.append(line.strip())
    return _yaml_scalar(value, more)


def _yaml_key(line: str) -> tuple[str, str, bool] | None:
    """(key, the rest of the line after its colon, whether the key was quoted) of a YAML mapping line, or None.

    >>> _yaml_key('"a: b": c'), _yaml_key("Last Modified: x"), _yaml_key("http://x")
    (('a: b', ' c', True), ('Last Modified', ' x', False), None)
    """
    head = line[0]
    if head in "\"'":
        end = _closing_quote(line, 1, head)
        if end < 0:
            return None
        rest = line[end + 1 :].lstrip(" \t")
        if rest[:1] != ":" or rest[1:2] not in ("", " ", "\t"):
            return None
        return _yaml_unquote(line[: end + 1]), rest[1:], True
    if head in _YAML_KEY_INDICATORS:
        return None
    colon = line.find(":")
    while colon >= 0 and line[colon + 1 : colon + 2] not in ("", " ", "\t"):
        colon = line.find(":", colon + 1)
    if colon < 0:
        return None
    key = line[:colon].rstrip()
    if " #" in key or "\t#" in key:
        return None  # the colon is inside a comment
    return key, line[colon + 1 :], False


def _yaml_scalar(value: str, more: list[str]) -> str:
    """The text of the YAML value that starts with ``value`` and goes on in the lines ``more`` (stripped).

    A title is one line: line breaks and runs of white space become one space. Null, a
    sequence, a mapping or an alias has no text ("").

    >>> _yaml_scalar(' "a \\\\"b\\\\"" # c', []), _yaml_scalar(" A long", ["title", ""]), _yaml_scalar("", ["- a"])
    ('a "b"', 'A long title', '')
    """
    value = value.strip()
    if value[:1] in ("!", "&"):  # tags (!!str) or anchors (&a) before the scalar
        words = value.split()
        skip = 0
        while skip < len(words) and words[skip][0] in "!&":
            skip += 1
        value = " ".join(words[skip:])
    lines = [line for line in more if line]
    head = value[:1]
    if head in ("|", ">"):
        return " ".join(" ".join(lines).split())
    if head in ("[", "{", "*"):
        return ""
    if head in ("\"", "'"):
        text = " ".join([value, *lines])
        end = _closing_quote(text, 1, head)
        return "" if end < 0 else " ".join(_yaml_unquote(text[: end + 1]).split())
    if not value or head == "#":
        if not lines or lines[0][:1] == "-" and lines[0][1:2] in ("", " ", "\t") or _yaml_key(lines[0]):
            return ""  # nothing, or a nested sequence or mapping
        value = lines.pop(0)
    parts = []
    for line in [value, *lines]:
        if line[0] == "#":
            break  # a comment line ends a plain scalar
        cut = min((i for i in (line.find(" #"), line.find("\t#")) if i >= 0), default=len(line))
        parts.append(line[:cut])
    text = " ".join(" ".join(parts).split())
    return "" if text in _YAML_NULLS else text


def _closing_quote(text: str, start: int, quote: str) -> int:
    """The index of the quote that closes a YAML string opened before ``start``, or -1.

    >>> _closing_quote("'It''s' x", 1, "'"), _closing_quote('"a \\\\" b" x', 1, '"')
    (6, 7)
    """
    i = start
    n = len(text)
    while i < n:
        if quote == "'":
            i = text.find("'", i)
            if i < 0 or text[i + 1 : i + 2] != "'":
                return i
            i += 2
            continue
        char = text[i]
        if char == '"':
            return i
        i += 2 if char == "\\" else 1
    return -1


def _yaml_unquote(token: str) -> str:
    """The text of a quoted YAML scalar (quotes included in ``token``), escapes decoded.

    >>> _yaml_unquote("'It''s'"), _yaml_unquote('"tab\\\\there \\\\u00e9"')
    ("It's", 'tab\\there é')
    """
    inner = token[1:-1]
    if token[0] == "'":
        return inner.replace("''", "'")
    if "\\" not in inner:
        return inner
    out = []
    i = 0
    n = len(inner)
    while i < n:
        slash = inner.find("\\", i)
        if slash < 0 or slash == n - 1:
            out.append(inner[i:])
            break
        out.append(inner[i:slash])
        code = inner[slash + 1]
        width = _YAML_HEX_ESCAPES.get(code, 0)
        digits = inner[slash + 2 : slash + 2 + width]
        if width and len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits):
            out.append(chr(min(int(digits, 16), 0x10FFFF)))
            i = slash + 2 + width
        else:
            out.append(_YAML_ESCAPES.get(code, code))
            i = slash + 2
    return "".join(out)


def _toml_title(body: list[str]) -> str | None:
    """The title of TOML front matter with the lines ``body`` ("" when none), or None if it is not TOML.

    Read with :mod:`tomllib`; front matter it refuses (a duplicate key, a bad date ...) is
    still front matter when its lines look like TOML (see ``_toml_lines``). Only a string
    ``title`` at the top level (before any ``[table]``) is a title.

    >>> _toml_title(["title = 'Doc'  # c", "tags = [", '  "a",', "]", "[params]", "title = 'x'"])
    'Doc'
    >>> _toml_title(["title = 'Doc'", "title = 'again'"]), _toml_title(["Some prose"])
    ('Doc', None)
    """
    import tomllib  # here: only TOML front matter needs it

    try:
        title = tomllib.loads("\n".join(body)).get("title")
    except (ValueError, RecursionError):  # TOMLDecodeError, or an integer too long
        return _toml_lines(body)
    return " ".join(title.split()) if isinstance(title, str) else ""


def _toml_lines(body: list[str]) -> str | None:
    """Best effort for TOML that :mod:`tomllib` refuses: the title, or None when a line is not TOML.

    Each line is blank, a comment, a ``[table]`` or ``[[array]]`` header, a ``key = value``
    line, or a line inside a multi-line array, inline table or string.
    """
    title: list[str] = []
    in_title = False
    table = False
    quotes, depth = "", 0  # a multi-line string and the brackets still open
    for line in body:
        if quotes or depth:
            quotes, depth = _toml_open(line, quotes, depth)
            if in_title:
                title.append(line)
            continue
        in_title = False
        stripped = line.strip()
        if not stripped or stripped[0] == "#":
            continue
        if stripped[0] == "[":
            if "]" not in stripped:
                return None
            table = True
            continue
        key, sep, value = stripped.partition("=")
        key = key.strip()
        if not sep or not _toml_key(key):
            return None
        quotes, depth = _toml_open(value, "", 0)
        if not table and not title and key.strip("\"'") == "title":
            title.append(value)
            in_title = True
    if not title:
        return ""
    import tomllib

    try:
        text = tomllib.loads("title = " + "\n".join(title).strip()).get("title")
    except (ValueError, RecursionError):  # TOMLDecodeError, or an integer too long
        return ""
    return " ".join(text.split()) if isinstance(text, str) else ""


def _toml_key(key: str) -> bool:
    """Whether ``key`` looks like a TOML key: bare (``a-b_1``), dotted or quoted parts."""
    if key[:1] in ("\"", "'"):
        return len(key) > 1 and key[-1] in ("\"", "'")
    parts = [part.strip() for part in key.split(".")]
    return all(part.isascii() and part.replace("_", "a").replace("-", "a").isalnum() for part in parts)


def _toml_open(text: str, quotes: str, depth: int) -> tuple[str, int]:
    """The multi-line string quotes and bracket depth still open after ``text``, given those open before it."""
    i = 0
    n = len(text)
    while i < n:
        if quotes:
            end = text.find(quotes, i)
            if end < 0:
                return quotes, depth
            i = end + 3
            while text[i : i + 1] == quotes[0]:
                i += 1  # up to two quotes may end the string's text
            quotes = ""
            continue
        char = text[i]
        if char == "#":
            break
        if char in "\"'":
            if text[i : i + 3] == char * 3:
                quotes = char * 3
                i += 3
                continue
            end = _closing_quote(text, i + 1, '"') if char == '"' else text.find("'", i + 1)
            if end < 0:
                break
            i = end + 1
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return quotes, depth


def head_lines(text: str) -> str:
    """The first :data:`_FRONT_MATTER_LINES` lines of ``text``."""
    end = -1
    for _ in range(_FRONT_MATTER_LINES):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[: end + 1]
