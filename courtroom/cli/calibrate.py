"""`courtroom calibrate`: fit a court's verdict threshold on a labelled run and write the court that uses
it."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from courtroom.calibrate.prior_refit import PRIOR_PRECISION
from courtroom.cli.app import app, console, fail, failing, warn
from courtroom.report.tables import columns
from courtroom.report.terminal import shown


@app.command()
def calibrate(
    run_dirs: list[str] = typer.Argument(..., help="Labelled courtroom runs (several with --ruling: one "
                                                   "court, one model)."),
    output: str | None = typer.Option(None, "-o", "--output", help="Write the run's court with the fitted "
                                                                   "threshold (or, with --ruling, with the "
                                                                   "ruling) to this YAML file."),
    ruling: str | None = typer.Option(None, "--ruling", help="Fit the ruling that weighs the court's "
                                                             "witnesses on the runs' labelled cases and "
                                                             "write it to this YAML file."),
    prior: str | None = typer.Option(None, "--prior", help="With --ruling: refit this ruling file (a shipped "
                                                           "one, e.g. rulings/default.<model>.yaml) on a few "
                                                           "labels, shrunk toward it, instead of fitting one "
                                                           "from scratch."),
    labels: str | None = typer.Option(None, "--labels", help="With --prior: a label file (`courtroom label "
                                                             "RUN --write`) to refit on; default: the labels "
                                                             "of the run's record of human judgement "
                                                             "(`courtroom label`, `courtroom view`, `audit "
                                                             "edit`), else the runs' gold labels."),
    shrink: float = typer.Option(PRIOR_PRECISION, "--shrink", min=0.0,
                                 help="With --prior: how strongly the weights "
                                 "are held to the prior's (an L2 penalty on their move)."),
    folds: int = typer.Option(5, min=2, help="Folds of the cross-validated estimate."),
    seed: int = typer.Option(0, min=0, help="Seed of the folds."),
) -> None:
    """Fit the court's verdict threshold on a labelled run: the threshold best on all its cases, and a k-fold
    estimate of what it is worth (each fold judged at the threshold fitted on the others) beside the court's
    current threshold on the same folds; with -o, the run's court with that threshold. With --ruling, fit the
    ruling that weighs the court's witnesses instead (a small logistic model per task family), estimated the
    same way, out of fold. With --prior, refit a fitted ruling on a few labels of the run (those `courtroom
    label` and `courtroom view` record in it, and `audit edit`'s corrections; or a label file's): its weights
    shrunk toward the prior's, its probes kept."""
    if (prior is not None or labels is not None) and ruling is None:
        fail("--prior and --labels refit a ruling: give --ruling FILE to write it to")
    if labels is not None and prior is None:
        fail("--labels refits a fitted ruling on a few labels: give it as --prior (a shipped one: "
             "rulings/default.<model>.yaml)")
    if prior is not None:
        _calibrate_prior(run_dirs, ruling, prior, labels, shrink, output, folds, seed)  # type: ignore[arg-type]
        return
    if ruling is not None:
        _calibrate_ruling(run_dirs, ruling, output, folds, seed)
        return
    if len(run_dirs) != 1:
        fail("a threshold is calibrated on one run; several runs are for --ruling")
    _calibrate_threshold(run_dirs[0], output, folds, seed)


def _calibrate_threshold(run_dir: str, output: str | None, folds: int, seed: int) -> None:
    from courtroom.calibrate.threshold_runs import calibrate as fit
    from courtroom.calibrate.threshold_runs import calibrated_court

    with failing():
        c = fit(run_dir, folds=folds, seed=seed)
    console.print(f"[bold]{shown(c.run)}[/]: {c.cases} labelled cases ({c.charged} charged), model "
                  f"{shown(c.model)}, aggregation {c.method}")
    table = columns(Table(title=f"balanced accuracy, {c.folds}-fold cross-validation (seed {seed})"),
                    ("threshold", "pooled over folds", "mean ± sd of folds", "on all cases (in sample)"))
    table.add_row(f"current {c.current:g}", f"{c.at_current.pooled:.3f}",
                  f"{c.at_current.mean:.3f} ± {c.at_current.spread:.3f}", f"{c.in_sample_current:.3f}")
    thresholds = ", ".join(f"{t:.3f}" for t in c.fold_thresholds)
    table.add_row(f"fitted on the other folds ({thresholds})", f"{c.calibrated.pooled:.3f}",
                  f"{c.calibrated.mean:.3f} ± {c.calibrated.spread:.3f}", "-")
    table.add_row(f"fitted on all cases: {c.fitted:g}", "-", "-", f"{c.in_sample_fitted:.3f} (optimistic)")
    console.print(table)
    gain = c.calibrated.pooled - c.at_current.pooled
    console.print(f"calibrating is worth {gain:+.3f} balanced accuracy out of fold "
                  f"({c.at_current.pooled:.3f} -> {c.calibrated.pooled:.3f}); the fitted threshold is "
                  f"{c.fitted:g} (the court's is {c.current:g})")
    for note in c.notes:
        warn(note)
    if output is not None:
        with failing(output, "the calibrated court"):
            path = calibrated_court(run_dir, c.fitted, output)
        console.print(f"wrote {shown(path)}: the run's court with aggregation.threshold {c.fitted:g}; decide "
                      f"the run again with it (no model call): courtroom rejudge {shown(c.run)} --court "
                      f"{shown(path)} --out RUN_DIR")


