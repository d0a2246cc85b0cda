"""Calibrating a court's verdict threshold on a labelled run (`courtroom calibrate RUN -o court.yaml`): fitted
on all its labelled cases, estimated out of fold, and written as the run's court with that threshold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from courtroom.calibrate.ruling_report import balanced_accuracy
from courtroom.clerk import CourtroomJudge
from courtroom.courts import load_court
from courtroom.courts.write import draft_court
from courtroom.door.models import model_key
from courtroom.door.spec import BackendSpec
from courtroom.errors import ConfigError, CourtroomError
from courtroom.evaluate.thresholds import best_threshold, out_of_fold, stratified_folds
from courtroom.log.audit import Audit
from courtroom.log.files import atomic_write

METHODS = ("any", "mean", "share")
"""Aggregation rules whose case verdict is the score against the threshold (`majority` counts rulings)."""


@dataclass
class FoldScore:
    """Balanced accuracy of one way of thresholding, over the k folds."""

    pooled: float
    """Over every case, each labelled in its fold."""
    per_fold: list[float]

    @property
    def mean(self) -> float:
        return float(np.nanmean(self.per_fold))

    @property
    def spread(self) -> float:
        return float(np.nanstd(self.per_fold))


@dataclass
class Calibration:
    """A court's threshold fitted on a run, with cross-validated estimates."""

    run: str
    model: str
    method: str
    cases: int
    """Labelled cases with a verdict."""
    charged: int
    current: float
    """The court's threshold for the run's model, as the run used it."""
    fitted: float
    """The threshold fitted on every case."""
    folds: int
    at_current: FoldScore
    calibrated: FoldScore
    """Each fold at the threshold fitted on the other folds."""
    fold_thresholds: list[float]
    in_sample_current: float
    in_sample_fitted: float
    """Balanced accuracy on all cases at the fitted threshold (optimistic: it was fitted on them)."""
    notes: list[str] = field(default_factory=list)


def _court_config(audit: Audit) -> dict[str, Any]:
    manifest = audit.store.manifest()
    if manifest.spec.judge.name != "courtroom":
        raise ConfigError(f"{audit.root} is a run of the {manifest.spec.judge.name} judge; calibrate fits a "
                          "court's verdict threshold (courtroom runs); compare --calibrated estimates any "
                          "judge's")
    return manifest.judge_config


def calibrate(run_dir: str | Path, folds: int = 5, seed: int = 0) -> Calibration:
    """Fit the court's verdict threshold on the run's labelled cases and estimate it out of fold."""
    audit = Audit(run_dir)
    _court_config(audit)  # a courtroom run's, else refused
    manifest = audit.store.manifest()
    court = manifest.rebuild_judge(BackendSpec(model=manifest.model))
    if not isinstance(court, CourtroomJudge):  # (the registry's `courtroom` judge always is)
        raise ConfigError(f"{audit.root}: its judge is not a court")
    method = court.spec.aggregation.method
    if method not in METHODS:
        raise ConfigError(f"the run's court aggregates by {method!r}, which counts rulings instead of "
                          "comparing the score with the threshold; calibrate fits courts that aggregate by "
                          f"{', '.join(METHODS)}")
    if court.ruling is not None:
        raise ConfigError(f"{audit.root}: its verdicts were weighed by the ruling fitted for "
                          f"{manifest.model}, which the court's threshold does not decide; refit the ruling "
                          f"on labelled runs instead: courtroom calibrate {audit.root} --ruling ruling.yaml "
                          "-o court.yaml")
    judged = [r for r in audit.rows() if r.score is not None and r.gold is not None and r.label is not None]
    gold = np.array([r.gold == "FAIL" for r in judged], dtype=bool)
    if len(judged) < 2 * folds or min(gold.sum(), (~gold).sum()) < folds:
        raise ConfigError(f"{audit.root}: {len(judged)} labelled cases ({int(gold.sum())} FAIL, "
                          f"{int((~gold).sum())} PASS); calibrating over {folds} folds needs at least "
                          f"{folds} of each label")
    charged = np.array([r.charges > 0 for r in judged], dtype=bool)
    # a case without a charge is faithful at any threshold: it ranks below every threshold in (0, 1]
    scores = np.where(charged, [float(r.score) for r in judged], -1.0)
    notes = []
    fitted = _admissible(best_threshold(gold, scores), scores, charged)
    fold = stratified_folds(gold, [r.case_id for r in judged], folds, seed)
    oof, thresholds = out_of_fold(gold, scores, fold)
    oof &= charged
    current = court.threshold
    at_current = scores >= current
    recorded = np.array([r.label == "FAIL" for r in judged])
    if (mismatch := int(np.sum(recorded != at_current))) > 0:
        notes.append(f"{mismatch} recorded verdicts differ from score >= {current:g} (edited by hand, or a "
                     "court whose verdict is not its score); the estimates use the scores")
    return Calibration(
        run=str(audit.root), model=manifest.model, method=method, cases=len(judged),
        charged=int(charged.sum()), current=current, fitted=fitted, folds=folds,
        at_current=_per_fold(gold, at_current, fold), calibrated=_per_fold(gold, oof, fold),
        fold_thresholds=[_admissible(float(thresholds[fold == k][0]), scores, charged)
                         for k in np.unique(fold)],
        in_sample_current=balanced_accuracy(gold, at_current),
        in_sample_fitted=balanced_accuracy(gold, scores >= fitted), notes=notes)


