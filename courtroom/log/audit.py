"""A run directory opened once (`Audit`): its manifest and rows, its judge rebuilt once, the record of human
judgement (`log.judgements`: labels and corrections, the corrected verdict applying them with the court's own
aggregation), and what the run appended since it was last read (`refresh`: a run being written costs what it
adds)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

from courtroom.case import Case, CaseVerdict, Verdict
from courtroom.casefile import context_sentences
from courtroom.clerk import ClerkSpec
from courtroom.clerk.verdict import aggregate
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import EditEvent, Event, Provenance
from courtroom.engine.judge import Judge
from courtroom.errors import AuditError
from courtroom.evaluate.results import ResultRow
from courtroom.log.case_record import CaseRecord
from courtroom.log.judgements import Judgement, by_case, human_label, read_judgements, record
from courtroom.log.manifest import Manifest
from courtroom.log.store import EDITS, JUDGEMENTS, MANIFEST, RESULTS, RunStore
from courtroom.text.sentences import SPLITTER, SentenceSplitter

EDIT_WORDS = {"fail": Verdict.HALLUCINATED, "hallucinated": Verdict.HALLUCINATED,
              "pass": Verdict.SUPPORTED, "supported": Verdict.SUPPORTED}
"""What a human correction may say: the data's labels (FAIL, PASS) or a ruling's words (hallucinated,
supported)."""
GIVEN_IN = {"view": "labelled in courtroom view", "terminal": "labelled with courtroom label",
            "csv": "imported from a label file", "edit": "corrected with audit edit"}


def edit_verdict(word: Verdict | str) -> Verdict:
    """The ruling a correction gives: `FAIL`/`hallucinated` or `PASS`/`supported` (any case); else an
    `AuditError`."""
    if isinstance(word, Verdict):
        return word
    if (verdict := EDIT_WORDS.get(word.strip().lower())) is None:
        raise AuditError(f"--verdict must be PASS or FAIL (or supported or hallucinated), not {word!r}")
    return verdict


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """A file's identity, size and time of change (None where there is none): what a write changes."""
    try:
        s = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return s.st_ino, s.st_size, s.st_mtime_ns


