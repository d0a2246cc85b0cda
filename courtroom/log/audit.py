"""Auditing a run directory: its rows, filters, one case's events, and human edits (appended to `edits.jsonl`; the
corrected verdict applies them to the rulings with the court's own aggregation)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from courtroom.case import Case, CaseVerdict, Verdict
from courtroom.casefile import context_sentences
from courtroom.clerk import ClerkSpec
from courtroom.clerk.verdict import aggregate
from courtroom.engine.events import EditEvent, Event, Provenance
from courtroom.engine.judge import Judge
from courtroom.errors import AuditError
from courtroom.evaluate.results import ResultRow
from courtroom.log.case_record import CaseRecord
from courtroom.log.files import append_line, read_lines, refuse_links
from courtroom.log.store import EDITS, RunStore, first_problem
from courtroom.text.sentences import SPLITTER, SentenceSplitter

EDIT_WORDS = {"fail": Verdict.HALLUCINATED, "hallucinated": Verdict.HALLUCINATED,
              "pass": Verdict.SUPPORTED, "supported": Verdict.SUPPORTED}
"""What a human correction may say: the data's labels (FAIL, PASS) or a ruling's words (hallucinated, supported)."""


def edit_verdict(word: Verdict | str) -> Verdict:
    """The ruling a correction gives: `FAIL`/`hallucinated` or `PASS`/`supported` (any case); else an `AuditError`."""
    if isinstance(word, Verdict):
        return word
    if (verdict := EDIT_WORDS.get(word.strip().lower())) is None:
        raise AuditError(f"--verdict must be PASS or FAIL (or supported or hallucinated), not {word!r}")
    return verdict


class EditEntry(BaseModel):
    """One line of `edits.jsonl`: a human edit of one case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str
    event: EditEvent


