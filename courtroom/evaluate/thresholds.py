"""Thresholds calibrated on labelled data, estimated honestly (out of fold), and other relabellings of
rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from courtroom.evaluate.results import ResultRow


def best_threshold(gold: np.ndarray, scores: np.ndarray) -> float:
    """The score threshold (FAIL at or above it) of best balanced accuracy; of equally good ones, the middle
    one."""
    values = np.unique(scores)
    if len(values) == 0 or gold.all() or not gold.any():
        return 0.5
    # thresholds halfway between neighbouring scores (and just outside them): a case scored between two
    # training scores falls on the side of the nearer one
    candidates = np.concatenate([[values[0]], (values[1:] + values[:-1]) / 2,
                                 [np.nextafter(values[-1], np.inf)]])
    pred = scores[None, :] >= candidates[:, None]
    tpr = (pred & gold).sum(axis=1) / gold.sum()
    tnr = (~pred & ~gold).sum(axis=1) / (~gold).sum()
    balanced = (tpr + tnr) / 2
    best = np.flatnonzero(np.isclose(balanced, balanced.max()))
    return float(candidates[best[len(best) // 2]])


def stratified_folds(gold: np.ndarray, keys: Sequence[str] | Sequence[int] | np.ndarray, folds: int = 5,
                     seed: int = 0, strata: Sequence[str] | None = None) -> np.ndarray:
    """The fold (0 .. folds-1) of every case, the package's one fold assignment: each gold label's keys dealt
    round-robin in a seeded permutation (sorted first), so a fold depends on the keys, not row order; a key's
    cases share a fold. With `strata` (each case's source), each stratum's keys are dealt in turn: every fold
    holds its share of each."""
    gold = np.asarray(gold, dtype=bool)
    keys = [k.item() if isinstance(k, np.generic) else k for k in keys]
    first: dict = {}
    for key, label, stratum in sorted(zip(keys, gold, strata if strata is not None else [""] * len(keys)),
                                      key=lambda row: (not row[1], row[2])):
        first.setdefault(key, (bool(label), stratum))
    rng = np.random.default_rng(seed)
    fold_of: dict = {}
    for label in (True, False):
        dealt = 0
        for stratum in sorted({s for g, s in first.values() if g == label}):
            for key in rng.permutation(sorted(k for k, v in first.items() if v == (label, stratum))):
                fold_of[key.item() if isinstance(key, np.generic) else key] = dealt % folds
                dealt += 1
    return np.array([fold_of[k] for k in keys], dtype=int)


def out_of_fold(gold: np.ndarray, scores: np.ndarray, fold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FAIL predictions of every case by the threshold best on the other folds, and each case's threshold."""
    predictions = np.zeros(len(gold), dtype=bool)
    thresholds = np.zeros(len(gold), dtype=float)
    for k in np.unique(fold):
        train = fold != k
        threshold = best_threshold(gold[train], scores[train])
        predictions[~train] = scores[~train] >= threshold
        thresholds[~train] = threshold
    return predictions, thresholds


def calibrated_predictions(rows: Sequence[ResultRow], folds: int = 5, seed: int = 0) -> dict[str, bool]:
    """Out-of-fold FAIL predictions: each of `folds` stratified folds labelled with the threshold best on the
    others."""
    judged = [r for r in rows if r.score is not None and r.gold is not None]
    gold = np.array([r.gold == "FAIL" for r in judged], dtype=bool)
    scores = np.array([float(r.score) for r in judged])
    predictions, _ = out_of_fold(gold, scores,
                                 stratified_folds(gold, [r.case_id for r in judged], folds, seed))
    return {r.case_id: bool(p) for r, p in zip(judged, predictions)}


def calibrated_rows(rows: Sequence[ResultRow], folds: int = 5, seed: int = 0) -> list[ResultRow]:
    """The rows relabelled by `calibrated_predictions`; failed cases stay as they are (still counted as
    errors)."""
    predictions = calibrated_predictions(rows, folds, seed)
    return [r.model_copy(update={"label": "FAIL" if predictions[r.case_id] else "PASS"})
            if r.case_id in predictions else r for r in rows]


def errors_as_wrong(rows: Sequence[ResultRow]) -> list[ResultRow]:
    """The rows with every failed case of known gold counted as a confident wrong verdict, so a judge that
    fails on hard cases is not rewarded for skipping them (`error` stays set, so errors are still counted)."""
    return [r.model_copy(update={"label": "PASS" if r.gold == "FAIL" else "FAIL",
                                 "score": 0.0 if r.gold == "FAIL" else 1.0})
            if r.label is None and r.gold is not None else r for r in rows]
