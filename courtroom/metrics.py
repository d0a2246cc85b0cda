"""Honest metrics for hallucination judges: balanced accuracy first, intervals always.

The positive class is FAIL (hallucinated). AUROC ranks cases by the judge's score. Intervals are
95% percentile bootstraps over cases (seeded). `mcnemar` is the exact paired test on the cases two
runs share. Cases that ended in an error are counted, and left out of the rates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from courtroom.transcripts.store import ResultRow


class Interval(BaseModel):
    """A point estimate with its 95% bootstrap interval."""

    model_config = ConfigDict(extra="forbid")

    value: float | None
    low: float | None = None
    high: float | None = None

    def __str__(self) -> str:
        if self.value is None:
            return "-"
        if self.low is None or self.high is None:
            return f"{self.value:.3f}"
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


class Metrics(BaseModel):
    """Everything a run reports, for all cases or one source."""

    model_config = ConfigDict(extra="forbid")

    cases: int
    """Cases with a verdict and a gold label."""
    errors: int
    """Cases that ended in an error."""
    positives: int
    """Gold FAIL cases."""
    accuracy: Interval
    balanced_accuracy: Interval
    precision: Interval
    recall: Interval
    f1: Interval
    auroc: Interval
    confusion: dict[str, int]
    """tp, fp, tn, fn with FAIL as the positive class."""
    parse_failures: int
    tokens_per_case: float
    prompt_tokens_per_case: float
    computed_prompt_tokens_per_case: float
    completion_tokens_per_case: float
    seconds_per_case: float
    model_calls_per_case: float
    rounds_per_charge: float
    charges_per_case: float


def _confusion(gold: np.ndarray, pred: np.ndarray) -> tuple[int, int, int, int]:
    tp = int(np.sum(gold & pred))
    fp = int(np.sum(~gold & pred))
    tn = int(np.sum(~gold & ~pred))
    fn = int(np.sum(gold & ~pred))
    return tp, fp, tn, fn


def _rates(gold: np.ndarray, pred: np.ndarray) -> dict[str, float | None]:
    tp, fp, tn, fn = _confusion(gold, pred)
    n = tp + fp + tn + fn
    tpr = tp / (tp + fn) if tp + fn else None
    tnr = tn / (tn + fp) if tn + fp else None
    precision = tp / (tp + fp) if tp + fp else None
    f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else None
    return {
        "accuracy": (tp + tn) / n if n else None,
        "balanced_accuracy": (tpr + tnr) / 2 if tpr is not None and tnr is not None else None,
        "precision": precision, "recall": tpr, "f1": f1,
    }


def auroc(gold: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float | None:
    """Area under the ROC curve (Mann-Whitney U with ties), None when one class is missing."""
    gold = np.asarray(gold, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    n_pos, n_neg = int(gold.sum()), int((~gold).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    order = scores.argsort(kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[gold].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _bootstrap(stat: Callable[[np.ndarray], float | None], n: int, resamples: int, seed: int) -> tuple[float | None, float | None]:
    if n < 2 or resamples <= 0:
        return None, None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        value = stat(rng.integers(0, n, n))
        if value is not None:
            values.append(value)
    if len(values) < resamples // 2:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def compute_metrics(rows: Sequence[ResultRow], resamples: int = 1000, seed: int = 0) -> Metrics:
    """Metrics over result rows (those with a gold label and a verdict)."""
    judged = [r for r in rows if r.label is not None and r.gold is not None]
    errors = sum(1 for r in rows if r.error is not None)
    gold = np.array([r.gold == "FAIL" for r in judged], dtype=bool)
    pred = np.array([r.label == "FAIL" for r in judged], dtype=bool)
    scores = np.array([r.score if r.score is not None else 0.0 for r in judged], dtype=float)
    point = _rates(gold, pred)
    intervals: dict[str, Interval] = {}
    for key in ("accuracy", "balanced_accuracy", "precision", "recall", "f1"):
        low, high = _bootstrap(lambda idx, key=key: _rates(gold[idx], pred[idx])[key], len(judged), resamples, seed)
        intervals[key] = Interval(value=point[key], low=low, high=high)
    low, high = _bootstrap(lambda idx: auroc(gold[idx], scores[idx]), len(judged), resamples, seed)
    intervals["auroc"] = Interval(value=auroc(gold, scores), low=low, high=high)
    tp, fp, tn, fn = _confusion(gold, pred)
    count = max(len(rows), 1)
    charged = [r for r in rows if r.charges]
    return Metrics(
        cases=len(judged), errors=errors, positives=int(gold.sum()), **intervals,
        confusion={"tp": tp, "fp": fp, "tn": tn, "fn": fn},
        parse_failures=sum(r.parse_failures for r in rows),
        tokens_per_case=sum(r.prompt_tokens + r.completion_tokens for r in rows) / count,
        prompt_tokens_per_case=sum(r.prompt_tokens for r in rows) / count,
        computed_prompt_tokens_per_case=sum(r.computed_prompt_tokens for r in rows) / count,
        completion_tokens_per_case=sum(r.completion_tokens for r in rows) / count,
        seconds_per_case=sum(r.seconds for r in rows) / count,
        model_calls_per_case=sum(r.model_calls for r in rows) / count,
        rounds_per_charge=(sum(r.rounds for r in charged) / len(charged)) if charged else 0.0,
        charges_per_case=sum(r.charges for r in rows) / count,
    )


def metrics_by_source(rows: Sequence[ResultRow], resamples: int = 1000, seed: int = 0) -> dict[str, Metrics]:
    """Metrics per dataset source."""
    sources = sorted({r.source for r in rows})
    return {s: compute_metrics([r for r in rows if r.source == s], resamples, seed) for s in sources}


class PairedTest(BaseModel):
    """McNemar's exact test on the cases two runs share."""

    model_config = ConfigDict(extra="forbid")

    shared: int
    a_only_correct: int
    b_only_correct: int
    p_value: float