class Audit:
    """One run directory, opened once: read as it grows (`refresh`), its judge rebuilt at most once."""

    def __init__(self, root: str | Path) -> None:
        self.store = RunStore(root)
        if not self.store.exists():
            raise AuditError(f"{root} is not a run directory (no manifest.json)")
        self.root = self.store.root
        self.notes: list[str] = []
        """What reading the record skipped and why (a torn last line), for the reader to be told."""
        self._reset()

    def _reset(self) -> None:
        for name in ("manifest", "judge"):
            self.__dict__.pop(name, None)
        self._rows: list[ResultRow] | None = None
        self._latest: dict[str, ResultRow] = {}
        self._at = (0, 0)
        self._by_id: dict[str, ResultRow] | None = None
        self._judged: dict[str, list[Judgement]] | None = None
        # the judgements `refresh` last compared with
        self._reported: dict[str, list[Judgement]] | None = None
        self.stamps = self._stamped()
        """The run's files (manifest, results, the record) at the last look: identity, size, time of change
        each."""

    @classmethod
    def of(cls, run: str | Path | Audit) -> Audit:
        """The run opened (an `Audit` is taken as it is)."""
        return run if isinstance(run, Audit) else cls(run)

    # -- reading ---------------------------------------------------------------------------------
    @cached_property
    def manifest(self) -> Manifest:
        return self.store.manifest()

    @cached_property
    def judge(self) -> Judge:
        """The run's judge, rebuilt from its manifest once (`Manifest.rebuild_judge`), for its model (it calls
        none)."""
        return self.manifest.rebuild_judge(BackendSpec(model=self.manifest.model))

    def rows(self) -> list[ResultRow]:
        """The model's results, one per case (the latest of a case judged again), in the order written."""
        if self._rows is None:
            self._appended()
        return self._rows  # type: ignore[return-value]

    def _appended(self) -> list[ResultRow]:
        """Read the result lines written since the last read, and return them."""
        new = []
        for row, at in self.store.rows_from(self._at):
            self._at = at
            self._latest.pop(row.case_id, None)
            self._latest[row.case_id] = row
            new.append(row)
        self._rows, self._by_id = list(self._latest.values()), None
        return new

    def _stamped(self) -> tuple:
        return tuple(_stamp(self.root / name) for name in (MANIFEST, RESULTS, EDITS, JUDGEMENTS))

    def refresh(self) -> set[str] | None:
        """Read what the run appended since it was last read; the ids of the cases whose rows or judgements
        changed (empty: nothing did), or None when it was read anew (its manifest changed, its results were
        cut or replaced)."""
        stamps, was = self._stamped(), self.stamps
        if stamps == was:
            return set()
        self.stamps = stamps
        results, old = stamps[1], was[1]
        if stamps[0] != was[0] or (old is not None and (results is None or results[0] != old[0]
                                                        or results[1] < self._at[0])):
            self._reset()
            return None
        changed = {row.case_id for row in self._appended()} if results != old else set()
        if stamps[2:] != was[2:]:
            before, self._judged = self._reported or {}, None
            after = self._reported = self.judged()
            changed |= {case for case in {*before, *after} if before.get(case) != after.get(case)}
        return changed

    def judgements(self) -> list[Judgement]:
        """The record of human judgement (a torn last line skipped with a note; another bad line an
        `AuditError`)."""
        return [j for case in self.judged().values() for j in case]

    def judged(self) -> dict[str, list[Judgement]]:
        """Each judged case's judgements, in the order given."""
        if self._judged is None:
            found, self.notes = read_judgements(self.store, {r.case_id for r in self.rows()})
            self._judged = by_case(found)
            self._reported = self._reported or self._judged
        return self._judged

    def human_labels(self) -> dict[str, str]:
        """Each case a person labelled: `FAIL` or `PASS` by its judgements (`judgements.human_label`)."""
        return {case: label for case, js in self.judged().items() if (label := human_label(js)) is not None}

    def corrected(self, row: ResultRow) -> ResultRow:
        """The row with its human judgements applied (a row without any, or without a verdict, is
        unchanged)."""
        judged = self.judged().get(row.case_id)
        if not judged or row.label is None:
            return row
        # charges found faithful
        weighed = human_label(judged) is None and any(j.charge is not None for j in judged)
        return row.model_copy(update={"label": corrected_label(row, judged,
                                                               self._verdict(row.case_id)
                                                               if weighed else None,
                                                               self.judge if weighed else None)})

    def corrected_rows(self) -> list[ResultRow]:
        """The results with human judgements applied."""
        return [self.corrected(row) for row in self.rows()]

    def record_judgements(self, judgements: Iterable[Judgement]) -> None:
        """Append judgements to the run's record (`judgements.record`)."""
        record(self.store, list(judgements))
        self._judged = None

    def row(self, case_id: str) -> ResultRow:
        if self._by_id is None:
            self._by_id = {row.case_id: row for row in self.rows()}
        if case_id in self._by_id:
            return self._by_id[case_id]
        raise AuditError(f"no case {case_id!r} in {self.root} (see `courtroom audit list`)")

    def grounding_clip(self) -> float | None:
        """The cap on one token's grounding gain of the run's court (None for other judges, or no cap)."""
        court = self.manifest.judge_config.get("court") or {}
        return (court.get("grounding") or {}).get("clip")

    def ruling_note(self) -> str | None:
        """What decided a run of a clerk that heard witnesses without a ruling for its model; None for other
        runs."""
        judge = self.manifest.judge_config
        witnesses = (judge.get("court") or {}).get("witnesses") if judge.get("judge") == "courtroom" else None
        if not isinstance(witnesses, dict) or witnesses.get("rulings"):
            return None
        return (f"No ruling is fitted for {self.manifest.model}, so the grounding measure decided every "
                "case; the witnesses' testimony is recorded (courtroom calibrate --ruling fits a ruling on "
                "labelled runs).")

    def sentence_splitter(self) -> SentenceSplitter:
        """How the run's court cut contexts and answers into sentences (the default for other judges)."""
        judge = self.manifest.judge_config
        return (judge.get("court") or {}).get("sentences",
                                              SPLITTER) if judge.get("judge") == "courtroom" else SPLITTER

    def context_sentences(self, case: Case) -> tuple[str, ...]:
        """The case's context sentences numbered as the run's court numbered them (citation [i] is the
        i-th)."""
        return context_sentences(case, self.sentence_splitter())

    def events(self, case_id: str) -> list[Event]:
        """A case's transcript, validated, followed by the human verdicts of its judgements as edit events."""
        self.row(case_id)
        events = self.store.events(case_id)
        in_transcript = sum(e.event == "edit" for e in events)  # appended there by earlier versions
        given = [j for j in self.judged().get(case_id, []) if j.verdict is not None][in_transcript:]
        return [*events, *(EditEvent(seq=len(events) + i, time=j.time, charge=j.charge, verdict=j.verdict,
                                     provenance=Provenance(author=j.author,
                                                           reason=j.note or GIVEN_IN[j.source],
                                                           time=j.time)) for i, j in enumerate(given))]

    def record(self, case_id: str) -> CaseRecord:
        """A case's transcript, with its human edits, read into one record (`CaseRecord`)."""
        return CaseRecord.of(self.events(case_id))

    def select(self, *, wrong: bool = False, verdict: str | None = None, source: str | None = None,
               search: str | None = None, errors: bool = False) -> list[ResultRow]:
        """Rows matching the filters (`search` looks in the case id and the verdict's reason)."""
        needle = (search or "").lower()
        return [r for r in self.corrected_rows() if (not wrong or r.correct is False)
                and (not errors or r.error)
                and (not verdict or (r.label or "").upper() == verdict.upper())
                and (not source or source.lower() in r.source.lower())
                and (not search or needle in r.case_id.lower() or needle in r.reason.lower()
                     or needle in (r.error or "").lower())]

    def _verdict(self, case_id: str) -> CaseVerdict | None:
        return CaseRecord.of(self.store.events(case_id)).verdict

    # -- editing ---------------------------------------------------------------------------------
    def edit(self, case_id: str, verdict: Verdict | str, reason: str, author: str, charge: int
             | None = None) -> Judgement:
        """Record a human correction of the case verdict (or of one charge's ruling): a judgement of the
        record."""
        for option, value in (("--author", author), ("--reason", reason)):
            if not value.strip():
                raise AuditError(f"{option} is blank: an edit records who corrects and why; give a non-empty "
                                 f"{option[2:]}")
        row = self.row(case_id)
        verdict = edit_verdict(verdict)
        if charge is not None:
            rulings = recorded.rulings if (recorded := self._verdict(case_id)) else []
            if not any(r.charge == charge for r in rulings):
                known = sorted(r.charge + 1 for r in rulings)
                raise AuditError(f"case {case_id!r} has no ruling on charge {charge + 1} (charges ruled: "
                                 f"{known}); omit --charge to correct the case verdict")
        if row.label is None:
            raise AuditError(f"case {case_id!r} ended in an error; there is no verdict to correct")
        judgement = Judgement(case_id=case_id, charge=charge,
                              label="hallucinated" if verdict is Verdict.HALLUCINATED
                              else "faithful", author=author, note=reason, source="edit")
        self.record_judgements([judgement])
        return judgement


def corrected_label(row: ResultRow, judgements: list[Judgement], verdict: CaseVerdict | None,
                    judge: Judge | None) -> str:
    """The case label after human judgements: a person's label decides (`human_label`); else the charges they
    found faithful replace those rulings, combined again by the court's own rule (its clerk's aggregation)."""
    if (label := human_label(judgements)) is not None:
        return label
    latest = {j.charge: j.verdict for j in judgements if j.charge is not None and j.verdict is not None}
    spec = getattr(judge, "spec", None)
    if not latest or verdict is None or not verdict.rulings or not isinstance(spec, ClerkSpec):
        return row.label or "PASS"
    rulings = [r.model_copy(update={"verdict": latest[r.charge],
                                    "p_hallucinated": 1.0
                                    if latest[r.charge] is Verdict.HALLUCINATED else 0.0})
               if r.charge in latest else r for r in verdict.rulings]
    return aggregate(spec.aggregation, judge.threshold, row.case_id, list(verdict.charges),  # type: ignore[union-attr]
                     list(verdict.dropped), rulings).label
