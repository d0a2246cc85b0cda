"""The court as a DeepEval metric: `CourtroomMetric` is a `deepeval.metrics.BaseMetric`
(docs/integrations.md); `score` is P(hallucinated), lower is better, as DeepEval's `HallucinationMetric`."""

from __future__ import annotations

from typing import Any

from deepeval.errors import MissingTestCaseParamsError
from deepeval.metrics import BaseMetric
from deepeval.metrics.indicator import metric_progress_indicator
from deepeval.test_case import LLMTestCase

from courtroom.engine.judge import Judge
from courtroom.engine.metric import NAME, Score
from courtroom.integrations.common import court_or_default, reason


class CourtroomMetric(BaseMetric):
    """The court's P(hallucinated) for a test case's `actual_output` given its `retrieval_context` (else
    `context`) and `input`; `reason` names the spans found hallucinated, `verdict` is the last measure's
    verdict."""

    def __init__(self, court: Judge | None = None, threshold: float | None = None, name: str = NAME,
                 async_mode: bool = True, verbose_mode: bool = False) -> None:
        self.court = court_or_default(court)
        self.threshold = self.court.threshold if threshold is None else threshold
        """The court's own threshold for its model unless given (DeepEval requires one to decide success)."""
        self.name, self.async_mode, self.verbose_mode, self.include_reason = (name, async_mode, verbose_mode,
                                                                              True)
        self.evaluation_model = f"courtroom {self.court.title} court on {self.court.model}"
        self.verdict = None

    def measure(self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False,
                **kwargs: Any) -> float:
        with metric_progress_indicator(self, async_mode=False, _show_indicator=_show_indicator,
                                       _in_component=_in_component):
            return self._record(self.court.score(**self._arguments(test_case)))

    async def a_measure(self, test_case: LLMTestCase, _show_indicator: bool = True,
                        _in_component: bool = False, **kwargs: Any) -> float:
        with metric_progress_indicator(self, async_mode=True, _show_indicator=_show_indicator,
                                       _in_component=_in_component):
            return self._record(await self.court.ascore(**self._arguments(test_case)))

    def is_successful(self) -> bool:
        if self.error is not None or self.success is None:
            self.success = False
        return self.success

    @property
    def __name__(self) -> str:
        return self.name

    def _arguments(self, test_case: LLMTestCase) -> dict[str, Any]:
        context = test_case.retrieval_context or test_case.context
        missing = [name for name, value in (("actual_output", test_case.actual_output),
                                            ("retrieval_context or context", context)) if not value]
        if missing:
            raise MissingTestCaseParamsError(f"{' and '.join(missing)} cannot be None or empty for the "
                                             f"{self.name} metric")
        passages = [c if isinstance(c, str) else c.context for c in context]  # RetrievedContextData: its text
        # at the court's own threshold, success is the court's verdict; at another, score < threshold
        threshold = None if self.threshold == self.court.threshold else self.threshold
        return {"question": test_case.input, "answer": test_case.actual_output, "context": passages,
                "threshold": threshold, "name": self.name}

    def _record(self, result: Score) -> float:
        self.score, self.reason, self.success, self.verdict = (result.value, reason(result), result.success,
                                                               result.verdict)
        self.error = None
        if self.verbose_mode:
            self.verbose_logs = (f"Score: {result.value:.2f} (threshold {result.threshold:.2f})\nReason: "
                                 f"{self.reason}")
        return self.score
