"""The court as an Opik metric: `CourtroomMetric` is an `opik.evaluation.metrics.base_metric.BaseMetric`, so it
goes wherever Opik takes a metric (`opik.evaluate(..., scoring_metrics=[CourtroomMetric()])`,
`opik.evaluate_on_dict_items`, `metric.score(...)`).

    from opik.evaluation.metrics import Hallucination            # before
    from courtroom.integrations.opik import CourtroomMetric      # after: same arguments, same direction
    metric = CourtroomMetric()                                   # or CourtroomMetric(Court.default(model=...))
    result = metric.score(input="...", output="...", context=["..."])

The result is Opik's `ScoreResult`: `value` is the court's P(hallucinated) (lower is better, as Opik's
`Hallucination`), `reason` the court's reason with the spans it finds hallucinated on a line of their own
(`hallucinated: 'X' (0.83), ...`), `metadata` the verdict (label, threshold, success, each charge with its ruling,
the spans). Install with `pip install "courtroom[opik]"`.
"""

from __future__ import annotations

from typing import Any

from opik.evaluation.metrics import base_metric, score_result

from courtroom.court.court import Court
from courtroom.engine.metric import NAME, Score
from courtroom.integrations.common import case_arguments, court_or_default, metadata, reason

OWN = ("input", "output", "context")
"""Opik's names for the question, answer and context: they win over other fields that name the same part."""


class CourtroomMetric(base_metric.BaseMetric):
    """The court's P(hallucinated) for an answer (`output`) given its context (`context`) and question (`input`).

    Opik passes a metric every field of the dataset item and of the task's output: the court takes the answer,
    context and question under any of their names (`output`/`answer`/`actual_output`/`response`,
    `context`/`retrieval_context`/`retrieved_contexts`, `input`/`question`/`user_input`; Opik's own name first) and
    ignores the rest."""

    def __init__(self, court: Court | None = None, *, threshold: float | None = None, name: str = NAME,
                 track: bool = True, project_name: str | None = None) -> None:
        super().__init__(name=name, track=track, project_name=project_name)
        self.court = court_or_default(court)
        self.threshold = threshold

    def score(self, output: str | None = None, context: list[str] | str | None = None, input: str | None = None,
              **ignored_kwargs: Any) -> score_result.ScoreResult:
        arguments = case_arguments({**ignored_kwargs, "output": output, "context": context, "input": input}, OWN)
        return _result(self.court.score(threshold=self.threshold, name=self.name, **arguments))

    async def ascore(self, output: str | None = None, context: list[str] | str | None = None,
                     input: str | None = None, **ignored_kwargs: Any) -> score_result.ScoreResult:
        arguments = case_arguments({**ignored_kwargs, "output": output, "context": context, "input": input}, OWN)
        return _result(await self.court.ascore(threshold=self.threshold, name=self.name, **arguments))


def _result(result: Score) -> score_result.ScoreResult:
    return score_result.ScoreResult(name=result.name, value=result.value, reason=reason(result),
                                    metadata=metadata(result))
