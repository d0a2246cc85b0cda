"""Quotes: whether a quote is found in a text, whitespace, case and surrounding punctuation aside."""

from __future__ import annotations


def normalize(text: str) -> str:
    """Lower case, single spaces, no surrounding quotes or punctuation: for matching quotes."""
    collapsed = " ".join(text.lower().split())
    return collapsed.strip(" \"'“”‘’.,;:!?")


def quoted_in(quote: str, text: str) -> bool:
    """True when `quote` appears in `text` after whitespace and case normalisation."""
    needle = normalize(quote)
    return bool(needle) and needle in " ".join(text.lower().split())

