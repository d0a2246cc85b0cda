"""`courtroom audit`: a run's summary, its cases, one case's record, verification, the HTML report, edits. A
run may be someone else's: everything it holds (ids, sources, reasons, errors, names) is printed as text
(`shown`)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from courtroom.case import Verdict
from courtroom.cli.app import (
    audit_app,
    check_gates,
    console,
    court_of,
    err,
    fail,
    failing,
    parse_fail_under,
    warn,
)
from courtroom.cli.compare import comparison_json
from courtroom.errors import AuditError, TranscriptError
from courtroom.evaluate.comparison import Contender, debate_gain
from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
from courtroom.evaluate.results import escalation, trials
from courtroom.log.audit import Audit, edit_verdict
from courtroom.log.export import row_json
from courtroom.log.span_metrics import run_span_scores
from courtroom.report.diff import diff_runs
from courtroom.report.record import calls_record, court_record, row_record
from courtroom.report.tables import (
    columns,
    compare_table,
    confusion_table,
    elide,
    metrics_table,
    pairing_table,
    span_table,
    trials_table,
)
from courtroom.report.terminal import shown


def open_audit(run_dir: str, *, corrected: bool = True) -> Audit:
    """The run read (and its judge rebuilt to weigh human judgements, when the command shows `corrected`
    verdicts): a corrupt run fails here, naming file and line or field; a torn last judgement skipped is
    said."""
    with failing():  # RunError, AuditError, a recorded judge that does not load
        audit = Audit(run_dir)
        audit.store.manifest()
        audit.rows()
        if audit.judged() and corrected:  # the record is read either way: a torn last line is said
            audit.corrected_rows()
    for note in audit.notes:
        warn(note)
    return audit


@audit_app.command("summary")
def audit_summary(run_dir: str = typer.Argument(..., help="Run directory."),
                  fail_under: list[str] = typer.Option([], "--fail-under",
                                                       help="A CI gate on the finished run: exit 3 when a "
                                                            "metric is out of bounds, e.g. "
                                                            "balanced_accuracy>=0.70 (or =0.70) or errors<=0 "
                                                            "(repeatable)."),
                  as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON (for "
                                                                     "scripts).")) -> None:
    """Metrics (the model's and, after edits, the corrected verdicts), errors and a per-source table; with
    gold spans in the data, how well the hallucinated spans named find them."""
    gates = parse_fail_under(fail_under)
    audit = open_audit(run_dir)
    rows = audit.rows()
    manifest = audit.store.manifest()
    if as_json:
        _summary_json(audit, gates)
        return
    court = court_of(manifest.judge)
    console.print(f"[bold]{shown(audit.root)}[/]: judge {shown(manifest.spec.judge.name)}, "
                  + (f"court {shown(court)}, " if court else "")
                  + f"model {shown(manifest.model)}, {len(rows)} cases, created "
                    f"{manifest.created:%Y-%m-%d %H:%M} UTC")
    if note := audit.ruling_note():
        console.print(shown(note))
    overall = compute_metrics(rows)
    console.print(metrics_table("model verdicts", overall, metrics_by_source(rows)))
    if judgements := audit.judgements():
        corrected = audit.corrected_rows()
        console.print(metrics_table(f"corrected verdicts ({len(judgements)} human judgements)",
                                    compute_metrics(corrected)))
    console.print(confusion_table(overall))
    if (spans := run_span_scores(audit.store, rows)) is not None:
        console.print(span_table(spans))
    if (escalated := escalation(rows)) is not None:
        console.print(shown(escalated.describe()))
    if (held := trials(rows)) is not None:
        console.print(trials_table(held))
        for line in held.lines():
            console.print(shown(line))
    gain = debate_gain(Contender.of(manifest.spec.judge.name, rows, model=manifest.model))
    if gain is not None:
        console.print(compare_table(gain, title="the debate's gain: the court against its measurement alone "
                                                "and its agents alone (the same recorded calls)"))
        console.print(pairing_table(gain))
    failed = [r for r in rows if r.error]
    if failed:
        table = Table(title=f"{len(failed)} cases ended in an error")
        table.add_column("case")
        table.add_column("error", overflow="fold")
        for r in failed[:20]:
            table.add_row(shown(r.case_id), shown(f"{r.error_type}: {r.error}"))
        console.print(table)
    check_gates(overall, gates)


def _summary_json(audit: Audit, gates: list) -> None:
    """`audit summary --json`: the run, its metrics (overall, per source, corrected, spans), errors and
    gates."""
    rows, manifest = audit.rows(), audit.store.manifest()
    overall = compute_metrics(rows)
    edits = len(audit.judgements())
    gain = debate_gain(Contender.of(manifest.spec.judge.name, rows, model=manifest.model))
    escalated = escalation(rows)
    summary = {
        "run": str(audit.root), "judge": manifest.spec.judge.name, "court": court_of(manifest.judge),
        "model": manifest.model, "cases": len(rows),
        "created": manifest.created.isoformat(), "config_hash": manifest.config_hash,
        "metrics": overall.model_dump(mode="json"),
        "by_source": {name: m.model_dump(mode="json") for name, m in metrics_by_source(rows).items()},
        "edits": edits,
        "corrected_metrics": (compute_metrics(audit.corrected_rows()).model_dump(mode="json") if edits
                              else None),
        "errors": [{"case_id": r.case_id, "error_type": r.error_type, "error": r.error} for r in rows
                   if r.error],
        "spans": run_span_scores(audit.store, rows),
        "escalation": None if escalated is None else {**escalated._asdict(), "share": escalated.share},
        "trials": None if (held := trials(rows)) is None else {**held.model_dump(),
                                                               "ended_by": held.ended_by(),
                                                                 "lines": held.lines()},
        "debate_gain": None if gain is None else comparison_json(gain),
        "gates": [{"metric": g.metric, g.limit: g.bound, "value": g.value(overall),
                   "passed": g.failure(overall) is None}
                  for g in gates],
    }
    typer.echo(json.dumps(summary, indent=2))
    check_gates(overall, gates, say_passed=False)


@audit_app.command("list")
def audit_list(
    run_dir: str = typer.Argument(..., help="Run directory."),
    wrong: bool = typer.Option(False, "--wrong", help="Only wrong verdicts."),
    errors: bool = typer.Option(False, "--errors", help="Only cases that ended in an error."),
    verdict: str | None = typer.Option(None, help="Only this verdict: PASS or FAIL."),
    source: str | None = typer.Option(None, help="Only sources containing this."),
    search: str | None = typer.Option(None, help="Only cases whose id, reason or error contains this."),
    limit: int | None = typer.Option(None, help="Show at most this many (default 50; with --json, all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the matching cases as JSON (reasons whole)."),
) -> None:
    """List cases, with filters (reasons cut at a word; `audit show` gives them whole)."""
    audit = open_audit(run_dir)
    rows = audit.select(wrong=wrong, verdict=verdict, source=source, search=search, errors=errors)
    if as_json:
        listed = rows if limit is None else rows[:limit]
        typer.echo(json.dumps({"run": str(audit.root), "matching": len(rows),
                               "cases": [row_json(r) for r in listed]},
                              indent=2))
        return
    limit = 50 if limit is None else limit
    table = columns(Table(title=f"{len(rows)} matching cases" + (f" (first {limit})"
                                                                 if len(rows) > limit else "")),
                    ("case", "source", "gold", "verdict", "score", "charges", "reason"), left=None,
                    overflow="fold")
    for r in rows[:limit]:
        mark = "" if r.correct is None else ("[green]" if r.correct else "[red]")
        table.add_row(shown(r.case_id), shown(r.source), shown(r.gold or "-"),
                      f"{mark}{shown(r.label or 'error')}",
                      "-" if r.score is None else f"{r.score:.2f}", str(r.charges),
                      shown(elide(r.error or r.reason, 120)))
    console.print(table)


@audit_app.command("show")
def audit_show(run_dir: str = typer.Argument(..., help="Run directory."),
               case_id: str = typer.Argument(..., help="The case to show."),
               calls: bool = typer.Option(False, "--calls", help="Also every model call: its prompt (the "
                                                                 "shared opening folded), constraint, raw "
                                                                 "output, probabilities and cost.")) -> None:
    """The debate of one case as a court record, with the measurement token by token (what its result row
    holds, when its transcript is gone)."""
    audit = open_audit(run_dir, corrected=False)
    try:
        record = audit.record(case_id)
        console.print(court_record(record, audit.row(case_id).gold, audit.grounding_clip(),
                                   audit.sentence_splitter()))
        if calls:
            console.print(calls_record(record.events))
    except TranscriptError as exc:
        err.print(f"[yellow]note[/]: {shown(exc)}; showing what the results row holds")
        console.print(row_record(audit.row(case_id)))
    except AuditError as exc:
        fail(str(exc))


@audit_app.command("verify")
def audit_verify(run_dir: str = typer.Argument(..., help="Run directory.")) -> None:
    """Replay every transcript; check verdicts, scores, events and metrics. Exit 1 on any problem."""
    from courtroom.log.verify import verify

    audit = open_audit(run_dir)
    with failing(), console.status("replaying every transcript..."):
        problems = verify(audit)
    if problems:
        for problem in problems:
            err.print(f"[red]problem[/] {shown(problem)}")
        err.print(f"{len(problems)} problems")
        raise typer.Exit(1)
    console.print(f"[green]verified[/]: {len(audit.rows())} transcripts replay to their verdicts; metrics "
                  "recompute")


@audit_app.command("report")
def audit_report(run_dir: str = typer.Argument(..., help="Run directory (run A, with --against)."),
                 output: str = typer.Option("report.html", "-o", "--output", help="The HTML file to write."),
                 against: str | None = typer.Option(None, "--against",
                                                    help="A second run of the same cases (run B): the report "
                                                         "compares them case by case."),
                 calls: bool | None = typer.Option(None, "--calls/--no-calls",
                                                   help="Include every model call (default: when the report "
                                                        "holds at most 1,000 cases).")) -> None:
    """Write a self-contained HTML report (one file, no network requests)."""
    from courtroom.report.html import write_report

    open_audit(run_dir)
    if against is not None:
        open_audit(against)
    with failing(output, "the report"):
        path = write_report(run_dir, output, against, calls)
    console.print(f"wrote {shown(path)} ({path.stat().st_size / 1e6:.1f} MB)")


@audit_app.command("diff")
def audit_diff(run_a: str = typer.Argument(..., help="Run A (the reference)."),
               run_b: str = typer.Argument(..., help="Run B, of the same cases."),
               limit: int = typer.Option(50, help="List at most this many changed cases."),
               only: str | None = typer.Option(None, help="Only these changes: fixed, broken or "
                                                          "changed.")) -> None:
    """The cases whose verdict changed from run A to run B: which changes fixed a wrong verdict, which broke a
    right one, and the paired test over the cases both judged (`audit report A --against B` shows both
    records side by side)."""
    if only is not None and only not in ("fixed", "broken", "changed"):
        fail(f"--only must be fixed, broken or changed, not {only!r}")
    a, b = open_audit(run_a), open_audit(run_b)
    with failing():
        diff = diff_runs(a, b)
    p = diff.pairing
    shared = sum(c.a is not None and c.b is not None for c in diff.cases)
    console.print(f"A = {shown(a.root)}, B = {shown(b.root)}: {shared} cases in both"
                  + (f", {diff.count('only A')} only in A" if diff.count("only A") else "")
                  + (f", {diff.count('only B')} only in B" if diff.count("only B") else ""))
    console.print(f"verdict changed on {len(diff.changed)}: [green]{diff.count('fixed')} fixed[/] (B right, "
                  f"A wrong), [red]{diff.count('broken')} broken[/] (A right, B wrong), "
                  f"{diff.count('changed')} changed with neither right or no gold")
    if p.difference is not None:
        console.print(f"balanced accuracy A - B {p.difference:+.3f} [95% CI {p.low:+.3f}, {p.high:+.3f}], "
                      f"McNemar p = {p.p_value:.3g} on {p.shared} cases with gold")
    changed = [c for c in diff.changed if only is None or c.change == only]
    title = f"{len(changed)} changed cases" + (f" (first {limit})" if len(changed) > limit else "")
    table = columns(Table(title=title), ("case", "gold", "A", "score A", "B", "score B", "change",
                                         "B's reason"),
                    left=None, overflow="fold")
    style = {"fixed": "green", "broken": "red", "changed": "yellow"}
    for c in changed[:limit]:
        table.add_row(shown(c.case_id), shown(c.gold or "-"), shown(c.a.label or "error"),
                      "-" if c.a.score is None else f"{c.a.score:.3f}", shown(c.b.label or "error"),
                      "-" if c.b.score is None else f"{c.b.score:.3f}", f"[{style[c.change]}]{c.change}[/]",
                      shown(elide(c.b.reason or c.b.error or "", 120)))
    console.print(table)


@audit_app.command("edit")
def audit_edit(
    run_dir: str = typer.Argument(..., help="Run directory."),
    case_id: str = typer.Argument(..., help="The case to correct."),
    verdict: str = typer.Option(..., help="FAIL (hallucinated) or PASS (supported), as the data labels "
                                          "cases."),
    reason: str = typer.Option(..., help="Why the correction."),
    author: str = typer.Option(..., help="Who corrects."),
    charge: int | None = typer.Option(None, help="Charge number (from 1); omit to correct the case verdict."),
) -> None:
    """Record a human correction of the case verdict (or of a charge's ruling) in the run's record of
    judgements, where labels are too: it counts as a label for `calibrate`; nothing is rewritten."""
    audit = open_audit(run_dir)
    with failing():  # AuditError among them; a link where judgements.jsonl belongs
        ruling = edit_verdict(verdict)
        audit.edit(case_id, ruling, reason, author, None if charge is None else charge - 1)
    number = len(audit.judgements())  # judgements are numbered in the run, from 1
    console.print(f"recorded judgement {number} of {shown(audit.root)} on {shown(case_id)}: "
                  f"{'case' if charge is None else f'charge {charge}'} -> "
                  f"{'FAIL' if ruling is Verdict.HALLUCINATED else 'PASS'} ({ruling.value})")