class Audit:
    """Read-mostly access to one run directory."""

    def __init__(self, root: str | Path) -> None:
        self.store = RunStore(root)
        if not self.store.exists():
            raise AuditError(f"{root} is not a run directory (no manifest.json)")
        self.root = self.store.root
        self._rows: list[ResultRow] | None = None
        self._by_id: dict[str, ResultRow] | None = None
        self._edits: dict[str, list[EditEvent]] | None = None
        self.notes: list[str] = []
        """What reading the edits skipped and why (a torn last line of `edits.jsonl`), for the reader to be told."""

    # -- reading ---------------------------------------------------------------------------------
    def rows(self) -> list[ResultRow]:
        """The model's results, one per case."""
        if self._rows is None:
            self._rows = self.store.rows()
        return self._rows

    def edits(self) -> dict[str, list[EditEvent]]:
        """Human edits per case, in order (a torn last line skipped with a note; another bad line an `AuditError`)."""
        if self._edits is None:
            self._edits, self.notes = self._read_edits()
        return self._edits

    def _read_edits(self) -> tuple[dict[str, list[EditEvent]], list[str]]:
        path = self.root / EDITS
        edits: dict[str, list[EditEvent]] = {}
        refuse_links(self.root, [EDITS])  # the file edits are appended to: never another's
        if not path.exists():
            return edits, []
        for number, line in read_lines(path, AuditError):
            if not line.endswith(b"\n"):
                return edits, [f"{path}:{number}: a torn line (an edit interrupted while it was written) is skipped; "
                               "the next edit cuts it"]
            if not line.strip():
                continue
            try:
                entry = EditEntry.model_validate_json(line)
            except ValidationError as exc:
                raise AuditError(f"{path}:{number}: not an edit ({first_problem(exc)}); fix or remove the line") from exc
            edits.setdefault(entry.case_id, []).append(entry.event)
        return edits, []

    def corrected_rows(self) -> list[ResultRow]:
        """The results with human edits applied (rows without edits are unchanged)."""
        edits = self.edits()
        if not edits:
            return self.rows()
        judge = self.store.manifest().rebuild_judge()
        return [row.model_copy(update={"label": corrected_label(row, edits[row.case_id], self._verdict(row.case_id), judge)})
                if row.case_id in edits and row.label is not None else row for row in self.rows()]

    def row(self, case_id: str) -> ResultRow:
        if self._by_id is None:
            self._by_id = {row.case_id: row for row in self.rows()}
        if case_id in self._by_id:
            return self._by_id[case_id]
        raise AuditError(f"no case {case_id!r} in {self.root} (see `courtroom audit list`)")

    def grounding_clip(self) -> float | None:
        """The cap on one token's grounding gain of the run's court (None for other judges, or no cap)."""
        court = self.store.manifest().judge_config.get("court") or {}
        return (court.get("grounding") or {}).get("clip")

    def ruling_note(self) -> str | None:
        """What decided a run of a clerk that heard witnesses without a ruling for its model; None for other runs."""
        judge = self.store.manifest().judge_config
        witnesses = (judge.get("court") or {}).get("witnesses") if judge.get("judge") == "courtroom" else None
        if not isinstance(witnesses, dict) or witnesses.get("rulings"):
            return None
        return (f"No ruling is fitted for {self.store.manifest().model}, so the grounding measure decided every case; "
                "the witnesses' testimony is recorded (courtroom calibrate --ruling fits a ruling on labelled runs).")

    def sentence_splitter(self) -> SentenceSplitter:
        """How the run's court cut contexts and answers into sentences (the default for other judges)."""
        judge = self.store.manifest().judge_config
        return (judge.get("court") or {}).get("sentences", SPLITTER) if judge.get("judge") == "courtroom" else SPLITTER

    def context_sentences(self, case: Case) -> tuple[str, ...]:
        """The case's context sentences numbered as the run's court numbered them (citation [i] is the i-th)."""
        return context_sentences(case, self.sentence_splitter())

    def events(self, case_id: str) -> list[Event]:
        """A case's transcript, validated, followed by its human edits."""
        self.row(case_id)
        events = self.store.events(case_id)
        in_transcript = sum(e.event == "edit" for e in events)  # appended there by earlier versions
        return [*events, *self.edits().get(case_id, [])[in_transcript:]]

    def record(self, case_id: str) -> CaseRecord:
        """A case's transcript, with its human edits, read into one record (`CaseRecord`)."""
        return CaseRecord.of(self.events(case_id))

    def select(self, *, wrong: bool = False, verdict: str | None = None, source: str | None = None,
               search: str | None = None, errors: bool = False) -> list[ResultRow]:
        """Rows matching the filters (`search` looks in the case id and the verdict's reason)."""
        needle = (search or "").lower()
        return [r for r in self.corrected_rows() if (not wrong or r.correct is False) and (not errors or r.error)
                and (not verdict or (r.label or "").upper() == verdict.upper())
                and (not source or source.lower() in r.source.lower())
                and (not search or needle in r.case_id.lower() or needle in r.reason.lower() or needle in (r.error or "").lower())]

    def _verdict(self, case_id: str) -> CaseVerdict | None:
        return CaseRecord.of(self.store.events(case_id)).verdict

    # -- editing ---------------------------------------------------------------------------------
    def edit(self, case_id: str, verdict: Verdict | str, reason: str, author: str, charge: int | None = None) -> EditEvent:
        """Record a human correction: a line of `edits.jsonl`, whole or not at all, under the edits lock."""
        for option, value in (("--author", author), ("--reason", reason)):
            if not value.strip():
                raise AuditError(f"{option} is blank: an edit records who corrects and why; give a non-empty "
                                 f"{option[2:]}")
        row = self.row(case_id)
        verdict = edit_verdict(verdict)
        events = self.store.events(case_id)
        if charge is not None:
            rulings = recorded.rulings if (recorded := self._verdict(case_id)) else []
            if not any(r.charge == charge for r in rulings):
                known = sorted(r.charge + 1 for r in rulings)
                raise AuditError(f"case {case_id!r} has no ruling on charge {charge + 1} (charges ruled: {known}); "
                                 "omit --charge to correct the case verdict")
        if row.label is None:
            raise AuditError(f"case {case_id!r} ended in an error; there is no verdict to correct")
        path = self.root / EDITS
        with self.store.edits_lock():
            self._edits = None  # read again under the lock: another editor may have just recorded one
            earlier = self.edits().get(case_id, [])
            in_transcript = sum(e.event == "edit" for e in events)
            event = EditEvent(seq=len(events) - in_transcript + len(earlier), charge=charge, verdict=verdict,
                              provenance=Provenance(author=author, reason=reason))
            try:
                append_line(path, EditEntry(case_id=case_id, event=event).model_dump_json())
            except OSError as exc:
                raise AuditError(f"{path}: cannot record the edit ({exc.strerror or exc}); the run is unchanged: "
                                 "run the same command again once the problem is fixed") from exc
            finally:
                self._edits = None
        return event


def corrected_label(row: ResultRow, edits: list[EditEvent], verdict: CaseVerdict | None, judge: Judge) -> str:
    """The case label after human edits: a case edit decides; charge edits replace those rulings, combined again."""
    case_edits = [e for e in edits if e.charge is None]
    if case_edits:
        return "FAIL" if case_edits[-1].verdict is Verdict.HALLUCINATED else "PASS"
    latest = {e.charge: e.verdict for e in edits if e.charge is not None}
    spec = getattr(judge, "spec", None)  # a court's rule: its clerk's aggregation
    if not latest or verdict is None or not verdict.rulings or not isinstance(spec, ClerkSpec):
        return row.label or "PASS"

    rulings = [r.model_copy(update={"verdict": latest[r.charge],
                                    "p_hallucinated": 1.0 if latest[r.charge] is Verdict.HALLUCINATED else 0.0})
               if r.charge in latest else r for r in verdict.rulings]
    return aggregate(spec.aggregation, judge.threshold, row.case_id, list(verdict.charges),
                     list(verdict.dropped), rulings).label
