"""`courtroom calibrate`: fit a court's verdict threshold on a labelled run and write the court that uses it."""

from __future__ import annotations

import typer
from rich.table import Table

from courtroom.cli.app import app, console, fail, warn
from courtroom.report.terminal import shown


@app.command()
def calibrate(
    run_dir: str = typer.Argument(..., help="A labelled courtroom run."),
    output: str | None = typer.Option(None, "-o", "--output", help="Write the run's court with the fitted threshold "
                                                                   "to this YAML file."),
    folds: int = typer.Option(5, min=2, help="Folds of the cross-validated estimate."),
    seed: int = typer.Option(0, help="Seed of the folds."),
) -> None:
    """Fit the court's verdict threshold on a labelled run: the threshold best on all its cases, and a
    k-fold estimate of what it is worth (each fold judged at the threshold fitted on the others) beside the
    court's current threshold on the same folds; with -o, the run's court with that threshold."""
    from courtroom.errors import CourtroomError
    from courtroom.log.calibrate import calibrate as fit
    from courtroom.log.calibrate import calibrated_court

    try:
        c = fit(run_dir, folds=folds, seed=seed)
    except CourtroomError as exc:
        fail(str(exc))
    console.print(f"[bold]{shown(c.run)}[/]: {c.cases} labelled cases ({c.charged} charged), model {shown(c.model)}, "
                  f"aggregation {c.method}")
    table = Table(title=f"balanced accuracy, {c.folds}-fold cross-validation (seed {seed})")
    for column in ("threshold", "pooled over folds", "mean ± sd of folds", "on all cases (in sample)"):
        table.add_column(column, justify="left" if column == "threshold" else "right")
    table.add_row(f"current {c.current:g}", f"{c.at_current.pooled:.3f}",
                  f"{c.at_current.mean:.3f} ± {c.at_current.spread:.3f}", f"{c.in_sample_current:.3f}")
    thresholds = ", ".join(f"{t:.3f}" for t in c.fold_thresholds)
    table.add_row(f"fitted on the other folds ({thresholds})", f"{c.calibrated.pooled:.3f}",
                  f"{c.calibrated.mean:.3f} ± {c.calibrated.spread:.3f}", "-")
    table.add_row(f"fitted on all cases: {c.fitted:g}", "-", "-", f"{c.in_sample_fitted:.3f} (optimistic)")
    console.print(table)
    gain = c.calibrated.pooled - c.at_current.pooled
    console.print(f"calibrating is worth {gain:+.3f} balanced accuracy out of fold ({c.at_current.pooled:.3f} -> "
                  f"{c.calibrated.pooled:.3f}); the fitted threshold is {c.fitted:g} (the court's is {c.current:g})")
    for note in c.notes:
        warn(note)
    if output is not None:
        try:
            path = calibrated_court(run_dir, c.fitted, output)
        except CourtroomError as exc:
            fail(str(exc))
        console.print(f"wrote {shown(path)}: the run's court with aggregation.threshold {c.fitted:g}; decide the "
                      f"run again with it (no model call): courtroom rejudge {shown(c.run)} --court {shown(path)} "
                      f"--out RUN_DIR")
