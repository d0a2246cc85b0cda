"""Quotes: whether a quote is found in a text (whitespace, case and surrounding punctuation aside), and whether a
quoted passage holds the words named from another text (every content word of them, stemmed)."""

from __future__ import annotations

from courtroom.text.words import content_words


def normalize(text: str) -> str:
    """Lower case, single spaces, no surrounding quotes or punctuation: for matching quotes."""
    collapsed = " ".join(text.lower().split())
    return collapsed.strip(" \"'“”‘’.,;:!?")


def quoted_in(quote: str, text: str) -> bool:
    """True when `quote` appears in `text` after whitespace and case normalisation."""
    needle = normalize(quote)
    return bool(needle) and needle in " ".join(text.lower().split())


def holds_words(words: str, quote: str) -> bool:
    """Whether `quote` holds every content word of `words` (stemmed), or, for words without a content word, the
    words themselves (normalised)."""
    keys = {w.key for w in content_words(words)}
    if keys:
        return keys <= {w.key for w in content_words(quote)}
    return normalize(words) in normalize(quote)
