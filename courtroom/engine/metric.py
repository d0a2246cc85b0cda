"""A judge as a metric: `Judge.score(...)` and `Judge.ascore(...)` take the argument names of the tools people
come from (ours, Opik's, DeepEval's, Ragas') and return a `Score`. Concurrent calls are judged together in one
lockstep run on the judge's own thread (`submit`); `courtroom.integrations` and `courtroom.testing` wrap this
for tools and pytest."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from courtroom.case import Case, CaseVerdict, HallucinatedSpan, Testimony
from courtroom.digest import content_hash
from courtroom.engine.lockstep import CaseOutcome
from courtroom.errors import CaseFailedError, MetricArgumentError

NAME = "courtroom_hallucination"
"""The metric's name where a tool shows it (a column, a feedback score): the value is P(hallucinated)."""

ARGUMENTS: dict[str, tuple[str, ...]] = {
    "question": ("question", "input", "user_input"),
    "answer": ("answer", "output", "actual_output", "response"),
    "context": ("context", "retrieval_context", "retrieved_contexts"),
}
"""Each part of a case and the names it goes by: ours, Opik's and DeepEval's, and Ragas'."""


class Judging(Protocol):
    """What scoring needs of a judge: its threshold, and cases judged in lockstep."""

    @property
    def threshold(self) -> float: ...

    def run_many(self, cases: Iterable[Case]) -> Iterator[CaseOutcome]: ...


class Score(BaseModel):
    """A metric's result, shaped like Opik's and DeepEval's hallucination metrics': P(hallucinated), why,
    success."""

    model_config = ConfigDict(extra="forbid")

    value: float
    """P(hallucinated) in [0, 1]: lower is better."""
    reason: str
    """Why."""
    verdict: CaseVerdict
    """The full verdict behind the score."""
    name: str
    """The metric's name (`courtroom_hallucination` unless given)."""
    threshold: float
    """The threshold `success` was decided at: the court's own for its model unless one was given."""
    success: bool
    """The answer passes: the court's verdict is faithful (with a threshold given: `value < threshold`)."""

    @property
    def score(self) -> float:
        """Alias of `value` (DeepEval names it score)."""
        return self.value

    @property
    def spans(self) -> list[HallucinatedSpan]:
        """The parts of the answer the court finds hallucinated, strongest first (maybe none)."""
        return self.verdict.spans

    @property
    def testimony(self) -> list[Testimony]:
        """What the court's witnesses measured of the answer (courts that hear witnesses)."""
        return self.verdict.testimony


SPANS_NAMED = 5
"""The strongest spans a reason names (the rest are counted)."""


def spans_phrase(spans: Sequence[HallucinatedSpan], limit: int = SPANS_NAMED) -> str:
    """The spans found hallucinated as one line, strongest first: `hallucinated: 'X' (0.83), 'Y' (0.71)` (or
    "")."""
    if not spans:
        return ""
    named = ", ".join(f"'{s.text}' ({s.score:.2f})" for s in spans[:limit])
    return f"hallucinated: {named}" + (f" and {len(spans) - limit} more" if len(spans) > limit else "")


def reason_with_spans(reason: str, spans: Sequence[HallucinatedSpan]) -> str:
    """The court's reason, and the spans it finds hallucinated on a line of their own (the reason alone
    without any)."""
    phrase = spans_phrase(spans)
    return f"{reason}\n{phrase}" if phrase else reason


def case_from_arguments(arguments: Mapping[str, Any], case_id: str | None = None) -> Case:
    """The case named by metric-style keyword arguments, each part under any of its names (`ARGUMENTS`; `None`
    is not given); a part named twice, an unknown name, or no answer or context is an error listing the names
    accepted."""
    accepted = {alias: part for part, aliases in ARGUMENTS.items() for alias in aliases}
    if unknown := sorted(set(arguments) - set(accepted)):
        raise MetricArgumentError(f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: "
                                  f"the court takes {_names()}")
    parts: dict[str, Any] = {}
    for part, aliases in ARGUMENTS.items():
        given = [alias for alias in aliases if arguments.get(alias) is not None]
        if len(given) > 1:
            raise MetricArgumentError(f"ambiguous {part}: both {' and '.join(given)} given; pass it once, "
                                      f"under one of {', '.join(aliases)}")
        if given:
            parts[part] = arguments[given[0]]
    for part in ("answer", "context"):
        if part not in parts:
            raise MetricArgumentError(f"no {part} given: pass it as {' or '.join(ARGUMENTS[part])}")
    context = parts["context"]
    if not isinstance(context, Sequence):
        raise MetricArgumentError("context must be a string or a list of strings, not "
                                  f"{type(context).__name__}")
    context = [context] if isinstance(context, str) else list(context)
    if not context:
        raise MetricArgumentError("the context is an empty list: give at least one passage")
    question = parts.get("question", "")
    for part, value in (("question", question), ("answer", parts["answer"]),
                        *(("context", c) for c in context)):
        if not isinstance(value, str):
            raise MetricArgumentError(f"{part} must be text (str), not {type(value).__name__}: {value!r:.80}")
    # named by its content: the same call gets the same prompts (the answer's fence) every time
    if case_id is None:
        case_id = "metric-" + content_hash(json.dumps([question, parts["answer"], context]))[:12]
    try:
        return Case(id=case_id, question=question, answer=parts["answer"], context=context)
    except ValidationError as exc:  # a blank answer, a context with no text
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'case'}: "
                             f"{e['msg'].removeprefix('Value error, ')}"
                             for e in exc.errors())
        raise MetricArgumentError(problems) from None


