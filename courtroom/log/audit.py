"""Auditing a run directory: summary, filters, one case's record, verification, and human edits.

Human edits are appended, never rewritten: an `edit` event goes at the end of the case's
transcript, and a copy into `edits.jsonl` so summaries of large runs need not open every
transcript. The corrected verdict applies the edits to the model's rulings with the court's own
aggregation rule; metrics are reported for the model's and the corrected verdicts side by side.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import CaseVerdict, Verdict
from courtroom.engine.events import EditEvent, Provenance, parse_event
from courtroom.errors import CourtroomError
from courtroom.log.store import RESULTS, ResultRow, RunStore, transcript_name

EDITS = "edits.jsonl"


class AuditError(CourtroomError):
    """A run directory cannot be audited as asked."""


@dataclass(frozen=True)
class Problem:
    """One thing `verify` found wrong, with the file and line at fault."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


class Audit:
    """Read-mostly access to one run directory."""

    def __init__(self, root: str | Path) -> None:
        self.store = RunStore(root)
        if not self.store.exists():
            raise AuditError(f"{root} is not a run directory (no manifest.json)")
        self.root = self.store.root
        self._rows: list[ResultRow] | None = None

    # -- reading ---------------------------------------------------------------------------------
    def rows(self) -> list[ResultRow]:
        """The model's results, one per case."""
        if self._rows is None:
            self._rows = self.store.rows()
        return self._rows

    def edits(self) -> dict[str, list[EditEvent]]:
        """Human edits per case, in the order they were made."""
        path = self.root / EDITS
        edits: dict[str, list[EditEvent]] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    edits.setdefault(entry["case_id"], []).append(EditEvent.model_validate(entry["event"]))
        return edits

    def corrected_rows(self) -> list[ResultRow]:
        """The results with human edits applied (rows without edits are unchanged)."""
        edits = self.edits()
        if not edits:
            return self.rows()
        judge = self._judge()
        corrected = []
        for row in self.rows():
            if row.case_id in edits and row.label is not None:
                label = corrected_label(row, edits[row.case_id], self._verdict(row.case_id), judge)
                row = row.model_copy(update={"label": label})
            corrected.append(row)
        return corrected

    def row(self, case_id: str) -> ResultRow:
        for row in self.rows():
            if row.case_id == case_id:
                return row
        raise AuditError(f"no case {case_id!r} in {self.root} (see `courtroom audit list`)")

    def events(self, case_id: str) -> list[Any]:
        """A case's transcript, validated."""
        self.row(case_id)
        return self.store.events(case_id)

    def select(self, *, wrong: bool = False, verdict: str | None = None, source: str | None = None,
               search: str | None = None, errors: bool = False) -> list[ResultRow]:
        """Rows matching the filters (`search` looks in the case id and the verdict's reason)."""
        rows = self.corrected_rows()
        if wrong:
            rows = [r for r in rows if r.correct is False]
        if errors:
            rows = [r for r in rows if r.error]
        if verdict:
            rows = [r for r in rows if (r.label or "").upper() == verdict.upper()]
        if source:
            rows = [r for r in rows if source.lower() in r.source.lower()]
        if search:
            needle = search.lower()
            rows = [r for r in rows if needle in r.case_id.lower() or needle in r.reason.lower()
                    or needle in (r.error or "").lower()]
        return rows

    def _judge(self) -> Any:
        from courtroom.log.replay import judge_from_config

        return judge_from_config(self.store.manifest().judge)

    def _verdict(self, case_id: str) -> CaseVerdict | None:
        verdicts = [e.verdict for e in self.store.events(case_id) if e.event == "verdict"]
        return verdicts[-1] if verdicts else None

    def _rulings(self, case_id: str) -> list[Any]:
        verdict = self._verdict(case_id)
        return verdict.rulings if verdict else []

    # -- editing ---------------------------------------------------------------------------------
    def edit(self, case_id: str, verdict: Verdict | str, reason: str, author: str, charge: int | None = None) -> EditEvent:
        """Append a human correction to the case's transcript and to the run's edit index."""
        row = self.row(case_id)
        verdict = Verdict(verdict)
        events = self.store.events(case_id)
        if charge is not None:
            rulings = self._rulings(case_id)
            if not any(r.charge == charge for r in rulings):
                known = sorted(r.charge + 1 for r in rulings)
                raise AuditError(f"case {case_id!r} has no ruling on charge {charge + 1} (charges ruled: {known}); "
                                 "omit --charge to correct the case verdict")
        if row.label is None:
            raise AuditError(f"case {case_id!r} ended in an error; there is no verdict to correct")
        event = EditEvent(seq=len(events), charge=charge, verdict=verdict,
                          provenance=Provenance(author=author, reason=reason))
        with (self.root / row.transcript).open("a", encoding="utf-8") as handle:
            handle.write(event.model_dump_json() + "\n")
        with (self.root / EDITS).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"case_id": case_id, "event": event.model_dump(mode="json")}) + "\n")
        return event

    # -- verification ----------------------------------------------------------------------------
    def verify(self) -> list[Problem]:
        """Replay every transcript and check every verdict, score, event and the run's metrics."""
        from courtroom.evaluate.metrics import compute_metrics
        from courtroom.log.replay import ReplayMismatch, judge_from_config, replay

        problems: list[Problem] = []
        manifest = self.store.manifest()
        judge = judge_from_config(manifest.judge)
        latest: dict[str, ResultRow] = {}  # a case judged again on resume: its last row stands
        results = self.root / RESULTS
        lines = results.read_text(encoding="utf-8").splitlines() if results.is_file() else []
        for number, line in enumerate(lines, start=1):
            try:
                row = ResultRow.model_validate_json(line)
            except ValidationError as exc:
                problems.append(Problem(str(results), number, f"not a valid result row: {exc.errors()[0]['msg']}"))
                continue
            latest.pop(row.case_id, None)
            latest[row.case_id] = row
        rows = list(latest.values())
        listed = set()
        edits = self.edits()
        for row in rows:
            path = self.root / row.transcript
            listed.add(path.name)
            if path.name != transcript_name(row.case_id):
                problems.append(Problem(str(results), None, f"case {row.case_id}: transcript name {row.transcript} "
                                                            "does not match the case id"))
            events, bad = _read_checked(path)
            problems.extend(bad)
            if bad or not events:
                continue
            problems.extend(_check_sequence(path, events, manifest.config_hash, row.case_id))
            recorded_edits = [e for e in events if e.event == "edit"]
            if [e.model_dump() for e in recorded_edits] != [e.model_dump() for e in edits.get(row.case_id, [])]:
                problems.append(Problem(str(path), None, "edit events differ from edits.jsonl"))
            try:
                result = replay([e for e in events if e.event != "edit"], judge)
            except ReplayMismatch as exc:
                problems.append(Problem(str(path), None, f"replay failed: {exc}"))
                continue
            problems.extend(Problem(str(path), None, d) for d in result.differences)
            verdict = result.verdict
            if (verdict is None) != (row.label is None) or (
                    verdict is not None and (verdict.label != row.label or verdict.score != row.score)):
                problems.append(Problem(str(results), None, f"case {row.case_id}: the results say "
                                        f"{row.label}/{row.score} but the transcript replays to "
                                        f"{verdict and verdict.label}/{verdict and verdict.score}"))
        transcripts = self.root / "transcripts"
        for path in sorted(transcripts.glob("*.jsonl")) if transcripts.is_dir() else []:
            if path.name not in listed:
                problems.append(Problem(str(path), None, "transcript of a case that has no result row"))
        metrics_path = self.root / "metrics.json"
        if metrics_path.is_file():
            stored = json.loads(metrics_path.read_text())
            recomputed = json.loads(compute_metrics(rows).model_dump_json())
            if stored != recomputed:
                keys = sorted(k for k in recomputed if stored.get(k) != recomputed[k])
                problems.append(Problem(str(metrics_path), None, f"metrics do not recompute: {', '.join(keys)} differ"))
        return problems


