"""Honest metrics for hallucination judges: balanced accuracy first, intervals always.

The positive class is FAIL (hallucinated). AUROC ranks cases by the judge's score. Intervals are
95% percentile bootstraps over cases (seeded). `mcnemar` is the exact paired test on the cases two
runs share. Cases that ended in an error are counted, and left out of the rates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from courtroom.log.store import ResultRow


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


def _rates_from_counts(tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray) -> dict[str, np.ndarray]:
    """Every rate, elementwise over arrays of confusion counts (NaN where undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tp, fp, tn, fn = (np.asarray(x, dtype=float) for x in (tp, fp, tn, fn))
        tpr = tp / (tp + fn)
        tnr = tn / (tn + fp)
        return {"accuracy": (tp + tn) / (tp + fp + tn + fn), "balanced_accuracy": (tpr + tnr) / 2,
                "precision": tp / (tp + fp), "recall": tpr, "f1": 2 * tp / (2 * tp + fp + fn)}


def _rates(gold: np.ndarray, pred: np.ndarray) -> dict[str, float | None]:
    values = _rates_from_counts(*_confusion(gold, pred))
    return {k: None if np.isnan(v) else float(v) for k, v in values.items()}


def _weighted_auroc(weights: np.ndarray, gold: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """AUROC for every row of case weights (bootstrap resamples), ties counted half; NaN if a class is empty."""
    order = np.argsort(scores, kind="mergesort")
    s, g, w = scores[order], gold[order], weights[:, order].astype(np.float32)
    group_start = np.searchsorted(s, s, side="left")
    group_end = np.searchsorted(s, s, side="right")
    neg = w * ~g
    cum = np.concatenate([np.zeros((w.shape[0], 1), np.float32), np.cumsum(neg, axis=1, dtype=np.float32)], axis=1)
    below = cum[:, group_start]
    tied = cum[:, group_end] - below
    pos_w = w * g
    n_pos, n_neg = pos_w.sum(axis=1), neg.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (pos_w * (below + 0.5 * tied)).sum(axis=1, dtype=np.float64) / (n_pos.astype(np.float64) * n_neg)


def auroc(gold: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float | None:
    """Area under the ROC curve (Mann-Whitney U with ties), None when one class is missing."""
    gold = np.asarray(gold, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    if gold.all() or not gold.any():
        return None
    return float(_weighted_auroc(np.ones((1, len(gold))), gold, scores)[0])


def _weights(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each case is drawn in each resample (rows of `idx` are resamples)."""
    return np.stack([np.bincount(row, minlength=n) for row in idx]).astype(np.float32)


def _interval(samples: np.ndarray) -> tuple[float | None, float | None]:
    samples = samples[~np.isnan(samples)]
    if len(samples) < 10:
        return None, None
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


def compute_metrics(rows: Sequence[ResultRow], resamples: int = 1000, seed: int = 0) -> Metrics:
    """Metrics over result rows (those with a gold label and a verdict), with 95% bootstrap intervals."""
    judged = [r for r in rows if r.label is not None and r.gold is not None]
    errors = sum(1 for r in rows if r.error is not None)
    gold = np.array([r.gold == "FAIL" for r in judged], dtype=bool)
    pred = np.array([r.label == "FAIL" for r in judged], dtype=bool)
    scores = np.array([r.score if r.score is not None else 0.0 for r in judged], dtype=float)
    point = _rates(gold, pred)
    intervals: dict[str, Interval] = {k: Interval(value=v) for k, v in point.items()}
    intervals["auroc"] = Interval(value=auroc(gold, scores))
    n = len(judged)
    if n >= 2 and resamples > 0:
        rng = np.random.default_rng(seed)
        for block in range(0, resamples, 250):  # bounded memory: weights of 250 resamples at a time
            size = min(250, resamples - block)
            idx = rng.integers(0, n, (size, n))
            weights = _weights(idx, n)
            masks = np.stack([gold & pred, ~gold & pred, ~gold & ~pred, gold & ~pred], axis=1).astype(np.float32)
            counts = list((weights @ masks).T)
            stats = _rates_from_counts(*counts)
            stats["auroc"] = _weighted_auroc(weights, gold, scores)
            if block == 0:
                collected = {k: [v] for k, v in stats.items()}
            else:
                for k, v in stats.items():
                    collected[k].append(v)
        for key, chunks in collected.items():
            low, high = _interval(np.concatenate(chunks))
            intervals[key] = intervals[key].model_copy(update={"low": low, "high": high})
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


def metrics_by_source(rows: Sequence[ResultRow], resamples: int = 1000, seed: int = 0,
                      depth: int | None = None) -> dict[str, Metrics]:
    """Metrics per dataset source; with `depth`, per source prefix of that many `/`-separated parts
    (`ragtruth/QA/gpt-4-0613` at depth 2 is `ragtruth/QA`)."""

    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")

    def group(source: str) -> str:
        return source if depth is None else "/".join(source.split("/")[:depth])

    groups = sorted({group(r.source) for r in rows})
    return {g: compute_metrics([r for r in rows if group(r.source) == g], resamples, seed) for g in groups}


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

    def bal(weights: np.ndarray, pred: np.ndarray) -> np.ndarray:
        counts = [(weights * m).sum(axis=1) for m in (gold & pred, ~gold & pred, ~gold & ~pred, gold & ~pred)]
        return _rates_from_counts(*counts)["balanced_accuracy"]

    n = len(shared)
    if n == 0:
        return {"shared": 0, "difference": None, "low": None, "high": None}
    point = bal(np.ones((1, n)), pred_a)[0] - bal(np.ones((1, n)), pred_b)[0]
    rng = np.random.default_rng(seed)
    weights = _weights(rng.integers(0, n, (resamples, n)), n)
    low, high = _interval(bal(weights, pred_a) - bal(weights, pred_b))
    return {"shared": n, "difference": None if np.isnan(point) else float(point), "low": low, "high": high}


def best_threshold(gold: np.ndarray, scores: np.ndarray) -> float:
    """The score threshold (FAIL at or above it) that maximises balanced accuracy on these cases;
    of equally good thresholds, the middle one."""
    values = np.unique(scores)
    if len(values) == 0 or gold.all() or not gold.any():
        return 0.5
    # thresholds halfway between neighbouring scores (and just outside them): a case scored between two
    # training scores falls on the side of the nearer one
    candidates = np.concatenate([[values[0]], (values[1:] + values[:-1]) / 2, [np.nextafter(values[-1], np.inf)]])
    pred = scores[None, :] >= candidates[:, None]
    tpr = (pred & gold).sum(axis=1) / gold.sum()
    tnr = (~pred & ~gold).sum(axis=1) / (~gold).sum()
    balanced = (tpr + tnr) / 2
    best = np.flatnonzero(np.isclose(balanced, balanced.max()))
    return float(candidates[best[len(best) // 2]])


def calibrated_predictions(rows: Sequence[ResultRow], folds: int = 5, seed: int = 0) -> dict[str, bool]:
    """Out-of-fold FAIL predictions with a calibrated threshold: the cases are split into `folds`
    stratified folds, and each fold is labelled with the threshold that is best on the other folds.
    An honest estimate of a judge whose threshold is calibrated on labelled data of the same kind."""
    judged = [r for r in rows if r.score is not None and r.gold is not None]
    rng = np.random.default_rng(seed)
    fold_of: dict[str, int] = {}
    for label in ("FAIL", "PASS"):
        ids = [r.case_id for r in judged if r.gold == label]
        for i, case_id in enumerate(rng.permutation(sorted(ids))):  # folds depend on the ids, not row order
            fold_of[str(case_id)] = i % folds
    gold = np.array([r.gold == "FAIL" for r in judged])
    scores = np.array([float(r.score) for r in judged])
    fold = np.array([fold_of[r.case_id] for r in judged])
    predictions: dict[str, bool] = {}
    for k in range(folds):
        train = fold != k
        threshold = best_threshold(gold[train], scores[train])
        for i in np.flatnonzero(~train):
            predictions[judged[i].case_id] = bool(scores[i] >= threshold)
    return predictions


def calibrated_rows(rows: Sequence[ResultRow], folds: int = 5, seed: int = 0) -> list[ResultRow]:
    """The rows relabelled by `calibrated_predictions` (for metrics and paired tests); failed cases stay
    as they are, so they are still counted as errors and left out of pairs."""
    predictions = calibrated_predictions(rows, folds, seed)
    return [r.model_copy(update={"label": "FAIL" if predictions[r.case_id] else "PASS"})
            if r.case_id in predictions else r for r in rows]


def errors_as_wrong(rows: Sequence[ResultRow]) -> list[ResultRow]:
    """The rows with every failed case of known gold counted as a confident wrong verdict, so a judge
    that fails on hard cases is not rewarded for skipping them (`error` stays set, so errors are still counted)."""
    wrong = []
    for r in rows:
        if r.label is None and r.gold is not None:
            r = r.model_copy(update={"label": "PASS" if r.gold == "FAIL" else "FAIL",
                                     "score": 0.0 if r.gold == "FAIL" else 1.0})
        wrong.append(r)
    return wrong


def excluded_from_pairing(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> int:
    """Cases both runs hold that a paired comparison leaves out, because one run failed on them (or has
    no gold label)."""
    right_a = {r.case_id: r.correct for r in a}
    right_b = {r.case_id: r.correct for r in b}
    return sum(1 for c in set(right_a) & set(right_b) if right_a[c] is None or right_b[c] is None)


def gold_disagreements(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> int:
    """Shared case ids whose gold labels differ: the runs are probably of different datasets."""
    gold_a = {r.case_id: r.gold for r in a}
    return sum(1 for r in b if r.case_id in gold_a and gold_a[r.case_id] != r.gold)
