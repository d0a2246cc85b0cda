"""`courtroom.integrations.ragas.CourtroomMetric` inside Ragas 0.4: a real `ragas.metrics.base.SingleTurnMetric`
(and no `MetricWithLLM`: Ragas needs no LLM of its own for it), run by `ragas.evaluate` on an `EvaluationDataset`,
and by Ragas' experiment-style `score`/`ascore` calls."""

from __future__ import annotations

import asyncio

import pytest

from courtroom.engine.metric import NAME
from tests.helpers.cases import CONTEXT, FAITHFUL, HALLUCINATED, QUESTION
from tests.helpers.hosts import host, scripted_court

pytestmark = pytest.mark.integrations

ragas = host("ragas")
from ragas.metrics.base import MetricWithLLM, SingleTurnMetric  # noqa: E402
from ragas.metrics.result import MetricResult  # noqa: E402

from courtroom.integrations.ragas import CourtroomMetric  # noqa: E402


def rows(*answers: str, **fields) -> ragas.EvaluationDataset:
    return ragas.EvaluationDataset.from_list([{"user_input": QUESTION, "response": a, "retrieved_contexts": CONTEXT,
                                               **fields} for a in answers])


def test_it_is_a_ragas_single_turn_metric_that_needs_no_llm(court) -> None:
    metric = CourtroomMetric(court)
    assert isinstance(metric, SingleTurnMetric) and not isinstance(metric, MetricWithLLM) and metric.name == NAME
    assert metric.required_columns == {"SINGLE_TURN": {"response", "retrieved_contexts"}}


def test_inside_ragas_evaluate(court) -> None:
    metric = CourtroomMetric(court)
    result = ragas.evaluate(rows(HALLUCINATED, FAITHFUL), metrics=[metric], show_progress=False, raise_exceptions=True)
    hallucinated, faithful = result.scores
    direct = {a: scripted_court().score(question=QUESTION, answer=a, context=CONTEXT).value for a in (HALLUCINATED, FAITHFUL)}
    assert hallucinated[NAME] == pytest.approx(direct[HALLUCINATED]) and hallucinated[NAME] > 0.48
    assert faithful[NAME] == pytest.approx(direct[FAITHFUL]) and faithful[NAME] < 0.48
    assert result[NAME] == pytest.approx([direct[HALLUCINATED], direct[FAITHFUL]])
    assert metric.verdicts[HALLUCINATED].label == "FAIL" and metric.verdicts[FAITHFUL].label == "PASS"
    assert "1926" in metric.verdicts[HALLUCINATED].reason


def test_a_row_without_retrieved_contexts_is_refused_by_ragas_naming_the_column(court) -> None:
    data = ragas.EvaluationDataset.from_list([{"user_input": QUESTION, "response": FAITHFUL}])
    with pytest.raises(ValueError, match="retrieved_contexts"):
        ragas.evaluate(data, metrics=[CourtroomMetric(court)], show_progress=False)


def test_experiment_style_score_and_ascore(court) -> None:
    metric = CourtroomMetric(court)
    result = metric.score(user_input=QUESTION, response=HALLUCINATED, retrieved_contexts=CONTEXT, reference="1962")
    assert isinstance(result, MetricResult) and result.value > 0.48 and "1926" in result.reason
    result = asyncio.run(metric.ascore(user_input=QUESTION, response=FAITHFUL, retrieved_contexts=CONTEXT))
    assert result.value < 0.48
