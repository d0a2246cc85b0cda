"""Negation: ONE meaning for every reader of words. A cue (`CUES`) negates the words after it to the end of
its clause (`_CLAUSE_END`; not a comma: "no fever, cough, or fatigue" negates all three); a cue right after
another ("did not fail to", "not unlikely") undoes it; a word is negated where some cue reaches it ("no fever
and no cough" negates both). Cues are read in any Unicode spelling: NFKC, every apostrophe as "'" ("wasn’t" is
"wasn't")."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

from courtroom.text.words import content_words

CUES = re.compile(
    r"\b(?:not|no|never|neither|nor|none|nothing|without|cannot|fail(?:s|ed)?\s+to|lack(?:s|ed)?|unable|absence|"
    r"insignificant|non-?significant|unlikely|\w+n't)\b", re.IGNORECASE)
"""The words that negate what follows them."""
_CLAUSE_END = re.compile(r"[.;:!?](?=\s|$)|\s[-–—]+\s|[–—]|"
                         r"\b(?:but|however|although|though|whereas|while|yet)\b", re.IGNORECASE)
APOSTROPHES = "’ʼ＇‘`´′"
"""The characters written for an apostrophe ("wasn’t")."""


@lru_cache(maxsize=4096)
def _plain(char: str) -> str:
    """`char` as NFKC writes it when that is one character, an apostrophe as "'"."""
    nfkc = unicodedata.normalize("NFKC", char)
    return "'" if char in APOSTROPHES else nfkc if len(nfkc) == 1 else char


def plain(text: str) -> str:
    """`text` with each character in its plain spelling: as long as `text`, so a position in one is one in the
    other."""
    return text.replace("`", "'") if text.isascii() else "".join(map(_plain, text))


def negated_spans(text: str) -> list[tuple[int, int]]:
    """The characters of `text` each negation cue not undone reaches: from after it to the end of its
    clause."""
    text = plain(text)
    cues = list(CUES.finditer(text))
    undone: set[int] = set()
    for i, (cue, after) in enumerate(zip(cues, cues[1:])):
        gap = text[cue.end():after.start()]
        if i not in undone and re.fullmatch(r"[\s\w]*", gap) and not content_words(gap):
            undone |= {i, i + 1}
    spans, end = [], -1
    for i, cue in enumerate(cues):
        if end < cue.end():  # past the clause end found for the cues before: seek the next one
            found = _CLAUSE_END.search(text, cue.end())
            end = found.start() if found else len(text)
        if i not in undone:
            spans.append((cue.end(), end))
    return spans


def word_scope(text: str) -> dict[str, bool]:
    """The keys of the content words of `text`, each with whether a cue reaches it every time it stands
    there."""
    spans = negated_spans(text)
    # the furthest end so far
    starts, reach = [s for s, _ in spans], list(accumulate((e for _, e in spans), max))
    scope: dict[str, bool] = {}
    for word in content_words(text):
        before = bisect_right(starts, word.start)  # the scopes that start at or before the word
        scope[word.key] = scope.get(word.key, True) and before > 0 and word.start < reach[before - 1]
    return scope


def negated_keys(text: str) -> set[str]:
    """The keys of the content words `text` negates (`word_scope`)."""
    return {key for key, negated in word_scope(text).items() if negated}
