"""A ruling refitted on a few labels of a run with a fitted ruling as its prior (`calibrate --prior`, and the
refit of `courtroom view` and `courtroom label`: `calibrate.refit`): the labels of a label file, else those of
the run's record of human judgement, else the runs' gold labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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
from courtroom.log.store import JUDGEMENTS
from courtroom.witness.ruling import FittedRuling
from courtroom.yamlio import describe_errors, read_yaml


@dataclass(frozen=True)
class PriorCalibration:
    """The refit, the labelled examples it was fitted on, and how the prior and the refit (out of fold) decide
    them."""

    refit: PriorRefit
    examples: list[Example]
    prior_ruling: FittedRuling
    prior: np.ndarray
    """The prior's P(hallucinated) of each example."""
    out_of_fold: np.ndarray | None
    """The refit's, each example's by a refit on the other folds (None with too few labels for folds)."""
    model: str
    court: str
    labels: str = ""
    """Which labels: a label file's, the run's record's, the runs' gold."""


class Prior(NamedTuple):
    """A ruling file read as a prior: the ruling, its path, its digest, and its name as a refit records it."""

    ruling: FittedRuling
    path: Path
    digest: str
    named: str


def read_prior(name: str | Path) -> Prior:
    """A ruling file (a path, else a shipped ruling: `rulings/default.<model>.yaml`), its path and its
    digest."""
    path = ruling_file(str(name), Path.cwd() / "court.yaml")
    if not path.exists():
        raise ConfigError(f"--prior {name}: no such ruling file (a path, or a shipped one such as "
                          "rulings/default.smollm2-135m.yaml)")
    # a regular file of at most MAX_RULING_BYTES, as a court's rulings
    check_ruling_file(path, f"--prior {name}")
    data, locator = read_yaml(path)
    try:
        ruling = FittedRuling.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"--prior {name}: {path} is not a ruling "
                          f"file:\n{describe_errors(path, exc, locator)}") from exc
    return Prior(ruling, path, content_hash(path.read_text(encoding="utf-8")), _named(path))


def _named(path: Path) -> str:
    """How a ruling file is recorded: a shipped one as a court file names it (`rulings/...`), another by its
    path."""
    from courtroom.courts.files import courts_dir

    path, shipped = path.resolve(), courts_dir().resolve()
    return path.relative_to(shipped).as_posix() if path.is_relative_to(shipped) else str(path)


def labelled_examples(run: Audit, labels: Mapping[str, bool], where: object) -> list[Example]:
    """The examples of the run's cases labelled in `labels` (from `where`: a label file, the run's record)."""
    splitter = witness_court(run).spec.sentences
    examples = []
    for case_id, hallucinated in labels.items():
        example = example_of(run.events(case_id), splitter, hallucinated, spans=False)
        if example is None:
            raise ConfigError(f"{where}: case {case_id} has no verdict with testimony in {run.root} (it "
                              "failed, or its court heard no witnesses): leave it unlabelled")
        examples.append(example)
    return examples


def calibrate_with_prior(run_dirs: Sequence[str | Path | Audit], prior_name: str | Path,
                         labels: str | Path | None = None,
                         precision: float = PRIOR_PRECISION, folds: int = 5, seed: int = 0,
                         command: str = "") -> PriorCalibration:
    """The prior refitted on the labels of a label file (one run), else on the labels of the run's record of
    human judgement (one run that holds any: labels and `audit edit` corrections), else on the runs' gold
    labels."""
    prior = read_prior(prior_name)
    run = Audit.of(run_dirs[0]) if len(run_dirs) == 1 else None
    human = run.human_labels() if run is not None and labels is None else {}
    if labels is not None or human:
        if run is None:
            raise ConfigError("a label file is of one run: give that run alone with --labels")
        given = {c: v for c, v in read_labels(labels, run).items()
                 if v is not None} if labels is not None else \
            {c: label == "FAIL" for c, label in human.items()}
        where = labels if labels is not None else run.root / JUDGEMENTS
        examples, judge = labelled_examples(run, given, where), witness_court(run)
        model, source = model_key(run.manifest.model), f"the {len(given)} labels of {where}"
    else:
        runs = labelled_runs(run_dirs)
        examples, model, judge, source = runs.examples, runs.model, runs.court, "the runs' gold labels"
    check_for_run(prior.ruling, judge, model, f"--prior {prior_name}")
    return refit_prior(prior, examples, judge.spec.name, model, precision=precision, folds=folds, seed=seed,
                       command=command, labels=source)


def refit_prior(prior: Prior, examples: Sequence[Example], court: str, model: str, *,
                precision: float = PRIOR_PRECISION,
                folds: int = 5, seed: int = 0, command: str = "", labels: str = "") -> PriorCalibration:
    """The prior (checked for the run: `check_for_run`) refitted on labelled examples of a run of `court` on
    `model`, and estimated out of fold on them."""
    if not examples:
        raise ConfigError(f"{labels or 'the runs'}: no labelled case: label some cases (courtroom label RUN, "
                          "or courtroom view)")
    refit = refit_with_prior(prior.ruling, examples, prior_path=prior.named, prior_digest=prior.digest,
                             precision=precision, command=command)
    before = np.array([p_hallucinated(prior.ruling, e) for e in examples])
    y = np.array([e.hallucinated for e in examples])
    k = min(folds, int(y.sum()), int((~y).sum()))
    oof = None
    if k >= 2:
        fold = stratified_folds(y, [e.group or e.case_id for e in examples], folds=k, seed=seed)
        oof = out_of_fold(prior.ruling, examples, fold, precision)
    return PriorCalibration(refit, list(examples), prior.ruling, before, oof, model, court, labels)


def scores(calibration: PriorCalibration) -> dict[str, dict[str, float | None]]:
    """Balanced accuracy and AUROC on the labelled cases: the prior's, and the refit's out of fold."""
    gold = np.array([e.hallucinated for e in calibration.examples])
    thresholds = np.array([calibration.refit.ruling.family_for(e.family)[1].threshold
                           for e in calibration.examples])
    return label_scores(gold, thresholds, {"prior": calibration.prior,
                                           "refit, out of fold": calibration.out_of_fold})


def moves(calibration: PriorCalibration, most: int = 4) -> list[str]:
    """What the labels moved most of each refitted family, as `family: name before -> after`."""
    out = []
    for name, mode in calibration.refit.modes.items():
        if mode == "kept":
            continue
        before = calibration.prior_ruling.families[name].linear  # type: ignore[index]
        after = calibration.refit.ruling.families[name].linear  # type: ignore[index]
        changes = sorted(zip(before.features, before.weights, after.weights), key=lambda c: -abs(c[2] - c[1]))
        shown = [("intercept", before.intercept, after.intercept)] + [c for c in changes[:most]
                                                                      if c[2] != c[1]]
        out += [f"{name}: {feature} {a:+.2f} -> {b:+.2f}" for feature, a, b in shown]
    return out
