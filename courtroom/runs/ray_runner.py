"""The Ray runner: cases judged by Ray actors, one model replica each, on GPUs or CPUs, locally or on a
cluster. The only module of courtroom that imports ray.

Each worker is an actor that loads the model once (on the device Ray assigned it), keeps its
compiled constraints, and judges chunks of cases in lockstep with the same judge programs as the
local runner. The driver hands out chunks, streams outcomes as chunks finish, and guarantees that
every case ends exactly once: when an actor dies (killed, out of memory), it is replaced and the
chunk's cases are retried one by one, at most `max_retries` times each; a case that keeps killing
its worker is recorded as an error with the last traceback.
"""

from __future__ import annotations

import os
import re
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError, WorkerCrashedError

from courtroom.case import Case
from courtroom.door.backend import prepare_backend
from courtroom.engine.events import ErrorEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome

BackendFactory = Callable[[str], Any]
DEATH = (RayActorError, ActorDiedError, ActorUnavailableError, WorkerCrashedError)


def default_backend_factory(options: dict[str, Any]) -> BackendFactory:
    """A factory building the transformers backend on the device a worker was given."""

    def build(device: str) -> Any:
        from courtroom.door.transformers import TransformersBackend

        return TransformersBackend(**{**options, "device": device})

    return build


class CourtWorker:
    """A Ray actor: one model replica and one judge, judging chunks of cases."""

    def __init__(self, judge_config: dict[str, Any], backend_factory: BackendFactory, threads: int | None) -> None:
        from courtroom.log.replay import judge_from_config

        gpu_ids = ray.get_gpu_ids()
        self.device = "cuda" if gpu_ids and _cuda_available() else "cpu"
        if threads:
            import torch

            torch.set_num_threads(threads)
        self.backend = backend_factory(self.device)
        prepare_backend(self.backend)  # a model that cannot load fails the actor's start, not every case
        self.judge = judge_from_config(judge_config, self.backend)
        self.chunks = 0

    def info(self) -> dict[str, Any]:
        """Where this worker runs: process, Ray GPU ids, CUDA_VISIBLE_DEVICES, device."""
        return {"pid": os.getpid(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()],
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "device": self.device,
                "chunks": self.chunks}

    def judge_chunk(self, cases: list[Case]) -> list[CaseOutcome]:
        """Judge a chunk of cases in lockstep; every case comes back with its outcome."""
        self.chunks += 1
        return list(self.judge.run_many(cases, self.backend))


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        return False


@dataclass
class _Task:
    cases: list[Case]
    attempts: int = 0


class RayRunner:
    """Runs judges on Ray actors; see the module docstring for the guarantees."""

    def __init__(self, workers: int = 1, gpus_per_worker: float = 0.0, address: str | None = None, *,
                 chunk_size: int | None = None, max_retries: int = 2, cpus_per_worker: float = 1.0,
                 backend_factory: BackendFactory | None = None, init_options: dict[str, Any] | None = None) -> None:
        self.workers = workers
        self.gpus_per_worker = gpus_per_worker
        self.address = address
        self.chunk_size = chunk_size
        self.max_retries = max_retries
        self.cpus_per_worker = cpus_per_worker
        self.backend_factory = backend_factory
        self.init_options = init_options or {}
        self.actors: list[Any] = []
        self.restarts = 0

    def _ensure_ray(self) -> None:
        if not ray.is_initialized():
            # Ray runs workers at niceness 15 by default, so on a busy machine the model replicas (all of
            # our work) starve behind anything else; a cluster we start runs them at normal priority.
            options = {"address": self.address} if self.address else {"_system_config": {"worker_niceness": 0}}
            ray.init(**options, **self.init_options, log_to_driver=False, include_dashboard=False,
                     ignore_reinit_error=True)

    def _new_actor(self, judge: Judge, factory: BackendFactory) -> Any:
        remote = ray.remote(CourtWorker).options(num_gpus=self.gpus_per_worker, num_cpus=self.cpus_per_worker,
                                                 max_restarts=0)
        threads = max(1, int(self.cpus_per_worker)) if self.cpus_per_worker else None
        return remote.remote(judge.config(), factory, threads)

    def worker_info(self) -> list[dict[str, Any]]:
        """Where every live worker runs."""
        return ray.get([a.info.remote() for a in self.actors])

    def run(self, judge: Judge, spec: Any, cases: list[Case]) -> Iterator[CaseOutcome]:
        """Judge the cases on the workers; yield each outcome once, as its chunk finishes."""
        from courtroom.runs.run import backend_options

        self._ensure_ray()
        factory = self.backend_factory or default_backend_factory(backend_options(spec))
        size = self.chunk_size or max(1, getattr(spec, "window", 8))
        queue: deque[_Task] = deque(_Task(cases[i:i + size]) for i in range(0, len(cases), size))
        self.actors = [self._new_actor(judge, factory) for _ in range(self.workers)]
        self._check_started(getattr(spec, "model", "?"))
        running: dict[Any, tuple[int, _Task]] = {}
        done: set[str] = set()
        try:
            while queue or running:
                for slot, actor in enumerate(self.actors):
                    if queue and not any(s == slot for s, _ in running.values()):
                        task = queue.popleft()
                        task.attempts += 1
                        running[actor.judge_chunk.remote(task.cases)] = (slot, task)
                ready, _ = ray.wait(list(running), num_returns=1)
                ref = ready[0]
                slot, task = running.pop(ref)
                try:
                    outcomes = ray.get(ref)
                except DEATH as exc:
                    self._replace(slot, judge, factory)
                    for case in task.cases:
                        if case.id in done:
                            continue
                        if task.attempts > self.max_retries:
                            done.add(case.id)
                            yield _worker_failure(case, judge, exc, task.attempts)
                        else:  # retry alone, so a poisonous case cannot take others down with it
                            queue.append(_Task([case], task.attempts))
                    continue
                for outcome in outcomes:
                    if outcome.case.id not in done:
                        done.add(outcome.case.id)
                        yield outcome
        finally:
            for actor in self.actors:
                ray.kill(actor)
            self.actors = []

    def _check_started(self, model: str) -> None:
        """Wait for every worker to load its model; a worker that cannot start stops the run with its error."""
        from courtroom.errors import BackendError

        try:
            ray.get([actor.info.remote() for actor in self.actors])
        except DEATH as exc:
            for actor in self.actors:
                ray.kill(actor)
            self.actors = []
            lines = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if line.strip()]
            cause = lines[-1].strip() if lines else type(exc).__name__  # the last line of the worker's traceback
            raise BackendError(f"the Ray workers could not start model {model!r}: {cause}") from exc

    def _replace(self, slot: int, judge: Judge, factory: BackendFactory) -> None:
        try:
            ray.kill(self.actors[slot])
        except Exception:  # already gone
            pass
        self.actors[slot] = self._new_actor(judge, factory)
        self.restarts += 1


def _worker_failure(case: Case, judge: Judge, exc: BaseException, attempts: int) -> CaseOutcome:
    from courtroom.engine.events import CaseStartEvent
    from courtroom.engine.lockstep import Transcript

    transcript = Transcript()
    transcript.add(CaseStartEvent, case=case, judge=judge.name, config_hash=judge.config_hash())
    message = f"the worker died {attempts} times while judging this case: {type(exc).__name__}: {exc}"
    transcript.add(ErrorEvent, message=message, error_type="WorkerDied",
                   traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    return CaseOutcome(case, None, transcript.events, message, "WorkerDied")


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Poll until `predicate()` is true (used by tests and benchmarks)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False