def _read_checked(path: Path) -> tuple[list[Any], list[Problem]]:
    if not path.is_file():
        return [], [Problem(str(path), None, "transcript is missing")]
    events, problems = [], []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith("\n"):
                problems.append(Problem(str(path), number, "truncated line (no newline at the end)"))
            try:
                events.append(parse_event(line))
            except (ValidationError, ValueError) as exc:
                message = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                problems.append(Problem(str(path), number, f"not a valid event: {message}"))
    return events, problems


def _check_sequence(path: Path, events: Sequence[Any], config_hash: str, case_id: str) -> list[Problem]:
    problems = []
    for number, event in enumerate(events, start=1):
        if event.seq != number - 1:
            problems.append(Problem(str(path), number, f"event numbered {event.seq}, expected {number - 1} "
                                                       "(events missing, reordered or inserted)"))
            break
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


def corrected_label(row: ResultRow, edits: list[EditEvent], verdict: CaseVerdict | None, judge: Any) -> str:
    """The case label after human edits: a case edit decides; charge edits replace those rulings (certain
    either way) and the court combines the rulings again by its own rule, threshold and evidence."""
    case_edits = [e for e in edits if e.charge is None]
    if case_edits:
        return "FAIL" if case_edits[-1].verdict is Verdict.HALLUCINATED else "PASS"
    from courtroom.court import Court
    from courtroom.court.trial import aggregate

    latest = {e.charge: e.verdict for e in edits if e.charge is not None}
    if not latest or verdict is None or not verdict.rulings or not isinstance(judge, Court):
        return row.label or "PASS"

    rulings = [r.model_copy(update={"verdict": latest[r.charge],
                                    "p_hallucinated": 1.0 if latest[r.charge] is Verdict.HALLUCINATED else 0.0})
               if r.charge in latest else r for r in verdict.rulings]
    return aggregate(judge, row.case_id, list(verdict.charges), list(verdict.dropped), rulings).label
