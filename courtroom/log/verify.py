"""Verify a run directory: replay every transcript, and check every verdict, score, event and metric (from
content, with no secret: edits consistent across transcript, row and metrics go unseen, docs/SECURITY.md)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from courtroom.case import CaseVerdict
from courtroom.door.requests import ChatMessage, message_hash
from courtroom.engine.events import EditEvent, Event, parse_event
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome
from courtroom.errors import ReplayMismatch, TranscriptError
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import ResultRow, summarize
from courtroom.log.audit import Audit
from courtroom.log.files import MAX_LINE_BYTES, read_lines, run_file
from courtroom.log.judgements import Judgement
from courtroom.log.manifest import CaseDigests
from courtroom.log.replay import replay
from courtroom.log.span_metrics import run_span_scores
from courtroom.log.store import RESULTS, legacy_transcript_name, transcript_name


@dataclass(frozen=True)
class Problem:
    """One thing `verify` found wrong, with the file and line at fault."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


def verify(audit: Audit) -> list[Problem]:
    """Replay every transcript and check every verdict, score, event and the run's metrics."""
    problems: list[Problem] = []
    manifest = audit.store.manifest()
    judge = manifest.rebuild_judge()
    latest: dict[str, ResultRow] = {}  # a case judged again on resume: its last row stands
    results = audit.root / RESULTS
    for number, line in read_lines(results) if results.exists() else ():
        try:
            row = ResultRow.model_validate_json(line)
        except ValidationError as exc:
            problems.append(Problem(str(results), number, "not a valid result row: "
                                                          f"{exc.errors()[0]['msg']}"))
            continue
        latest.pop(row.case_id, None)
        latest[row.case_id] = row
    rows = list(latest.values())
    listed = set()
    judged = audit.judged()
    versions: Counter[tuple[str, int, int]] = Counter()
    for row in rows:
        path = audit.root / row.transcript
        listed.add(path.name)
        if path.name not in (transcript_name(row.case_id), legacy_transcript_name(row.case_id)):
            problems.append(Problem(str(results), None, f"case {row.case_id}: transcript name "
                                                        f"{row.transcript} does not match the case id"))
        events, bad = _read_checked(path)
        problems.extend(bad)
        if not events and not bad:
            problems.append(Problem(str(path), None, "transcript is empty (0 events)"))
        if bad or not events:
            continue
        problems.extend(_check_prompts(path, events))
        problems.extend(_check_sequence(path, events, manifest.config_hash, row.case_id))
        problems.extend(_check_case(row, events[0], manifest.cases, results))
        problems.extend(_check_edits(path, events, judged.get(row.case_id, [])))
        try:
            result = replay([e for e in events if e.event != "edit"], judge, manifest.config_hash)
        except ReplayMismatch as exc:
            problems.append(Problem(str(path), None, f"replay failed: {exc}"))
            continue
        problems.extend(Problem(str(path), None, d) for d in result.differences)
        verdict = result.verdict
        if (result.differences and verdict
            and (was := next((e.verdict for e in events if e.event == "verdict"), None))):
            # a witness's version changed since the run
            now = {t.witness: t.version for t in verdict.testimony}
            versions.update((t.witness, t.version, now[t.witness]) for t in was.testimony
                            if now.get(t.witness, t.version) != t.version)
        if (verdict is None) != (row.label is None) or (
                verdict is not None and (verdict.label != row.label or verdict.score != row.score)):
            problems.append(Problem(str(results), None, f"case {row.case_id}: the results say "
                                    f"{row.label}/{row.score} but the transcript replays to "
                                    f"{verdict and verdict.label}/{verdict and verdict.score}"))
        problems.extend(_check_derived(row, events, verdict, judge, results))
    if manifest.origin is not None and manifest.cases is not None and (
            missing := [case for case in manifest.cases.cases if case not in latest]):
        problems.append(Problem(str(results), None, f"unfinished rejudge: {len(missing)} of "
                                                    f"{len(manifest.cases.cases)} cases it decided have no "
                                                    f"result row (first: {missing[0]!r}); run the same "
                                                    "command to finish it"))
    transcripts = audit.root / "transcripts"
    problems.extend(Problem(str(path), None, "transcript of a case that has no result row")
                    for path in (sorted(transcripts.glob("*.jsonl")) if transcripts.is_dir() else [])
                    if path.name not in listed)
    problems.extend(_check_metrics(audit, rows))
    problems.extend(Problem(str(audit.root), None, f"{n} transcripts hold the {name} witness's testimony at "
                                                   f"version {then}, which this courtroom computes at "
                                                   f"version {now}: its values differ by design; verify the "
                                                   "run with the courtroom that recorded it (commit "
                                                   f"{(manifest.git_sha or '?')[:7]})")
                    for (name, then, now), n in sorted(versions.items()))
    return problems


CHECKED_APART = {"case_id", "label", "score", "gold", "case_digest", "transcript"}
"""Row fields `verify` checks on their own (the verdict, the gold label, the case), not as
`_check_derived`."""
LATER = {"variants", "computed_prompt_tokens", "trial"}
"""Row fields that rows of runs recorded before the fields existed leave empty: checked when a row holds
them."""


def _check_derived(row: ResultRow, events: Sequence[Event], verdict: CaseVerdict | None, judge: Judge,
                   results: Path) -> list[Problem]:
    """Every other field of a row is what its transcript gives (`summarize`), each named where it differs."""
    recorded = [e for e in events if e.event != "edit"]
    start = recorded[0]
    failure = next((e for e in recorded if e.event == "error"), None)
    outcome = CaseOutcome(start.case, verdict, recorded, failure and failure.message,
                          failure and failure.error_type)
    expected = summarize(outcome, row.transcript, judge.variants(start.case, recorded) if verdict else {})
    names = [name for name in ResultRow.model_fields if name not in CHECKED_APART
             and getattr(row, name) != getattr(expected, name)
             and not (name in LATER and not getattr(row, name))]
    return [Problem(str(results), None, f"case {row.case_id}: the results row's {name} is "
                                        f"{_short(getattr(row, name))} but its transcript gives "
                                        f"{_short(getattr(expected, name))}") for name in names]


