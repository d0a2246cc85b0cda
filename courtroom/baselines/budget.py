"""Bounds of the baselines' outputs, and token budgets that let constrained generation finish them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

REASON_CHARS = 200
MAX_REASONS = 3
Reason = Annotated[str, Field(max_length=REASON_CHARS)]
"""A reason of a baseline's output, bounded."""
STATEMENT_CHARS = 150


def token_budget(string_chars: int, overhead: int = 40) -> int:
    """Tokens enough for constrained generation to finish the longest output its schema allows: a token of
    ASCII text holds at least a character, so the schema's string bounds plus the JSON around them (not a
    proof: escapes and non-ASCII text take more). It only caps generation."""
    return string_chars + overhead


SINGLE_TOKEN_BUDGET = token_budget(MAX_REASONS * (REASON_CHARS + 8))
