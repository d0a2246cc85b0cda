"""The Ray runner, the only module that imports ray: cases judged by actors, one model replica each.

Each worker loads the model once and judges chunks of cases in lockstep. Every case ends exactly once: when an
actor dies or hangs past `chunk_timeout`, it is replaced and its chunk's cases retried one by one, at most
`max_retries` times each; a case that keeps killing its worker is recorded as an error with the last
traceback."""

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

import courtroom.baselines
import courtroom.courts  # noqa: F401 (with the baselines: the judges a worker rebuilds register themselves)
from courtroom.case import Case
from courtroom.door.backend import Backend, prepare_backend
from courtroom.door.devices import cuda_available, set_threads
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import CaseStartEvent, ErrorEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import CaseOutcome, Transcript
from courtroom.engine.registry import judge_from_config
from courtroom.errors import BackendError

BackendFactory = Callable[[str], Backend]
"""Builds a worker's model door on the device Ray gave it (`cuda` or `cpu`)."""
SeatFactory = Callable[[BackendSpec, str], Backend]
"""Builds the door of a further model a court seats (`trial.models`) on its device in the worker."""


def seat_devices(device: str, visible: int, main_gpus: float, seat_gpus: dict[str, float]) -> dict[str, str]:
    """Where each further model runs in a worker: the CPU on a CPU worker; on a GPU worker, seats that declare
    GPUs take the worker's GPUs after the run's model's share, in order, and the others share its GPU."""
    if device != "cuda":
        return {key: "cpu" for key in seat_gpus}
    places, offset = {}, main_gpus
    for key, gpus in seat_gpus.items():
        places[key] = f"cuda:{min(int(offset), max(visible - 1, 0))}" if gpus > 0 else "cuda:0"
        offset += gpus
    return places


DEATH = (RayActorError, ActorDiedError, ActorUnavailableError, WorkerCrashedError)


class ChunkTimeout(Exception):
    """A worker gave no answer for a chunk within the runner's time limit."""


class CourtWorker:
    """A Ray actor: one model replica and one judge, judging chunks of cases."""

    def __init__(self, judge_config: dict[str, Any], backend_factory: BackendFactory, threads: int | None,
                 main_gpus: float = 0.0, seat_factory: SeatFactory | None = None) -> None:
        gpu_ids = ray.get_gpu_ids()
        self.device = "cuda" if gpu_ids and cuda_available() else "cpu"
        if threads:
            set_threads(threads)
        main = backend_factory(self.device)
        self.judge = judge_from_config(judge_config, main)
        self.seats = seat_devices(self.device, len(gpu_ids), main_gpus, self.judge.seat_gpus())
        self.backend = self.judge.seated(main, self.seats, seat_factory)
        prepare_backend(self.backend)  # a model that cannot load fails the actor's start, not every case
        self.chunks = 0

    def info(self) -> dict[str, Any]:
        """Where this worker runs: process, Ray GPU ids, CUDA_VISIBLE_DEVICES, device (and each further
        model's)."""
        return {"pid": os.getpid(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()],
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"), "device": self.device,
                "seats": self.seats, "chunks": self.chunks}

    def judge_chunk(self, cases: list[Case]) -> list[CaseOutcome]:
        """Judge a chunk of cases in lockstep; every case comes back with its outcome."""
        self.chunks += 1
        return list(self.judge.run_many(cases, self.backend))


@dataclass
class _Task:
    cases: list[Case]
    attempts: int = 0


