"""The court as a Ragas metric: `CourtroomMetric` is a `ragas.metrics.base.SingleTurnMetric` (Ragas 0.4)
needing no LLM of Ragas' (docs/integrations.md); its column `courtroom_hallucination` is P(hallucinated):
**lower is better**."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragas.dataset_schema import SingleTurnSample
from ragas.metrics.base import MetricType, SingleTurnMetric
from ragas.metrics.result import MetricResult
from ragas.run_config import RunConfig

from courtroom.case import CaseVerdict
from courtroom.engine.judge import Judge
from courtroom.engine.metric import NAME, Score
from courtroom.integrations.common import case_arguments, court_or_default, reason


@dataclass(init=False)
class CourtroomMetric(SingleTurnMetric):
    """The court's P(hallucinated) for a sample's `response` given its `retrieved_contexts` and
    `user_input`."""

    court: Judge | None = None
    """The court (default: the default court on the default model, loaded on the first score)."""
    threshold: float | None = None
    """A threshold of your own for `success` in `verdicts` and `MetricResult`s (default: the court's
    verdict)."""
    name: str = NAME
    _required_columns: dict[MetricType, set[str]] = field(default_factory=dict)
    verdicts: dict[str, CaseVerdict] = field(default_factory=dict, repr=False)
    """The verdict behind each row's score, by the row's response (the last kept when a response repeats)."""

    def __init__(self, court: Judge | None = None, *, threshold: float | None = None,
                 name: str = NAME) -> None:
        self.court = court_or_default(court)
        self.threshold, self.name = threshold, name
        self._required_columns = {MetricType.SINGLE_TURN: {"response", "retrieved_contexts",
                                                           "user_input:optional"}}
        self.verdicts = {}
        self.__post_init__()

    def init(self, run_config: RunConfig) -> None:
        """Nothing to set up: the court brings its model (it loads on the first score)."""

    async def _single_turn_ascore(self, sample: SingleTurnSample, callbacks: Any) -> float:
        result = await self.court.ascore(threshold=self.threshold, name=self.name, question=sample.user_input,
                                         answer=sample.response, context=sample.retrieved_contexts)
        self.verdicts[sample.response] = result.verdict
        return result.value

    def score(self, **kwargs: Any) -> MetricResult:
        """Ragas' experiment-style call: `score(user_input=..., response=..., retrieved_contexts=[...])` (or
        any of the court's names for them); the result's `reason` is the court's, with the spans it finds
        hallucinated."""
        return _result(self.court.score(threshold=self.threshold, name=self.name, **case_arguments(kwargs)))

    async def ascore(self, **kwargs: Any) -> MetricResult:
        return _result(await self.court.ascore(threshold=self.threshold, name=self.name,
                                               **case_arguments(kwargs)))


def _result(result: Score) -> MetricResult:
    return MetricResult(value=result.value, reason=reason(result))
