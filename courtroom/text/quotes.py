"""Quotes: whether a quote is found in a text, whitespace, case and surrounding punctuation aside."""

from __future__ import annotations

import re
from collections.abc import Collection

from courtroom.text.words import content_words


def normalize(text: str) -> str:
    """Lower case, single spaces, no surrounding quotes or punctuation: for matching quotes."""
    collapsed = " ".join(text.lower().split())
    return collapsed.strip(" \"'“”‘’.,;:!?")


def quoted_in(quote: str, text: str) -> bool:
    """True when `quote` appears in `text` after whitespace and case normalisation."""
    needle = normalize(quote)
    return bool(needle) and needle in " ".join(text.lower().split())



_CLAUSE_END = re.compile(r"[,;:]\s+|\s+[—–-]\s+|\s*[()]\s*")


def found_at(quote: str, text: str, start: int, end: int) -> bool:
    """Whether `text` holds exactly `quote` at characters [start, end): a quote checked where it is said to
    be."""
    return bool(quote.strip()) and 0 <= start <= end <= len(text) and text[start:end] == quote


def passage(text: str, keys: Collection[str], longest: int = 25, shortest: int = 8) -> tuple[int, int]:
    """Where in `text` (a sentence) the words matching `keys` are said: the fewest clauses holding the most of
    them, widened by neighbouring clauses to at least `shortest` words and cut to at most `longest` (the whole
    sentence when no word matches)."""
    cuts = [0, *(m.end() for m in _CLAUSE_END.finditer(text)), len(text)]
    clauses = [(a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()] or [(0, len(text))]
    held = [sum(w.key in keys for w in content_words(text[a:b])) for a, b in clauses]
    runs = [(first, last) for first in range(len(clauses)) for last in range(first, len(clauses))]
    first, last = max(runs, key=lambda run: (sum(held[run[0]:run[1] + 1]), run[0] - run[1], -run[0]))
    if not any(held):
        first, last = 0, len(clauses) - 1

    def words(a: int, b: int) -> int:
        return len(text[clauses[a][0]:clauses[b][1]].split())
    while words(first, last) < shortest and (first > 0 or last < len(clauses) - 1):
        first, last = (first - 1, last) if first > 0 else (first, last + 1)
    start, end = clauses[first][0], clauses[last][1]
    if len(found := list(re.finditer(r"\S+", text[start:end]))) > longest:
        end = start + found[longest - 1].end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",;:—–-("):
        end -= 1
    return start, end
