"""The refit `courtroom view` runs: `calibrate --prior --labels -o COURT` and `rejudge --court COURT` into a new
folder beside the label file (no model call), and what it changed on the labelled cases and the others."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from courtroom.calibrate.prior_runs import PriorCalibration, calibrate_with_prior, scores
from courtroom.calibrate.ruling_runs import court_with_ruling, write_ruling
from courtroom.evaluate.comparison import pair
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.rejudge import rejudge_run, rejudged_judge
from courtroom.log.store import RunStore
from courtroom.view.runs import shown_path


def refit_folder(run: Path) -> Path:
    """A new folder for a refit's files beside the run and its label file: `<run>.refit-<k>`."""
    k = 1
    while True:
        path = run.parent / f"{run.name}.refit-{k}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            k += 1


def _rows(calibration: PriorCalibration, p: np.ndarray) -> list[ResultRow]:
    """The labelled cases decided at `p`, the labels as their gold (at the refit's thresholds, as `scores` does)."""
    return [ResultRow(case_id=e.case_id, source=e.source, gold="FAIL" if e.hallucinated else "PASS", score=float(x),
                      label="FAIL" if x >= calibration.refit.ruling.family_for(e.family)[1].threshold else "PASS")
            for e, x in zip(calibration.examples, p)]


def refit(run: Path, labels: Path, prior: str) -> dict[str, Any]:
    """Refit `prior` on the run's label file, decide the run again with it, and say what changed."""
    out = refit_folder(run)
    ruling, court, rejudged = out / "ruling.yaml", out / "court.yaml", out / "run"
    shown = shown_path  # as the commands are typed where the view was started
    command = shlex.join(["courtroom", "calibrate", shown(run), "--ruling", shown(ruling), "--prior", shown(prior),
                          "--labels", shown(labels), "-o", shown(court)])
    calibration = calibrate_with_prior([run], prior, labels, command=command)
    write_ruling(calibration.refit.ruling, ruling, {"on_the_labels": scores(calibration)})
    court_with_ruling(run, ruling, court)
    audit = Audit(run)
    manifest = audit.store.manifest()
    after = rejudge_run(run, rejudged, judge=rejudged_judge(manifest, court=str(court)))
    RunStore(rejudged).write_metrics(compute_metrics(after))
    labelled = {e.case_id for e in calibration.examples}
    y = [e.hallucinated for e in calibration.examples]
    oof = calibration.out_of_fold
    return {"labelled": {"cases": len(y), "hallucinated": sum(y), "faithful": len(y) - sum(y),
                         "prior": str(compute_metrics(_rows(calibration, calibration.prior)).balanced_accuracy),
                         "refit": None if oof is None else str(compute_metrics(_rows(calibration, oof)).balanced_accuracy),
                         "refitted": calibration.refit.modes},
            "unlabelled": _unlabelled([r for r in audit.rows() if r.case_id not in labelled], after),
            "notes": list(calibration.refit.notes), "folder": shown(out), "ruling": shown(ruling), "court": shown(court),
            "run": shown(rejudged), "commands": [
                command, shlex.join(["courtroom", "rejudge", shown(run), "--court", shown(court), "--out", shown(rejudged)]),
                shlex.join(["courtroom", "run", shown(manifest.spec.selection.dataset), "--court", shown(court), "--model",
                            manifest.model])]}


def _unlabelled(before: Sequence[ResultRow], after: Sequence[ResultRow]) -> dict[str, Any]:
    """The unlabelled cases before and after the refit: the verdicts flipped and, with gold, the paired difference."""
    by_id = {r.case_id: r for r in after}
    pairs = [(b, by_id[b.case_id]) for b in before if b.case_id in by_id]
    old, new = [b for b, _ in pairs], [a for _, a in pairs]
    flipped = [{"id": b.case_id, "before": b.label, "after": a.label, "gold": b.gold} for b, a in pairs
               if b.label != a.label]
    gold = compute_metrics(old, resamples=0).cases
    out: dict[str, Any] = {"cases": len(pairs), "flipped": flipped, "with_gold": gold}
    if gold:
        p = pair("refit", old, new)
        out |= {"before": str(compute_metrics(old).balanced_accuracy), "after": str(compute_metrics(new).balanced_accuracy),
                "difference": None if p.difference is None or p.low is None or p.high is None else
                f"{-p.difference:+.3f} [{-p.high:+.3f}, {-p.low:+.3f}]", "p": f"{p.p_value:.3g}",
                "discordant": f"+{p.contender_only} / -{p.reference_only}"}
    return out
