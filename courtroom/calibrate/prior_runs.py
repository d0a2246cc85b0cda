"""A ruling refitted on a few labels of a run with a fitted ruling as its prior (`calibrate --prior --labels`;
without a label file, the runs' gold labels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.label_file import read_labels
from courtroom.calibrate.prior_refit import (
    PRIOR_PRECISION,
    PriorRefit,
    out_of_fold,
    p_hallucinated,
    refit_with_prior,
)
from courtroom.calibrate.ruling_report import label_scores
from courtroom.calibrate.ruling_runs import check_for_run, example_of, labelled_runs, witness_court
from courtroom.courts.files import check_ruling_file, ruling_file
from courtroom.digest import content_hash
from courtroom.door.models import model_key
from courtroom.errors import ConfigError
from courtroom.evaluate.thresholds import stratified_folds
from courtroom.log.audit import Audit
from courtroom.witness.ruling import FittedRuling
from courtroom.yamlio import describe_errors, read_yaml


@dataclass(frozen=True)
class PriorCalibration:
    """The refit, the labelled examples it was fitted on, and how the prior and the refit (out of fold) decide them."""

    refit: PriorRefit
    examples: list[Example]
    prior_ruling: FittedRuling
    prior: np.ndarray
    """The prior's P(hallucinated) of each example."""
    out_of_fold: np.ndarray | None
    """The refit's, each example's by a refit on the other folds (None with too few labels for folds)."""
    model: str
    court: str


def read_prior(name: str | Path) -> tuple[FittedRuling, Path, str]:
    """A ruling file (a path, else a shipped ruling: `rulings/default.<model>.yaml`), its path and its digest."""
    path = ruling_file(str(name), Path.cwd() / "court.yaml")
    if not path.exists():
        raise ConfigError(f"--prior {name}: no such ruling file (a path, or a shipped one such as "
                          "rulings/default.smollm2-135m.yaml)")
    check_ruling_file(path, f"--prior {name}")  # a regular file of at most MAX_RULING_BYTES, as a court's rulings
    data, locator = read_yaml(path)
    try:
        ruling = FittedRuling.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"--prior {name}: {path} is not a ruling file:\n{describe_errors(path, exc, locator)}") from exc
    return ruling, path, content_hash(path.read_text(encoding="utf-8"))


def _named(path: Path) -> str:
    """How a ruling file is recorded: a shipped one as a court file names it (`rulings/...`), another by its path."""
    from courtroom.courts.files import courts_dir

    path, shipped = path.resolve(), courts_dir().resolve()
    return path.relative_to(shipped).as_posix() if path.is_relative_to(shipped) else str(path)


def labelled_by_file(run_dir: str | Path, labels: str | Path) -> tuple[list[Example], str, str]:
    """The examples of the run's cases labelled in the file (by its labels), the run's model and court."""
    audit = Audit(run_dir)
    court = witness_court(audit)
    given = {case_id: label for case_id, label in read_labels(labels, run_dir).items() if label is not None}
    examples = []
    for case_id, hallucinated in given.items():
        example = example_of(list(audit.events(case_id)), court.spec.sentences, hallucinated)
        if example is None:
            raise ConfigError(f"{labels}: case {case_id} has no verdict with testimony in {audit.root} (it failed, or "
                              "its court heard no witnesses): leave its label empty")
        examples.append(example)
    return examples, model_key(audit.store.manifest().model), court.spec.name


def calibrate_with_prior(run_dirs: Sequence[str | Path], prior_name: str | Path, labels: str | Path | None = None,
                         precision: float = PRIOR_PRECISION, folds: int = 5, seed: int = 0,
                         command: str = "") -> PriorCalibration:
    """The prior refitted on the labels of the file (one run), else on the runs' gold labels."""
    prior, path, digest = read_prior(prior_name)
    if labels is not None:
        if len(run_dirs) != 1:
            raise ConfigError("a label file is of one run: give that run alone with --labels")
        examples, model, court = labelled_by_file(run_dirs[0], labels)
        judge = witness_court(Audit(run_dirs[0]))
    else:
        runs = labelled_runs(run_dirs)
        examples, model, court, judge = runs.examples, runs.model, runs.court.spec.name, runs.court
    check_for_run(prior, judge, model, f"--prior {prior_name}")
    if not examples:
        raise ConfigError(f"{labels or 'the runs'}: no labelled case: fill the label column (hallucinated or "
                          "faithful) of some cases")
    refit = refit_with_prior(prior, examples, prior_path=_named(path), prior_digest=digest, precision=precision,
                             command=command)
    before = np.array([p_hallucinated(prior, e) for e in examples])
    y = np.array([e.hallucinated for e in examples])
    k = min(folds, int(y.sum()), int((~y).sum()))
    oof = None
    if k >= 2:
        fold = stratified_folds(y, [e.group or e.case_id for e in examples], folds=k, seed=seed)
        oof = out_of_fold(prior, examples, fold, precision)
    return PriorCalibration(refit, examples, prior, before, oof, model, court)


def scores(calibration: PriorCalibration) -> dict[str, dict[str, float | None]]:
    """Balanced accuracy and AUROC on the labelled cases: the prior's, and the refit's out of fold."""
    gold = np.array([e.hallucinated for e in calibration.examples])
    thresholds = np.array([calibration.refit.ruling.family_for(e.family)[1].threshold for e in calibration.examples])
    return label_scores(gold, thresholds, {"prior": calibration.prior, "refit, out of fold": calibration.out_of_fold})


def moves(calibration: PriorCalibration, most: int = 4) -> list[str]:
    """What the labels moved most of each refitted family, as `family: name before -> after`."""
    out = []
    for name, mode in calibration.refit.modes.items():
        if mode == "kept":
            continue
        before = calibration.prior_ruling.families[name].linear  # type: ignore[index]
        after = calibration.refit.ruling.families[name].linear  # type: ignore[index]
        changes = sorted(zip(before.features, before.weights, after.weights), key=lambda c: -abs(c[2] - c[1]))
        shown = [("intercept", before.intercept, after.intercept)] + [c for c in changes[:most] if c[2] != c[1]]
        out += [f"{name}: {feature} {a:+.2f} -> {b:+.2f}" for feature, a, b in shown]
    return out
