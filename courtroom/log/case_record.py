"""A case's transcript read once into a typed record, which every view renders instead of reading the
events."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.case import Case, CaseVerdict, Charge, DroppedCharge, Ruling
from courtroom.engine.events import ChargesEvent, EditEvent, ErrorEvent, Event, ModelCallEvent, MoveEvent


def citation(move: MoveEvent) -> int | None:
    """The context sentence a move cites (numbered from 1), None when it cites none."""
    return move.grounds.sentence if move.grounds is not None else None


@dataclass(frozen=True)
class Trial:
    """One charge's trial as recorded: its moves in order, and its ruling (None when none was recorded)."""

    charge: int
    """`Charge.index` of the charge tried (from 0; shown as charge `charge + 1`)."""
    moves: tuple[MoveEvent, ...]
    ruling: Ruling | None


@dataclass(frozen=True)
class CaseRecord:
    """What a case's transcript says happened, read once (`CaseRecord.of`)."""

    events: tuple[Event, ...]
    """The events themselves, for the views of the model calls and of the measurement."""
    case: Case
    judge: str
    """Which judge tried the case (`courtroom` or a baseline)."""
    indictment: ChargesEvent | None
    """The charges brought and dropped; None for a judge that draws up no indictment."""
    trials: tuple[Trial, ...]
    """A trial per charge that has moves or a ruling, by charge."""
    verdict: CaseVerdict | None
    """The case's verdict (the last recorded); None for a case that ended in an error."""
    error: ErrorEvent | None
    edits: tuple[EditEvent, ...]
    calls: tuple[ModelCallEvent, ...]

    @classmethod
    def of(cls, events: Sequence[Event]) -> CaseRecord:
        """The record of a transcript's events (its first event opens the case)."""
        start = next(e for e in events if e.event == "case_start")
        moves = [e for e in events if e.event == "move"]
        rulings = {e.ruling.charge: e.ruling for e in events if e.event == "ruling"}
        trials = tuple(Trial(index, tuple(m for m in moves if m.charge == index), rulings.get(index))
                       for index in sorted({m.charge for m in moves} | set(rulings)))
        return cls(events=tuple(events), case=start.case, judge=start.judge,
                   indictment=next((e for e in events if e.event == "charges"), None), trials=trials,
                   verdict=next((e.verdict for e in reversed(events) if e.event == "verdict"), None),
                   error=next((e for e in events if e.event == "error"), None),
                   edits=tuple(e for e in events if e.event == "edit"),
                   calls=tuple(e for e in events if e.event == "model_call"))

    @property
    def charges(self) -> list[Charge]:
        """The charges brought (none without an indictment)."""
        return list(self.indictment.charges) if self.indictment is not None else []

    @property
    def dropped(self) -> list[DroppedCharge]:
        """The statements measured or proposed but not charged."""
        return list(self.indictment.dropped) if self.indictment is not None else []

    def cited(self, charge: int | None = None) -> list[int]:
        """The context sentences (from 1) cited in the trial of `charge` (`Charge.index`), or in every
        trial."""
        numbers = {number for trial in self.trials if charge is None or trial.charge == charge
                   for number in map(citation, trial.moves) if number is not None and number > 0}
        return sorted(numbers)
