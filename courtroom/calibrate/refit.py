"""What a refit of the prior on a few labels does to a run, one workflow for `courtroom view` and `courtroom
label`: the refit and its out-of-fold estimate on the labels (`prior_runs.refit_prior`, what `calibrate
--prior` runs), every case of the run decided by it from its recorded testimony (as `rejudge` decides it, with
no model call: each family's values stacked once, one product a refit), the verdicts it flips and its table,
then its court and the run decided again beside the run."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.prior_runs import Prior, PriorCalibration, refit_prior, scores
from courtroom.calibrate.ruling_runs import court_with_ruling, write_ruling
from courtroom.evaluate.comparison import pair
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.rejudge import rejudge_run, rejudged_judge
from courtroom.log.store import RunStore
from courtroom.witness.ruling import FittedRuling, word_values


class Weighed:
    """Every case's values as the prior's families read them, its probes scored once over the vectors stacked:
    a refit of the prior (the same features, means and scales; its probes kept) then weighs every case in one
    product a family."""

    def __init__(self, prior: FittedRuling) -> None:
        self.prior = prior
        self.families: dict[str, tuple[list[str], list[list[float]]]] = {}

    def add(self, examples: Mapping[str, Example]) -> None:
        """Stack the values of more cases (a run being written)."""
        scores = {name: dict(zip(ids, probe.scores([examples[c].vectors[name] for c in ids])))
                  for name, probe in self.prior.probes.items()
                  if (ids := [c for c, e in examples.items() if name in e.vectors])}
        for case, e in examples.items():
            name, family = self.prior.family_for(e.family)
            values = {**e.values, **{f"{p}.probe": s[case] for p, s in scores.items() if case in s}}
            if (words := self.prior.word_scores(e.word_hidden)) is not None:
                values.update(word_values(words))
            cases, rows = self.families.setdefault(name, ([], []))
            cases.append(case)
            rows.append([values.get(f, mean) for f, mean in zip(family.linear.features, family.linear.mean)])

    def p(self, ruling: FittedRuling) -> dict[str, tuple[float, float]]:
        """Each case's P(hallucinated) by `ruling` (to 6 places, as a weighing gives it) and its family's
        threshold."""
        out = {}
        for name, (cases, rows) in self.families.items():
            family = ruling.families[name]  # type: ignore[index]
            lin = family.linear
            z = (lin.intercept + ((np.array(rows) - np.array(lin.mean)) / np.array(lin.scale))
                 @ np.array(lin.weights))
            out.update((c, (p, family.threshold)) for c, p in zip(cases,
                                                                  np.round(1
                                                                           / (1
                                                                              + np.exp(-np.clip(z, -50, 50))),
                                                                           6)))
        return out

    def verdicts(self, ruling: FittedRuling) -> dict[str, str]:
        """Each case's verdict by `ruling`: FAIL at its P(hallucinated) at or above its family's threshold."""
        return {c: "FAIL" if p >= threshold else "PASS" for c, (p, threshold) in self.p(ruling).items()}


@dataclass(frozen=True)
class Estimate:
    """A refit on the labels: the calibration (the refit, its out-of-fold estimate) and every case's verdict
    by it."""

    calibration: PriorCalibration
    labels: dict[str, bool]
    after: dict[str, str]
    flipped: list[str]
    """The cases not labelled whose verdict the refit changes."""
    stable: bool = field(default=False)
    """The last labels (`label_session.STABLE_AFTER`) changed no verdict of the cases not labelled."""

    def summary(self) -> dict[str, Any]:
        """What the page shows after every label."""
        y = list(self.labels.values())
        oof = self.calibration.out_of_fold
        return {"labelled": len(y), "hallucinated": sum(y), "faithful": len(y) - sum(y),
                "prior": _balanced(self.calibration, self.calibration.prior),
                "refit": None if oof is None else _balanced(self.calibration, oof),
                "flipped": len(self.flipped),
                "refitted": {f: m for f, m in self.calibration.refit.modes.items() if m != "kept"},
                "stable": self.stable}


def estimate(prior: Prior, court: str, model: str, weighed: Weighed, examples: Mapping[str, Example],
             labels: Mapping[str, bool], verdicts: Mapping[str, str | None]) -> Estimate:
    """The prior (checked for the run) refitted on the labelled examples, and what it decides of every case
    `weighed` holds."""
    calibration = refit_prior(prior, [replace(examples[c], hallucinated=v) for c, v in labels.items()], court,
                              model, labels=f"the {len(labels)} labels of the run's record")
    after = weighed.verdicts(calibration.refit.ruling)
    return Estimate(calibration, dict(labels), after,
                    [c for c, v in after.items() if c not in labels and v != verdicts[c]])


def _balanced(calibration: PriorCalibration, p: np.ndarray) -> str:
    """Balanced accuracy with its 95% interval of P(hallucinated) `p` on the labelled examples (at the refit's
    thresholds, as `scores` decides them)."""
    rows = [ResultRow(case_id=e.case_id, source=e.source, gold="FAIL" if e.hallucinated else "PASS",
                      score=float(x),
                      label="FAIL"
                      if x >= calibration.refit.ruling.family_for(e.family)[1].threshold else "PASS")
            for e, x in zip(calibration.examples, p)]
    return str(compute_metrics(rows).balanced_accuracy)


def refit_folder(run: Path) -> Path:
    """A new folder for a refit's files beside the run: `<run>.refit-<k>`."""
    k = 1
    while True:
        path = run.parent / f"{run.name}.refit-{k}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            k += 1


