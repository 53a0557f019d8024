"""What the readers of equations share (OMML in ``docx``, MathML in ``html``): equations are
written as linear text, the way a person types them (``E=mc^2``, ``(a+b)/2``, ``√x``)."""

from __future__ import annotations

__all__ = ["INVISIBLE_OPERATORS", "MAX_MATH_NESTING", "grouped"]

# The invisible function application (U+2061) reads as a space ("sin θ"); the invisible times,
# separator and plus are dropped.
INVISIBLE_OPERATORS = {0x2061: " ", 0x2062: None, 0x2063: None, 0x2064: None}
# Past this depth an equation's structure is read as plain text, so the work stays linear.
MAX_MATH_NESTING = 32


def grouped(text: str) -> str:
    """``text`` as a script or an operand: in parentheses unless it is one character, all
    letters and digits, or in one pair of parentheses already.

    >>> grouped("2"), grouped("10"), grouped("-6"), grouped("(a+b)"), grouped("(a)+(b)")
    ('2', '10', '(-6)', '(a+b)', '((a)+(b))')
    """
    if len(text) <= 1 or text.isalnum():
        return text
    if text[0] == "(" and text[-1] == ")":
        depth = 0
        for index, char in enumerate(text):
            depth += (char == "(") - (char == ")")
            if depth == 0:
                if index == len(text) - 1:
                    return text
                break
    return f"({text})"
