"""The courtroom judge's one loader, registered as the `courtroom` judge (`Courtroom`): a court by name, file
or recorded configuration, as the `Clerk` (no trial section) or a `Court` (the clerk and a trial), its
personas and rulings read and everything validated before any model is touched."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from courtroom.clerk import Clerk, ClerkSpec
from courtroom.clerk.clerk import problems
from courtroom.court.court import Court
from courtroom.court.personas import Persona
from courtroom.court.spec import CourtSpec, with_overrides
from courtroom.court.validation import check_new_roles, load_personas, set_personas, set_roles, validate
from courtroom.courts.files import CourtFile, courts_dir, load_rulings, read_court
from courtroom.courts.migrations import MIGRATIONS, RETIRED_SETTINGS, modern_path
from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.migrations import PROMPTS_2
from courtroom.engine.registry import register_judge
from courtroom.errors import CourtError, PersonaError
from courtroom.yamlio import Locator, read_yaml, validate_as


def load_court(court: str | Path = "default", backend: Backend | BackendSpec | None = None,
               **options: Any) -> Clerk | Court:
    """Load and validate a court by name or path, with `overrides` (`--set`) applied and `options` for the
    judge; a court with a trial section is a `Court`, else the `Clerk`. Errors name the file, line and
    field."""
    file = read_court(court)
    overrides = _modern(options.pop("overrides", None))
    if file.trial is not None:
        return _court_of_file(file, backend, overrides, **options)
    spec = validate_as(ClerkSpec, file.data, file.path, CourtError, locator=file.locator)
    spec = load_rulings(with_overrides(spec, overrides), file.path, file.locator, courts=file.lineage,
                        origin=file.origin)
    problems(spec.problems(), file.path, file.locator)
    return Clerk(spec, backend, source=str(file.path), **options)


def court_from_config(config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                      source: str = "<manifest>", **options: Any) -> Clerk | Court:
    """Rebuild the court a run manifest recorded, with `overrides`; errors name `source` and the field or
    setting."""
    if retired := config.get("retired"):
        setting = next(s for s in RETIRED_SETTINGS if s.name == retired[0])
        raise CourtError(setting.message(f"{source}: the recorded court"))
    for key in ("court", "prompt_format"):
        if key not in config:
            raise CourtError(f"{source}: field judge.{key}: missing from the recorded court")
    recorded = config["court"]
    overrides = _modern(options.pop("overrides", None))
    if isinstance(recorded, dict) and recorded.get("trial") is not None:
        return _court_of_config(config, backend, source, overrides, **options)
    spec = validate_as(ClerkSpec, recorded, source, CourtError, field=("judge", "court"))
    spec = load_rulings(with_overrides(spec, overrides), Path(source), Locator(""), courts=None)
    return Clerk(spec, backend, source=source, prompt_format=config["prompt_format"], **options)


def _modern(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """`--set`s at their settings' paths now (`personas.judge` is `trial.personas.judge`)."""
    return {modern_path(path): value for path, value in (overrides or {}).items()}


def _court_of_file(court: CourtFile, backend: Backend | BackendSpec | None, overrides: dict[str, Any],
                   **options: Any) -> Court:
    """The court of a resolved court file with a trial (`overrides` applied, its personas and rulings
    read)."""
    spec = written = validate_as(CourtSpec, court.data, court.path, CourtError, locator=court.locator)
    spec = with_overrides(spec, overrides)  # before the personas load (`--set trial.personas.X`)
    given = set_roles(spec, overrides)
    check_new_roles(written, spec, given)
    personas = load_personas(spec, court.path, court.locator, skip=given, origin=court.origin)
    personas = set_personas(spec, personas, given, [court.path.parent, court.path.parent.parent])
    spec = load_rulings(spec, court.path, court.locator, courts=court.lineage, origin=court.origin)
    validate(spec, personas, court.path, court.locator)
    return Court(spec, personas, backend, source=str(court.path), **options)


def _court_of_config(config: dict[str, Any], backend: Backend | BackendSpec | None, source: str,
                     overrides: dict[str, Any], **options: Any) -> Court:
    """A court rebuilt from a run manifest's recorded settings and personas, not from disk."""
    spec = recorded = validate_as(CourtSpec, config["court"], source, CourtError, field=("judge", "court"))
    spec = load_rulings(with_overrides(spec, overrides), Path(source), Locator(""), courts=None)
    people = config.get("personas", {})
    if not isinstance(people, dict) or not all(isinstance(p, list) for p in people.values()):
        raise CourtError(f"{source}: field judge.personas: expected each role's list of personas")
    personas = {role: [validate_as(Persona, p, source, CourtError, field=("judge", "personas", role, i))
                       for i, p in enumerate(seated)] for role, seated in people.items()}
    check_new_roles(recorded, spec, set_roles(spec, overrides))
    changed = {role for role in set_roles(spec, overrides)
               if spec.trial.personas[role] != recorded.trial.personas.get(role)}
    # a persona set to the one recorded stays as recorded
    personas = set_personas(spec, personas, changed, [])
    validate(spec, personas, Path(source), Locator(""))
    return Court(spec, personas, backend, source=source, prompt_format=config["prompt_format"], **options)


def seated_roles(court: str | Path | None = None) -> set[str]:
    """The roles a court seats in its trial, read from its file; without a court, those of every shipped
    court."""
    courts = [court] if court is not None else sorted(courts_dir().glob("*.yaml"))
    return {role for c in courts for trial in [read_court(c).trial or {}]
            for role in trial.get("personas", {})}


def check_seated(persona: Persona, path: str | Path, court: str | Path | None = None,
                 roles: set[str] | None = None) -> None:
    """Refuse a persona whose role no court seats (no shipped court, or not `court`), naming its file and
    line."""
    roles = seated_roles(court) if roles is None else roles
    if persona.role in roles:
        return
    line = read_yaml(path, PersonaError)[1].line(["role"])
    seated = f"court {court} seats" if court is not None else "the shipped courts seat"
    hint = "" if court is not None else "; give --court to check it against your own"
    raise PersonaError(f"{path}:{line}: field role: no court seats {persona.role!r} ({seated} "
                       f"{', '.join(sorted(roles))}{hint})")




@register_judge
class Courtroom:
    """The `courtroom` judge as the registry names it: a factory of clerks and courts, with the court's
    migrations."""

    name = Clerk.name
    migrations = (MIGRATIONS[0], PROMPTS_2, *MIGRATIONS[1:])

    @staticmethod
    def create(backend: Backend | BackendSpec | None = None, *, window: int = 8, court: str = "default",
               options: dict[str, Any] | None = None) -> Clerk | Court:
        """The court a `JudgeSpec` names (a shipped name or a file; a run directory's is
        `Manifest.rebuild_judge`'s)."""
        return load_court(court, backend, window=window, **(options or {}))

    from_config = staticmethod(court_from_config)
