"""Honest metrics for hallucination judges: balanced accuracy first, with 95% percentile bootstrap intervals
over cases (seeded). FAIL is the positive class; AUROC ranks by the judge's score; errors are counted and left
out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from courtroom.errors import ConfigError
from courtroom.evaluate.results import ResultRow


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


def confusion(gold: np.ndarray, pred: np.ndarray) -> tuple[int, ...]:
    """tp, fp, tn, fn with FAIL (True) as the positive class."""
    return tuple(int(np.sum(m)) for m in (gold & pred, ~gold & pred, ~gold & ~pred, gold & ~pred))


def rates_from_counts(tp: np.ndarray, fp: np.ndarray, tn: np.ndarray,
                      fn: np.ndarray) -> dict[str, np.ndarray]:
    """Every rate, elementwise over arrays of confusion counts (NaN where undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tp, fp, tn, fn = (np.asarray(x, dtype=float) for x in (tp, fp, tn, fn))
        tpr = tp / (tp + fn)
        tnr = tn / (tn + fp)
        return {"accuracy": (tp + tn) / (tp + fp + tn + fn), "balanced_accuracy": (tpr + tnr) / 2,
                "precision": tp / (tp + fp), "recall": tpr, "f1": 2 * tp / (2 * tp + fp + fn)}


def weighted_rates(weights: np.ndarray, gold: np.ndarray, pred: np.ndarray) -> dict[str, np.ndarray]:
    """Every rate for each row of case weights (bootstrap resamples)."""
    masks = np.stack([gold & pred, ~gold & pred, ~gold & ~pred, gold & ~pred], axis=1).astype(np.float32)
    return rates_from_counts(*(weights @ masks).T)


def _weighted_auroc(weights: np.ndarray, gold: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """AUROC for every row of case weights (bootstrap resamples), ties counted half; NaN if a class is
    empty."""
    order = np.argsort(scores, kind="mergesort")
    s, g, w = scores[order], gold[order], weights[:, order].astype(np.float32)
    group_start = np.searchsorted(s, s, side="left")
    group_end = np.searchsorted(s, s, side="right")
    neg = w * ~g
    cum = np.concatenate([np.zeros((w.shape[0], 1), np.float32), np.cumsum(neg, axis=1, dtype=np.float32)],
                         axis=1)
    below = cum[:, group_start]
    tied = cum[:, group_end] - below
    pos_w = w * g
    n_pos, n_neg = pos_w.sum(axis=1), neg.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (pos_w * (below + 0.5 * tied)).sum(axis=1, dtype=np.float64) / (n_pos.astype(np.float64)
                                                                               * n_neg)


def auroc(gold: Sequence[bool] | np.ndarray, scores: Sequence[float] | np.ndarray) -> float | None:
    """Area under the ROC curve (Mann-Whitney U with ties), None when one class is missing."""
    gold = np.asarray(gold, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    if gold.all() or not gold.any():
        return None
    return float(_weighted_auroc(np.ones((1, len(gold))), gold, scores)[0])


def resample_weights(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each case is drawn in each resample (rows of `idx` are resamples)."""
    return np.stack([np.bincount(row, minlength=n) for row in idx]).astype(np.float32)


def percentile_interval(samples: np.ndarray) -> tuple[float | None, float | None]:
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
    intervals = {k: Interval(value=None if np.isnan(v) else float(v))
                 for k, v in rates_from_counts(*confusion(gold, pred)).items()}
    intervals["auroc"] = Interval(value=auroc(gold, scores))
    n = len(judged)
    if n >= 2 and resamples > 0:
        rng = np.random.default_rng(seed)
        collected: dict[str, list[np.ndarray]] = {}
        for block in range(0, resamples, 250):  # bounded memory: weights of 250 resamples at a time
            size = min(250, resamples - block)
            idx = rng.integers(0, n, (size, n))
            weights = resample_weights(idx, n)
            stats = weighted_rates(weights, gold, pred)
            stats["auroc"] = _weighted_auroc(weights, gold, scores)
            for k, v in stats.items():
                collected.setdefault(k, []).append(v)
        for key, chunks in collected.items():
            low, high = percentile_interval(np.concatenate(chunks))
            intervals[key] = intervals[key].model_copy(update={"low": low, "high": high})
    count = max(len(rows), 1)
    charged = [r for r in rows if r.charges]
    per_case = ("prompt_tokens", "computed_prompt_tokens", "completion_tokens", "seconds", "model_calls",
                "charges")
    return Metrics(cases=len(judged), errors=errors, positives=int(gold.sum()), **intervals,
                   confusion=dict(zip(("tp", "fp", "tn", "fn"), confusion(gold, pred))),
                   parse_failures=sum(r.parse_failures for r in rows),
                   tokens_per_case=sum(r.prompt_tokens + r.completion_tokens for r in rows) / count,
                   rounds_per_charge=(sum(r.rounds for r in charged) / len(charged)) if charged else 0.0,
                   **{f"{name}_per_case": sum(getattr(r, name) for r in rows) / count for name in per_case})


def metrics_by_source(rows: Sequence[ResultRow], resamples: int = 1000, seed: int = 0,
                      depth: int | None = None) -> dict[str, Metrics]:
    """Metrics per dataset source; with `depth`, per source prefix of that many `/`-separated parts
    (`ragtruth/QA/gpt-4-0613` at depth 2 is `ragtruth/QA`)."""
    if depth is not None and depth < 1:
        raise ConfigError(f"depth must be at least 1, got {depth}")

    def group(source: str) -> str:
        return source if depth is None else "/".join(source.split("/")[:depth])

    groups = sorted({group(r.source) for r in rows})
    return {g: compute_metrics([r for r in rows if group(r.source) == g], resamples, seed) for g in groups}
