"""The court as it sits for a case: its spec, its personas, its procedure, and the verdict threshold for the
model it speaks to. The parts of a trial (indictment, evidence, trial, verdict) read the court through it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from courtroom.casefile import PROMPT_FORMAT
from courtroom.court.personas import Persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import CourtSpec
from courtroom.witness.ruling import FittedRuling


@dataclass(frozen=True)
class Bench:
    """What a trial needs of its court."""

    spec: CourtSpec
    personas: Mapping[str, Sequence[Persona]]
    procedure: Procedure
    threshold: float
    """P(hallucinated) at or above which a ruling, and the case by the `mean` and `share` rules, is hallucinated."""
    prompt_format: int = PROMPT_FORMAT
    """How the case is written into prompts (`courtroom.casefile`)."""
    move_priors: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Node -> move -> prior of the court's model (`CourtSpec.move_priors`, `by_model` applied); empty: none."""
    ruling: FittedRuling | None = None
    """The ruling fitted for the court's model (`CourtSpec.witnesses`), None without one."""

    def persona(self, role: str) -> Persona:
        """The persona in a role (the first, for a panel)."""
        return self.personas[role][0]

    def panel(self, role: str) -> Sequence[Persona]:
        """Every persona in a role."""
        return self.personas[role]
