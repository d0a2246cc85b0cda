"""Progress you can trust: a run watched from inside its lockstep batches.

`RunProgress` listens to the batches (a `LockstepObserver`) and to the backend's work in them (`Tick`s), and
reports cases done and running, calls in flight, tokens per second and an ETA that credits each running case
with its share of a case's calls (up to 90%). The pace is taken from the first work answered (not the model's
loading)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from courtroom.door.backend import Tick
from courtroom.engine.judge import Judge
from courtroom.evaluate.results import ResultRow

COURT_CALLS_PER_CASE = 5.0
"""Model calls a court case takes before any has finished (the default court on HaluBench and RAGTruth dev
cases: 4.6 to 6.9 per case; replaced by the run's own mean as soon as a case ends)."""
MEASUREMENT_CALLS_PER_CASE = 2.0
"""Model calls of a court that tries no charge (`escalation: {tries: nothing}`): the answer scored with its
context and without it."""


PRIOR_WEIGHT = 2.0
"""How many finished cases the usual number of calls counts as, against the run's own."""
RUNNING_CAP = 0.9
"""At most this share of a running case is counted done before it ends (a trial may take more calls than
usual)."""


def usual_calls(judge: Judge) -> float:
    """Model calls one case usually takes with this judge (before the run has measured its own)."""
    if judge.name == "courtroom":
        tries = getattr(getattr(judge, "spec", None), "trial", None) is not None
        return COURT_CALLS_PER_CASE if tries else MEASUREMENT_CALLS_PER_CASE
    if judge.name == "vote":
        return float(getattr(judge, "votes", 1) or 1)
    return 2.0 if judge.name == "two-step" else 1.0


@dataclass(frozen=True)
class Snapshot:
    """What a progress display shows, at one moment."""

    total: int
    done: int
    """Cases finished (also those finished before a resume)."""
    running: int
    """Cases in the lockstep window now."""
    in_flight: int
    """Calls of the current batch not answered yet."""
    batch: int
    """Calls of the current batch."""
    step: int | None
    calls: int
    """Calls answered in this session."""
    tokens_per_second: float
    """Prompt tokens computed and tokens generated per second of this session."""
    fraction: float
    """Cases done, counting the running ones' share of their calls."""
    eta: float | None
    """Seconds to the end at this session's pace; None until there is a pace."""
    elapsed: float


class RunProgress:
    """Watches a run's lockstep batches and its backend's work; thread-safe (a served backend ticks from its
    request threads). `on_change` is called after every event (to refresh a display)."""

    def __init__(self, total: int, done: int = 0, calls_per_case: float = 1.0,
                 on_change: Callable[[RunProgress], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done, self.prior, self.on_change, self.clock = (total, done, calls_per_case,
                                                                         on_change, clock)
        self.started, self.lock = clock(), threading.Lock()
        self.calls = self.tokens = self.running = self.in_flight = self.batch = 0
        self.calls_finished = 0
        """Calls of the cases finished in this session (their rows' `model_calls`)."""
        self.measured: list[int] = []
        self.step: int | None = None
        self._calls_at_batch = 0
        self._paced_from: tuple[float, float] | None = None
        """When the first work was answered, and the fraction done then: the pace is measured from there."""

    # -- a LockstepObserver ----------------------------------------------------------------------------------
    def batch_started(self, step: int, cases: int, calls: int) -> None:
        with self.lock:
            self.step, self.running, self.in_flight, self.batch = step, cases, calls, calls
            self._calls_at_batch = self.calls
        self._changed()

    def tick(self, tick: Tick) -> None:
        with self.lock:
            self.calls += tick.requests
            self.in_flight = max(0, self.in_flight - tick.requests)
            self.tokens += tick.prompt_tokens + tick.completion_tokens
            self._start_pace()
        self._changed()

    def batch_finished(self, step: int) -> None:  # noqa: ARG002
        with self.lock:  # a backend that does not tick: its batch counts when it ends
            self.calls = max(self.calls, self._calls_at_batch + self.batch)
            self.in_flight = 0
            self._start_pace()
        self._changed()

    def _start_pace(self) -> None:
        """At the first work answered (the model is loaded by then), mark where the pace is measured from."""
        if self._paced_from is None:
            self._paced_from = (self.clock(), self._fraction())

    # -- cases -----------------------------------------------------------------------------------------------
    def case_finished(self, row: ResultRow) -> None:
        with self.lock:
            self.done += 1
            self.running = max(0, self.running - 1)
            self.calls_finished += row.model_calls
            self.measured.append(row.model_calls)
        self._changed()

    def calls_per_case(self) -> float:
        """The calls a case takes: the mean of the cases finished this session, with the prior counted as
        `PRIOR_WEIGHT` cases (the cases that finish first are often the short ones: no charge, no trial)."""
        return (max((PRIOR_WEIGHT * self.prior + sum(self.measured)) / (PRIOR_WEIGHT + len(self.measured)),
                    1.0))

    def _fraction(self) -> float:
        """Cases done, counting the running ones' share of their calls (under the lock)."""
        partial = max(0.0, (self.calls - self.calls_finished) / self.calls_per_case())
        return min(float(self.total), self.done + min(partial, RUNNING_CAP * self.running))

    def snapshot(self) -> Snapshot:
        with self.lock:
            now = self.clock()
            elapsed = max(now - self.started, 1e-9)
            fraction = self._fraction()
            eta = None
            if fraction >= self.total:
                eta = 0.0
            elif self._paced_from is not None and fraction - self._paced_from[1] > 1e-6:
                since, then = self._paced_from
                eta = (self.total - fraction) * (now - since) / (fraction - then)
            return Snapshot(self.total, self.done, self.running, self.in_flight, self.batch, self.step,
                            self.calls, self.tokens / elapsed, fraction, eta, elapsed)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
