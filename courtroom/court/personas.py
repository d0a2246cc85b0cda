"""Personas: who sits in the court, in YAML: a role, sampling settings and a Liquid template of instructions
over `TEMPLATE_VARIABLES`, rendered strictly and checked when the file loads."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from courtroom.court.templates import render_template
from courtroom.door.requests import Sampling
from courtroom.errors import PersonaError
from courtroom.yamlio import load_model_file

NAME_PATTERN = r"^[a-z][a-z0-9_\-]*$"
TEMPLATE_VARIABLES = ("persona", "role", "case", "charge", "round", "max_rounds")

def _sample_context() -> dict[str, Any]:
    """What a template is checked against when its file loads (made afresh for each check)."""
    return {
        "persona": {"name": "sample", "role": "judge", "description": "sample persona"},
        "role": "judge",
        "case": {"question": "Q?", "answer": "A.", "context": ["C."]},
        "charge": {"index": 0, "quote": "A.", "reason": "R.", "grounding": -0.5, "p_suspect": 0.5},
        "round": 1,
        "max_rounds": 3,
    }


class Persona(BaseModel):
    """An agent of the court, as written in a persona YAML file."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True,
                              populate_by_name=True)

    schema_path: str | None = Field(default=None, alias="$schema")
    """Optional JSON schema reference for editors (ignored)."""
    name: str = Field(pattern=NAME_PATTERN)
    """Unique name, lower case (e.g. `strict_judge`)."""
    role: str = Field(pattern=NAME_PATTERN)
    """The role this persona can fill in a court: clerk, prosecutor, defender, judge, jury, ..."""
    description: str = Field(min_length=1)
    """One line on who this is; shown to auditors, and available to the template."""
    instructions: str = Field(min_length=1)
    """Liquid template of the persona's instructions, rendered for every turn
    (`courtroom.court.templates`)."""
    sampling: Sampling = Sampling(max_new_tokens=160)
    """Temperature, token limit and seed of this persona's generations."""
    model: str | None = None
    """Refused: a persona file is a role's words, for any model; the court seats a role on one
    (`trial.models`)."""

    @field_validator("instructions")
    @classmethod
    def _template_renders(cls, value: str) -> str:
        try:
            render_template(value, _sample_context())
        except PersonaError as exc:  # syntax, undefined names, limits
            raise ValueError(
                f"instructions template does not render: {exc}; "
                f"available variables: {', '.join(TEMPLATE_VARIABLES)}"
            ) from exc
        return value

    @field_validator("model")
    @classmethod
    def _no_model_override(cls, value: str | None) -> str | None:
        if value is not None:
            raise ValueError("a persona file names no model: seat its role on one in the court "
                             f"(trial.models.ROLE: {value}, or --set trial.models.ROLE={value}); remove this "
                             "field")
        return value

    def render(self, **context: Any) -> str:
        """The instructions for one turn (the template renders over a copy of `context`: it cannot change
        it)."""
        persona = {"name": self.name, "role": self.role, "description": self.description}
        return render_template(self.instructions, dict(persona=persona, role=self.role, **context)).strip()

    @classmethod
    def from_file(cls, path: str | Path) -> Persona:
        """Load and validate a persona file; errors name the file, line and field."""
        return load_model_file(path, cls, PersonaError)


def persona_json_schema() -> dict[str, Any]:
    """JSON Schema of persona files, for editors (`# yaml-language-server: $schema=...`)."""
    return {**Persona.model_json_schema(by_alias=True), "title": "courtroom persona"}


def find_persona_file(name: str, search: list[Path] | None = None) -> Path:
    """A persona by path or by name, in the search directories first, then the working directory or the
    shipped ones."""
    as_path = Path(name)
    if as_path.suffix in (".yaml", ".yml"):
        places = [as_path] if as_path.is_absolute() else [*(Path(d) / as_path for d in search or []), as_path]
        for candidate in places:
            if candidate.is_file():
                return candidate
        raise PersonaError(f"persona file {name} not found (looked for {', '.join(_distinct(places))})")
    for directory in [*(search or []), shipped_dir()]:
        for suffix in (".yaml", ".yml"):
            candidate = Path(directory) / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    places = ", ".join(_distinct([*(search or []), shipped_dir()]))
    raise PersonaError(f"persona {name!r} not found (looked for {name}.yaml in {places})")


def _distinct(places: list) -> list[str]:
    """The places searched, each once (a court's own folder is often the working directory too)."""
    seen: dict[Path, str] = {}
    for place in places:
        seen.setdefault(Path(place).resolve(), str(place))
    return list(seen.values())


@lru_cache(maxsize=256)
def _load_cached(path: str, mtime: float) -> Persona:
    return Persona.from_file(path)


def load_persona(name: str, search: list[Path] | None = None) -> Persona:
    """Find and load a persona by name or path."""
    path = find_persona_file(name, search)
    return _load_cached(str(path.resolve()), path.stat().st_mtime)


def shipped_dir() -> Path:
    """The directory of the personas and courts shipped with courtroom (`personas/` of the repository)."""
    return Path(str(resources.files("courtroom.shipped")))


def shipped_personas() -> list[Path]:
    """Every persona file shipped with courtroom."""
    return sorted(shipped_dir().glob("*.yaml"))
