"""`courtroom.integrations.opik.CourtroomMetric` inside Opik: a real `opik` `BaseMetric`, run by Opik's evaluation
engine through `opik.evaluate_on_dict_items`.

`opik.evaluate` itself cannot run here: it takes an `opik.Dataset`, which lives on an Opik server (creating or
reading one is a REST call), and it opens an experiment on that server (`client.create_experiment`) before the
first item is scored; the Opik server (Java, ClickHouse, MySQL, Redis) is not something a test can start without
the network. `evaluate_on_dict_items` is Opik's public entry point that runs the same `EvaluationEngine.run_and_score`
(the task in worker threads, `scoring_key_mapping`, the metric's arguments read from its `score` signature,
failed scores recorded) without a dataset or an experiment.
"""

from __future__ import annotations

import asyncio

import pytest

from courtroom.engine.metric import NAME
from tests.helpers.cases import CONTEXT, FAITHFUL, HALLUCINATED, QUESTION
from tests.helpers.hosts import host, scripted_court

pytestmark = pytest.mark.integrations

opik = host("opik")
from opik.evaluation.metrics import base_metric, score_result  # noqa: E402

from courtroom.integrations.opik import CourtroomMetric  # noqa: E402


def test_it_is_an_opik_metric_and_scores_like_the_court(court) -> None:
    metric = CourtroomMetric(court)
    assert isinstance(metric, base_metric.BaseMetric) and metric.name == NAME
    result = metric.score(input=QUESTION, output=HALLUCINATED, context=CONTEXT)
    assert isinstance(result, score_result.ScoreResult)
    direct = scripted_court().score(question=QUESTION, answer=HALLUCINATED, context=CONTEXT)
    assert result.value == pytest.approx(direct.value) and result.value > 0.48
    assert result.reason == direct.reason and "1926" in result.reason
    assert result.metadata["success"] is False and result.metadata["label"] == "FAIL"
    assert result.metadata["threshold"] == pytest.approx(0.48)
    [charge] = result.metadata["charges"]
    assert charge["quote"] == "It was automated in 1926." and charge["verdict"] == "hallucinated"
    assert not result.scoring_failed


def test_ascore_is_the_async_twin(court) -> None:
    result = asyncio.run(CourtroomMetric(court).ascore(input=QUESTION, output=FAITHFUL, context=CONTEXT))
    assert result.value < 0.48 and result.metadata["success"] is True


def test_inside_opiks_evaluation_engine(court) -> None:
    """Items and task outputs as Opik passes them (with fields the court does not take), scored on Opik's worker
    threads; a key mapping renames a dataset field; an item without a context is a failed score with our reason."""
    items = [{"question": QUESTION, "passages": CONTEXT, "draft": HALLUCINATED, "expected_output": "1962"},
             {"question": QUESTION, "passages": CONTEXT, "draft": FAITHFUL, "expected_output": "1962"}]

    def task(item: dict) -> dict:
        return {"output": item["draft"], "input": item.get("question"), "latency_ms": 12}

    result = opik.evaluate_on_dict_items(items=items, task=task, scoring_metrics=[CourtroomMetric(court)],
                                         scoring_key_mapping={"context": "passages"}, scoring_threads=2)
    by_answer = {r.test_case.task_output["output"]: r.score_results for r in result.test_results}
    [hallucinated], [faithful] = by_answer[HALLUCINATED], by_answer[FAITHFUL]
    assert hallucinated.name == faithful.name == NAME
    assert hallucinated.value > 0.48 > faithful.value
    assert hallucinated.metadata["success"] is False and faithful.metadata["success"] is True
    assert result.aggregate_evaluation_scores()[NAME].max == pytest.approx(hallucinated.value)

    [failed] = opik.evaluate_on_dict_items(items=[{"draft": FAITHFUL}], task=task,
                                           scoring_metrics=[CourtroomMetric(court)]).test_results
    [score] = failed.score_results
    assert score.scoring_failed and "no context given" in score.reason


def test_a_threshold_of_your_own(court) -> None:
    result = CourtroomMetric(court, threshold=0.05).score(input=QUESTION, output=FAITHFUL, context=CONTEXT)
    assert result.metadata["threshold"] == 0.05 and result.metadata["success"] is False
