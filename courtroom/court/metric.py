"""The court as a metric: one answer judged and returned the way evaluation tools expect a metric's result.

`Court.score(...)` and `Court.ascore(...)` take the argument names of the tools people come from (`question`,
`answer`, `context`; Opik's `input`, `output`, `context`; DeepEval's `input`, `actual_output`,
`retrieval_context`; Ragas' `user_input`, `response`, `retrieved_contexts`) and return a `Score`:

- `value` is **P(hallucinated)**, the case verdict's score, in [0, 1]: *lower is better*, as in Opik's
  `Hallucination` and DeepEval's `HallucinationMetric` (not `1 - faithfulness`: the court's threshold and every
  number in its reasons are on this scale);
- `threshold` is the court's own verdict threshold for its model (`Court.threshold`) unless one is given;
- `success` is the court's verdict, faithful (`PASS`); with a threshold given, `value < threshold`.

The adapters in `courtroom.integrations` wrap this for Opik, DeepEval and Ragas; `courtroom.testing` for pytest.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from courtroom.case import Case, CaseVerdict
from courtroom.engine.judge import MetricResult
from courtroom.errors import MetricArgumentError

NAME = "courtroom_hallucination"
"""The metric's name where a tool shows it (a column, a feedback score): the value is P(hallucinated)."""

ARGUMENTS: dict[str, tuple[str, ...]] = {
    "question": ("question", "input", "user_input"),
    "answer": ("answer", "output", "actual_output", "response"),
    "context": ("context", "retrieval_context", "retrieved_contexts"),
}
"""Each part of a case and the names it goes by: ours, Opik's and DeepEval's, and Ragas'."""


class Judging(Protocol):
    """What scoring needs of a court (`courtroom.court.Court`): a verdict for a case and its threshold."""

    @property
    def threshold(self) -> float: ...

    def judge(self, case: Case) -> CaseVerdict: ...


class Score(MetricResult):
    """A metric's result: the court's P(hallucinated) for one answer, why, and whether it passes."""

    name: str
    """The metric's name (`courtroom_hallucination` unless given)."""
    threshold: float
    """The threshold `success` was decided at: the court's own for its model unless one was given."""
    success: bool
    """The answer passes: the court's verdict is faithful (with a threshold given: `value < threshold`)."""


def case_from_arguments(arguments: Mapping[str, Any], case_id: str = "metric") -> Case:
    """The case named by metric-style keyword arguments, each part under any of its names (`ARGUMENTS`).
    `None` counts as not given; a part named twice, a name no tool uses, or no answer or context is an error
    that lists the names accepted."""
    accepted = {alias: part for part, aliases in ARGUMENTS.items() for alias in aliases}
    unknown = sorted(set(arguments) - set(accepted))
    if unknown:
        raise MetricArgumentError(f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: "
                                  f"the court takes {_names()}")
    parts: dict[str, Any] = {}
    for part, aliases in ARGUMENTS.items():
        given = [alias for alias in aliases if arguments.get(alias) is not None]
        if len(given) > 1:
            raise MetricArgumentError(f"ambiguous {part}: both {' and '.join(given)} given; pass it once, under one "
                                      f"of {', '.join(aliases)}")
        if given:
            parts[part] = arguments[given[0]]
    for part in ("answer", "context"):
        if part not in parts:
            raise MetricArgumentError(f"no {part} given: pass it as {' or '.join(ARGUMENTS[part])}")
    context = parts["context"]
    if isinstance(context, str):
        context = [context]
    elif isinstance(context, Sequence):
        context = list(context)
    else:
        raise MetricArgumentError(f"context must be a string or a list of strings, not {type(context).__name__}")
    if not context:
        raise MetricArgumentError("the context is an empty list: give at least one passage")
    question = parts.get("question", "")
    for part, value in (("question", question), ("answer", parts["answer"]), *(("context", c) for c in context)):
        if not isinstance(value, str):
            raise MetricArgumentError(f"{part} must be text (str), not {type(value).__name__}: {value!r:.80}")
    return Case(id=case_id, question=question, answer=parts["answer"], context=context)


def score_case(court: Judging, case: Case, threshold: float | None = None, name: str = NAME) -> Score:
    """Judge one case with the court and read its verdict as a metric (one case at a time per court: a backend
    is not safe to call from two threads at once, and host tools call metrics from thread pools)."""
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise MetricArgumentError(f"threshold {threshold}: a P(hallucinated) threshold lies in [0, 1]")
    lock = court.__dict__.setdefault("_metric_lock", threading.Lock())
    with lock:
        verdict = court.judge(case)
    if threshold is None:
        threshold, success = court.threshold, verdict.label == "PASS"
    else:
        success = verdict.score < threshold
    return Score(name=name, value=verdict.score, reason=verdict.reason, verdict=verdict, threshold=threshold,
                 success=success)


def _names() -> str:
    return "; ".join(f"{part}: {' | '.join(aliases)}" for part, aliases in ARGUMENTS.items())