def _command() -> str:
    """The command line as the ruling file records it."""
    return "courtroom calibrate " + shlex.join(sys.argv[2:])


def _calibrate_ruling(run_dirs: list[str], path: str, output: str | None, folds: int, seed: int) -> None:
    from courtroom.calibrate.ruling_report import ruling_table, span_rows
    from courtroom.calibrate.ruling_runs import calibrate_ruling, write_ruling

    with failing():
        fit, runs = calibrate_ruling(run_dirs, folds=folds, seed=seed, command=_command())
    rows, evaluation = ruling_table(fit)
    console.print(f"[bold]{len(fit.examples)}[/] labelled cases of court {shown(runs.court.spec.name)} on "
                  f"{shown(runs.model)}; witnesses {', '.join(sorted(fit.ruling.witnesses))}; families "
                  f"{', '.join(fit.ruling.families)}")
    table = columns(Table(title=f"the ruling out of fold ({folds}-fold cross-validation, seed {seed}): "
                                "balanced accuracy, AUROC"), ("cases", "of", "balanced accuracy", "AUROC"))
    for row in rows:
        table.add_row(shown(row[0]), str(row[1]), f"{row[2]:.3f}" if row[2] == row[2] else "-",
                      f"{row[3]:.3f}" if row[3] == row[3] else "-")
    console.print(table)
    if pointing := span_rows(evaluation):
        spans = columns(Table(title="pointing at the hallucinated words, out of fold (token level, "
                                    "hallucinated "
                                    "answers)"), ("spans from", "precision", "recall", "F1 [95%]", "hit@1"))
        for row in pointing:
            spans.add_row(*row)
        console.print(spans)
        diff = evaluation["spans_out_of_fold"]["token F1, words - sentences [95%]"]  # type: ignore[index]
        console.print(f"token F1, the words' spans against the charged sentences: {diff[0]:+.3f} "
                      f"[{diff[1]:+.3f}, {diff[2]:+.3f}] (paired bootstrap)")
        if fit.ruling.spans is not None and fit.ruling.spans.probe is not None:
            console.print("the span model weighs a word probe over each word's hidden state "
                          f"({len(fit.ruling.spans.probe.linear.weights)} values, recorded by "
                          "witnesses.word_states)")
    for note in fit.notes:
        warn(note)
    with failing(path, "the ruling"):
        written = write_ruling(fit, path, evaluation)
    console.print(f"wrote {shown(str(written))}: the ruling for court {shown(runs.court.spec.name)} on "
                  f"{shown(runs.model)}")
    if output is not None:
        _write_court(run_dirs[0], written, output, f"the ruling filed under {shown(runs.model)}")


def _write_court(run_dir: str, ruling: Path, output: str, what: str) -> None:
    """The run's court with the ruling written beside it, and how to decide the run again with it."""
    from courtroom.calibrate.ruling_runs import court_with_ruling

    with failing(output, "the court"):
        court = court_with_ruling(run_dir, ruling, output)
    console.print(f"wrote {shown(str(court))}: the run's court with {what}; decide the run again with it (no "
                  f"model call): courtroom rejudge {shown(run_dir)} --court {shown(str(court))} --out "
                  "RUN_DIR")


def _calibrate_prior(run_dirs: list[str], path: str, prior: str, labels: str | None, shrink: float,
                     output: str | None, folds: int, seed: int) -> None:
    from courtroom.calibrate.prior_runs import calibrate_with_prior, moves, scores
    from courtroom.calibrate.ruling_runs import write_ruling

    with failing():
        calibration = calibrate_with_prior(run_dirs, prior, labels, shrink, folds, seed, _command())
    refit = calibration.refit
    y = [e.hallucinated for e in calibration.examples]
    console.print(f"[bold]{len(y)}[/] labels ({sum(y)} hallucinated, {len(y) - sum(y)} faithful: "
                  f"{shown(calibration.labels)}) of court {shown(calibration.court)} on "
                  f"{shown(calibration.model)}, the prior {shown(prior)}; refitted: "
                  + (", ".join(f"{name} ({mode})" for name, mode in refit.modes.items() if mode != "kept")
                     or "nothing"))
    console.print("moved most (standardised weights): " + "; ".join(shown(m) for m in moves(calibration)))
    evaluation = scores(calibration)
    sample = (f"the runs' {len(y)} labelled cases (their gold labels)"
              if calibration.labels.endswith("gold labels")
              else f"a random sample of {len(y)} of the run's cases, drawn by `courtroom label` (less those "
                   "skipped)")
    table = columns(Table(title=f"on {sample}, with 95% bootstrap intervals over them"),
                    ("ruling", "balanced accuracy [95%]", "AUROC [95%]"))
    for name, row in evaluation.items():
        table.add_row(name, *(_scored(row[k], row[f"{k}_95"]) for k in ("balanced_accuracy", "auroc")))
    console.print(table)
    for note in refit.notes:
        warn(note)
    with failing(path, "the ruling"):
        written = write_ruling(refit.ruling, path, {"on_the_labels": evaluation})
    console.print(f"wrote {shown(str(written))}: the prior refitted on the labels")
    if output is not None:
        _write_court(run_dirs[0], written, output, "the refitted ruling filed under "
                                                   f"{shown(calibration.model)}")


def _scored(value: Any, interval: Any) -> str:
    """A score and its 95% interval as the table shows them."""
    return "-" if value is None else f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]"
                                                       if interval else "")
