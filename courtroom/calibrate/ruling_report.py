"""What a fitted ruling is worth out of fold, by source and task family (printed, and kept in the ruling
file)."""

from __future__ import annotations

import numpy as np

from courtroom.calibrate.fit_ruling import RulingFit
from courtroom.evaluate.metrics import auroc, confusion, percentile_interval, rates_from_counts
from courtroom.evaluate.spans import paired_f1_difference, span_scores


def _auroc(gold: np.ndarray, scores: np.ndarray) -> float:
    value = auroc(gold, scores)
    return float("nan") if value is None else value


def balanced_accuracy(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(rates_from_counts(*confusion(gold, pred))["balanced_accuracy"])


def ruling_table(fit: RulingFit) -> tuple[list[tuple[str, int, float, float]], dict[str, object]]:
    """Rows (cases, count, balanced accuracy, AUROC) out of fold for all, each family and source; and
    `evaluation`."""
    gold = np.array([e.hallucinated for e in fit.examples])
    thresholds = np.array([fit.ruling.family_for(e.family)[1].threshold for e in fit.examples])
    pred = fit.out_of_fold >= thresholds
    groups = [("all", np.ones(len(gold), dtype=bool))]
    groups += [(f"family {f}", np.array([e.family == f for e in fit.examples])) for f in
               sorted({e.family for e in fit.examples})]
    groups += [(f"source {s}", np.array([e.source == s for e in fit.examples])) for s in
               sorted({e.source for e in fit.examples})]
    rows = [(name, int(m.sum()), balanced_accuracy(gold[m], pred[m]), _auroc(gold[m], fit.out_of_fold[m]))
            for name, m in groups]
    evaluation = {"protocol": f"{int(fit.fold.max()) + 1}-fold cross-validation over groups of identical "
                              "answers; each fold decided by a ruling (probes included) fitted on the others",
                  "out_of_fold": {name: {"cases": n, "balanced_accuracy": round(b, 4),
                                         "auroc": None if a != a else round(a, 4)} for name, n, b, a in rows}}
    if fit.span_cases:
        pointing = {name: span_scores(cases) for name, cases in fit.span_cases.items()}
        difference = paired_f1_difference(fit.span_cases["words"], fit.span_cases["sentences"])
        evaluation["spans_out_of_fold"] = {**pointing, "token F1, words - sentences [95%]": list(difference)}
    return rows, evaluation


def label_scores(gold: np.ndarray, thresholds: np.ndarray, scores: dict[str, np.ndarray | None],
                 resamples: int = 1000, seed: int = 0) -> dict[str, dict[str, object]]:
    """Balanced accuracy (at `thresholds`) and AUROC of each set of scores, with 95% bootstrap intervals
    (`NAME_95`)."""
    if not (gold.any() and (~gold).any()):
        return {name: dict.fromkeys(("balanced_accuracy", "balanced_accuracy_95", "auroc", "auroc_95"))
                for name, p in scores.items() if p is not None}
    draws = np.random.default_rng(seed).integers(0, len(gold), (resamples, len(gold)))
    out: dict[str, dict[str, object]] = {}
    for name, p in scores.items():
        if p is None:
            continue
        pred = p >= thresholds
        resampled = [balanced_accuracy(gold[i], pred[i]) for i in draws]
        out[name] = {**_interval("balanced_accuracy", balanced_accuracy(gold, pred), resampled),
                     **_interval("auroc", _auroc(gold, p), [_auroc(gold[i], p[i]) for i in draws])}
    return out


def _interval(key: str, value: float, resampled: list[float]) -> dict[str, object]:
    """`key` and `key_95`: the value and its 95% percentile interval over the resamples (None with too
    few)."""
    low, high = percentile_interval(np.array(resampled))
    return {key: round(value, 4),
            f"{key}_95": None if low is None or high is None else [round(low, 4), round(high, 4)]}


def span_rows(evaluation: dict[str, object]) -> list[tuple[str, str, str, str, str]]:
    """(way of pointing, token P, R, F1 [95%], hit@1) rows of a ruling's out-of-fold span numbers."""
    found = evaluation.get("spans_out_of_fold")
    if not isinstance(found, dict):
        return []
    rows = []
    for name in ("sentences", "words"):
        scores = found.get(name)
        if isinstance(scores, dict):
            token = scores["token hallucinated answers"]
            rows.append((name, f"{token['precision']:.3f}", f"{token['recall']:.3f}",
                         f"{token['f1']:.3f} [{token['f1_95'][0]:.3f}, {token['f1_95'][1]:.3f}]",
                         f"{scores['hit@1']:.3f}"))
    return rows
