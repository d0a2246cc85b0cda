"""Negation: ONE meaning for every reader of words. A cue ("not", "no", "never", "fails to", "lacks", "n't" ...) negates
the words after it to the end of its clause: a sentence end, a semicolon or colon, a spaced dash, or a contrast ("but",
"however", "although", "whereas", "while", "yet"); not a comma, so "no fever, cough, or fatigue" negates all three, and
"It was automated in 1926, not 1920" negates "1920" alone."""

from __future__ import annotations

import re

CUES = re.compile(
    r"\b(?:not|no|never|neither|nor|none|nothing|without|cannot|fail(?:s|ed)?\s+to|lack(?:s|ed)?|unable|absence|"
    r"insignificant|non-?significant|unlikely|\w+n't)\b", re.IGNORECASE)
"""The words that negate what follows them."""
_CLAUSE_END = re.compile(r"[.;:!?](?=\s|$)|\s[-–—]+\s|[–—]|\b(?:but|however|although|though|whereas|while|yet)\b",
                         re.IGNORECASE)


def negated_spans(text: str) -> list[tuple[int, int]]:
    """The characters of `text` each negation cue reaches: from the cue to the end of its clause."""
    spans = []
    for cue in CUES.finditer(text):
        end = _CLAUSE_END.search(text, cue.end())
        spans.append((cue.start(), end.start() if end else len(text)))
    return spans

