"""Negation: ONE meaning for every reader of words. A negation cue ("not", "no", "never", "fails to", "lacks",
"n't" ...) negates the words after it up to the end of its clause: a sentence end, a semicolon or colon, a dash
between spaces, or a contrast that opens a new clause ("but", "however", "although", "whereas", "while", "yet").
Commas do not end it, so "no fever, cough, or fatigue" negates all three and "did not, however, improve" negates
"improve"; "It was automated in 1926, not 1920" negates "1920" alone; "no fever and no cough" negates both (two cues
do not cancel). Words before a cue are not reached: "The drug improved survival, but not in the elderly" negates
"elderly" only.
"""

from __future__ import annotations

import re

from courtroom.text.words import content_words

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


def negated_words(text: str) -> set[str]:
    """The keys (`courtroom.text.words.word_key`) of the content words of `text` that a negation reaches."""
    spans = negated_spans(text)
    return {w.key for w in content_words(text) if any(a <= w.start and w.end <= b for a, b in spans)}
