"""Judges by name (`module:Factory`, imported only when asked: a judge class, or a factory such as the courtroom's
loader that makes one of several classes), and rebuilding a judge from a recorded configuration."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.migrations import upgrade
from courtroom.errors import ConfigError, did_you_mean


class JudgeFactory(Protocol):
    """What the registry needs of a judge's entry (a `Judge` class is one)."""

    migrations: tuple[Any, ...]

    def create(self, backend: Any = None, *, window: int = 8, court: str = "default",
               options: Any = None) -> Judge: ...

    def from_config(self, config: dict[str, Any], backend: Any = None, *, source: str = "<manifest>",
                    **options: Any) -> Judge: ...


JUDGES: dict[str, str] = {
    "courtroom": "courtroom.courts.load:Courtroom",
    "single": "courtroom.baselines.single:SingleJudge",
    "two-step": "courtroom.baselines.prompted:TwoStepJudge",
    "rails": "courtroom.baselines.prompted:RailsJudge",
    "per-context": "courtroom.baselines.prompted:PerContextJudge",
    "vote": "courtroom.baselines.vote:VoteJudge",
    "unstructured": "courtroom.baselines.single:UnstructuredJudge",
}
"""Every judge `courtroom run --judge` accepts, and where its factory is defined."""

BASELINES: tuple[str, ...] = tuple(name for name in JUDGES if name != "courtroom")
"""The single-model judges the court is compared with."""
def judge_class(name: str) -> JudgeFactory:
    """The factory of a judge (its class, or the courtroom's loader), by name."""
    if name not in JUDGES:
        raise ConfigError(f"unknown judge {name!r}; choose one of {list(JUDGES)}{did_you_mean(name, JUDGES)}")
    module, _, attribute = JUDGES[name].partition(":")
    return getattr(import_module(module), attribute)  # type: ignore[no-any-return]


def upgrade_config(config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A recorded judge configuration brought up to date by its judge's migrations, and their names (a configuration
    that names no judge this version has is returned as it is)."""
    name = config.get("judge") if isinstance(config, dict) else None
    if not isinstance(name, str) or name not in JUDGES:
        return config, []
    return upgrade(config, judge_class(name).migrations)


class JudgeSpec(BaseModel):
    """Which judge tries the cases, as data (a run records it)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: str = "courtroom"
    """`courtroom` or a baseline (see `JUDGES`)."""
    court: str = "default"
    """The court (a shipped name, a file, or a run directory: the court its manifest records), for the courtroom
    judge."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Options of the judge's constructor (`votes` of the vote judge, `reading` of the unstructured one)."""

    def build(self, backend: Backend | BackendSpec | None = None, *, window: int = 8) -> Judge:
        """The judge (no model is loaded)."""
        return judge_class(self.name).create(backend, window=window, court=self.court, options=self.options)


def judge_from_config(config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                      source: str = "<manifest>", **options: Any) -> Judge:
    """Rebuild the judge a run manifest (`source`, named in errors) recorded, speaking through `backend` (a run's
    recorded backend spec), with `options` (a court's `overrides`, `window`)."""
    if not isinstance(config, dict) or not isinstance(config.get("judge"), str):
        raise ConfigError(f"{source}: field judge.judge: missing (the name of the recorded judge)")
    return judge_class(config["judge"]).from_config(config, backend, source=source, **options)
