"""Exhibits: the items of a charged statement the prosecution may name as unsupported, and the court's check of a named
item against the sources. Deterministic; no model call.

An item is a number, a name of several capitalised words, or a content word; the candidates are every number, the words
and names the sources never use, and the words least accounted for (`Measure.weakest`). A number is present when its
value occurs among the sources' numbers (unit aside), a name when the phrase does (case and spacing aside), a word when
its stem does. The check is evidence a court weighs with its measurement (`TrialSpec.exhibit_check`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from courtroom.text.numbers import number_value, numbers
from courtroom.text.words import STOP_WORDS, content_words, word_key

NONE = "(none)"
"""The option by which the prosecution names no item (it finds every item accounted for)."""
MAX_ITEMS = 10
"""At most this many candidates are offered: the absent ones first, then numbers, then the weakest words."""

_CAPITALISED = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+")

ItemKind = Literal["number", "name", "word"]


@dataclass(frozen=True)
class Item:
    """An item of a statement: its text as written, what kind it is, and where it is."""

    text: str
    kind: ItemKind
    start: int
    end: int


def _names(text: str) -> list[tuple[int, int]]:
    """Spans of runs of two or more capitalised content words (function words such as "The" cut a run)."""
    spans = []
    for match in _CAPITALISED.finditer(text):
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", match.group())]
        run: list[tuple[int, int]] = []
        for a, b in words + [(-1, -1)]:
            word = match.group()[a:b] if a >= 0 else ""
            if a >= 0 and word.lower() not in STOP_WORDS:
                run.append((a, b))
                continue
            if len(run) >= 2:
                spans.append((match.start() + run[0][0], match.start() + run[-1][1]))
            run = []
    return spans


def items(statement: str) -> list[Item]:
    """The statement's items in order: numbers, names, and the content words outside them."""
    found = [Item(n.text, "number", n.start, n.end) for n in numbers(statement)]
    found += [Item(statement[a:b], "name", a, b) for a, b in _names(statement)
              if not any(i.start < b and a < i.end for i in found)]
    for word in content_words(statement):
        if word.text[0].isdigit() or any(i.start < word.end and word.start < i.end for i in found):
            continue
        found.append(Item(word.text, "word", word.start, word.end))
    unique: dict[str, Item] = {}
    for item in sorted(found, key=lambda i: i.start):
        unique.setdefault(_key(item), item)
    return list(unique.values())


def _key(item: Item) -> str:
    if item.kind == "number":
        return f"#{number_value(item.text)}"
    if item.kind == "name":
        return " ".join(item.text.lower().split())
    return word_key(item.text)


class Sources:
    """What a case's sources (context passages and question) hold, for checking a named item."""

    def __init__(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        self.text = " ".join(" ".join(t.split()) for t in texts).lower()
        self.values = {n.value for t in texts for n in numbers(t)}
        self.keys = frozenset(w.key for t in texts for w in content_words(t))

    def holds(self, item: Item) -> bool:
        """Whether the sources account for the item (see the module's rules)."""
        if item.kind == "number":
            return number_value(item.text) in self.values
        if item.kind == "name":
            return " ".join(item.text.lower().split()) in self.text
        return word_key(item.text) in self.keys


def candidates(statement: str, sources: Sources, weakest: Sequence[str] = ()) -> list[Item]:
    """The items offered to the prosecution: those the sources do not hold, every number, and the words the
    measurement found weakest; at most `MAX_ITEMS` (absent first, then numbers, then weakest), in statement order."""
    weak = [w.lower() for w in weakest if w.strip()]

    def rank(item: Item) -> int | None:
        if not sources.holds(item):
            return 0
        if item.kind == "number":
            return 1
        text = item.text.lower()
        if any(w in text or text in w for w in weak):
            return 2
        return None
    ranked = [(r, item) for item in items(statement) if (r := rank(item)) is not None]
    chosen = sorted(ranked, key=lambda ri: (ri[0], ri[1].start))[:MAX_ITEMS]
    return [item for _, item in sorted(chosen, key=lambda ri: ri[1].start)]
