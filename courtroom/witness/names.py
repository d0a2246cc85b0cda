"""The names witness: the names of the answer (runs of capitalised words, or a capitalised word not opening
its sentence), looked up in the sources ignoring case, spacing and a possessive 's (or each of its words)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.case import Testimony
from courtroom.text.words import STOP_WORDS
from courtroom.witness.reading import Reading

_TOKEN = re.compile(r"[A-Za-z][\w'&.-]*|\S")
_JOINERS = frozenset({"of", "the", "and", "de", "la", "du", "von", "van", "for", "&"})
_OPENERS = frozenset(".!?:;\n\"'(")
_ABBREVIATIONS = frozenset("mr mrs ms dr prof st mt jr sr gen sen rep gov lt col capt rev fr inc co corp ltd "
                           "bros univ dept".split())
"""Words whose full stop abbreviates them rather than ending a sentence ("Dr. Jane Doe", "Acme Co. Ltd"), as
do single letters ("J. P. Morgan")."""


@dataclass(frozen=True)
class NameCheck:
    """One name of the answer and whether the sources contain it."""

    text: str
    start: int
    end: int
    present: bool


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word.lower() not in STOP_WORDS and not word.isupper() or \
        (len(word) > 1 and word.isupper() and word.isalpha())


def names(text: str) -> list[tuple[int, int]]:
    """Character spans of the names in `text` (see the module's rules)."""
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []

    def close() -> None:
        while run and text[run[-1][0]:run[-1][1]].lower() in _JOINERS:
            run.pop()
        if run:
            capitals = [t for t in run if _capitalised(text[t[0]:t[1]])]
            if len(capitals) >= 2 or ((before := text[:run[0][0]].rstrip(" \t"))
                                      and before[-1] not in _OPENERS):
                spans.append((run[0][0], run[-1][1]))
        run.clear()

    for a, b in tokens:
        word = text[a:b].rstrip(".")
        if word and _capitalised(word):
            run.append((a, a + len(word)))
            if len(word) < b - a and len(word) > 1 and word.lower() not in _ABBREVIATIONS:
                # a full stop ends the name with its sentence ("on Sundays. Zorba runs it": two names)
                close()
        elif run and word.lower() in _JOINERS:
            run.append((a, b))
        else:
            close()
    close()
    return spans


def _norm(text: str) -> str:
    """Lower case, without a possessive 's, with punctuation as blanks (a name that ends a sentence or stands
    in brackets or quotes is the name); apostrophes, hyphens and ampersands inside a word stay ("O'Neil",
    "AT&T")."""
    text = re.sub(r"['’]s\b", "", text.lower())
    text = re.sub(r"[^\w'’&-]+|(?<!\w)['’&-]+|['’&-]+(?!\w)", " ", text)
    return " ".join(text.split())


def check_names(answer: str, sources: Sequence[str]) -> list[NameCheck]:
    """Every name of the answer, once, with whether the sources contain it."""
    haystack = f" {_norm(' '.join(sources))} "
    words = set(haystack.split())
    checks: dict[str, NameCheck] = {}
    for a, b in names(answer):
        name = _norm(answer[a:b])
        if not name or name in checks:
            continue
        parts = [p for p in name.split() if p not in _JOINERS]
        present = f" {name} " in haystack or bool(parts) and all(p in words for p in parts)
        checks[name] = NameCheck(answer[a:b], a, b, present)
    return list(checks.values())


VERSION = 1


def testify(reading: Reading) -> Testimony:
    """How many names of the answer (and of each sentence) the sources lack, and their share; it points at
    each."""
    case = reading.case
    checks = check_names(reading.answer, [*case.context, case.question])
    per = [[0.0, 0.0] for _ in reading.sentences]
    points = []
    for check in checks:
        counts = per[reading.sentence_of(check.start)]
        counts[1] += 1.0
        if not check.present:
            counts[0] += 1.0
            points.append(reading.pointer(check.start, check.end, "the context never names it", 1.0))

    def values(absent: float, named: float) -> dict[str, float]:
        return {"absent": absent, "absent_share": absent / named if named else 0.0}

    return Testimony(witness="names", version=VERSION,
                     values=values(sum(c[0] for c in per), sum(c[1] for c in per)),
                     sentences=[values(*c) for c in per], points=points)
