"""Runners decide where cases are judged, through the same judge programs: `local` (in this process, lockstep
windows) or `ray` (`courtroom.runs.ray_runner`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from courtroom.case import Case
from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome, LockstepObserver
from courtroom.log.manifest import RunnerSpec


class Runner(Protocol):
    """Judges cases somewhere and yields each outcome once, as it ends (an `observer` watches in-process
    batches)."""

    def run(self, judge: Judge, cases: list[Case], observer: LockstepObserver
            | None = None) -> Iterator[CaseOutcome]: ...


class LocalRunner:
    """In process: one model door (the judge's own, unless one is given), cases in lockstep windows."""

    def __init__(self, backend: Backend | None = None) -> None:
        self.backend = backend

    def run(self, judge: Judge, cases: list[Case], observer: LockstepObserver
            | None = None) -> Iterator[CaseOutcome]:
        yield from judge.run_many(cases, self.backend, observer)


def make_runner(runner: RunnerSpec, backend: BackendSpec) -> Runner:
    """The runner a run asks for; Ray workers build their own model door from `backend`."""
    if runner.kind == "ray":
        from courtroom.runs.ray_runner import RayRunner

        return RayRunner(backend, workers=runner.workers, gpus_per_worker=runner.gpus_per_worker,
                         address=runner.address, chunk_timeout=runner.chunk_timeout)
    return LocalRunner()
