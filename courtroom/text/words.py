"""Words: the content words of a text, the key they are matched by, and the vocabulary of a case's sources,
which tells the words of a statement the sources never use (lexical evidence, not proof)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import snowballstemmer

_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:'[^\W\d_]+)?")

STOP_WORDS = frozenset(
    "a an the of in on at to for from by with and or but nor is are was were be been being am it its it's "
    "this that these those as which who whom whose what when where why how not no yes do does did done has "
    "have had having can could will would shall should may might must there their theirs they them he she "
    "his her hers him we our ours us you your yours i me my mine than then so such also into about over "
    "under after before between through during up down out off again further once here all any both each few "
    "more most other some own same only very just too s t if because while until against above below".split()
)
"""Function words: they carry no claim, so they are never exhibits."""


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Word:
    """A content word of a text: where it is, and the key it is matched by."""

    text: str
    start: int
    end: int
    key: str


def word_key(word: str) -> str:
    """The form words are matched by: numbers without thousands separators, other words lower-cased and
    stemmed."""
    if word[0].isdigit():
        return re.sub(r",(?=\d{3}\b)", "", word)
    return _stemmer().stemWord(word.lower().replace("'s", ""))


def content_words(text: str) -> list[Word]:
    """The content words of `text` (function words left out), with their character spans."""
    return [Word(m.group(), m.start(), m.end(), word_key(m.group())) for m in _WORD.finditer(text)
            if m.group().lower() not in STOP_WORDS]


class LexicalEvidence(NamedTuple):
    """What the sources do not account for in a statement."""

    unsupported: float
    """The share of the statement's distinct content words that the sources never use."""
    words: tuple[str, ...]
    """Those words, once each, in the statement's order."""


class Vocabulary:
    """The word keys a case's sources use (its context passages and its question)."""

    def __init__(self, sources: Iterable[str]) -> None:
        self.keys = frozenset(w.key for text in sources for w in content_words(text))

    def unsupported(self, words: Sequence[Word]) -> list[Word]:
        """The words whose key the sources never use."""
        return [w for w in words if w.key not in self.keys]

    def evidence(self, text: str) -> LexicalEvidence:
        """The share of `text`'s distinct content words the sources never use, and those words in order."""
        words = content_words(text)
        missing = self.unsupported(words)
        keys = {w.key for w in words}
        share = len({w.key for w in missing}) / len(keys) if keys else 0.0
        return LexicalEvidence(share, tuple(dict.fromkeys(w.text for w in missing)))
