"""Rejudge: decide a finished run again under another court, from its transcripts alone: each request is
served from the recorded call with the same prompt, schema and sampling (also of other runs: `calls_from`); a
court that asks for anything not recorded is refused, naming the cases. The result is an ordinary run
directory."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from courtroom.courts.migrations import modern_path
from courtroom.door.recorded import RecordedCalls
from courtroom.engine.events import ModelCallEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome, run_lockstep
from courtroom.engine.registry import JudgeSpec
from courtroom.errors import ReplayMismatch, RunError
from courtroom.evaluate.results import ResultRow
from courtroom.log.manifest import CaseDigests, Manifest, RunOrigin
from courtroom.log.recorded_court import make_judge
from courtroom.log.store import RunStore


def rejudged_judge(manifest: Manifest, *, court: str | None = None, reading: str | None = None,
                   overrides: dict[str, Any] | None = None) -> JudgeSpec:
    """The judge a rejudge asks for: another court or settings (the run's splitter kept), or another
    reading."""
    recorded = manifest.spec.judge
    if recorded.name == "courtroom" and (court is not None or overrides) and reading is None:
        if court is None:  # the run's own court, as its manifest records it, with the settings changed
            asked = JudgeSpec(court=str(Path(manifest.source).parent),
                              options={"overrides": dict(overrides or {})})
        else:
            carried = {**carried_overrides(recorded, court), **(overrides or {})}
            asked = recorded.model_copy(update={"court": court,
                                                "options": {**recorded.options, "overrides": carried}})
        splitter = manifest.judge_config["court"]["sentences"]
        if ("sentences" in asked.options["overrides"]
            or make_judge(asked).config()["court"]["sentences"] == splitter):
            return asked
        return asked.model_copy(update={"options": {**asked.options,
                                                    "overrides": {"sentences": splitter,
                                                                  **asked.options["overrides"]}}})
    if recorded.name == "unstructured" and reading is not None and court is None:
        return recorded.model_copy(update={"options": {**recorded.options, "reading": reading}})
    raise RunError(f"{manifest.name} is a run of the {recorded.name} judge: rejudge takes a courtroom run "
                   "with --court or --set, or an unstructured run with --reading")


def carried_overrides(recorded: JudgeSpec, court: str) -> dict[str, Any]:
    """The run's own `--set`s that a rejudge under `court` carries: those of a section the court has (a run's
    `trial.*` settings are left out of a court that tries no charge: it has no `trial` section)."""
    sections = make_judge(recorded.model_copy(update={"court": court,
                                                      "options": {**recorded.options, "overrides": {}}})
                          ).config()["court"]
    return {path: value for path, value in recorded.options.get("overrides", {}).items()
            if "." not in path or isinstance(sections.get(modern_path(path).split(".")[0]), dict)}


def rejudge_run(source: str | Path, out: str | Path, *, judge: JudgeSpec,
                calls_from: Sequence[str | Path] = ()) -> list[ResultRow]:
    """Re-decide every finished case of the run at `source` with `judge` into a new run at `out`. Every case
    is decided before anything is written, so a refused court leaves no partial run; the same call resumes an
    interrupted one."""
    origin, others = _stores(source, calls_from)
    manifest = origin.manifest()
    for store in others:  # recorded answers stand for this run's only if the same model gave them
        if (other := store.manifest().model) != manifest.model:
            raise RunError(f"--calls-from {store.root}: its model ({other}) is not the model of {source} "
                           f"({manifest.model})")
    target = RunStore(out)
    if Path(out).resolve() == Path(source).resolve():
        raise RunError(f"{out}: rejudge into a new run directory, not the source run")
    spec = manifest.spec.model_copy(update={"judge": judge})
    new_judge = make_judge(judge, spec.backend, window=1)
    changed = {"court": judge.court} if judge.court != manifest.spec.judge.court else {}
    changed |= {k: str(v) for k, v in judge.options.items() if manifest.spec.judge.options.get(k) != v}
    planned = Manifest(name=Path(out).name, spec=spec, judge=new_judge.config(),
                       config_hash=new_judge.config_hash(),
                       origin=RunOrigin(rejudged_from=str(source), changed=changed,
                                        calls_from=[str(p) for p in calls_from]))
    if target.exists():
        _check_unfinished(target, planned)
    outcomes, refused = _decide(origin, others, new_judge)
    if refused:
        first, *more = refused.values()
        also = (f"; and {len(more)} more of the {len(outcomes) + len(refused)} cases: "
                f"{', '.join(list(refused)[1:])}") \
            if more else ""
        raise RunError(f"{first}{also} (run {'these cases' if more else 'it'} with `courtroom run` under "
                       "this court and pass that run with --calls-from)")
    planned = planned.model_copy(update={"cases": CaseDigests.of([outcome.case for outcome in outcomes])})
    with target.lock():
        if target.exists():  # a rejudge interrupted while it wrote: the same call writes the rest
            _check_unfinished(target, planned)
            target.repair()
        else:
            target.write_manifest(planned)
        written = {row.case_id for row in target.rows()}
        for outcome in outcomes:
            if outcome.case.id not in written:
                target.write(outcome, new_judge.variants(outcome.case, outcome.events))
        return target.rows()


def _check_unfinished(target: RunStore, planned: Manifest) -> None:
    """A run already at `out` is taken only as this same rejudge, interrupted (same source, calls, judge and
    cases)."""
    found = target.manifest()

    def same_paths(a: Sequence[str], b: Sequence[str]) -> bool:
        return [Path(p).resolve() for p in a] == [Path(p).resolve() for p in b]

    assert planned.origin is not None
    if found.origin is None or found.config_hash != planned.config_hash or not same_paths(
            [found.origin.rejudged_from, *found.origin.calls_from],
            [planned.origin.rejudged_from, *planned.origin.calls_from]):
        raise RunError(f"{target.root} already holds a run (not this rejudge of "
                       f"{planned.origin.rejudged_from}); choose another --out")
    if (planned.cases is not None and found.cases is not None
        and (changes := found.cases.changes(planned.cases))):
        raise RunError(f"{target.root}: this rejudge was started on other cases of "
                       f"{planned.origin.rejudged_from} ({changes}); choose another --out")


def refused_cases(source: str | Path, *, judge: JudgeSpec,
                  calls_from: Sequence[str | Path] = ()) -> list[str]:
    """The cases of the run at `source` that `judge` cannot decide from the recorded calls."""
    origin, others = _stores(source, calls_from)
    new_judge = make_judge(judge, origin.manifest().spec.backend, window=1)
    return list(_decide(origin, others, new_judge)[1])


def _stores(source: str | Path, calls_from: Sequence[str | Path]) -> tuple[RunStore, list[RunStore]]:
    return RunStore(source).existing(), [RunStore(path).existing() for path in calls_from]


def _decide(origin: RunStore, others: Sequence[RunStore],
            judge: Judge) -> tuple[list[CaseOutcome], dict[str, str]]:
    """Every finished case of `origin` decided again from the recorded calls, and why each refused case
    was."""
    outcomes, refused = [], {}
    for row in origin.rows():
        if row.error is None and origin.transcript_path(row.case_id).is_file():
            try:
                outcomes.append(_rejudge_case(origin, others, row.case_id, judge))
            except _Refused as exc:
                refused[row.case_id] = str(exc)
    return outcomes, refused


class _Refused(RunError):
    """A case the judge would ask the model something no transcript recorded (any other failure stops the
    rejudge)."""


def _rejudge_case(origin: RunStore, others: Sequence[RunStore], case_id: str, judge: Judge) -> CaseOutcome:
    events = origin.events(case_id)
    start = next((e for e in events if e.event == "case_start"), None)
    if start is None:
        raise RunError(f"{origin.transcript_path(case_id)}: the transcript has no case_start event")
    recorded = [*events, *(e for store in others if store.transcript_path(case_id).is_file()
                           for e in store.events(case_id))]
    calls = [e for e in recorded if isinstance(e, ModelCallEvent)]
    [outcome] = run_lockstep([start.case], judge.program, RecordedCalls(calls), judge_name=judge.name,
                             config_hash=judge.config_hash(), window=1)
    if outcome.error is not None:
        missing = [str(s.root) for s in others if not s.transcript_path(case_id).is_file()]
        where = f" (no transcript of it in {', '.join(missing)})" if missing else ""
        refusal = _Refused if outcome.error_type == ReplayMismatch.__name__ else RunError
        raise refusal(f"case {case_id}: cannot be rejudged from its transcript{where}: {outcome.error}")
    return outcome
