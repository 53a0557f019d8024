"""The checks every number a person gives passes: whole counts, sizes and overlaps, prices, ratios.

The calculator, the splitter, the form fields and the CLI flags share them, so a value is
refused with the same message (naming the field and the fix) wherever it was typed.
"""

from __future__ import annotations

from ..errors import RagchunkError
from . import EXAMPLES, MAX_CHARS_PER_TOKEN, MAX_CHUNK_SIZE, MAX_PRICE_PER_MILLION


def shown_as(value: object, shown: str | None) -> str:
    """How a message shows ``value``: as the person wrote it (``shown``), else 1,234 or its repr."""
    if shown is not None:
        return shown
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return repr(value)


def example_of(field: str) -> str:
    """A value of ``field`` that a message offers as an example (``settings.EXAMPLES``).

    >>> example_of("price_per_million"), example_of("chunk_size")
    ('0.02', '512')
    """
    return EXAMPLES.get(field, EXAMPLES["chunk_size"])


def check_whole(
    field: str, label: str, value: object, minimum: int, maximum: int, *, unit: str = "tokens", shown: str | None = None
) -> int:
    """Validate a whole count within [minimum, maximum]; ``shown`` is how the user wrote it.

    >>> check_whole("chunk_size", "chunk size", 512.0, 1, 10)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: chunk size (512.0) is too large: enter at most 10
    """
    if type(value) is int and minimum <= value <= maximum:
        return value  # the usual case, before any message is made
    text = shown_as(value, shown)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RagchunkError(field, f"{label} ({text}) is not a number: enter a whole number of {unit}",
                            "not_a_number", {"value": text, "example": example_of(field)})
    if value < minimum:
        raise RagchunkError(field, f"{label} ({text}) must be at least {minimum:,}: enter a larger number",
                            "too_small", {"value": text, "minimum": minimum})
    if value > maximum:
        raise RagchunkError(field, f"{label} ({text}) is too large: enter at most {maximum:,}",
                            "too_large", {"value": text, "maximum": maximum})
    if isinstance(value, float) and not value.is_integer():
        raise RagchunkError(field, f"{label} ({text}) must be a whole number of {unit}: round it",
                            "not_whole", {"value": text, "unit": unit})
    return int(value)


def check_chunking(chunk_size: int, overlap: int) -> tuple[int, int]:
    """Validate a chunk size and an overlap in tokens; return them as ints.

    >>> check_chunking(512, 64)
    (512, 64)
    >>> check_chunking(512, 512)
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: overlap (512) must be smaller than chunk size (512): lower the overlap
    """
    size = check_whole("chunk_size", "chunk size", chunk_size, 1, MAX_CHUNK_SIZE)
    over = check_whole("overlap", "overlap", overlap, 0, MAX_CHUNK_SIZE - 1)
    if over >= size:
        raise overlap_not_smaller(over, size)
    return size, over


def overlap_not_smaller(overlap: int, chunk_size: int) -> RagchunkError:
    """The error for an overlap that is not smaller than the chunk size."""
    return RagchunkError(
        "overlap",
        f"overlap ({overlap:,}) must be smaller than chunk size ({chunk_size:,}): lower the overlap",
        "overlap_not_smaller",
        {"overlap": overlap, "chunk_size": chunk_size},
    )


def _whole(number: float) -> float | int:
    # Limits travel as JSON params; 100.0 and 100 must read the same on both sides.
    return int(number) if float(number).is_integer() else number


def check_price(price_per_million: float | None, *, shown: str | None = None) -> float | None:
    """Validate an optional price in currency units per million tokens.

    >>> check_price(None), check_price(0.13)
    (None, 0.13)
    """
    if price_per_million is None:
        return None
    return _check_real("price_per_million", "price per million tokens", price_per_million, 0.0, MAX_PRICE_PER_MILLION,
                       inclusive=True, shown=shown)


def _check_real(field: str, label: str, value: object, minimum: float, maximum: float, *, inclusive: bool,
                shown: str | None) -> float:
    text = shown_as(value, shown)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RagchunkError(field, f"{label} ({text}) is not a number: enter a number", "not_a_number",
                            {"value": text, "example": example_of(field)})
    number = float(value)
    if number < minimum or (number == minimum and not inclusive):
        relation = "at least" if inclusive else "greater than"
        raise RagchunkError(field, f"{label} ({text}) must be {relation} {minimum:g}: enter a larger number",
                            "too_small" if inclusive else "not_greater", {"value": text, "minimum": _whole(minimum)})
    if number > maximum:
        raise RagchunkError(field, f"{label} ({text}) is too large: enter at most {maximum:,.0f}",
                            "too_large", {"value": text, "maximum": _whole(maximum)})
    return number


def check_ratio(chars_per_token: float, *, shown: str | None = None) -> float:
    """Validate a characters-per-token ratio (greater than 0, at most 100).

    >>> check_ratio(4)
    4.0
    """
    return _check_real("chars_per_token", "characters per token", chars_per_token, 0.0, MAX_CHARS_PER_TOKEN,
                       inclusive=False, shown=shown)
