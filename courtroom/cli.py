"""The `courtroom` command line. Heavy modules (torch, transformers, ray) load only inside commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

app = typer.Typer(
    name="courtroom",
    help="Decide whether a RAG answer is hallucinated by holding a trial.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Model names, files and caches.", no_args_is_help=True)
app.add_typer(models_app, name="models")
personas_app = typer.Typer(help="Validate persona files and publish their JSON schema.", no_args_is_help=True)
app.add_typer(personas_app, name="personas")
court_app = typer.Typer(help="Validate courts, describe them, draw their procedure.", no_args_is_help=True)
app.add_typer(court_app, name="court")
transcript_app = typer.Typer(help="The transcript event schema.", no_args_is_help=True)
app.add_typer(transcript_app, name="transcript")


class _AuditGroup(TyperGroup):
    """`courtroom audit RUN_DIR` is `courtroom audit summary RUN_DIR`."""

    def resolve_command(self, ctx, args):  # noqa: ANN001, ANN201
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args.insert(0, "summary")
        return super().resolve_command(ctx, args)


audit_app = typer.Typer(help="Audit a run: `courtroom audit RUN_DIR` summarises; list, show, verify, report, edit.",
                        cls=_AuditGroup, no_args_is_help=True)
app.add_typer(audit_app, name="audit")

console = Console()
err = Console(stderr=True)


def default_run_name(model: str) -> str:
    """A model's part of a default run directory name: a file's name without its extension, or a Hub id
    with its slash kept apart (`Qwen/Qwen2.5-7B-Instruct` -> `Qwen_Qwen2.5-7B-Instruct`)."""
    path = Path(model)
    name = path.stem if path.suffix in {".gguf", ".safetensors", ".bin"} else model.strip("/")
    return name.replace(":", "_").replace("/", "_").replace("\\", "_")


def _fail(message: str) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(2)


@app.command()
def demo(
    judge: str = typer.Option("courtroom", help="Which judge tries the example cases (courtroom or a baseline)."),
    court: str = typer.Option("default", help="Court name or file (for the courtroom judge)."),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id."),
    limit: int | None = typer.Option(None, help="Judge only the first N example cases."),
) -> None:
    """Judge the shipped example cases with the default model and print the verdicts."""
    from courtroom.errors import CourtroomError
    from courtroom.evaluate.datasets import example_cases

    cases = example_cases()[:limit]
    try:
        judge_obj = _make_judge(judge, court, model)
        table = Table(title=f"{judge} judge ({court if judge == 'courtroom' else 'baseline'}), model {model}: "
                            f"{len(cases)} example cases")
        for column in ("case", "gold", "verdict", "score", "reason"):
            table.add_column(column, overflow="fold")
        correct = 0
        with console.status("judging the example cases (the first run also prepares the model)..."):
            outcomes = list(judge_obj.run_many(cases))
        for outcome in outcomes:
            v = outcome.verdict
            if v is None:
                table.add_row(outcome.case.id, outcome.case.label or "-", "[red]error[/]", "-", outcome.error or "")
                continue
            correct += v.label == outcome.case.label
            mark = "[green]" if v.label == outcome.case.label else "[red]"
            table.add_row(outcome.case.id, outcome.case.label or "-", f"{mark}{v.label}[/]", f"{v.score:.2f}",
                          v.reason[:160])
    except CourtroomError as exc:
        _fail(str(exc))
    console.print(table)
    console.print(f"accuracy {correct}/{len(cases)}")


def _make_judge(judge: str, court: str, model: str, backend=None, **options):  # noqa: ANN001, ANN202
    from courtroom.court import Court
    from courtroom.engine.registry import judge_class

    if judge == "courtroom":
        return Court.load(court, backend, model=model, **options)
    return judge_class(judge)(backend, model=model, **options)


JUDGE_OPTIONS = {"votes": "vote", "reading": "unstructured"}
"""Options of `run` that one judge takes, and which."""


def judge_options(judge: str, **given: Any) -> dict[str, Any]:
    """The judge options set on the command line; one meant for another judge is refused."""
    options = {name: value for name, value in given.items() if value is not None}
    for name in options:
        if JUDGE_OPTIONS[name] != judge:
            _fail(f"--{name} is an option of the {JUDGE_OPTIONS[name]} judge, not of {judge}")
    return options


@app.command()
def run(
    dataset: str = typer.Argument(..., help="A .jsonl/.csv/.parquet file, `examples`, or hf:org/name[:split]."),
    judge: str = typer.Option("courtroom", help="courtroom, single, two-step, rails, per-context, vote, unstructured."),
    court: str = typer.Option("default", help="Court name or file (courtroom judge)."),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id."),
    out: str | None = typer.Option(None, help="Run directory (default runs/<dataset>-<judge>-<model>)."),
    limit: int | None = typer.Option(None, min=1, help="At most N cases (with --balanced: N/2 per label)."),
    balanced: bool = typer.Option(False, help="Seeded sample with as many FAIL as PASS cases."),
    seed: int = typer.Option(0, help="Seed of the balanced sample."),
    source: list[str] = typer.Option([], help="Keep only cases whose source contains this (repeatable)."),
    exclude: list[str] = typer.Option([], help="Leave out the cases of this run directory or id file (repeatable)."),
    field: list[str] = typer.Option([], help="Map a case field to a column: --field question=query (repeatable)."),
    skip_invalid: bool = typer.Option(False, help="Skip and count invalid rows instead of stopping."),
    engine: str = typer.Option("xgrammar", help="Constraint engine: xgrammar, llguidance, outlines_core."),
    window: int = typer.Option(8, min=1, help="Cases advanced together in lockstep (the batch window)."),
    votes: int | None = typer.Option(None, min=1, help="Votes of the `vote` judge."),
    reading: str | None = typer.Option(None, help="How the `unstructured` judge reads replies: strict "
                                                  "(json.loads, the founding article) or lenient (peer tools' parsers)."),
    runner: str = typer.Option("local", help="local or ray."),
    workers: int = typer.Option(1, help="Ray workers (model replicas)."),
    gpus_per_worker: float = typer.Option(0.0, help="GPUs per Ray worker; a fraction packs replicas on a GPU."),
    ray_address: str | None = typer.Option(None, help="Join this Ray cluster (default: start a local one)."),
    device: str = typer.Option("auto", help="auto, cpu, cuda, cuda:1 ..."),
    fresh: bool = typer.Option(False, help="Delete the run directory and start over."),
) -> None:
    """Judge a dataset and stream the results to a run directory; re-run to resume."""

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from courtroom.errors import CourtroomError
    from courtroom.evaluate.datasets import parse_field_map
    from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
    from courtroom.report.tables import confusion_table, metrics_table
    from courtroom.runs.run import RunSpec, start_run

    options = judge_options(judge, votes=votes, reading=reading)
    try:
        spec = RunSpec(dataset=dataset, field_map=parse_field_map(field), limit=limit, balanced=balanced, seed=seed,
                       sources=source, exclude=exclude, skip_invalid=skip_invalid, judge=judge, court=court, model=model, engine=engine,
                       window=window, judge_options=options, runner=runner, workers=workers,
                       gpus_per_worker=gpus_per_worker, ray_address=ray_address, device=device)
        name = f"{Path(dataset).stem}-{judge}-{default_run_name(model)}"
        prepared = start_run(spec, out or f"runs/{name}", fresh=fresh)
    except CourtroomError as exc:
        _fail(str(exc))
    if prepared.report.skipped:
        err.print(f"[yellow]skipped {len(prepared.report.skipped)} invalid rows[/], first: {escape(prepared.report.skipped[0])}")
    total, done = len(prepared.cases), len(prepared.finished)
    console.print(f"{prepared.judge.name} on {total} cases of {dataset} with {model} -> {prepared.store.root}"
                  + (f" (resuming: {done} already done)" if done else ""))
    wanted = {c.id for c in prepared.cases}
    rows = {r.case_id: r for r in prepared.store.rows() if r.case_id in wanted}
    failed_before = sum(1 for r in rows.values() if r.error is not None)
    if failed_before:
        console.print(f"judging again the {failed_before} cases that failed before")
    columns = [TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[score]}")]
    interrupted, failure = False, ""
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("judging", total=total, completed=done, score="")

        def on_row(row) -> None:  # noqa: ANN001
            rows[row.case_id] = row
            m = compute_metrics(list(rows.values()), resamples=0)
            bal = m.balanced_accuracy.value
            progress.update(task, advance=1, score=f"bal.acc {bal:.3f}" if bal is not None else "")

        try:
            prepared.execute(on_row)
        except KeyboardInterrupt:
            interrupted = True
        except CourtroomError as exc:
            failure = str(exc)
    rows = [r for r in prepared.store.rows() if r.case_id in wanted]
    if failure and not rows:
        _fail(failure)
    overall = compute_metrics(rows)
    (prepared.store.root / "metrics.json").write_text(overall.model_dump_json(indent=2))
    console.print(metrics_table(f"{prepared.judge.name} / {model}: {len(rows)} of {total} cases", overall,
                                metrics_by_source(rows)))
    console.print(confusion_table(overall))
    if interrupted:
        err.print(f"[yellow]interrupted[/]: {len(rows)} of {total} cases are saved; run the same command to resume")
        raise typer.Exit(130)
    if failure:
        _fail(f"{failure}\n{len(rows)} of {total} cases are saved; run the same command to resume")


@app.command()
def compare(
    runs: list[str] = typer.Argument(..., help="Run directories; the first is the reference. Join one judge's "
                                               "runs on several datasets with + (runs/hb-court+runs/rt-court) "
                                               "to pool them into one comparison."),
    calibrated: bool = typer.Option(False, help="Relabel every run with a threshold calibrated by 5-fold "
                                                "cross-validation on its own labelled cases (out of fold; "
                                                "each +-joined run on its own)."),
    length_baseline: bool = typer.Option(False, help="Add the length-only rule (FAIL when the answer is longer "
                                                     "than the median) on the reference run's cases (the median "
                                                     "of each +-joined run): a judge close to it may be measuring "
                                                     "answer length."),
    overlap_baseline: bool = typer.Option(False, help="Add the overlap-only rule (FAIL when more of the answer's "
                                                      "words than the median are never used by the context or "
                                                      "question) on the reference run's cases (the median of each "
                                                      "+-joined run)."),
    errors_wrong: bool = typer.Option(False, "--errors-as-wrong", help="Count every failed case as a wrong "
                                      "verdict instead of leaving it out (a judge that fails on hard cases is "
                                      "otherwise compared on the easier rest)."),
) -> None:
    """Compare runs side by side, with intervals and paired tests (McNemar) on shared cases.

    Cases a run failed on are left out of its metrics and of every pair it is in (the tables count
    them), unless `--errors-as-wrong`. Runs joined with + are pooled: thresholds and no-model rules are
    fitted on each of them alone, then their cases are compared together."""
    from courtroom.errors import CourtroomError
    from courtroom.evaluate.confounds import LENGTH_ONLY, NO_MODEL_ROWS, OVERLAP_ONLY
    from courtroom.evaluate.metrics import (
        calibrated_rows,
        compute_metrics,
        errors_as_wrong,
        excluded_from_pairing,
        gold_disagreements,
        mcnemar,
        paired_bootstrap_difference,
    )
    from courtroom.log.pooled import open_pooled_run
    from courtroom.report.tables import compare_table
    from courtroom.runs.run import run_cases

    try:
        pooled = [open_pooled_run(r) for r in runs]
    except CourtroomError as exc:
        _fail(str(exc))
    for p in pooled:
        if p.differences:
            err.print(f"[yellow]warning[/]: {p.name} pools runs whose judge settings differ ({', '.join(p.differences)}): "
                      "are they one protocol?")
    names = [p.name for p in pooled]
    untransformed = [p.rows() for p in pooled]
    transforms = [t for t, wanted in ((errors_as_wrong, errors_wrong), (calibrated_rows, calibrated)) if wanted]
    rows = [p.rows(*transforms) for p in pooled] if transforms else list(untransformed)
    judges = [p.judge for p in pooled]
    models = [p.model for p in pooled]
    rules = [rule for rule, wanted in ((LENGTH_ONLY, length_baseline), (OVERLAP_ONLY, overlap_baseline)) if wanted]
    for rule in rules:
        rule_rows = []
        for store, member in zip(pooled[0].stores, pooled[0].members):
            try:
                cases = run_cases(store)
            except CourtroomError as exc:
                _fail(f"--{rule.split('-')[0]}-baseline needs the reference run's dataset: {exc}")
            judged = {r.case_id for r in member}
            member_rows = NO_MODEL_ROWS[rule]([c for c in cases if c.id in judged])
            rule_rows.extend(calibrated_rows(member_rows) if calibrated else member_rows)
        rows.append(rule_rows)
        names, judges, models = [*names, rule], [*judges, rule], [*models, "-"]
    for name, r in zip(names[1:], untransformed[1:]):  # rule rows take their gold from the reference's cases
        if disagreements := gold_disagreements(untransformed[0], r):
            err.print(f"[yellow]warning[/]: {disagreements} cases of {name} have the same id as a case of "
                      f"{names[0]} but another gold label: are they runs of the same dataset?")
    console.print(compare_table(names, [compute_metrics(r) for r in rows], judges, models))
    if len(rows) > 1:
        table = Table(title=f"paired against {names[0]} (shared cases)")
        for column in ("run", "shared", "left out (errors)", "Δ bal. accuracy [95% CI]", "only ref right",
                       "only run right", "McNemar p"):
            table.add_column(column, justify="left" if column == "run" else "right")
        for name, r in zip(names[1:], rows[1:]):
            test = mcnemar(rows[0], r)
            diff = paired_bootstrap_difference(r, rows[0])
            d = diff["difference"]
            ci = f" [{diff['low']:+.3f}, {diff['high']:+.3f}]" if diff["low"] is not None else ""
            table.add_row(name, str(test.shared), str(excluded_from_pairing(rows[0], r)),
                          "-" if d is None else f"{d:+.3f}{ci}",
                          str(test.a_only_correct), str(test.b_only_correct), f"{test.p_value:.4f}")
        console.print(table)


@app.command()
def rejudge(
    run_dir: str = typer.Argument(..., help="A finished courtroom (or unstructured) run."),
    out: str = typer.Option(..., help="The new run directory."),
    court: str | None = typer.Option(None, help="The court to decide a courtroom run with (name or file): same "
                                                "prompts, other arithmetic."),
    reading: str | None = typer.Option(None, help="Read an unstructured run's replies again: strict or lenient."),
    calls_from: list[str] = typer.Option([], help="Also serve calls recorded in this run of the same cases, e.g. "
                                                  "a rails run for a court with a first reading (repeatable)."),
) -> None:
    """Decide a finished run again from its transcripts, with no model call.

    A courtroom run under another court that differs in how rulings are weighed and combined (judge
    weight, aggregation, thresholds; a court that would ask the model anything the run did not record is
    refused), or an unstructured run with its replies read another way (`--reading lenient`)."""
    from courtroom.errors import CourtroomError
    from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
    from courtroom.log.rejudge import rejudge_run
    from courtroom.log.store import RunStore
    from courtroom.report.tables import confusion_table, metrics_table
    from courtroom.runs.run import RunSpec, build_judge

    try:
        source = RunStore(run_dir)
        if not source.exists():
            raise CourtroomError(f"{run_dir} is not a run directory (no manifest.json)")
        manifest = source.manifest()
        kind = manifest.judge.get("judge")
        options = {k: v for k, v in manifest.options.items() if k in RunSpec.model_fields and k != "court"}
        if kind == "courtroom" and court is not None and reading is None:
            spec = RunSpec(**{**options, **manifest.dataset, "court": court})
            changed, label = {"court": court}, f"court {court}"
        elif kind == "unstructured" and reading is not None and court is None:
            recorded = {**manifest.judge.get("options", {}), "reading": reading}
            spec = RunSpec(**{**options, **manifest.dataset, "judge_options": recorded})
            changed, label = {"reading": reading}, f"reading {reading}"
        else:
            raise CourtroomError(f"{run_dir} is a run of the {kind} judge: rejudge takes a courtroom run with --court, "
                                 f"or an unstructured run with --reading")
        rows = rejudge_run(run_dir, build_judge(spec), out, changed=changed, calls_from=calls_from)
    except CourtroomError as exc:
        _fail(str(exc))
    overall = compute_metrics(rows)
    (Path(out) / "metrics.json").write_text(overall.model_dump_json(indent=2))
    if left_out := len(source.rows()) - len(rows):
        cases = "case" if left_out == 1 else "cases"
        err.print(f"[yellow]left out {left_out} {cases} of {escape(run_dir)}[/] (failed, or their transcript is gone)")
    console.print(metrics_table(f"{run_dir} rejudged by {label}: {len(rows)} cases -> {out}", overall,
                                metrics_by_source(rows)))
    console.print(confusion_table(overall))


def _audit(run_dir: str):  # noqa: ANN202
    from courtroom.log.audit import Audit, AuditError

    try:
        return Audit(run_dir)
    except AuditError as exc:
        _fail(str(exc))


@audit_app.command("summary")
def audit_summary(run_dir: str = typer.Argument(..., help="Run directory.")) -> None:
    """Metrics (the model's and, after edits, the corrected verdicts), errors and a per-source table."""
    from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
    from courtroom.report.tables import confusion_table, metrics_table

    audit = _audit(run_dir)
    rows = audit.rows()
    manifest = audit.store.manifest()
    console.print(f"[bold]{audit.root}[/]: judge {manifest.judge.get('judge')}, model {manifest.options.get('model')}, "
                  f"{len(rows)} cases, created {manifest.created:%Y-%m-%d %H:%M} UTC")
    overall = compute_metrics(rows)
    console.print(metrics_table("model verdicts", overall, metrics_by_source(rows)))
    if audit.edits():
        corrected = audit.corrected_rows()
        console.print(metrics_table(f"corrected verdicts ({sum(map(len, audit.edits().values()))} human edits)",
                                    compute_metrics(corrected)))
    console.print(confusion_table(overall))
    failed = [r for r in rows if r.error]
    if failed:
        table = Table(title=f"{len(failed)} cases ended in an error")
        table.add_column("case")
        table.add_column("error", overflow="fold")
        for r in failed[:20]:
            table.add_row(r.case_id, f"{r.error_type}: {r.error}")
        console.print(table)


@audit_app.command("list")
def audit_list(
    run_dir: str = typer.Argument(..., help="Run directory."),
    wrong: bool = typer.Option(False, "--wrong", help="Only wrong verdicts."),
    errors: bool = typer.Option(False, "--errors", help="Only cases that ended in an error."),
    verdict: str | None = typer.Option(None, help="Only this verdict: PASS or FAIL."),
    source: str | None = typer.Option(None, help="Only sources containing this."),
    search: str | None = typer.Option(None, help="Only cases whose id, reason or error contains this."),
    limit: int = typer.Option(50, help="Show at most this many."),
) -> None:
    """List cases, with filters."""
    audit = _audit(run_dir)
    rows = audit.select(wrong=wrong, verdict=verdict, source=source, search=search, errors=errors)
    table = Table(title=f"{len(rows)} matching cases" + (f" (first {limit})" if len(rows) > limit else ""))
    for column in ("case", "source", "gold", "verdict", "score", "charges", "reason"):
        table.add_column(column, overflow="fold")
    for r in rows[:limit]:
        mark = "" if r.correct is None else ("[green]" if r.correct else "[red]")
        table.add_row(r.case_id, r.source, r.gold or "-", f"{mark}{r.label or 'error'}", "-" if r.score is None else
                      f"{r.score:.2f}", str(r.charges), (r.error or r.reason)[:100])
    console.print(table)


@audit_app.command("show")
def audit_show(run_dir: str = typer.Argument(..., help="Run directory."),
               case_id: str = typer.Argument(..., help="The case to show.")) -> None:
    """The debate of one case as a court record."""
    from courtroom.log.audit import AuditError
    from courtroom.report.record import court_record

    audit = _audit(run_dir)
    try:
        events = audit.events(case_id)
    except AuditError as exc:
        _fail(str(exc))
    console.print(court_record(events, audit.row(case_id).gold))


@audit_app.command("verify")
def audit_verify(run_dir: str = typer.Argument(..., help="Run directory.")) -> None:
    """Replay every transcript; check verdicts, scores, events and metrics. Exit 1 on any problem."""
    audit = _audit(run_dir)
    with console.status("replaying every transcript..."):
        problems = audit.verify()
    if problems:
        for problem in problems:
            err.print(f"[red]problem[/] {escape(str(problem))}")
        err.print(f"{len(problems)} problems")
        raise typer.Exit(1)
    console.print(f"[green]verified[/]: {len(audit.rows())} transcripts replay to their verdicts; metrics recompute")


@audit_app.command("report")
def audit_report(run_dir: str = typer.Argument(..., help="Run directory."),
                 output: str = typer.Option("report.html", "-o", "--output", help="The HTML file to write.")) -> None:
    """Write a self-contained HTML report (no network requests)."""
    from courtroom.report.html import write_report

    _audit(run_dir)
    path = write_report(run_dir, output)
    console.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


@audit_app.command("edit")
def audit_edit(
    run_dir: str = typer.Argument(..., help="Run directory."),
    case_id: str = typer.Argument(..., help="The case to correct."),
    verdict: str = typer.Option(..., help="hallucinated or supported."),
    reason: str = typer.Option(..., help="Why the correction."),
    author: str = typer.Option(..., help="Who corrects."),
    charge: int | None = typer.Option(None, help="Charge number (from 1); omit to correct the case verdict."),
) -> None:
    """Append a human correction of a charge's ruling (or of the case verdict); nothing is rewritten."""
    from courtroom.log.audit import AuditError

    audit = _audit(run_dir)
    if verdict not in ("hallucinated", "supported"):
        _fail(f"--verdict must be hallucinated or supported, not {verdict!r}")
    try:
        event = audit.edit(case_id, verdict, reason, author, None if charge is None else charge - 1)
    except AuditError as exc:
        _fail(str(exc))
    console.print(f"recorded edit {event.seq} on {case_id}: {'case' if charge is None else f'charge {charge}'} -> {verdict}")


@personas_app.command("validate")
def personas_validate(paths: list[str] = typer.Argument(..., help="Persona files or directories.")) -> None:
    """Validate persona files; report every broken one with its path, line and field."""
    from pathlib import Path

    from courtroom.court.personas import Persona
    from courtroom.errors import PersonaError

    files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.y*ml")) if p.is_dir() else [p])]
    broken = 0
    for file in files:
        try:
            persona = Persona.from_file(file)
            console.print("[green]ok[/] " + escape(f"{file} ({persona.name}, role {persona.role})"))
        except PersonaError as exc:
            broken += 1
            err.print(f"[red]invalid[/] {escape(str(exc))}")
    if broken or not files:
        raise typer.Exit(1)


@personas_app.command("schema")
def personas_schema(output: str | None = typer.Option(None, "-o", "--output", help="Write to a file.")) -> None:
    """Print (or write) the JSON Schema of persona files, for editor validation."""
    import json

    from courtroom.court.personas import persona_json_schema

    text = json.dumps(persona_json_schema(), indent=2)
    if output:
        open(output, "w").write(text + "\n")
    else:
        print(text)


@court_app.command("validate")
def court_validate(court: str = typer.Argument("default", help="Court name or file.")) -> None:
    """Validate a court: its file, its graph and its personas."""
    from courtroom.court import Court
    from courtroom.errors import CourtroomError

    try:
        c = Court.load(court)
    except CourtroomError as exc:
        _fail(str(exc))
    console.print(f"[green]ok[/] {escape(c.describe())}")


@court_app.command("show")
def court_show(court: str = typer.Argument("default", help="Court name or file."),
               mermaid: bool = typer.Option(False, "--mermaid", help="Print only the mermaid diagram.")) -> None:
    """Describe a court and draw its procedure as a mermaid diagram."""
    from courtroom.court import Court
    from courtroom.errors import CourtroomError

    try:
        c = Court.load(court)
    except CourtroomError as exc:
        _fail(str(exc))
    if not mermaid:
        console.print(c.describe())
    print(c.to_mermaid())


@court_app.command("schema")
def court_schema() -> None:
    """Print the JSON Schema of court files."""
    import json

    from courtroom.court import court_json_schema

    print(json.dumps(court_json_schema(), indent=2))


@transcript_app.command("schema")
def transcript_schema() -> None:
    """Print the published JSON Schema of a transcript event (one JSONL line)."""
    import json

    from courtroom.engine.events import event_json_schema

    print(json.dumps(event_json_schema(), indent=2))


@models_app.command("list")
def models_list() -> None:
    """Known model aliases and whether they are installed."""
    from courtroom.door.models import ALIASES

    table = Table(title="model aliases")
    for column in ("name", "installed", "description", "how to get it"):
        table.add_column(column, overflow="fold")
    for name, alias in ALIASES.items():
        path = alias.locate()
        table.add_row(name, str(path) if path else "no", alias.description, alias.how_to_get)
    console.print(table)


@app.command()
def version() -> None:
    """Print the version."""
    from importlib.metadata import version as pkg_version

    console.print(pkg_version("courtroom"))


def main() -> None:  # pragma: no cover - entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
