"""MathML -> linear text, the way a person types an equation (``E=mc^2``, ``(a+b)/2``, ``∑_(i=1)^n x_i``).

The HTML reader (:mod:`.html`) parses a ``<math>`` element into :class:`MathNode` objects as
it reads the page (which tags belong to the math, which end it: :data:`MATH_BREAKOUT`) and
asks :func:`math_item` for the text of each finished element; :func:`math_line` is the text
as written into the document. The rules the OMML reader of ``docx`` shares (parenthesising,
invisible operators, the nesting cap) are in :mod:`._math`.
"""

from __future__ import annotations

from ._math import INVISIBLE_OPERATORS, grouped
from .writer import collapse, integer_attribute

__all__ = ["MATH_BREAKOUT", "MATH_EMPTY", "MATH_INTEGRATION", "MathItem", "MathNode", "math_item", "math_line"]

# Token elements (their text is the equation's, white space trimmed), and the elements in which
# HTML tags are content rather than the end of the math (the HTML standard's integration points).
MATH_TOKENS = frozenset(("mi", "mn", "mo", "mtext", "ms"))
MATH_INTEGRATION = MATH_TOKENS | {"annotation-xml"}
MATH_EMPTY = frozenset(("mspace", "none", "mprescripts", "mglyph", "malignmark", "maligngroup"))
# HTML start tags that end an open <math> (outside an integration point), as the HTML standard says.
MATH_BREAKOUT = frozenset("""b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr
    i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var""".split())
# Structures whose text a following letter or digit would run into ("y^2" "a" -> "y^2 a"), and
# those that would run into a letter or digit before them ("x" "1/2" -> "x 1/2", but "mc^2").
_MATH_SCRIPTS = frozenset(("msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mfrac",
                           "mroot", "msqrt"))
_MATH_LEADING = frozenset(("mfrac", "mroot", "limits"))
# Accents over (and under) a letter, as the combining characters written after it (OMML's m:acc).
_MATH_ACCENTS = {"^": "\u0302", "\u02c6": "\u0302", "\u0302": "\u0302", "~": "\u0303", "\u02dc": "\u0303",
                 "\u0303": "\u0303", "\u00af": "\u0304", "\u0304": "\u0304", "\u203e": "\u0305", "\u0305": "\u0305",
                 "\u02d9": "\u0307", "\u0307": "\u0307", "\u00a8": "\u0308", "\u0308": "\u0308", "\u02c7": "\u030c",
                 "\u030c": "\u030c", "\u02d8": "\u0306", "\u0306": "\u0306", "\u00b4": "\u0301", "\u0301": "\u0301",
                 "`": "\u0300", "\u0300": "\u0300", "\u2192": "\u20d7", "\u20d7": "\u20d7"}
_MATH_UNDER_ACCENTS = {"_": "\u0332", "\u0332": "\u0332"}
_MATH_PRIMES = frozenset("'\u2032\u2033\u2034\u2057")
# Operators whose scripts are limits, and after which the operand stands apart ("∑_(i=1)^n x_i").
_MATH_LARGE_OPERATORS = frozenset("∑∏∐∫∬∭∮∯∰∱∲∳⋀⋁⋂⋃⨀⨁⨂⨄⨆⨌")


MathItem = tuple[str, str, tuple[str, ...] | None]


def math_item(node: MathNode) -> MathItem:
    """``(kind, text, lines)`` of a finished MathML element, the elements inside it read already.

    ``kind`` is the element's name, or that of the one element it wraps (an ``mrow`` around
    an ``msup`` spaces like the ``msup``), or ``limits`` for an operator with limits;
    ``lines`` are a table's rows, each as one line (for display math), else None.

    >>> fraction = MathNode("mfrac", {}); fraction.items = [("mrow", "a+b", None), ("mn", "2", None)]
    >>> math_item(fraction)
    ('mfrac', '(a+b)/2', None)
    """
    name = node.name
    items = node.items
    if name in MATH_TOKENS:
        text = collapse("".join([text for _, text, _ in items]))
        if name == "ms":
            text = node.attrs.get("lquote", '"') + text + node.attrs.get("rquote", '"')
        return name, text, None
    if name == "mspace":
        return name, " ", None
    if name == "mglyph":
        return name, collapse(node.attrs.get("alt", "")), None
    if name in ("annotation", "annotation-xml", "mphantom"):  # the source, or room left blank
        return name, "", None
    if node.deep:
        return "mrow", "".join([text for _, text, _ in items]), None
    # Its elements (annotations are the source, not the equation), and all it shows in order.
    args = [item for item in items if item[0] not in ("", "annotation", "annotation-xml")]
    parts = [item for item in items if item[1] and item[0] not in ("annotation", "annotation-xml")]
    if name == "semantics":
        return args[0] if args else (name, "", None)
    if name == "maction":
        chosen = integer_attribute(node.attrs.get("selection"), 1) or 1
        return args[chosen - 1] if 0 < chosen <= len(args) else (args[0] if args else (name, "", None))
    if name == "mfenced":
        attrs = node.attrs
        separators = "".join(attrs.get("separators", ",").split())
        pieces = []
        for index, (_, text, _) in enumerate(args):
            if index and separators:
                pieces.append(separators[min(index, len(separators)) - 1])
            pieces.append(text)
        return name, attrs.get("open", "(") + "".join(pieces) + attrs.get("close", ")"), None
    if name == "mtable":
        return name, "; ".join([text for _, text, _ in args]), tuple([lines[0] if lines else text
                                                                     for _, text, lines in args])
    if name in ("mtr", "mlabeledtr"):
        cells = args[1:] if name == "mlabeledtr" else args
        line = _run_together([text for _, text, _ in cells])
        if name == "mlabeledtr" and args and args[0][1]:
            line += " " + args[0][1]  # the equation's number after it
        return name, ", ".join([text for _, text, _ in cells]), (line,)
    if name == "msqrt":
        return name, "√" + grouped(_math_row(parts)), None
    scripted = _scripted(name, args)
    if scripted is not None:
        return scripted
    if len(parts) == 1 and parts[0][0]:
        return parts[0]
    return name, _math_row(parts), None