def mcnemar(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> PairedTest:
    """Exact two-sided McNemar test of whether runs A and B are equally often right on shared cases."""
    right_a = {r.case_id: r.correct for r in a if r.correct is not None}
    right_b = {r.case_id: r.correct for r in b if r.correct is not None}
    shared = sorted(set(right_a) & set(right_b))
    only_a = sum(1 for c in shared if right_a[c] and not right_b[c])
    only_b = sum(1 for c in shared if right_b[c] and not right_a[c])
    n = only_a + only_b
    if n == 0:
        p = 1.0
    else:
        k = min(only_a, only_b)
        p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
    return PairedTest(shared=len(shared), a_only_correct=only_a, b_only_correct=only_b, p_value=p)


def paired_bootstrap_difference(a: Sequence[ResultRow], b: Sequence[ResultRow], resamples: int = 2000,
                                seed: int = 0) -> dict[str, Any]:
    """Balanced accuracy of A minus B on shared cases, with a 95% paired bootstrap interval."""
    rows_a = {r.case_id: r for r in a if r.correct is not None}
    rows_b = {r.case_id: r for r in b if r.correct is not None}
    shared = sorted(set(rows_a) & set(rows_b))
    gold = np.array([rows_a[c].gold == "FAIL" for c in shared], dtype=bool)
    pred_a = np.array([rows_a[c].label == "FAIL" for c in shared], dtype=bool)
    pred_b = np.array([rows_b[c].label == "FAIL" for c in shared], dtype=bool)

    def diff(idx: np.ndarray) -> float | None:
        x, y = _rates(gold[idx], pred_a[idx])["balanced_accuracy"], _rates(gold[idx], pred_b[idx])["balanced_accuracy"]
        return None if x is None or y is None else x - y

    low, high = _bootstrap(diff, len(shared), resamples, seed)
    return {"shared": len(shared), "difference": diff(np.arange(len(shared))), "low": low, "high": high}
