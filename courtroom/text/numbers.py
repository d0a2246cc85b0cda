"""Numbers as written: ONE grammar for every reader of figures: digits with separators and decimals, a
currency sign before and a percent or a scale (`SCALES`) after ("1,200", "$1,200" and "1.2 thousand" are one
value), at its written precision ("21.1%" stands for anything that rounds to it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(
    r"(?<![\w.,])([$€£]\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(%)|\s?(thousand|million|billion|trillion|percent)\b|(k|m|mn|bn)\b)?(?!\w)", re.IGNORECASE)
SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9,
          "trillion": 1e12}
"""What a scale word or suffix multiplies by."""


@dataclass(frozen=True)
class Number:
    """A number written in a text: where, its value (scale applied), its unit, and its written precision."""

    text: str
    start: int
    end: int
    value: float
    unit: str = ""
    """`%` (a percent sign or word), a currency sign (`$`, `€`, `£`), or empty."""
    digits: float = 0.0
    """The digits as written, without separators, currency or scale ("$1.2 billion": 1.2)."""
    decimals: int = 0
    """How many decimals the digits are written with."""

    @property
    def tolerance(self) -> float:
        """Half a unit of the last written digit, in the number's own scale ("$1.2 billion" is written to the
        hundred million), at least 0.05% of its value: a number is as precise as it is written."""
        unit = abs(self.value) / self.digits if self.digits else 1.0
        return max(0.5 * 10 ** -self.decimals * unit, abs(self.value) * 5e-4)

    @property
    def is_year(self) -> bool:
        """Four digits from 1900 to 2100, written alone."""
        return (self.value.is_integer() and 1900 <= self.value <= 2100
                and re.fullmatch(r"\d{4}", self.text) is not None)


def _number(match: re.Match[str], offset: int = 0) -> Number:
    written = match.group(2).replace(",", "")
    scale = (match.group(4) or match.group(5) or "").lower()
    digits = float(written)
    unit = "%" if match.group(3) or scale == "percent" else (match.group(1) or "").strip()
    return Number(match.group(), match.start() + offset, match.end() + offset,
                  float(f"{digits * SCALES.get(scale, 1.0):.12g}"), unit, digits,
                  len(written.split(".")[1]) if "." in written else 0)


def numbers(text: str) -> list[Number]:
    """Every number written in `text`, in order."""
    return [_number(m) for m in _NUMBER.finditer(text)]


def number_value(text: str) -> float | None:
    """The value a written number stands for ("1,200", "$1.2 thousand", "1.2k", "12%"), or None if not one
    number."""
    match = _NUMBER.fullmatch(text.strip())
    return None if match is None else _number(match).value