def _scripted(name: str, args: list[MathItem]) -> MathItem | None:
    """A script, limit, fraction or root structure's item; None when it lacks its arguments."""
    if name == "mfrac" and len(args) >= 2:
        return name, grouped(args[0][1]) + "/" + grouped(args[1][1]), None
    if name == "mroot" and len(args) >= 2:
        return name, args[1][1] + "√" + grouped(args[0][1]), None
    if name == "mmultiscripts" and args:
        before, after = [], []
        scripts = after
        pairs = args[1:]
        index = 0
        while index < len(pairs):
            if pairs[index][0] == "mprescripts":
                scripts = before
                index += 1
                continue
            sub, sup = pairs[index][1], ""
            index += 1
            if index < len(pairs) and pairs[index][0] != "mprescripts":
                sup = pairs[index][1]
                index += 1
            scripts.append(("_" + grouped(sub) if sub else "") + ("^" + grouped(sup) if sup else ""))
        return name, "".join(before) + args[0][1] + "".join(after), None
    need = 3 if name in ("msubsup", "munderover") else 2
    if name not in ("msub", "msup", "msubsup", "munder", "mover", "munderover") or len(args) < need:
        return None
    base_kind, base, _ = args[0]
    kind = "limits" if base_kind == "mo" and _is_large_operator(base) else name
    first = args[1][1]
    if name == "mover" and first in _MATH_ACCENTS:
        return base_kind, base + _MATH_ACCENTS[first], None
    if name == "munder" and first in _MATH_UNDER_ACCENTS:
        return base_kind, base + _MATH_UNDER_ACCENTS[first], None
    if name == "msup" and first and all(char in _MATH_PRIMES for char in first):
        return base_kind, base + first, None  # f′, not f^′
    if name == "msup" or name == "mover":
        return kind, base + "^" + grouped(first), None
    if need == 2:
        return kind, base + "_" + grouped(first), None
    return kind, base + "_" + grouped(first) + "^" + grouped(args[2][1]), None


def _is_large_operator(text: str) -> bool:
    """True for an operator whose scripts are limits: ∑, ∫ ... or a word (lim, max, det)."""
    return text in _MATH_LARGE_OPERATORS or (len(text) > 1 and text.isalpha())


def _math_row(items: list[MathItem]) -> str:
    """The text of elements side by side, a space where neighbours would otherwise read as one.

    >>> _math_row([("msup", "y^2", None), ("mi", "a", None), ("mi", "b", None), ("mo", "+", None),
    ...            ("mi", "sin", None), ("mi", "x", None)])
    'y^2 ab+sin x'
    """
    pieces: list[str] = []
    previous: MathItem | None = None
    for item in items:
        if previous is not None and _spaced(previous, item):
            pieces.append(" ")
        pieces.append(item[1])
        previous = item
    return "".join(pieces)


def _spaced(left: MathItem, right: MathItem) -> bool:
    """True when ``right`` must stand apart from ``left``: after an operator with limits, as
    ``∑_(i=1)^n x_i``; between a letter or digit and another that a script, a fraction or a
    word (``sin``, ``if``) would otherwise run into (``y^2 a``, ``x 1/2``, ``sin x``, but
    ``mc^2``, ``2x``, ``ab``)."""
    left_kind, left_text, _ = left
    right_kind, right_text, _ = right
    if left_kind == "limits":
        return right_text[0] not in " )]},;"
    if not (left_text[-1].isalnum() and right_text[0].isalnum()):
        return False
    return (left_kind in _MATH_SCRIPTS or right_kind in _MATH_LEADING
            or (left_kind in ("mi", "mo", "mtext") and len(left_text) > 1)
            or (right_kind in ("mi", "mo", "mtext") and len(right_text) > 1))


def _run_together(cells: list[str]) -> str:
    """The cells of an equation array's row as one line: ``x`` ``=1`` -> ``x=1``, ``a`` ``b`` -> ``a b``."""
    pieces: list[str] = []
    for cell in cells:
        if not cell:
            continue
        if pieces and pieces[-1][-1].isalnum() and cell[0].isalnum():
            pieces.append(" ")
        pieces.append(cell)
    return "".join(pieces)


def math_line(text: str) -> str:
    """An equation's text as written: the invisible function application (U+2061) is a space
    (``sin θ``, but ``f(x)``), the other invisible operators are dropped (as in readers/docx.py)."""
    return text.replace("\u2061(", "(").translate(INVISIBLE_OPERATORS)


class MathNode:
    """One open MathML element within :data:`._math.MAX_MATH_NESTING`: its name, attributes, and
    ``(kind, text, lines)`` of each element and text inside it (see :func:`math_item`)."""

    __slots__ = ("name", "attrs", "items", "deep")

    def __init__(self, name: str, attrs: dict[str, str]) -> None:
        self.name = name
        self.attrs = attrs
        self.items: list[MathItem] = []
        self.deep = False  # elements past MAX_MATH_NESTING were opened in it: read its text as it is
