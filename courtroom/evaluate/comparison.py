"""Comparing judges on shared cases: the one flow behind `courtroom compare` and `experiments/report.py`.
Every contender (a run, or runs pooled `A+B`) after the first is paired with the first: McNemar's exact test,
and the difference of balanced accuracy *reference − contender* with a paired bootstrap interval."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce

from courtroom.case import Case
from courtroom.evaluate.confounds import NO_MODEL_ROWS
from courtroom.evaluate.metrics import Metrics, compute_metrics
from courtroom.evaluate.paired import (
    excluded_from_pairing,
    gold_disagreements,
    mcnemar,
    named,
    other_cases,
    paired_bootstrap_difference,
)
from courtroom.evaluate.results import ResultRow, as_variant, variant_names
from courtroom.evaluate.thresholds import calibrated_rows, errors_as_wrong

RowsTransform = Callable[[Sequence[ResultRow]], list[ResultRow]]


@dataclass(frozen=True)
class Contender:
    """One judge's rows: of one run, or of several runs of it on disjoint cases (one member per run)."""

    name: str
    judge: str
    model: str
    members: tuple[tuple[ResultRow, ...], ...]
    court: str | None = None
    """The court that judged, for the courtroom judge (its name as its configuration records it)."""

    @classmethod
    def of(cls, name: str, rows: Sequence[ResultRow], judge: str | None = None,
           model: str = "-") -> Contender:
        """A contender with one member."""
        return cls(name, judge or name, model, (tuple(rows),))

    def rows(self, *transforms: RowsTransform) -> list[ResultRow]:
        """Every member's rows, each member transformed on its own (in the given order), then pooled."""
        return [row for member in self.members for row in reduce(lambda rows, t: t(rows), transforms,
                                                                 list(member))]


@dataclass(frozen=True)
class Pairing:
    """A contender paired with the reference on the cases both judged."""

    name: str
    shared: int
    """Cases both judged with a gold label."""
    left_out: int
    """Cases both hold that are left out because one of them failed (or has no gold)."""
    difference: float | None
    """Balanced accuracy of the reference minus the contender's, on the shared cases."""
    low: float | None
    high: float | None
    reference_only: int
    """Shared cases only the reference got right."""
    contender_only: int
    """Shared cases only the contender got right."""
    p_value: float
    """McNemar's exact two-sided test."""


@dataclass(frozen=True)
class Comparison:
    """Every contender's metrics, and each one after the first paired with the first."""

    contenders: list[Contender]
    metrics: list[Metrics]
    pairings: list[Pairing]
    warnings: list[str] = field(default_factory=list)


def pair(name: str, reference: Sequence[ResultRow], rows: Sequence[ResultRow]) -> Pairing:
    """`rows` paired with `reference` on the cases both judged."""
    test = mcnemar(reference, rows)
    diff = paired_bootstrap_difference(reference, rows)
    return Pairing(name=name, shared=test.shared, left_out=excluded_from_pairing(reference, rows),
                   difference=diff.difference, low=diff.low, high=diff.high,
                   reference_only=test.a_only_correct,
                   contender_only=test.b_only_correct, p_value=test.p_value)


def compare(contenders: Sequence[Contender], *, calibrated: bool = False, count_errors_as_wrong: bool = False,
            rules: Mapping[str, Sequence[Sequence[Case]]] | None = None) -> Comparison:
    """Metrics of every contender, and every contender paired with the first. `calibrated` relabels each
    member with a threshold calibrated out of fold; `count_errors_as_wrong` counts a failed case as wrong
    instead of leaving it out; `rules` adds no-model rules (`NO_MODEL_ROWS`) judging the reference's cases
    (medians fitted per member)."""
    transforms = [t for t, wanted in ((errors_as_wrong, count_errors_as_wrong), (calibrated_rows, calibrated))
                  if wanted]
    everyone = list(contenders)
    rows = [c.rows(*transforms) for c in everyone]
    for rule, member_cases in (rules or {}).items():
        members = tuple(tuple(calibrated_rows(NO_MODEL_ROWS[rule](cases))
                              if calibrated else NO_MODEL_ROWS[rule](cases))
                        for cases in member_cases)
        contender = Contender(rule, rule, "-", members)
        everyone.append(contender)
        rows.append(contender.rows())
    warnings = []
    reference = everyone[0].rows()
    paired_rows = list(rows)
    # rules take the reference's cases
    for index, contender in enumerate(everyone[1:len(contenders)], start=1):
        if foreign := other_cases(reference, contender.rows()):
            warnings.append(f"{len(foreign)} cases of {contender.name} have the same id as a case of "
                            f"{everyone[0].name} but other content ({named(foreign)}): they are other cases, "
                            "left out of the pairing")
            paired_rows[index] = [r for r in rows[index] if r.case_id not in frozenset(foreign)]
        elif disagreements := gold_disagreements(reference, contender.rows()):
            warnings.append(f"{disagreements} cases of {contender.name} have the same id as a case of "
                            f"{everyone[0].name} but another gold label: are they runs of the same dataset?")
    pairings = [pair(c.name, rows[0], r) for c, r in zip(everyone[1:], paired_rows[1:])]
    return Comparison(everyone, [compute_metrics(r) for r in rows], pairings, warnings)


def debate_gain(contender: Contender) -> Comparison | None:
    """The court against its own variants (its measurement alone, its agents alone) on the same calls; None
    without."""
    rows = contender.rows()
    names = variant_names(rows)
    if not names:
        return None
    variants = [Contender(name, name, contender.model,
                          tuple(tuple(as_variant(m, name)) for m in contender.members))
                for name in names]
    return compare([contender, *variants])
