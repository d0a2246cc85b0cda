"""The court as its trials read it: its settings, personas, procedure and the verdict threshold for its
model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from courtroom.casefile import PROMPT_FORMAT
from courtroom.court.personas import Persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import CourtSpec, TrialSpec


@dataclass(frozen=True)
class Bench:
    """What a trial needs of its court."""

    spec: CourtSpec
    trial: TrialSpec
    personas: Mapping[str, Sequence[Persona]]
    procedure: Procedure
    threshold: float
    """P(hallucinated) at or above which a ruling, and the case by the `mean` and `share` rules, is
    hallucinated."""
    prompt_format: int = PROMPT_FORMAT
    """How the case is written into prompts (`courtroom.casefile`)."""
    seats: Mapping[str, Sequence[str | None]] = field(default_factory=dict)
    """Role -> the seat each of its personas speaks through (left out, or None: the run's model)."""

    def persona(self, role: str) -> Persona:
        """The persona in a role (the first, for a panel)."""
        return self.personas[role][0]

    def panel(self, role: str) -> Sequence[Persona]:
        """Every persona in a role."""
        return self.personas[role]

    def seat(self, role: str, index: int = 0) -> str | None:
        """The seat the `index`th persona of a role speaks through (None: the run's model)."""
        seats = self.seats.get(role)
        return seats[index] if seats else None
