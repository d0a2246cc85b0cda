"""The court as an Opik metric: `CourtroomMetric` is an `opik.evaluation.metrics.base_metric.BaseMetric`
taking the arguments of Opik's `Hallucination`, in the same direction (docs/integrations.md); the verdict is
its `metadata`."""

from __future__ import annotations

from typing import Any

from opik.evaluation.metrics import base_metric, score_result

from courtroom.engine.judge import Judge
from courtroom.engine.metric import NAME, Score
from courtroom.integrations.common import case_arguments, court_or_default, metadata, reason

OWN = ("input", "output", "context")
"""Opik's names for the question, answer and context: they win over other fields that name the same part."""


class CourtroomMetric(base_metric.BaseMetric):
    """The court's P(hallucinated) for an answer (`output`) given its context (`context`) and question
    (`input`), each taken under any of its names (Opik's own first); the other fields Opik passes are
    ignored."""

    def __init__(self, court: Judge | None = None, *, threshold: float | None = None, name: str = NAME,
                 track: bool = True, project_name: str | None = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self.court = court_or_default(court)
        self.threshold = threshold

    def score(self, output: str | None = None, context: list[str] | str | None = None,
              input: str | None = None, **ignored_kwargs: Any) -> score_result.ScoreResult:
        arguments = case_arguments({**ignored_kwargs, "output": output, "context": context, "input": input},
                                   OWN)
        return _result(self.court.score(threshold=self.threshold, name=self.name, **arguments))

    async def ascore(self, output: str | None = None, context: list[str] | str | None = None,
                     input: str | None = None, **ignored_kwargs: Any) -> score_result.ScoreResult:
        arguments = case_arguments({**ignored_kwargs, "output": output, "context": context, "input": input},
                                   OWN)
        return _result(await self.court.ascore(threshold=self.threshold, name=self.name, **arguments))


def _result(result: Score) -> score_result.ScoreResult:
    return score_result.ScoreResult(name=result.name, value=result.value, reason=reason(result),
                                    metadata=metadata(result))
