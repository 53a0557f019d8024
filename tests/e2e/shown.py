"""How the English page writes the core's figures (web/i18n/i18n.js), so a test compares the
text a person reads with numbers computed here.

Intl.NumberFormat rounds the exact value of a double half away from zero; Python's
format() rounds it half to even. Decimal of the double is that exact value, so rounding it
``ROUND_HALF_UP`` gives what the page shows.

>>> integer(11408), fixed(12.25, 1), percent(0.1234), shown_bytes(35328), shown_bytes(1), money(0.00022816)
('11,408', '12.3', '12.3 %', '35.3 KB', '1 byte', '0.000228')
>>> number("11,408"), number("1,234.5")
(11408, 1234.5)
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def _rounded(value: float, digits: int) -> Decimal:
    return Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def integer(value: float) -> str:
    """i18n.js ``integer``: no decimals, grouped."""
    return f"{_rounded(value, 0):,}"


def fixed(value: float, digits: int) -> str:
    """i18n.js ``formatFixed``: exactly ``digits`` decimals, grouped."""
    return f"{_rounded(value, digits):,.{digits}f}"


def percent(share: float) -> str:
    """i18n.js ``formatPercent``: a share (0..1) as "12.3 %"."""
    return f"{fixed(share * 100, 1)} %"


def shown_bytes(n: int) -> str:
    """i18n.js ``formatBytes``: powers of 1,000, one decimal; "1 byte", "950 bytes" below 1 KB."""
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{fixed(n / scale, 1)} {unit}"
    return f"{n:,} {'byte' if n == 1 else 'bytes'}"


def money(cost: float) -> str:
    """i18n.js ``formatMoney``: 2 decimals from 1 up, else 3 significant digits."""
    if cost == 0:
        return "0"
    if cost >= 1:
        return fixed(cost, 2)
    digits = 2 - math.floor(math.log10(cost))
    text = f"{_rounded(cost, digits):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def number(text: str) -> int | float:
    """A number as the page writes it ("11,408", "12.5") read back."""
    plain = text.strip().replace(",", "")
    return float(plain) if "." in plain else int(plain)
