"""The clerk, the default judge: it charges the answer's least grounded sentences and decides each by its
measurement, or by the ruling fitted for its model (loaded by `courtroom.courts.load`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, Protocol, runtime_checkable

from courtroom.case import Case
from courtroom.clerk.program import clerk_case
from courtroom.clerk.spec import ClerkSpec, SpecT
from courtroom.clerk.verdict import plural
from courtroom.door.backend import Backend
from courtroom.door.models import model_key
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript
from courtroom.errors import CourtError
from courtroom.witness.ruling import FittedRuling
from courtroom.yamlio import Locator


@runtime_checkable
class CourtroomJudge(Protocol):
    """What fitting a threshold or a ruling needs of the `courtroom` judge (the `Clerk`, or a `Court` holding
    one): its settings, the threshold and the ruling for its model, and its configuration."""

    @property
    def spec(self) -> ClerkSpec: ...

    @property
    def threshold(self) -> float: ...

    @property
    def ruling(self) -> FittedRuling | None: ...

    def config(self) -> dict[str, Any]: ...


class Clerk(Judge, Generic[SpecT]):
    """The courtroom judge without a trial: indictment by measurement, every charge decided by it (or by a
    ruling). Its settings are a `ClerkSpec`, or a court's (`Court` holds a `Clerk[CourtSpec]`)."""

    name = "courtroom"

    def __init__(self, spec: SpecT, backend: Backend | BackendSpec | None = None, *,
                 source: str | None = None, **options: Any) -> None:
        super().__init__(backend, **options)
        self.spec: SpecT = spec
        self.source = source

    @property
    def threshold(self) -> float:
        """The verdict threshold for this court's model (`aggregation.by_model`, else
        `aggregation.threshold`)."""
        return self.spec.threshold_for(self.model)

    @property
    def ruling(self) -> FittedRuling | None:
        """The ruling fitted for this court's model (`witnesses.rulings`), None without one."""
        witnesses = self.spec.witnesses
        return witnesses.ruling_for(model_key(self.model)) if witnesses is not None else None

    def config(self) -> dict[str, Any]:
        spec = self.spec
        # only this model's ruling decides this court's cases
        if spec.witnesses is not None and spec.witnesses.rulings:
            mine = model_key(self.model)
            rulings = {m: r for m, r in spec.witnesses.rulings.items() if model_key(m) == mine}
            witnesses = spec.witnesses.model_copy(update={"rulings": rulings})
            spec = spec.model_copy(update={"witnesses": witnesses})
        by_model = self.spec.aggregation.by_model or (self.spec.witnesses and self.spec.witnesses.rulings)
        return {"judge": self.name, "court": spec.model_dump(mode="json", by_alias=True,
                                                             exclude={"schema_path"}),
                # with `by_model`, the model decides the threshold or the ruling
                "prompt_format": self.prompt_format,
                **({"model": model_key(self.model)} if by_model else {})}

    def needs_text_scoring(self) -> str | None:
        return "the clerk measures every statement's grounding"

    def program(self, case: Case, transcript: Transcript) -> Program:
        return clerk_case(self.spec, self.ruling, self.threshold, case, transcript)

    def describe(self) -> str:
        """A short text summary of the court."""
        return (f"{self.spec.name}: the clerk charges at most {plural(self.spec.max_charges, 'statement')}, "
                "each decided by its "
                f"measurement{' (or the ruling fitted for the model)' if self.ruling else ''}; aggregation "
                f"{self.spec.aggregation.method}")


def problems(found: list[tuple[tuple[str | int, ...], str]], path: Path, locator: Locator) -> None:
    """Raise the problems found across a court's settings, one line each with its file, line and field."""
    if found:
        raise CourtError("illegal court:\n" + "\n".join(
            f"{path}:{locator.line(field) or ''}: field {'.'.join(map(str, field))}: {message}"
            for field, message in found))
