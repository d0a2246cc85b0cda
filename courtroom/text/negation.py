"""Negation: ONE meaning for every reader of words. A cue ("not", "no", "never", "fails to", "lacks", "n't" ...) negates
the words after it to the end of its clause: a sentence end, a semicolon or colon, a spaced dash, or a contrast ("but",
"however", "although", "whereas", "while", "yet"); not a comma, so "no fever, cough, or fatigue" negates all three, and
"It was automated in 1926, not 1920" negates "1920" alone. A cue right after another (only function words between, no
punctuation: "did not fail to improve", "not unlikely") undoes it: the pair asserts. A word is negated where some cue reaches it,
however many do: "no fever and no cough" negates both."""

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
    """The characters of `text` each negation cue reaches: from after the cue to the end of its clause (a cue undone
    by the next one reaches nothing, nor does that one)."""
    cues = list(CUES.finditer(text))
    undone: set[int] = set()
    for i, (cue, after) in enumerate(zip(cues, cues[1:])):
        gap = text[cue.end():after.start()]
        if i not in undone and re.fullmatch(r"[\s\w]*", gap) and not content_words(gap):
            undone |= {i, i + 1}
    spans = []
    for i, cue in enumerate(cues):
        if i not in undone:
            end = _CLAUSE_END.search(text, cue.end())
            spans.append((cue.end(), end.start() if end else len(text)))
    return spans


def negated_keys(text: str) -> set[str]:
    """The keys of the content words `text` negates: every time the word stands in it, some cue reaches it."""
    spans = negated_spans(text)
    reached: dict[str, bool] = {}
    for word in content_words(text):
        inside = any(start <= word.start < end for start, end in spans)
        reached[word.key] = reached.get(word.key, True) and inside
    return {key for key, inside in reached.items() if inside}

