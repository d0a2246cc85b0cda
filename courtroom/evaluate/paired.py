"""Paired tests of two runs on the cases they share: McNemar's exact test and a paired bootstrap interval of
the difference in balanced accuracy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from courtroom.evaluate.metrics import percentile_interval, resample_weights, weighted_rates
from courtroom.evaluate.results import ResultRow


class PairedTest(BaseModel):
    """McNemar's exact test on the cases two runs share."""

    model_config = ConfigDict(extra="forbid")

    shared: int
    a_only_correct: int
    b_only_correct: int
    p_value: float


class BootstrapDifference(BaseModel):
    """Balanced accuracy of one run minus another's on the cases they share, with a 95% paired bootstrap
    interval."""

    model_config = ConfigDict(extra="forbid")

    shared: int
    difference: float | None
    low: float | None
    high: float | None


def mcnemar(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> PairedTest:
    """Exact two-sided McNemar test of whether runs A and B are equally often right on shared cases."""
    right_a = {r.case_id: r.correct for r in a if r.correct is not None}
    right_b = {r.case_id: r.correct for r in b if r.correct is not None}
    shared = sorted(set(right_a) & set(right_b))
    only_a = sum(1 for c in shared if right_a[c] and not right_b[c])
    only_b = sum(1 for c in shared if right_b[c] and not right_a[c])
    # Binomial(n, 1/2) is symmetric: twice its tail at the fewer, exactly
    n, tail, term = only_a + only_b, 0, 1
    for i in range(min(only_a, only_b) + 1):
        tail, term = tail + term, term * (n - i) // (i + 1)
    p = min(1.0, 2 * tail / 2**n) if n else 1.0
    return PairedTest(shared=len(shared), a_only_correct=only_a, b_only_correct=only_b, p_value=float(p))


def paired_bootstrap_difference(a: Sequence[ResultRow], b: Sequence[ResultRow], resamples: int = 2000,
                                seed: int = 0) -> BootstrapDifference:
    """Balanced accuracy of A minus B on shared cases, with a 95% paired bootstrap interval."""
    rows_a = {r.case_id: r for r in a if r.correct is not None}
    rows_b = {r.case_id: r for r in b if r.correct is not None}
    shared = sorted(set(rows_a) & set(rows_b))
    gold = np.array([rows_a[c].gold == "FAIL" for c in shared], dtype=bool)
    pred_a = np.array([rows_a[c].label == "FAIL" for c in shared], dtype=bool)
    pred_b = np.array([rows_b[c].label == "FAIL" for c in shared], dtype=bool)

    def bal(weights: np.ndarray, pred: np.ndarray) -> np.ndarray:
        return weighted_rates(weights, gold, pred)["balanced_accuracy"]

    n = len(shared)
    if n == 0:
        return BootstrapDifference(shared=0, difference=None, low=None, high=None)
    point = bal(np.ones((1, n)), pred_a)[0] - bal(np.ones((1, n)), pred_b)[0]
    rng = np.random.default_rng(seed)
    weights = resample_weights(rng.integers(0, n, (resamples, n)), n)
    low, high = percentile_interval(bal(weights, pred_a) - bal(weights, pred_b))
    return BootstrapDifference(shared=n, difference=None if np.isnan(point) else float(point), low=low,
                               high=high)


def excluded_from_pairing(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> int:
    """Cases both runs hold that a paired comparison leaves out (one run failed on them, or no gold label)."""
    right_a = {r.case_id: r.correct for r in a}
    right_b = {r.case_id: r.correct for r in b}
    return sum(1 for c in set(right_a) & set(right_b) if right_a[c] is None or right_b[c] is None)


def other_cases(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> list[str]:
    """Case ids both runs hold for different cases: their rows record the digests of other content
    (`ResultRow.case_digest`; rows recorded before digests are not compared). Such cases are not paired."""
    digests = {r.case_id: r.case_digest for r in a if r.case_digest}
    return [r.case_id for r in b if r.case_digest and digests.get(r.case_id, r.case_digest) != r.case_digest]


def named(ids: Sequence[str], shown: int = 5) -> str:
    """A few ids, quoted, and how many more."""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(repr(i) for i in ids[:shown]) + more


def gold_disagreements(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> int:
    """Shared case ids whose gold labels differ: the runs are probably of different datasets."""
    gold_a = {r.case_id: r.gold for r in a}
    return sum(1 for r in b if r.case_id in gold_a and gold_a[r.case_id] != r.gold)