class RayRunner:
    """Runs judges on Ray actors; see the module docstring for the guarantees."""

    def __init__(self, backend: BackendSpec | None = None, *, workers: int = 1, gpus_per_worker: float = 0.0,
                 address: str | None = None, chunk_size: int | None = None, max_retries: int = 2,
                 cpus_per_worker: float = 1.0, backend_factory: BackendFactory | None = None,
                 init_options: dict[str, Any] | None = None, chunk_timeout: float | None = None,
                 seat_factory: SeatFactory | None = None) -> None:
        """Workers build their door from `backend` (or `backend_factory`) and the court's further seats from
        their specs (or `seat_factory`); a chunk over `chunk_timeout` seconds counts as its worker's death."""
        self.backend_spec, self.backend_factory, self.seat_factory = (backend or BackendSpec(),
                                                                      backend_factory, seat_factory)
        self.workers, self.gpus_per_worker, self.cpus_per_worker = workers, gpus_per_worker, cpus_per_worker
        self.address, self.init_options = address, init_options or {}
        self.chunk_size, self.chunk_timeout, self.max_retries = chunk_size, chunk_timeout, max_retries
        self.actors: list[Any] = []
        self._starting: dict[Any, int] = {}
        """Replacement workers still starting: their readiness reference -> slot."""
        self.restarts = 0

    def _ensure_ray(self) -> None:
        if not ray.is_initialized():
            # Ray runs workers at niceness 15 by default, so on a busy machine the model replicas (all of
            # our work) starve behind anything else; a cluster we start runs them at normal priority.
            options = ({"address": self.address}
                       if self.address else {"_system_config": {"worker_niceness": 0}})
            ray.init(**options, **self.init_options, log_to_driver=False, include_dashboard=False,
                     ignore_reinit_error=True)

    def worker_gpus(self, judge: Judge) -> float:
        """The GPUs a worker asks Ray for: the run's model's share and every further model's the court
        seats."""
        return self.gpus_per_worker + sum(judge.seat_gpus().values())

    def _new_actor(self, judge: Judge, factory: BackendFactory) -> Any:
        remote = ray.remote(CourtWorker).options(num_gpus=self.worker_gpus(judge),
                                                 num_cpus=self.cpus_per_worker, max_restarts=0)
        # a light client (a served model) computes nothing with torch: no threads to set
        threads = (max(1, int(self.cpus_per_worker)) if self.cpus_per_worker
                   and not self.backend_spec.light else None)
        return remote.remote(judge.config(), factory, threads, self.gpus_per_worker, self.seat_factory)

    def worker_info(self) -> list[dict[str, Any]]:
        """Where every live worker runs."""
        return ray.get([a.info.remote() for a in self.actors])

    def run(self, judge: Judge, cases: list[Case], observer: Any = None) -> Iterator[CaseOutcome]:  # noqa: ARG002
        """Judge the cases on the workers; yield each outcome once, as its chunk finishes (an `observer` is
        not told of the batches inside the actors: a Ray run's progress moves case by case)."""
        self._ensure_ray()
        factory = self.backend_factory or self.backend_spec.build
        size = self.chunk_size or judge.window
        queue: deque[_Task] = deque(_Task(cases[i:i + size]) for i in range(0, len(cases), size))
        self.actors = [self._new_actor(judge, factory) for _ in range(self.workers)]
        self._check_started(self.backend_spec.model)
        running: dict[Any, tuple[int, _Task, float]] = {}
        done: set[str] = set()
        try:
            while queue or running or self._starting:
                for slot, actor in enumerate(self.actors):
                    busy = slot in self._starting.values() or any(s == slot for s, _, _ in running.values())
                    if queue and not busy:
                        task = queue.popleft()
                        task.attempts += 1
                        running[actor.judge_chunk.remote(task.cases)] = (slot, task, time.monotonic())
                ready, _ = ray.wait([*running, *self._starting], num_returns=1,
                                    timeout=self._wait_seconds(running))
                if ready and ready[0] in self._starting:  # a replacement worker is up: its chunks may start
                    self._started(ready[0])
                    continue
                if ready:
                    ref = ready[0]
                elif not running:
                    continue
                else:  # a chunk is over its time: its worker hangs, and is treated as dead
                    ref = min(running, key=lambda r: running[r][2])
                slot, task, started = running.pop(ref)
                try:
                    if not ready:
                        raise ChunkTimeout(f"no answer from the worker in {time.monotonic() - started:.0f} s "
                                           f"(--chunk-timeout {self.chunk_timeout:g})")
                    outcomes = ray.get(ref)
                except (*DEATH, ChunkTimeout) as exc:
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
            self._starting = {}

    def _wait_seconds(self, running: dict[Any, tuple[int, _Task, float]]) -> float | None:
        """How long to wait for a chunk before the oldest is over its time (None: no limit), counted from when
        it was handed to a worker that is up (a replacement's start-up is not a hang)."""
        if self.chunk_timeout is None or not running:
            return None
        oldest = min(started for _, _, started in running.values())
        return max(0.0, self.chunk_timeout - (time.monotonic() - oldest))

    def _check_started(self, model: str) -> None:
        """Wait for every worker to load its model; a worker that cannot start stops the run with its
        error."""
        try:
            ray.get([actor.info.remote() for actor in self.actors])
        except DEATH as exc:
            for actor in self.actors:
                ray.kill(actor)
            self.actors = []
            raise BackendError(f"the Ray workers could not start model {model!r}: {_last_line(exc)}") from exc

    def _replace(self, slot: int, judge: Judge, factory: BackendFactory) -> None:
        """Kill the worker in `slot` and start another; it takes chunks once it has started (`_started`)."""
        try:
            ray.kill(self.actors[slot])
        except Exception:  # already gone
            pass
        self.actors[slot] = self._new_actor(judge, factory)
        self._starting[self.actors[slot].info.remote()] = slot
        self.restarts += 1

    def _started(self, ref: Any) -> None:
        """A replacement worker answered; one that could not start stops the run with its error."""
        self._starting.pop(ref)
        try:
            ray.get(ref)
        except DEATH as exc:
            raise BackendError(f"a replacement Ray worker could not start model {self.backend_spec.model!r}: "
                               f"{_last_line(exc)}") from exc


def _last_line(exc: BaseException) -> str:
    """The last line of a worker's traceback, as Ray relays it (its colours removed)."""
    lines = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if line.strip()]
    return lines[-1].strip() if lines else type(exc).__name__


def _worker_failure(case: Case, judge: Judge, exc: BaseException, attempts: int) -> CaseOutcome:
    transcript = Transcript()
    transcript.add(CaseStartEvent, case=case, judge=judge.name, config_hash=judge.config_hash())
    kind = "WorkerTimeout" if isinstance(exc, ChunkTimeout) else "WorkerDied"
    verb = "hung" if isinstance(exc, ChunkTimeout) else "died"
    message = f"the worker {verb} {attempts} times while judging this case: {type(exc).__name__}: {exc}"
    transcript.add(ErrorEvent, message=message, error_type=kind,
                   traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    return CaseOutcome(case, None, transcript.events, message, kind)