def refit_table(run: Audit, done: Estimate, prior: str, out: Path, shown: Any = str) -> dict[str, Any]:
    """Write the refit's ruling into `out` and say what it changed: the table of `courtroom view`, with the
    commands that make the same files (paths as `shown` gives them); the court filing it is
    `refit_court`'s."""
    ruling, court, rejudged = out / "ruling.yaml", out / "court.yaml", out / "run"
    command = shlex.join(["courtroom", "calibrate", shown(run.root), "--ruling", shown(ruling), "--prior",
                          shown(prior), "-o", shown(court)])
    calibration = done.calibration
    fitted = calibration.refit.ruling
    write_ruling(fitted.model_copy(update={"fitted": {**fitted.fitted, "command": command}}), ruling,
                 {"on_the_labels": scores(calibration)})
    return {"labelled": done.summary(),
            "unlabelled": _unlabelled([r for r in run.rows() if r.case_id in done.after
                                       and r.case_id not in done.labels],
                                      done.after),
            "notes": list(calibration.refit.notes), "folder": shown(out), "ruling": shown(ruling),
            "court": shown(court), "run": shown(rejudged), "commands": [
                command, shlex.join(["courtroom", "rejudge", shown(run.root), "--court", shown(court),
                                     "--out", shown(rejudged)]),
                shlex.join(["courtroom", "run", shown(run.manifest.spec.selection.dataset), "--court",
                            shown(court), "--model", run.manifest.model])]}


def refit_court(run: Audit, out: Path) -> list[ResultRow]:
    """The run's court filing the refit's ruling (`out/court.yaml`, checked to load with it), and the run
    decided again by it into `out/run` (`rejudge`, no model call): what the table said, written."""
    court = court_with_ruling(run, out / "ruling.yaml", out / "court.yaml")
    after = rejudge_run(run.root, out / "run", judge=rejudged_judge(run.manifest, court=str(court)))
    RunStore(out / "run").write_metrics(compute_metrics(after))
    return after


def _unlabelled(before: list[ResultRow], after: Mapping[str, str]) -> dict[str, Any]:
    """The cases not labelled before and after the refit: the verdicts flipped and, with gold, the paired
    difference."""
    new = [r.model_copy(update={"label": after[r.case_id]}) for r in before]
    flipped = [{"id": b.case_id, "before": b.label, "after": a.label, "gold": b.gold}
               for b, a in zip(before, new)
               if b.label != a.label]
    gold = compute_metrics(before, resamples=0).cases
    out: dict[str, Any] = {"cases": len(before), "flipped": flipped, "with_gold": gold}
    if gold:
        p = pair("refit", before, new)
        out |= {"before": str(compute_metrics(before).balanced_accuracy),
                "after": str(compute_metrics(new).balanced_accuracy),
                "difference": None if p.difference is None or p.low is None or p.high is None else
                f"{-p.difference:+.3f} [{-p.high:+.3f}, {-p.low:+.3f}]", "p": f"{p.p_value:.3g}",
                "discordant": f"+{p.contender_only} / -{p.reference_only}"}
    return out
