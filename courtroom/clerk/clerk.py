"""The clerk, the default judge: it charges the answer's least grounded sentences and decides each by its measurement,
or by the ruling fitted for its model. A court (`courtroom.court.Court`) is a clerk whose charges are tried."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from courtroom.case import Case
from courtroom.clerk.files import CourtFile, read_court, with_overrides
from courtroom.clerk.migrations import MIGRATIONS, RETIRED_SETTINGS, modern_path
from courtroom.clerk.program import clerk_case
from courtroom.clerk.rulings import load_rulings
from courtroom.clerk.spec import ClerkSpec
from courtroom.clerk.verdict import plural
from courtroom.door.backend import Backend
from courtroom.door.models import model_key
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript
from courtroom.engine.migrations import PROMPTS_2
from courtroom.engine.registry import trial_court
from courtroom.errors import CourtError
from courtroom.witness.ruling import FittedRuling
from courtroom.yamlio import Locator, validate_as


class Clerk(Judge):
    """The courtroom judge without a trial: indictment by measurement, every charge decided by it (or by a ruling)."""

    name = "courtroom"
    migrations = (MIGRATIONS[0], PROMPTS_2, *MIGRATIONS[1:])

    def __init__(self, spec: ClerkSpec, backend: Backend | BackendSpec | None = None, *, source: str | None = None,
                 **options: Any) -> None:
        super().__init__(backend, **options)
        self.spec = spec
        self.source = source

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path: str | Path = "default", backend: Backend | BackendSpec | None = None,
             **options: Any) -> Clerk:
        """Load and validate a court by name (shipped) or path, resolved through `extends`, with `overrides` (`--set`)
        applied; a court that holds trials is a `courtroom.court.Court`. Errors name the file, line and field."""
        court = read_court(name_or_path)
        overrides = options.get("overrides") or {}
        if court.trial is not None or any(modern_path(path).startswith("trial") for path in overrides):
            return trial_court().from_file(court, backend, **options)  # type: ignore[attr-defined,no-any-return]
        return cls.from_file(court, backend, **options)

    @classmethod
    def from_file(cls, court: CourtFile, backend: Backend | BackendSpec | None = None, **options: Any) -> Clerk:
        """The clerk of a resolved court file (its `overrides` applied, its rulings read)."""
        spec = validate_as(ClerkSpec, court.data, court.path, CourtError, locator=court.locator)
        if overrides := options.pop("overrides", None):
            spec = with_overrides(spec, overrides)
        spec = load_rulings(spec, court.path, court.locator, courts=court.lineage, origin=court.origin)
        problems(spec.problems(), court.path, court.locator)
        return cls(spec, backend, source=str(court.path), **options)

    @classmethod
    def from_config(cls, config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                    source: str = "<manifest>", **options: Any) -> Clerk:
        """Rebuild the court a run manifest recorded (`Manifest.judge_config`), on `backend` (the run's backend spec); a
        copy that does not validate is a `CourtError` naming `source` and the field, a court of retired settings is
        refused."""
        if retired := config.get("retired"):
            setting = next(s for s in RETIRED_SETTINGS if s.name == retired[0])
            raise CourtError(setting.message(f"{source}: the recorded court"))
        recorded = config.get("court")
        for key in ("court", "prompt_format"):
            if key not in config:
                raise CourtError(f"{source}: field judge.{key}: missing from the recorded court")
        if isinstance(recorded, dict) and recorded.get("trial") is not None and cls is Clerk:
            return trial_court().from_config(config, backend, source=source, **options)  # type: ignore[return-value]
        spec = validate_as(ClerkSpec, recorded, source, CourtError, field=("judge", "court"))
        if overrides := options.pop("overrides", None):
            spec = with_overrides(spec, overrides)
        spec = load_rulings(spec, Path(source), Locator(""), courts=None)
        return cls(spec, backend, source=source, prompt_format=config["prompt_format"], **options)

    @classmethod
    def create(cls, backend: Backend | BackendSpec | None = None, *, window: int = 8, court: str = "default",
               options: dict[str, Any] | None = None) -> Clerk:
        """The court a `JudgeSpec` names (`court`: a shipped name or a file; a run directory's court is
        `courtroom.log.recorded_court`'s)."""
        return cls.load(court, backend, window=window, **(options or {}))

    @classmethod
    def default(cls, backend: Backend | BackendSpec | None = None, **options: Any) -> Clerk:
        """The default court: the clerk charges the least grounded statements (at most 3) and decides each by its
        measurement."""
        return cls.load("default", backend, **options)

    # -- what the engine needs --------------------------------------------------------------------
    @property
    def threshold(self) -> float:
        """The verdict threshold for this court's model (`aggregation.by_model`, else `aggregation.threshold`)."""
        return self.spec.threshold_for(self.model)

    @property
    def ruling(self) -> FittedRuling | None:
        """The ruling fitted for this court's model (`witnesses.rulings`), None without one."""
        witnesses = self.spec.witnesses
        return witnesses.ruling_for(model_key(self.model)) if witnesses is not None else None

    def config(self) -> dict[str, Any]:
        spec = self.spec
        if spec.witnesses is not None and spec.witnesses.rulings:  # only this model's ruling decides this court's cases
            mine = model_key(self.model)
            rulings = {m: r for m, r in spec.witnesses.rulings.items() if model_key(m) == mine}
            spec = spec.model_copy(update={"witnesses": spec.witnesses.model_copy(update={"rulings": rulings})})
        config = {"judge": self.name, "court": spec.model_dump(mode="json", by_alias=True, exclude={"schema_path"}),
                  "prompt_format": self.prompt_format}
        if self.spec.aggregation.by_model or (self.spec.witnesses and self.spec.witnesses.rulings):
            config["model"] = model_key(self.model)  # the model then decides the threshold or the ruling: behaviour
        return config

    def needs_text_scoring(self) -> str | None:
        return "the clerk measures every statement's grounding"

    def program(self, case: Case, transcript: Transcript) -> Program:
        return clerk_case(self.spec, self.ruling, self.threshold, case, transcript)

    def describe(self) -> str:
        """A short text summary of the court."""
        return (f"{self.spec.name}: the clerk charges at most {plural(self.spec.max_charges, 'statement')}, each "
                f"decided by its measurement{' (or the ruling fitted for the model)' if self.ruling else ''}; "
                f"aggregation {self.spec.aggregation.method}")


def problems(found: list[tuple[tuple[str | int, ...], str]], path: Path, locator: Locator) -> None:
    """Raise the problems found across a court's settings, one line each with its file, line and field."""
    if found:
        raise CourtError("illegal court:\n" + "\n".join(
            f"{path}:{locator.line(field) or ''}: field {'.'.join(map(str, field))}: {message}"
            for field, message in found))
