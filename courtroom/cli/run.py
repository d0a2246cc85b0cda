"""`courtroom run`: judge a dataset into a run directory, streaming and resumable."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer

from courtroom.cli.app import app, check_gates, console, err, fail, failing, judge_title, parse_fail_under
from courtroom.report.terminal import shown

JUDGE_OPTIONS = {"votes": "vote", "reading": "unstructured"}
"""Options of `run` that one judge takes, and which."""


def judge_options(judge: str, settings: list[str], **given: Any) -> dict[str, Any]:
    """The judge's options set on the command line (`--set`s: the court's `overrides`); one meant for another
    judge is refused."""
    from courtroom.courts import parse_override

    options = {name: value for name, value in given.items() if value is not None}
    for name in options:
        if JUDGE_OPTIONS[name] != judge:
            fail(f"--{name} is an option of the {JUDGE_OPTIONS[name]} judge, not of {judge}")
    if settings:
        if judge != "courtroom":
            fail("--set changes a court's settings: it is an option of the courtroom judge")
        with failing():
            options["overrides"] = dict(parse_override(item) for item in settings)
    return options


CASES, JUDGE, MODEL, RUNNER = "Cases (selection)", "Judge (judge)", "Model (backend)", "Runner (runner)"
"""The help's panels: the sections of the run's spec (`log.manifest.RunSpec`) the options build."""


@app.command()
def run(
    dataset: str = typer.Argument(..., help="A .jsonl/.csv/.parquet file, `examples`, or "
                                            "hf:org/name[:split]."),
    limit: int | None = typer.Option(None, min=1, help="At most N cases (with --balanced: N/2 per label).",
                                     rich_help_panel=CASES),
    balanced: bool = typer.Option(False, help="Seeded sample with as many FAIL as PASS cases.",
                                  rich_help_panel=CASES),
    seed: int = typer.Option(0, help="Seed of the balanced sample.", rich_help_panel=CASES),
    sources: list[str] = typer.Option([], "--source", help="Keep only cases whose source contains this "
                                                           "(repeatable).",
                                      rich_help_panel=CASES),
    exclude: list[str] = typer.Option([], help="Leave out the cases of this run directory or id file "
                                               "(repeatable).",
                                      rich_help_panel=CASES),
    field: list[str] = typer.Option([], help="Map a case field to a column: --field question=query "
                                             "(repeatable).",
                                    rich_help_panel=CASES),
    skip_invalid: bool = typer.Option(False, help="Skip and count invalid rows instead of stopping.",
                                      rich_help_panel=CASES),
    judge: str = typer.Option("courtroom", help="courtroom, single, two-step, rails, per-context, vote, "
                                                "unstructured.",
                              rich_help_panel=JUDGE),
    court: str = typer.Option("default", help="Court name, file, or run directory (the court that run "
                                              "recorded: to resume it after its court changed) (courtroom "
                                              "judge).",
                              rich_help_panel=JUDGE),
    settings: list[str] = typer.Option([], "--set", help="Change one of the court's settings, e.g. --set "
                                                         "aggregation.threshold=0.4, or seat another "
                                                         "persona: --set trial.personas.prosecutor=mine.yaml "
                                                         "(a name or a file, looked for from here first) "
                                                         "(repeatable).",
                                       rich_help_panel=JUDGE),
    votes: int | None = typer.Option(None, min=1, help="Votes of the `vote` judge.", rich_help_panel=JUDGE),
    reading: str | None = typer.Option(None, help="How the `unstructured` judge reads replies: strict "
                                                  "(json.loads, the founding article) or lenient (peer "
                                                  "tools' parsers).",
                                       rich_help_panel=JUDGE),
    window: int = typer.Option(8, min=1, help="Cases advanced together in lockstep (the batch window).",
                               rich_help_panel=JUDGE),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id (with "
                                              "--model-url: the name the server serves it "
                                              "under).", rich_help_panel=MODEL),
    model_url: str | None = typer.Option(None, help="Judge with a served model: its OpenAI-compatible API "
                                                    "base, e.g. http://127.0.0.1:8000/v1 (vLLM, SGLang, "
                                                    "llama.cpp, a hosted API).", rich_help_panel=MODEL),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Environment variable holding the served API's "
                                                           "key.",
                                    rich_help_panel=MODEL),
    allow_hosts: list[str] = typer.Option([], "--allow-host", help="Consent to a host the court seats a "
                                                                   "model on: ORIGIN (http://HOST:PORT) to "
                                                                   "send it the cases, ORIGIN=VAR to send it "
                                                                   "also the key in $VAR (repeatable); a "
                                                                   "court calls no other host than "
                                                                   "--model-url's.", rich_help_panel=MODEL),
    concurrency: int = typer.Option(8, min=1, help="Requests in flight at once to a served model.",
                                    rich_help_panel=MODEL),
    request_timeout: float = typer.Option(120.0, min=1, help="Seconds a request to a served model may take.",
                                          rich_help_panel=MODEL),
    engine: str = typer.Option("xgrammar", help="Constraint engine: xgrammar, llguidance, outlines_core.",
                               rich_help_panel=MODEL),
    device: str = typer.Option("auto", help="auto, cpu, cuda, cuda:1 ...", rich_help_panel=MODEL),
    dtype: str = typer.Option("auto", help="auto (bfloat16 where the device computes in it: GPUs from Ampere "
                                           "on, CPUs with AVX-512 BF16 or AMX; else float16 on a GPU, "
                                           "float32 on a CPU; the run records its choice), float32, "
                                           "bfloat16, float16.", rich_help_panel=MODEL),
    runner: str = typer.Option("local", help="local or ray.", rich_help_panel=RUNNER),
    workers: int = typer.Option(1, help="Ray workers (model replicas).", rich_help_panel=RUNNER),
    gpus_per_worker: float = typer.Option(0.0, help="GPUs per Ray worker; a fraction packs replicas on a "
                                                    "GPU.",
                                          rich_help_panel=RUNNER),
    ray_address: str | None = typer.Option(None, help="Join this Ray cluster (default: start a local one).",
                                           rich_help_panel=RUNNER),
    chunk_timeout: float | None = typer.Option(None, help="Seconds a Ray worker may take over a chunk of "
                                                          "cases before it is deemed hung and replaced "
                                                          "(default: no limit).",
                                               rich_help_panel=RUNNER),
    out: str | None = typer.Option(None, help="Run directory (default runs/<dataset>-<court>-<model>, a "
                                              "baseline's runs/<dataset>-<judge>-<model>)."),
    fresh: bool = typer.Option(False, help="Delete the run directory and start over."),
    fail_under: list[str] = typer.Option([], "--fail-under", help="A CI gate: exit 3 when a metric of the "
                                                                  "finished run is out of bounds: at least, "
                                                                  "--fail-under balanced_accuracy>=0.70 (or "
                                                                  "=0.70), or at most, --fail-under "
                                                                  "errors<=0 (repeatable; any number of "
                                                                  "metrics.json, `.low` for an interval's "
                                                                  "lower end)."),
) -> None:
    """Judge a dataset and stream the results to a run directory; re-run to resume."""
    from courtroom.evaluate.datasets import parse_field_map
    from courtroom.log.manifest import RunSpec
    from courtroom.runs.api import default_run_dir
    from courtroom.runs.start import start_run

    gates = parse_fail_under(fail_under)
    target = Path(out) if out else default_run_dir(dataset, judge, court, model)
    with failing(target):  # a file or directory that cannot be read or made
        spec = RunSpec.build(  # the typed value `courtroom.run` builds alike, and the run's manifest records
            dataset, field_map=parse_field_map(field), limit=limit, balanced=balanced, seed=seed,
            sources=sources, exclude=exclude, skip_invalid=skip_invalid,
            judge=judge, court=court, judge_options=judge_options(judge, settings, votes=votes,
                                                                  reading=reading),
            window=window,
            model=model, model_url=model_url, api_key_env=api_key_env, allow_hosts=allow_hosts,
            concurrency=concurrency, request_timeout=request_timeout, engine=engine, device=device,
            dtype=dtype,
            runner=runner, workers=workers, gpus_per_worker=gpus_per_worker, ray_address=ray_address,
            chunk_timeout=chunk_timeout)
        for place in (target, *target.parents):
            if place.exists() and not place.is_dir():
                fail(f"--out {target}: {place} is a file, not a run directory; give --out a new or a run "
                     "directory")
        prepared = start_run(spec, target, fresh=fresh, announce=lambda hosts: console.print(
            shown("calls " + "; ".join(map(str, hosts)))))
    try:
        _judge(prepared, dataset, model, limit, balanced, gates)
    finally:
        # the run directory is free again (also when the command runs inside another process)
        prepared.close()


def _judge(prepared, dataset: str, model: str, limit: int | None, balanced: bool, gates: list) -> None:  # noqa: ANN001
    """Judge a started run's remaining cases with a progress bar; print and record its metrics; check its
    gates."""
    from courtroom.errors import CourtroomError
    from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
    from courtroom.log.span_metrics import run_span_scores
    from courtroom.report.progress import run_progress
    from courtroom.report.tables import confusion_table, metrics_table, span_table
    from courtroom.runs.api import RunResult, finish
    from courtroom.runs.progress import usual_calls

    report = prepared.report
    if report.skipped:
        err.print(f"[yellow]skipped {len(report.skipped)} invalid rows[/], first: {shown(report.skipped[0])}")
    if report.unlabelled:
        err.print(f"[yellow]note[/]: {report.unlabelled} of {report.cases} cases have no gold label (an "
                  "empty label means unlabelled)")
    total, done = len(prepared.cases), len(prepared.finished)
    if balanced and limit is not None and total < limit:
        why = "a balanced sample has as many FAIL as PASS cases" if total == limit - 1 and limit % 2 else \
            "the selected data hold no more cases of one label"
        err.print(f"[yellow]note[/]: --balanced --limit {limit} judges {total // 2} cases per label, {total} "
                  f"in all ({why})")
    title = judge_title(prepared.judge.config())
    placed = prepared.store.manifest().placement
    where = f" ({placed.device}, {placed.dtype})" if placed is not None else ""
    console.print(shown(f"{title} on {total} cases of {dataset} with model {model}{where} -> "
                        f"{prepared.store.root}"
                        + (f" (resuming: {done} already done)" if done else "")))
    wanted = {c.id for c in prepared.cases}
    rows = {r.case_id: r for r in prepared.store.rows() if r.case_id in wanted}
    failed_before = sum(1 for r in rows.values() if r.error is not None)
    if failed_before:
        console.print(f"judging again the {failed_before} cases that failed before")
    interrupted, failure = False, ""
    finished = [r.model_calls for r in rows.values() if r.error is None]
    calls = sum(finished) / len(finished) if finished else usual_calls(prepared.judge)
    with run_progress(console, total, done, calls) as (monitor, progress, task):

        def on_row(row) -> None:  # noqa: ANN001
            rows[row.case_id] = row
            monitor.case_finished(row)
            bal = compute_metrics(list(rows.values()), resamples=0).balanced_accuracy.value
            progress.update(task, score=f"bal.acc {bal:.3f}" if bal is not None else "")

        try:
            prepared.execute(on_row, observer=monitor)
        except KeyboardInterrupt:
            interrupted = True
        except CourtroomError as exc:
            failure = str(exc)
    if failure and not any(r.case_id in wanted for r in prepared.store.rows()):
        fail(failure)
    try:
        result = finish(prepared)
    except OSError as exc:  # a full disk: the cases are saved, the same command writes the metrics
        failure = failure or f"{prepared.store.root}: cannot write metrics.json ({exc.strerror or exc})"
        rows = [r for r in prepared.store.rows() if r.case_id in wanted]
        result = RunResult(prepared.store.root, rows, compute_metrics(rows), metrics_by_source(rows),
                           prepared.spec.judge.name, None, model, run_span_scores(prepared.store, rows))
    rows = result.rows
    console.print(metrics_table(f"{title}, model {model}: {len(rows)} of {total} cases", result.metrics,
                                result.by_source))
    console.print(confusion_table(result.metrics))
    if result.spans is not None:
        console.print(span_table(result.spans))
    if interrupted:
        err.print(f"[yellow]interrupted[/]: {len(rows)} of {total} cases are saved; run the same command to "
                  "resume")
        raise typer.Exit(130)
    if failure:
        fail(f"{failure}\n{len(rows)} of {total} cases are saved; run the same command to resume")
    root = shlex.quote(str(prepared.store.root))
    console.print(shown(f"next: courtroom audit {root} (the summary), courtroom audit report {root} -o "
                        "report.html (every case)"))
    check_gates(result.metrics, gates)
