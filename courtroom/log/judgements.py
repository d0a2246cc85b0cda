"""The one record of human judgement of a run: `judgements.jsonl` in the run directory, a line a judgement
(after Phoenix's annotations: the case, the charge where there is one, the label, who, when, a note, and where
it was given), appended whole under a lock that holds across processes, so no judgement is lost with any
number of writers, and never rewritten. A label given in `courtroom view` or `courtroom label`, one imported
from a label file and a correction (`audit edit`) are each a judgement; the latest of a case (or of a charge)
stands. The corrections earlier versions appended to `edits.jsonl` are read as judgements before it (migrated
on read; that file is never written again)."""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from courtroom.case import Verdict
from courtroom.engine.events import EditEvent, utc_now
from courtroom.errors import AuditError
from courtroom.log.files import append_line, read_lines, refuse_links
from courtroom.log.store import EDITS, JUDGEMENTS, RunStore, first_problem

Label = Literal["hallucinated", "faithful", "skip", "undone"]
VERDICTS = {"hallucinated": Verdict.HALLUCINATED, "faithful": Verdict.SUPPORTED}


class Judgement(BaseModel):
    """One line of `judgements.jsonl`: a person's judgement of a case, or of one charge of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str = Field(min_length=1)
    charge: int | None = Field(None, ge=0)
    """The charge judged (`Charge.index`: `audit edit --charge 1` is 0), or None: the case."""
    label: Label
    """hallucinated or faithful (of a charge: its statement); skip: looked at and left unlabelled; undone: the
    case's label taken back."""
    author: str = Field(max_length=200)
    time: datetime = Field(default_factory=utc_now)
    note: str = Field("", max_length=10_000)
    """Why, in the author's words (an `audit edit --reason`); someone's text, shown as text."""
    source: Literal["view", "terminal", "csv", "edit"]
    """Where it was given: `courtroom view`, `courtroom label`, a label file imported, `audit edit`."""

    @property
    def verdict(self) -> Verdict | None:
        return VERDICTS.get(self.label)


class EditEntry(BaseModel):
    """A line of `edits.jsonl`, where earlier versions recorded `audit edit`'s corrections."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str
    event: EditEvent

    def judgement(self) -> Judgement:
        e = self.event
        return Judgement(case_id=self.case_id, charge=e.charge,
                         label="hallucinated" if e.verdict is Verdict.HALLUCINATED
                         else "faithful", author=e.provenance.author, time=e.provenance.time,
                         note=e.provenance.reason, source="edit")


def read_judgements(store: RunStore, cases: Container[str]) -> tuple[list[Judgement], list[str]]:
    """The run's judgements in order (those of `edits.jsonl` first), and what was skipped: a torn last line (a
    write interrupted). A line that is no judgement, or judges a case the run does not hold, is an
    `AuditError` naming it."""
    refuse_links(store.root, (EDITS, JUDGEMENTS))  # the record is appended to: never another's file
    found: list[Judgement] = []
    notes: list[str] = []
    for name, read in ((EDITS, lambda line: EditEntry.model_validate_json(line).judgement()),
                       (JUDGEMENTS, Judgement.model_validate_json)):
        path = store.root / name
        for number, line in read_lines(path, AuditError) if path.exists() else ():
            if not line.endswith(b"\n"):
                notes.append(f"{path}:{number}: a torn line (a judgement interrupted while it was written) "
                             "is skipped; the next one recorded cuts it")
                break
            if not line.strip():
                continue
            try:
                judgement = read(line)
            except ValidationError as exc:
                raise AuditError(f"{path}:{number}: not a judgement ({first_problem(exc)}); fix or remove "
                                 "the line") \
                    from exc
            if judgement.case_id not in cases:
                raise AuditError(f"{path}:{number}: a judgement of case {judgement.case_id!r}, which the run "
                                 "does not hold (courtroom writes none such); remove the line")
            found.append(judgement)
    return found, notes


def record(store: RunStore, judgements: Sequence[Judgement]) -> None:
    """Append `judgements` to the run's record as one write, all or none, under its lock (another writer, in
    this process or another, waits its turn)."""
    path = store.root / JUDGEMENTS
    with store.record_lock():
        try:
            append_line(path, "\n".join(j.model_dump_json() for j in judgements))
        except OSError as exc:
            raise AuditError(f"{path}: cannot record the judgement ({exc.strerror or exc}); the run is "
                             "unchanged: do the same again once the problem is fixed") from exc


def human_label(judgements: Iterable[Judgement]) -> str | None:
    """A case's label by its judgements (`FAIL`, `PASS`), or None where they give none: its latest case
    judgement decides (skip or undone: none); without one, a charge a person found hallucinated makes the
    answer hallucinated (one false statement is enough), while charges found faithful say nothing of the rest
    of the answer (the court's aggregation weighs them: `corrected_label`)."""
    case: Judgement | None = None
    charges: dict[int, Judgement] = {}
    for j in judgements:
        if j.charge is None:
            case = j
        else:
            charges[j.charge] = j
    if case is not None and case.verdict is not None:
        return "FAIL" if case.verdict is Verdict.HALLUCINATED else "PASS"
    return "FAIL" if any(j.label == "hallucinated" for j in charges.values()) else None


def by_case(judgements: Iterable[Judgement]) -> dict[str, list[Judgement]]:
    out: dict[str, list[Judgement]] = {}
    for j in judgements:
        out.setdefault(j.case_id, []).append(j)
    return out
