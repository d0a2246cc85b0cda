"""Lockstep scheduling: many cases advance together, and the model calls due at the same step go to the
backend as one batch. A judge's *program* for one case is a generator that yields lists of `Call`s and
receives their responses until it returns the verdict. A case whose program or requests fail ends with an
error event; the others go on."""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ConfigDict

from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend, Tick
from courtroom.door.recorded import recorded_fields
from courtroom.door.requests import GenerationRequest, GenerationResponse, message_hash
from courtroom.engine.events import (
    CallSite,
    CaseStartEvent,
    ErrorEvent,
    ModelCallEvent,
    PromptEvent,
    VerdictEvent,
)


class Call(CallSite):
    """A request at the model door, with where it stands in the procedure (for the transcript)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    request: GenerationRequest
    """What is asked of the model."""

    def __init__(self, request: GenerationRequest, /, **site: str | int | None) -> None:
        super().__init__(request=request, **site)


Program = Generator[list[Call], list[GenerationResponse], CaseVerdict]
"""One case's procedure: yields calls, receives their responses, returns the verdict."""

Step = Generator[list[Call], list[GenerationResponse], Any]
"""A part of a program (`yield from` it): yields calls, receives their responses, returns its result."""


class Transcript:
    """The growing event log of one case."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._prompts: set[str] = set()

    def add(self, event_type: type, **fields: Any) -> Any:
        """Append an event, numbering it."""
        event = event_type(seq=len(self.events), **fields)
        self.events.append(event)
        return event

    def record_call(self, call: Call, response: GenerationResponse, step: int) -> None:
        """Append a model call, storing each prompt message once."""
        for message in call.request.messages:
            digest = message_hash(message)
            if digest not in self._prompts:
                self._prompts.add(digest)
                self.add(PromptEvent, hash=digest, role=message.role, content=message.content)
        self.add(ModelCallEvent, step=step, **call.model_dump(exclude={"request"}),
                 **recorded_fields(call.request, response))


@dataclass
class CaseOutcome:
    """How a case ended: a verdict or an error, with its full transcript."""

    case: Case
    verdict: CaseVerdict | None
    events: list[Any]
    error: str | None = None
    error_type: str | None = None

    @property
    def ok(self) -> bool:
        return self.verdict is not None


ProgramFactory = Callable[[Case, Transcript], Program]


class LockstepObserver(Protocol):
    """Watches a lockstep run from inside its batches (for progress displays): each batch as it goes to the
    backend, the backend's work as it happens (`Tick`s, possibly from other threads), each batch's end."""

    def batch_started(self, step: int, cases: int, calls: int) -> None: ...

    def tick(self, tick: Tick) -> None: ...

    def batch_finished(self, step: int) -> None: ...


@dataclass
class _Running:
    case: Case
    program: Program
    transcript: Transcript
    pending: list[Call] = field(default_factory=list)


def run_lockstep(cases: Iterable[Case], make_program: ProgramFactory, backend: Backend, *, judge_name: str,
                 config_hash: str, window: int = 8, observer: LockstepObserver
                 | None = None) -> Iterator[CaseOutcome]:
    """Run every case's program, batching the calls due at each step; yield outcomes as cases end."""
    queue = iter(cases)
    running: list[_Running] = []
    exhausted = False
    step = 0
    while True:
        while not exhausted and len(running) < window:
            case = next(queue, None)
            if case is None:
                exhausted = True
                break
            transcript = Transcript()
            transcript.add(CaseStartEvent, case=case, judge=judge_name, config_hash=config_hash)
            state = _Running(case, make_program(case, transcript), transcript)
            if (outcome := _advance(state, None, backend)) is not None:
                yield outcome
            else:
                running.append(state)
        if not running:
            return
        responses = _observed(running, backend, observer, step)
        still: list[_Running] = []
        for state in running:
            answer = responses[id(state)]
            if isinstance(answer, BaseException):
                yield _fail(state, answer, backend)
                continue
            for call, response in zip(state.pending, answer):
                state.transcript.record_call(call, response, step)
            if (outcome := _advance(state, answer, backend)) is not None:
                yield outcome
            else:
                still.append(state)
        running = still
        step += 1


def _observed(running: Sequence[_Running], backend: Backend, observer: LockstepObserver | None,
              step: int) -> dict[int, Any]:
    """`_serve`, with the observer told of the batch and listening to the backend's work inside it."""
    if observer is None:
        return _serve(running, backend)
    observer.batch_started(step, len(running), sum(len(state.pending) for state in running))
    listening, backend.on_tick = backend.on_tick, observer.tick
    try:
        return _serve(running, backend)
    finally:
        backend.on_tick = listening
        observer.batch_finished(step)


def _serve(running: Sequence[_Running], backend: Backend) -> dict[int, Any]:
    """One backend batch for all pending calls; if it fails, retry case by case to isolate the culprit."""
    requests = [call.request for state in running for call in state.pending]
    try:
        flat = backend.generate(requests)
    except Exception as exc:
        if len(running) == 1:  # the case's own batch failed: no need to ask again
            return {id(running[0]): exc}
        return {id(state): _exception(state, backend) for state in running}
    answers = iter(flat)
    return {id(state): list(itertools.islice(answers, len(state.pending))) for state in running}


def _exception(state: _Running, backend: Backend) -> Any:
    try:
        return backend.generate([call.request for call in state.pending])
    except Exception as exc:  # the case's own requests fail: the case fails, not the run
        return exc


def _advance(state: _Running, answer: list[GenerationResponse] | None,
             backend: Backend) -> CaseOutcome | None:
    """Send responses into the program; return an outcome if the case has ended."""
    try:
        calls = next(state.program) if answer is None else state.program.send(answer)
    except StopIteration as stop:
        verdict = stop.value
        state.transcript.add(VerdictEvent, verdict=verdict)
        backend.release(state.case.id)
        return CaseOutcome(state.case, verdict, state.transcript.events)
    except Exception as exc:
        return _fail(state, exc, backend)
    if not calls:
        return _fail(state, RuntimeError("a judge program yielded no calls"), backend)
    state.pending = list(calls)
    return None


def _fail(state: _Running, exc: BaseException, backend: Backend) -> CaseOutcome:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    state.transcript.add(ErrorEvent, message=str(exc), error_type=type(exc).__name__, traceback=tb)
    state.program.close()
    backend.release(state.case.id)
    return CaseOutcome(state.case, None, state.transcript.events, str(exc), type(exc).__name__)


def gather(programs: Sequence[Step]) -> Generator[list[Call], list[GenerationResponse], list[Any]]:
    """Advance several sub-programs together (a case's charges tried side by side); return their results."""
    results: list[Any] = [None] * len(programs)
    pending: dict[int, list[Call]] = {}
    for i, program in enumerate(programs):
        try:
            pending[i] = next(program)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        order = list(pending)
        responses = iter((yield [call for i in order for call in pending[i]]))
        for i in order:
            try:
                pending[i] = programs[i].send(list(itertools.islice(responses, len(pending[i]))))
            except StopIteration as stop:
                results[i] = stop.value
                del pending[i]
    return results
