"""Judges by name (a judge class, or a factory such as the courtroom's loader that makes one of several
classes), each registered by the layer that defines it, and rebuilding a judge from a recorded
configuration."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.migrations import upgrade
from courtroom.errors import ConfigError, did_you_mean


class JudgeFactory(Protocol):
    """What the registry needs of a judge's entry (a `Judge` class is one)."""

    @property
    def name(self) -> str: ...

    @property
    def migrations(self) -> tuple[Any, ...]: ...

    def create(self, backend: Any = None, *, window: int = 8, court: str = "default",
               options: Any = None) -> Judge: ...

    def from_config(self, config: dict[str, Any], backend: Any = None, *, source: str = "<manifest>",
                    **options: Any) -> Judge: ...


JUDGES: dict[str, JudgeFactory] = {}
"""Every judge `courtroom run --judge` accepts, by name: each registers itself (`register_judge`) when the
package of the layer that defines it is imported (`courtroom.courts`: the `courtroom` judge;
`courtroom.baselines`: the others). `courtroom.log.manifest`, through which every run is made and read,
imports both; so does a Ray worker."""
F = TypeVar("F", bound=JudgeFactory)


def register_judge(factory: F) -> F:
    """Register a judge under its `name` (a class decorator): `courtroom run --judge NAME` and a run that
    records the name build it through this factory."""
    JUDGES[factory.name] = factory
    return factory


def judge_class(name: str) -> JudgeFactory:
    """The factory of a judge (its class, or the courtroom's loader), by name."""
    if name not in JUDGES:
        raise ConfigError(f"unknown judge {name!r}; choose one of "
                          f"{sorted(JUDGES)}{did_you_mean(name, JUDGES)}")
    return JUDGES[name]


def upgrade_config(config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A recorded judge configuration brought up to date by its judge's migrations, and their names (a
    configuration that names no judge this version has is returned as it is)."""
    name = config.get("judge") if isinstance(config, dict) else None
    if not isinstance(name, str) or name not in JUDGES:
        return config, []
    return upgrade(config, judge_class(name).migrations)


class JudgeSpec(BaseModel):
    """Which judge tries the cases, as data (a run records it)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str = "courtroom"
    """`courtroom` or a baseline (`JUDGES`)."""
    court: str = "default"
    """The court (a shipped name, a file, or a run directory: the court its manifest records), for the
    courtroom judge."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Options of the judge's constructor (`votes` of the vote judge, `reading` of the unstructured one)."""

    def build(self, backend: Backend | BackendSpec | None = None, *, window: int = 8) -> Judge:
        """The judge (no model is loaded)."""
        return judge_class(self.name).create(backend, window=window, court=self.court, options=self.options)


def judge_from_config(config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                      source: str = "<manifest>", **options: Any) -> Judge:
    """Rebuild the judge a run manifest (`source`, named in errors) recorded, speaking through `backend` (a
    run's recorded backend spec), with `options` (a court's `overrides`, `window`)."""
    if not isinstance(config, dict) or not isinstance(config.get("judge"), str):
        raise ConfigError(f"{source}: field judge.judge: missing (the name of the recorded judge)")
    return judge_class(config["judge"]).from_config(config, backend, source=source, **options)