def _short(value: object, limit: int = 200) -> str:
    text = json.dumps(to_jsonable_python(value), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _check_metrics(audit: Audit, rows: Sequence[ResultRow]) -> list[Problem]:
    """The stored metrics (span metrics too), when the run has them, are what the rows recompute to."""
    path = audit.root / "metrics.json"
    if not path.exists():
        return []
    try:
        with run_file(path, limit=MAX_LINE_BYTES) as handle:
            stored = json.loads(handle.read().decode("utf-8"))
    except UnicodeDecodeError as exc:
        return [Problem(str(path), None, f"not valid UTF-8 (at byte {exc.start})")]
    except ValueError as exc:  # empty, torn, not JSON
        return [Problem(str(path), None, f"not valid JSON ({exc})")]
    if not isinstance(stored, dict):
        return [Problem(str(path), None, f"not a JSON object of metrics (a {type(stored).__name__})")]
    recomputed = json.loads(compute_metrics(rows).model_dump_json())
    if "spans" in stored:  # span metrics, written when the data has gold spans
        recomputed["spans"] = run_span_scores(audit.store, rows)
    if stored == recomputed:
        return []
    keys = sorted(k for k in {*recomputed, *stored} if stored.get(k) != recomputed.get(k))
    return [Problem(str(path), None, f"metrics do not recompute: {', '.join(keys)} differ")]


def _read_checked(path: Path) -> tuple[list[Event], list[Problem]]:
    if not (path.exists() or path.is_symlink()):
        return [], [Problem(str(path), None, "transcript is missing")]
    events, problems = [], []
    try:
        for number, line in read_lines(path, TranscriptError):
            if not line.endswith(b"\n"):
                problems.append(Problem(str(path), number, "truncated line (no newline at the end)"))
            try:
                events.append(parse_event(line.decode("utf-8")))
            except (ValidationError, ValueError) as exc:
                message = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                problems.append(Problem(str(path), number, f"not a valid event: {message}"))
    except TranscriptError as exc:
        return [], [Problem(str(path), None, str(exc).removeprefix(f"{path}: "))]
    return events, problems


def _check_prompts(path: Path, events: Sequence[Event]) -> list[Problem]:
    """Every stored prompt text still has the hash its model calls name (replay compares hashes only)."""
    return [Problem(str(path), number, f"prompt {e.hash}: its text was changed (it now hashes to "
                                       f"{message_hash(ChatMessage(role=e.role, content=e.content))})")
            for number, e in enumerate(events, start=1)
            if e.event == "prompt" and message_hash(ChatMessage(role=e.role, content=e.content)) != e.hash]


def _check_sequence(path: Path, events: Sequence[Event], config_hash: str, case_id: str) -> list[Problem]:
    problems = [Problem(str(path), number, f"event numbered {event.seq}, expected {number - 1} (events "
                                           "missing, reordered or inserted)")
                for number, event in enumerate(events, start=1) if event.seq != number - 1][:1]
    start = events[0]
    if start.event != "case_start":
        problems.append(Problem(str(path), 1, "the transcript does not begin with case_start"))
    else:
        if start.case.id != case_id:
            problems.append(Problem(str(path), 1, f"foreign transcript: it is for case {start.case.id!r}"))
        if start.config_hash != config_hash:
            problems.append(Problem(str(path), 1, f"foreign transcript: made by judge configuration "
                                                  f"{start.config_hash}, this run is {config_hash}"))
    if not any(e.event in ("verdict", "error") for e in events):
        problems.append(Problem(str(path), len(events), "truncated: the transcript has no verdict or error"))
    return problems


def _check_case(row: ResultRow, start: Event, recorded: CaseDigests | None, results: Path) -> list[Problem]:
    """The case a row was judged on is its transcript's (gold label, digest) and the one the manifest
    records."""
    if start.event != "case_start":
        return []
    problems, digest = [], start.case.digest()
    if row.gold != start.case.label:
        problems.append(Problem(str(results), None, f"case {row.case_id}: the results say gold {row.gold} "
                                                    "but its transcript's case is labelled "
                                                    f"{start.case.label}"))
    if row.case_digest is not None and row.case_digest != digest:
        problems.append(Problem(str(results), None, f"case {row.case_id}: the results row records case "
                                                    f"digest {row.case_digest}, its transcript's case is "
                                                    f"{digest}"))
    if recorded is not None and recorded.cases.get(row.case_id) != digest:
        known = recorded.cases.get(row.case_id)
        problems.append(Problem(str(results), None, f"case {row.case_id}: " + (
            f"judged on other content than the run recorded (digest {digest}, the manifest records {known}): "
            "the data changed under the run" if known else "not among the cases the manifest records")))
    return problems


def _check_edits(path: Path, events: Sequence[Event], judged: list[Judgement]) -> list[Problem]:
    """The edit events earlier versions wrote into a transcript are the first corrections `edits.jsonl`
    records."""
    in_transcript = [(e.charge, e.verdict, e.provenance.author, e.provenance.reason) for e in events
                     if isinstance(e, EditEvent)]
    recorded = [(j.charge, j.verdict, j.author, j.note) for j in judged if j.source == "edit"]
    return [] if in_transcript == recorded[: len(in_transcript)] else \
        [Problem(str(path), None, "edit events differ from edits.jsonl")]
