"""`courtroom compare`: runs side by side, with intervals and paired tests on the cases they share."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer
from rich.table import Table

from courtroom.cli.app import app, console, fail, failing, warn
from courtroom.errors import CourtroomError
from courtroom.evaluate.comparison import Contender
from courtroom.evaluate.comparison import compare as compare_runs
from courtroom.evaluate.confounds import LENGTH_ONLY, OVERLAP_ONLY
from courtroom.evaluate.results import as_variant, escalation, trials, variant_names
from courtroom.log.pooled import open_pooled_run
from courtroom.report.tables import columns, compare_table, pairing_table, trial_comparison_table
from courtroom.report.terminal import shown


@app.command()
def compare(
    runs: list[str] = typer.Argument(..., help="Run directories; the first is the reference. Join one "
                                               "judge's runs on several datasets with + "
                                               "(runs/hb-court+runs/rt-court) to pool them into one "
                                               "comparison."),
    calibrated: bool = typer.Option(False, help="Relabel every run with a threshold calibrated by 5-fold "
                                                "cross-validation on its own labelled cases (out of fold; "
                                                "each +-joined run on its own)."),
    length_baseline: bool = typer.Option(False, help="Add the length-only rule (FAIL when the answer is "
                                                     "longer than the median) on the reference run's cases "
                                                     "(the median of each +-joined run): a judge close to it "
                                                     "may be measuring answer length."),
    overlap_baseline: bool = typer.Option(False, help="Add the overlap-only rule (FAIL when more of the "
                                                      "answer's words than the median are never used by the "
                                                      "context or question) on the reference run's cases "
                                                      "(the median of each +-joined run)."),
    errors_wrong: bool = typer.Option(False, "--errors-as-wrong", help="Count every failed case as a wrong "
                                      "verdict instead of leaving it out (a judge that fails on hard cases "
                                      "is otherwise compared on the easier rest)."),
    gain: bool = typer.Option(False, "--debate-gain", help="Add the reference court run's own variants (its "
                                                           "measurement alone, its agents alone), decided "
                                                           "from the same recorded calls."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON (for scripts)."),
) -> None:
    """Compare runs side by side, with intervals and paired tests (McNemar) on shared cases.

    Cases a run failed on are left out of its metrics and of every pair it is in (the tables count
    them), unless `--errors-as-wrong`. Runs joined with + are pooled: thresholds and no-model rules are
    fitted on each of them alone, then their cases are compared together. Δ is the reference's balanced
    accuracy minus the run's (positive: the reference is ahead)."""
    wanted = [rule for rule, asked in ((LENGTH_ONLY, length_baseline), (OVERLAP_ONLY, overlap_baseline))
              if asked]
    with failing():
        pooled = [open_pooled_run(r) for r in runs]
        rules = {}
        for rule in wanted:
            try:
                rules[rule] = pooled[0].member_cases()
            except CourtroomError as exc:
                raise CourtroomError(f"--{rule.split('-')[0]}-baseline needs the reference run's dataset: "
                                     f"{exc}") from exc
    for p in pooled:
        if p.differences:
            warn(f"{p.contender.name} pools runs whose judge settings differ ({', '.join(p.differences)}): "
                 "are they one protocol?")
    contenders = [p.contender for p in pooled]
    if gain:
        reference = pooled[0].contender
        names = variant_names(reference.rows())
        if not names:
            fail(f"--debate-gain: {reference.name} holds no variants (a courtroom run made with courtroom "
                 "0.2 or later)")
        contenders[1:1] = [Contender(f"{reference.name}: {n}", n, reference.model,
                                     tuple(tuple(as_variant(m, n)) for m in reference.members),
                                     reference.court)
                           for n in names]
    result = compare_runs(contenders, calibrated=calibrated, count_errors_as_wrong=errors_wrong, rules=rules)
    for message in result.warnings:
        warn(message)
    if as_json:
        typer.echo(json.dumps(comparison_json(result), indent=2))
        return
    console.print(compare_table(result))
    if result.pairings:
        console.print(pairing_table(result))
    _escalation_table([p.contender for p in pooled])
    _trials_table(contenders)


def comparison_json(comparison) -> dict:  # noqa: ANN001
    """A comparison as JSON data: every contender's metrics, and every pairing with the reference (as in the
    table)."""
    return {
        "reference": comparison.contenders[0].name,
        "difference": "reference - run",
        "runs": [{"name": c.name, "judge": c.judge, "court": c.court, "model": c.model,
                  "metrics": m.model_dump(mode="json"),
                  "trials": None if (t := trials(c.rows())) is None else t.model_dump()}
                 for c, m in zip(comparison.contenders, comparison.metrics)],
        "pairings": [asdict(p) for p in comparison.pairings],
        "warnings": list(comparison.warnings),
    }


def _trials_table(contenders: list) -> None:
    """How the runs' trials went, side by side (no run held a trial: no table)."""
    held = [(c.name, s) for c in contenders if (s := trials(c.rows())) is not None]
    if held:
        console.print(trial_comparison_table(held))


def _escalation_table(contenders: list) -> None:
    """The share of charges escalated and the cost per case of the runs of escalating courts (none: no
    table)."""
    measured = [(c.name, e) for c in contenders if (e := escalation(c.rows())) is not None]
    if not measured:
        return
    table = columns(Table(title="escalation: charges tried, the rest decided by the measurement alone"),
                    ("run", "charges", "tried", "share tried", "s/case", "trials s/case",
                     "outside trials s/case", "court / outside"), overflow="fold")
    for name, e in measured:
        outside = e.measurement_seconds_per_case
        table.add_row(shown(name), str(e.charges), str(e.tried), f"{e.share:.1%}",
                      f"{e.seconds_per_case:.2f}", f"{e.trial_seconds_per_case:.2f}", f"{outside:.2f}",
                      f"{e.seconds_per_case / outside:.2f}x" if outside > 0 else "-")
    console.print(table)
