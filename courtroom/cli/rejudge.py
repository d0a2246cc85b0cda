"""`courtroom rejudge`: decide a finished run again from its transcripts, with no model call."""

from __future__ import annotations

import typer

from courtroom.cli.app import app, console, err, failing
from courtroom.report.terminal import shown


@app.command()
def rejudge(
    run_dir: str = typer.Argument(..., help="A finished courtroom (or unstructured) run."),
    out: str = typer.Option(..., help="The new run directory."),
    court: str | None = typer.Option(None, help="The court to decide a courtroom run with (name or file): "
                                                "same prompts, other arithmetic."),
    reading: str | None = typer.Option(None, help="Read an unstructured run's replies again: strict or "
                                                  "lenient."),
    settings: list[str] = typer.Option([], "--set", help="Change one of the run's own court's settings, e.g. "
                                                          "--set trial.judge_weight=0.3 (repeatable)."),
    calls_from: list[str] = typer.Option([], help="Also serve calls recorded in this run of the same cases, "
                                                  "e.g. a run of the full court for a clerk's run rejudged "
                                                  "with --court full (repeatable)."),
) -> None:
    """Decide a finished run again from its transcripts, with no model call.

    A courtroom run under another court that differs in how rulings are weighed and combined (judge
    weight, aggregation, thresholds; a court that would ask the model anything the run did not record is
    refused), or an unstructured run with its replies read another way (`--reading lenient`)."""
    from courtroom.courts import parse_override
    from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
    from courtroom.log.rejudge import rejudge_run, rejudged_judge
    from courtroom.log.span_metrics import run_span_scores
    from courtroom.log.store import RunStore
    from courtroom.report.tables import confusion_table, metrics_table, span_table

    with failing(out):  # a file or directory that cannot be read or made
        source = RunStore(run_dir).existing()
        overrides = dict(parse_override(item) for item in settings)
        judge = rejudged_judge(source.manifest(), court=court, reading=reading, overrides=overrides)
        for path, value in source.manifest().spec.judge.options.get("overrides", {}).items():
            if court is not None and path not in judge.options["overrides"]:
                err.print(f"note: the run's --set {shown(path)}={shown(value)} is not carried: court "
                          f"{shown(court)} has no section {shown(path.split('.')[0])!r}")
        rows = rejudge_run(run_dir, out, judge=judge, calls_from=calls_from)
        overall = compute_metrics(rows)
        spans = run_span_scores(RunStore(out), rows)
        RunStore(out).write_metrics(overall, spans)
    if left_out := len(source.rows()) - len(rows):
        cases = "case" if left_out == 1 else "cases"
        err.print(f"[yellow]left out {left_out} {cases} of {shown(run_dir)}[/] (failed, or their transcript "
                  "is gone)")
    label = (f"court {court}" if court is not None else f"reading {reading}"
             if reading else f"--set {' '.join(settings)}")
    console.print(metrics_table(f"{run_dir} rejudged by {label}: {len(rows)} cases -> {out}", overall,
                                metrics_by_source(rows)))
    console.print(confusion_table(overall))
    if spans is not None:
        console.print(span_table(spans))
