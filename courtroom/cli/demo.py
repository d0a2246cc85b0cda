"""`courtroom demo`: judge the shipped example cases and print the verdicts."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from courtroom.cli.app import app, console, fail
from courtroom.report.terminal import shown


@app.command()
def demo(
    judge: str = typer.Option("courtroom", help="Which judge tries the example cases (courtroom or a "
                                                "baseline)."),
    court: str = typer.Option("default", help="Court name or file (for the courtroom judge)."),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id."),
    limit: int | None = typer.Option(None, help="Judge only the first N example cases."),
) -> None:
    """Judge the shipped example cases with the default model and print the verdicts."""
    from courtroom.door.spec import BackendSpec
    from courtroom.engine.registry import JudgeSpec
    from courtroom.errors import CourtroomError
    from courtroom.evaluate.datasets import example_cases
    from courtroom.evaluate.results import summarize
    from courtroom.log.recorded_court import make_judge
    from courtroom.report.progress import run_progress
    from courtroom.report.tables import columns, elide
    from courtroom.runs.progress import usual_calls

    cases = example_cases()[:limit]
    try:
        judge_obj = make_judge(JudgeSpec(name=judge, court=court), BackendSpec(model=model))
        table = columns(Table(title=shown(f"{judge} judge ({court if judge == 'courtroom' else 'baseline'}), "
                                          f"model {model}: {len(cases)} example cases")),
                        ("case", "gold", "verdict", "score", "reason"), left=None, overflow="fold")
        correct = 0
        outcomes = []
        with run_progress(console, len(cases), 0, usual_calls(judge_obj),
                          "judging the examples") as (monitor, _, _):
            for outcome in judge_obj.run_many(cases, observer=monitor):
                outcomes.append(outcome)
                monitor.case_finished(summarize(outcome, ""))
        for outcome in outcomes:
            v = outcome.verdict
            if v is None:
                table.add_row(shown(outcome.case.id), shown(outcome.case.label or "-"), "[red]error[/]", "-",
                              shown(outcome.error or ""))
                continue
            correct += v.label == outcome.case.label
            mark = "[green]" if v.label == outcome.case.label else "[red]"
            table.add_row(shown(outcome.case.id), shown(outcome.case.label or "-"),
                          f"{mark}{shown(v.label)}[/]", f"{v.score:.2f}", shown(elide(v.reason, 200)))
    except CourtroomError as exc:
        fail(str(exc))
    console.print(table)
    console.print(f"accuracy {correct}/{len(cases)}")
    console.print(escape(next_step(judge, court, model)))


def next_step(judge: str, court: str, model: str) -> str:
    """The `run` that judges the examples as the demo did into a run directory, and its audit."""
    import shlex

    options = [("--judge", judge, "courtroom"), ("--court", court if judge == "courtroom" else "default",
                                                 "default"),
               ("--model", model, "default")]
    command = " ".join(["courtroom run examples",
                        *(f"{name} {shlex.quote(value)}" for name, value, usual in options
                                                    if value != usual)])
    from courtroom.runs.api import default_run_dir

    out = shlex.quote(str(default_run_dir("examples", judge, court, model)))
    return f"next: {command} (writes {out}), then courtroom audit {out}"
