"""Runners decide where trials execute; every runner calls the same judge programs.

- `local`: in this process, one model door, cases in lockstep windows;
- `ray`: Ray actors, one model replica per worker (and per GPU or fraction of one). Only
  `courtroom.runs.ray_runner` imports ray.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from courtroom.case import Case
    from courtroom.engine.judge import Judge
    from courtroom.engine.lockstep import CaseOutcome
    from courtroom.runs.run import RunSpec


class Runner(Protocol):
    """Judges cases somewhere and yields each outcome once, as it ends."""

    def run(self, judge: Judge, spec: RunSpec, cases: list[Case]) -> Iterator[CaseOutcome]: ...


class LocalRunner:
    """In process: one model door, cases in lockstep windows."""

    def __init__(self, backend=None) -> None:  # noqa: ANN001 - any Backend
        self.backend = backend

    def run(self, judge: Judge, spec: RunSpec, cases: list[Case]) -> Iterator[CaseOutcome]:
        from courtroom.door import make_backend
        from courtroom.runs.run import backend_options

        backend = self.backend or make_backend("transformers", **backend_options(spec))
        yield from judge.run_many(cases, backend)


def make_runner(spec: RunSpec) -> Runner:
    """The runner a run spec asks for."""
    if spec.runner == "local":
        return LocalRunner()
    if spec.runner == "ray":
        from courtroom.runs.ray_runner import RayRunner

        return RayRunner(workers=spec.workers, gpus_per_worker=spec.gpus_per_worker, address=spec.ray_address)
    from courtroom.errors import ConfigError
    from courtroom.runs.run import RUNNERS

    raise ConfigError(f"unknown runner {spec.runner!r}; choose one of {', '.join(RUNNERS)}")
