"""Rejudge: decide a finished run again under another court, from its transcripts alone.

A court's arithmetic (its judge weight, aggregation method, verdict threshold) changes verdicts
without changing anything the model is asked, so a finished run can be re-decided with no model call:
each request the new court makes is served from the transcript's recorded call with the same prompt,
output schema and sampling. A court that asks for anything the run did not record (another prompt or
persona, a charge the run never tried) is refused, naming the case and the call: run it with
`courtroom run` instead. Calls may also come from other runs of the same cases (`calls_from`): a court
that adds the rails baseline's question as its first reading is rejudged from a court run and a rails
run, each call served from where it was recorded. Researchers compare decision rules on a run in
seconds; the rejudged run is an ordinary run directory (results, transcripts, a manifest naming its
source).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from courtroom.door.backend import Backend
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome, run_lockstep
from courtroom.errors import CourtroomError
from courtroom.log.replay import ReplayMismatch, message_hashes, recorded_response
from courtroom.log.store import Manifest, ResultRow, RunStore


def _call_key(messages: Sequence[str], schema_key: str, constrained: bool, sampling: dict[str, Any]) -> str:
    return repr((tuple(messages), schema_key, constrained, sorted(sampling.items())))


class RecordedCalls(Backend):
    """Serves a transcript's recorded calls by what was asked (prompt, schema, sampling), in any order."""

    name = "recorded"

    def __init__(self, events: Sequence[Any]) -> None:
        self._calls: dict[str, deque[Any]] = defaultdict(deque)
        for event in events:
            if event.event == "model_call":
                key = _call_key(event.messages, event.schema_key, event.constrained, event.sampling)
                self._calls[key].append(event)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        return [self._serve(request) for request in requests]

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        key = _call_key(message_hashes(request), request.spec.key, request.constrained, request.sampling.model_dump())
        if not self._calls[key]:
            raise ReplayMismatch(f"the court asks for a {request.spec.name} the run never asked the model for "
                                 f"(a changed prompt, persona or sampling, or a charge the run did not try)")
        return recorded_response(self._calls[key].popleft(), request)


def rejudge_run(source: str | Path, judge: Judge, out: str | Path, *, changed: dict[str, Any],
                calls_from: Sequence[str | Path] = ()) -> list[ResultRow]:
    """Re-decide every finished case of the run at `source` with `judge`, into a new run at `out`, serving
    model calls from the source's transcripts and, for the same case, from the runs in `calls_from`.
    `changed` (e.g. `{"court": "strict.yaml"}`) is recorded over the source's options in the manifest.

    Every case is re-decided before anything is written, so a refused court leaves no partial run.
    Cases that ended in an error in the source run, or whose transcript is gone, are left out (they have
    no complete record); compare the runs on the cases they share."""
    origin = RunStore(source)
    others = [RunStore(path) for path in calls_from]
    for store in (origin, *others):
        if not store.exists():
            raise CourtroomError(f"{store.root}: not a run directory (no manifest.json)")
    model = origin.manifest().backend.get("model")
    for store in others:  # recorded answers stand for this run's only if the same model gave them
        if (other := store.manifest().backend.get("model")) != model:
            raise CourtroomError(f"--calls-from {store.root}: its model ({other}) is not the model of {source} "
                                 f"({model})")
    target = RunStore(out)
    if Path(out).resolve() == Path(source).resolve():
        raise CourtroomError(f"{out}: rejudge into a new run directory, not the source run")
    if target.exists():
        raise CourtroomError(f"{out} already holds a run; choose another --out")
    outcomes: list[CaseOutcome] = []
    for row in origin.rows():
        if row.error is not None or not origin.transcript_path(row.case_id).is_file():
            continue
        events = origin.events(row.case_id)
        start = next((e for e in events if e.event == "case_start"), None)
        if start is None:
            raise CourtroomError(f"{origin.transcript_path(row.case_id)}: the transcript has no case_start event")
        recorded = [*events, *(e for store in others if store.transcript_path(row.case_id).is_file()
                               for e in store.events(row.case_id))]
        [outcome] = run_lockstep([start.case], judge.program, RecordedCalls(recorded), judge_name=judge.name,
                                 config_hash=judge.config_hash(), window=1)
        if outcome.error is not None:
            missing = [str(s.root) for s in others if not s.transcript_path(row.case_id).is_file()]
            where = f" (no transcript of it in {', '.join(missing)})" if missing else ""
            raise CourtroomError(f"case {row.case_id}: cannot be rejudged from its transcript{where}: {outcome.error}")
        outcomes.append(outcome)
    manifest = origin.manifest()
    lock = target.lock()
    try:
        target.write_manifest(Manifest(
            name=Path(out).name, judge=judge.config(), config_hash=judge.config_hash(), backend=manifest.backend,
            dataset=manifest.dataset, options={**manifest.options, **changed, "rejudged_from": str(source),
                                               **({"calls_from": [str(p) for p in calls_from]} if calls_from else {})}))
        rows = [target.write(outcome) for outcome in outcomes]
    finally:
        lock.close()
    return rows
