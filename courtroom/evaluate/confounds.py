"""Confounds: signals that separate a dataset's labels without a model judging faithfulness: answer length,
and the words an answer uses that its context never does. A judge close to these rules may be measuring
them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from courtroom.case import Case
from courtroom.evaluate.results import ResultRow
from courtroom.text.words import Vocabulary

LENGTH_ONLY = "length-only"
OVERLAP_ONLY = "overlap-only"


def answer_words(case: Case) -> int:
    """The answer's length in words."""
    return len(case.answer.split())


def unsupported_share(case: Case) -> float:
    """The share of the answer's distinct content words that neither the context nor the question uses."""
    return Vocabulary([*case.context, case.question]).evidence(case.answer).unsupported


def median_rule_rows(cases: Sequence[Case], value: Callable[[Case], float], unit: str) -> list[ResultRow]:
    """A no-model rule as a judge of these cases: FAIL when the case's value is above the cases' median;
    the score is the value's rank among them, from 0 (lowest) to 1, for AUROC (tied values share a rank)."""
    if not cases:
        return []
    values = np.array([value(c) for c in cases], dtype=float)
    median = float(np.median(values))
    ordered = np.sort(values)
    ranks = (np.searchsorted(ordered, values, "left") + np.searchsorted(ordered, values, "right") - 1) / 2
    ranks = ranks / max(len(cases) - 1, 1)
    return [ResultRow(case_id=c.id, source=c.source, gold=c.label, label="FAIL" if v > median else "PASS",
                      score=float(rank), reason=f"{v:g} {unit} (median {median:g})")
            for c, v, rank in zip(cases, values, ranks)]


def length_only_rows(cases: Sequence[Case]) -> list[ResultRow]:
    """The length-only rule: FAIL when the answer is longer (in words) than the cases' median."""
    return median_rule_rows(cases, answer_words, "words")


def overlap_only_rows(cases: Sequence[Case]) -> list[ResultRow]:
    """The overlap-only rule: FAIL when more of the answer's content words than the median are unused by the
    sources."""
    return median_rule_rows(cases, lambda c: round(unsupported_share(c), 4),
                            "of the words unused by the sources")


NO_MODEL_ROWS: dict[str, Callable[[Sequence[Case]], list[ResultRow]]] = {
    LENGTH_ONLY: length_only_rows, OVERLAP_ONLY: overlap_only_rows}
"""Each no-model rule's judge of a list of cases."""
