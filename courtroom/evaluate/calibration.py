"""Thresholds calibrated on labelled data, estimated honestly (out of fold), and other relabellings of rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from courtroom.evaluate.results import ResultRow


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