def score_case(court: Judging, case: Case, threshold: float | None = None, name: str = NAME) -> Score:
    """Judge one case with the court and read its verdict as a metric (blocking; concurrent calls share a
    run)."""
    _check(threshold)
    return as_score(court, submit(court, case).result(), threshold, name)


async def ascore_case(court: Judging, case: Case, threshold: float | None = None, name: str = NAME) -> Score:
    """`score_case` for an event loop: it waits for the verdict without blocking the loop."""
    _check(threshold)
    return as_score(court, await asyncio.wrap_future(submit(court, case)), threshold, name)


def as_score(court: Judging, verdict: CaseVerdict, threshold: float | None, name: str) -> Score:
    """A verdict read as a metric: at the court's own threshold success is its verdict, at another `value <
    threshold`."""
    success = verdict.label == "PASS" if threshold is None else verdict.score < threshold
    return Score(name=name, value=verdict.score, reason=verdict.reason, verdict=verdict,
                 threshold=court.threshold if threshold is None else threshold, success=success)


def _check(threshold: float | None) -> None:
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise MetricArgumentError(f"threshold {threshold}: a P(hallucinated) threshold lies in [0, 1]")


LINGER = 0.005
"""Seconds a court waits, when the first metric call arrives, for the calls made at the same moment (a tool
scoring a dataset on worker threads or with `asyncio.gather`) to join it in one lockstep run."""

_batchers_lock = threading.Lock()


def submit(court: Judging, case: Case) -> Future[CaseVerdict]:
    """The verdict on `case`, to come: cases submitted while the court is judging are judged together in
    lockstep (up to its window at a time; the same case submitted twice is judged once)."""
    with _batchers_lock:
        batcher = court.__dict__.setdefault("_metric_batcher", _Batcher(court))
    return batcher.submit(case)


class _Batcher:
    """One court's queue of metric calls, fed by a drain thread to `run_many` as its window frees up; runs
    never overlap (a backend is not safe to call from two threads at once)."""

    def __init__(self, court: Judging) -> None:
        self.court, self.lock, self.running, self.draining = court, threading.Lock(), threading.Lock(), False
        self.pending: dict[str, tuple[Case, Future[CaseVerdict]]] = {}
        self.taken: dict[str, Future[CaseVerdict]] = {}

    def submit(self, case: Case) -> Future[CaseVerdict]:
        with self.lock:
            if case.id in self.pending:
                return self.pending[case.id][1]
            if case.id in self.taken:
                return self.taken[case.id]
            future: Future[CaseVerdict] = Future()
            self.pending[case.id] = (case, future)
            start, self.draining = not self.draining, True
        if start:
            threading.Thread(target=self._drain, name="courtroom-metric", daemon=True).start()
        return future

    def _cases(self) -> Iterator[Case]:
        while True:
            with self.lock:
                if not self.pending:
                    self.draining = False
                    return
                case_id = next(iter(self.pending))
                case, future = self.pending.pop(case_id)
                self.taken[case_id] = future
            yield case

    def _drain(self) -> None:
        with self.running:
            time.sleep(LINGER)
            try:
                for outcome in self.court.run_many(self._cases()):
                    with self.lock:
                        future = self.taken.pop(outcome.case.id)
                    if outcome.verdict is None:
                        future.set_exception(CaseFailedError(f"the court could not judge the answer: "
                                                             f"{outcome.error_type}: {outcome.error}"))
                    else:
                        future.set_result(outcome.verdict)
            # the backend failed (a model that cannot load): every call waiting fails
            except BaseException as exc:
                with self.lock:
                    waiting = [*self.taken.values(), *(f for _, f in self.pending.values())]
                    self.taken.clear()
                    self.pending.clear()
                    self.draining = False
                for future in waiting:
                    future.set_exception(exc)


def _names() -> str:
    return "; ".join(f"{part}: {' | '.join(aliases)}" for part, aliases in ARGUMENTS.items())
