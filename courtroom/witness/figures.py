"""The figures witness: every number of the answer, looked up in the sources by value at its own precision:
given, stated (as written or rescaled), computed (one step of arithmetic from numbers near the question's
words) or absent."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from courtroom.case import Testimony
from courtroom.text.numbers import numbers
from courtroom.text.words import content_words
from courtroom.witness.reading import Reading

FigureStatus = Literal["given", "stated", "computed", "absent"]
SCALES = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 100.0, 0.01)
"""The factors a figure may be written at: units a thousand apart, and a percentage against a fraction."""
NEAR_WORDS = 12
"""How many numbers after a word of the question are taken to belong to it (a row of a financial table)."""
MAX_OPERANDS = 80
"""At most this many numbers take part in the search for a computation (the nearest to the question's
words)."""


@dataclass(frozen=True)
class FigureCheck:
    """One figure of the answer and what the sources say to it."""

    text: str
    start: int
    end: int
    value: float
    status: FigureStatus
    how: str = ""
    """For a stated or computed figure: which numbers of the sources account for it."""


def _operands(sources: Sequence[str], question: str) -> list[float]:
    """The sources' numbers within `NEAR_WORDS` numbers after a word of the question (else all), nearest
    first."""
    wanted = {w.key for w in content_words(question) if not w.text[0].isdigit() and len(w.text) > 2}
    near: dict[float, int] = {}
    every: list[float] = []
    for text in sources:
        found = numbers(text)
        every += [n.value for n in found]
        starts = [n.start for n in found]
        for word in content_words(text):
            if word.key not in wanted:
                continue
            following = [i for i, a in enumerate(starts) if a > word.end][:NEAR_WORDS]
            for rank, i in enumerate(following):
                value = found[i].value
                near[value] = min(near.get(value, rank), rank)
    pool = sorted(near, key=lambda v: near[v]) if near else list(dict.fromkeys(every))
    return [v for v in pool if v != 0][:MAX_OPERANDS]


def _matches(candidates: np.ndarray, value: float, tolerance: float) -> np.ndarray:
    """Which candidates lie within `tolerance` of `value` at some scale (signs ignored: losses in
    parentheses)."""
    target = abs(value)
    hits = np.zeros(candidates.shape, dtype=bool)
    with np.errstate(all="ignore"):
        for scale in SCALES:
            hits |= np.abs(np.abs(candidates * scale) - target) <= tolerance
    return hits


def _computation(values: list[float], value: float, tolerance: float, average: bool) -> str | None:
    """How two (or three) of `values` give `value` in one step, or None."""
    if len(values) < 2:
        return None
    a = np.array(values, dtype=np.float64)[:, None]
    b = np.array(values, dtype=np.float64)[None, :]
    with np.errstate(all="ignore"):
        operations = {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "change": (a - b) / b}
        for name, result in operations.items():
            hits = _matches(np.nan_to_num(result, nan=np.inf, posinf=np.inf, neginf=np.inf), value, tolerance)
            np.fill_diagonal(hits, False)
            if hits.any():
                i, j = map(int, np.argwhere(hits)[0])
                x, y = values[i], values[j]
                return f"({x:g} - {y:g}) / {y:g}" if name == "change" else f"{x:g} {name} {y:g}"
        if average and len(values) >= 3:
            v = np.array(values[:40], dtype=np.float64)
            mean = (v[None, :, None] + v[None, None, :]) / 2
            result = v[:, None, None] / mean
            hits = _matches(np.nan_to_num(result, nan=np.inf, posinf=np.inf, neginf=np.inf), value, tolerance)
            if hits.any():
                i, j, k = map(int, np.argwhere(hits)[0])
                return f"{v[i]:g} / mean({v[j]:g}, {v[k]:g})"
    return None


def check_figures(answer: str, context: Sequence[str], question: str) -> list[FigureCheck]:
    """Every figure of the answer (years and small counts aside) with its status against the sources."""
    sources = [*context, question]
    stated = np.array([n.value for text in context for n in numbers(text)] or [math.inf])
    asked = np.array([n.value for n in numbers(question)] or [math.inf])
    operands: list[float] | None = None
    average = bool(re.search(r"\baverage|\bmean\b", question, re.IGNORECASE))
    checks = []
    for number in numbers(answer):
        text, start, end, value = number.text, number.start, number.end, number.value
        if number.is_year or (value.is_integer() and abs(value) <= 10 and "%" not in text):
            continue
        tolerance = number.tolerance
        # as the context's figures: in any form, at the answer's precision
        if _matches(asked, value, tolerance).any():
            status, how = "given", "the question states it"
        elif (hits := _matches(stated, value, tolerance)).any():
            status, how = "stated", f"the context states {stated[hits][0]:g}"
        else:
            operands = _operands(sources, question) if operands is None else operands
            found = _computation(operands, value, tolerance, average)
            status, how = ("computed", f"= {found} from the context") if found else ("absent", "")
        checks.append(FigureCheck(text, start, end, value, status, how))
    return checks


VERSION = 1
STATUSES: tuple[FigureStatus, ...] = ("absent", "computed", "stated", "given")


def testify(reading: Reading) -> Testimony:
    """How many figures of the answer (and of each sentence) have each status; it points at each absent or
    computed."""
    case = reading.case
    checks = check_figures(reading.answer, case.context, case.question)
    counts = [dict.fromkeys(STATUSES, 0.0) for _ in reading.sentences]
    points = []
    for check in checks:
        counts[reading.sentence_of(check.start)][check.status] += 1.0
        if check.status == "absent":
            points.append(reading.pointer(check.start, check.end, "the context has no such figure", 1.0))
        elif check.status == "computed":
            points.append(reading.pointer(check.start, check.end, f"computed: {check.how}", 0.5))
    total = {status: float(sum(c[status] for c in counts)) for status in STATUSES}
    return Testimony(witness="figures", version=VERSION, values=total, sentences=counts, points=points)
