"""The courtroom judge's one loader, registered as the `courtroom` judge (`Courtroom`): a court by name, file or
recorded configuration, as the `Clerk` (no trial section) or a `Court` (the clerk and a trial)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from courtroom.clerk import Clerk, ClerkSpec
from courtroom.clerk.clerk import problems
from courtroom.court.court import Court
from courtroom.court.files import load_rulings, read_court, with_overrides
from courtroom.court.migrations import MIGRATIONS, RETIRED_SETTINGS
from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.migrations import PROMPTS_2
from courtroom.errors import CourtError
from courtroom.yamlio import Locator, validate_as


def load_court(court: str | Path = "default", backend: Backend | BackendSpec | None = None,
               **options: Any) -> Clerk | Court:
    """Load and validate a court by name or path, with `overrides` (`--set`) applied and `options` for the judge; a
    court with a trial section is a `Court`, else the `Clerk`. Errors name the file, line and field."""
    file = read_court(court)
    if file.trial is not None:
        return Court.from_file(file, backend, **options)
    spec = validate_as(ClerkSpec, file.data, file.path, CourtError, locator=file.locator)
    if overrides := options.pop("overrides", None):
        spec = with_overrides(spec, overrides)
    spec = load_rulings(spec, file.path, file.locator, courts=file.lineage, origin=file.origin)
    problems(spec.problems(), file.path, file.locator)
    return Clerk(spec, backend, source=str(file.path), **options)


def court_from_config(config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                      source: str = "<manifest>", **options: Any) -> Clerk | Court:
    """Rebuild the court a run manifest recorded, with `overrides`; errors name `source` and the field or setting."""
    if retired := config.get("retired"):
        setting = next(s for s in RETIRED_SETTINGS if s.name == retired[0])
        raise CourtError(setting.message(f"{source}: the recorded court"))
    for key in ("court", "prompt_format"):
        if key not in config:
            raise CourtError(f"{source}: field judge.{key}: missing from the recorded court")
    recorded = config["court"]
    if isinstance(recorded, dict) and recorded.get("trial") is not None:
        return Court.from_config(config, backend, source=source, **options)
    spec = validate_as(ClerkSpec, recorded, source, CourtError, field=("judge", "court"))
    if overrides := options.pop("overrides", None):
        spec = with_overrides(spec, overrides)
    spec = load_rulings(spec, Path(source), Locator(""), courts=None)
    return Clerk(spec, backend, source=source, prompt_format=config["prompt_format"], **options)


class Courtroom:
    """The `courtroom` judge as the registry names it: a factory of clerks and courts, with the court's migrations."""

    name = Clerk.name
    migrations = (MIGRATIONS[0], PROMPTS_2, *MIGRATIONS[1:])

    @staticmethod
    def create(backend: Backend | BackendSpec | None = None, *, window: int = 8, court: str = "default",
               options: dict[str, Any] | None = None) -> Clerk | Court:
        """The court a `JudgeSpec` names (a shipped name or a file; a run directory's is `Manifest.rebuild_judge`'s)."""
        return load_court(court, backend, window=window, **(options or {}))

    from_config = staticmethod(court_from_config)