def _admissible(threshold: float, scores: np.ndarray, charged: np.ndarray) -> float:
    """The fitted threshold as a court setting in (0, 1], labelling the cases as the fit did, rounded to four
    decimals where that changes no case."""
    charged_scores = np.sort(scores[charged])
    if threshold <= 0:  # every charged case convicted: the lowest charged score does the same
        threshold = float(charged_scores[0]) if len(charged_scores) else 0.5
    threshold = min(threshold, 1.0)
    rounded = round(threshold, 4)
    if rounded > 0 and np.array_equal(scores >= rounded, scores >= threshold):
        return rounded
    return threshold


def _per_fold(gold: np.ndarray, pred: np.ndarray, fold: np.ndarray) -> FoldScore:
    return FoldScore(balanced_accuracy(gold, pred),
                     [balanced_accuracy(gold[fold == k], pred[fold == k]) for k in np.unique(fold)])


def calibrated_court(run_dir: str | Path, threshold: float, output: str | Path) -> Path:
    """Write the run's court with `aggregation.threshold = threshold`, checked to load with only that
    changed."""
    audit = Audit(run_dir)
    config = _court_config(audit)
    model = audit.store.manifest().model
    output = Path(output)
    draft = draft_court(config, output)
    data = draft.data
    data["description"] = (f"Calibrated: verdict threshold {threshold:g}, fitted on {audit.root.name} "
                           f"({model}). "
                           + data.get("description", "")).strip()
    aggregation = data["aggregation"]
    aggregation["threshold"] = threshold
    aggregation["by_model"] = {name: value for name, value in aggregation.get("by_model", {}).items()
                               if model_key(name) != model_key(model)}
    if not aggregation["by_model"]:
        del aggregation["by_model"]
    header = (f"# {data['name']}, calibrated by `courtroom calibrate {audit.root}`: aggregation.threshold "
              f"{threshold:g}, fitted on the run's labelled cases ({model})\n")
    for path, text in draft.files(header).items():
        atomic_write(path, text)
    try:
        court = load_court(output, BackendSpec(model=model))
    except CourtroomError as exc:
        raise ConfigError(f"the calibrated court {output} does not load: {exc}") from exc
    recorded = audit.store.manifest().rebuild_judge(BackendSpec(model=model))
    if court.threshold != threshold:
        raise ConfigError(f"{output}: the court's threshold for {model} is {court.threshold}, not "
                          f"{threshold}")
    if _without_threshold(court.config()) != _without_threshold(recorded.config()):
        raise ConfigError(f"{output} is not the run's court with only its threshold changed")
    return output


def _without_threshold(config: dict[str, Any]) -> dict[str, Any]:
    """A court's configuration but for its threshold, description and the names of its personas."""
    court = {**{k: v for k, v in config["court"].items() if k != "description"},
             "aggregation": {k: v for k, v in config["court"]["aggregation"].items()
                             if k not in ("threshold", "by_model")}}
    if court.get("trial") is not None:
        court["trial"] = {k: v for k, v in court["trial"].items() if k != "personas"}
    return {**{k: v for k, v in config.items() if k not in ("model", "prompt_format")}, "court": court}
