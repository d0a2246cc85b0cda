"""Written numbers compared by value (`text.numbers.number_value`)."""

from __future__ import annotations

import pytest

from courtroom.text.numbers import number_value


@pytest.mark.parametrize("text, value", [
    ("1,200", 1200.0), ("1200", 1200.0), ("$1,200", 1200.0), ("1.2 thousand", 1200.0), ("1.2k", 1200.0),
    ("1200.0", 1200.0), ("3.5bn", 3.5e9), ("2 million", 2e6), ("12%", 12.0), ("12 percent", 12.0),
    ("3rd", None), ("twelve", None), ("1.2.3", None),
])
def test_numbers_are_compared_by_value(text: str, value: float | None) -> None:
    assert number_value(text) == value
