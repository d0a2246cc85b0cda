"""`courtroom.integrations.deepeval.CourtroomMetric` inside DeepEval: a real `deepeval.metrics.BaseMetric`, run by
`deepeval.assert_test` (pass and fail, the failure naming the court's reason) and by `deepeval.evaluate` (async and
sync, several test cases, DeepEval copying the metric per test case as it does)."""

from __future__ import annotations

import asyncio

import pytest

from courtroom.engine.metric import NAME
from tests.helpers.cases import CONTEXT, FAITHFUL, HALLUCINATED, QUESTION
from tests.helpers.hosts import host, scripted_court

pytestmark = pytest.mark.integrations

deepeval = host("deepeval")
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig  # noqa: E402
from deepeval.metrics import BaseMetric  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402

from courtroom.integrations.deepeval import CourtroomMetric  # noqa: E402


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch) -> None:
    """DeepEval keeps its test-run files in the working directory: keep them out of the repository."""
    monkeypatch.chdir(tmp_path)


def case(answer: str, **fields) -> LLMTestCase:
    return LLMTestCase(input=QUESTION, actual_output=answer, **({"retrieval_context": CONTEXT} | fields))


def test_it_is_a_deepeval_metric_and_measures_like_the_court(court) -> None:
    metric = CourtroomMetric(court)
    assert isinstance(metric, BaseMetric) and metric.__name__ == NAME and metric.threshold == court.threshold
    direct = scripted_court().score(question=QUESTION, answer=HALLUCINATED, context=CONTEXT)
    assert metric.measure(case(HALLUCINATED)) == pytest.approx(direct.value) and direct.value > court.threshold
    assert metric.reason == direct.reason and metric.is_successful() is False
    assert metric.verdict.charges[0].quote == "It was automated in 1926."
    assert asyncio.run(metric.a_measure(case(FAITHFUL, retrieval_context=None, context=CONTEXT))) < court.threshold
    assert metric.is_successful() is True


def test_assert_test_passes_a_faithful_answer_and_fails_a_hallucinated_one(court) -> None:
    deepeval.assert_test(case(FAITHFUL), [CourtroomMetric(court)])
    with pytest.raises(AssertionError) as failed:
        deepeval.assert_test(case(HALLUCINATED), [CourtroomMetric(court)], run_async=False)
    message = str(failed.value)
    assert NAME in message and "threshold: 0.48" in message and "It was automated in 1926." in message


@pytest.mark.parametrize("run_async", [True, False])
def test_evaluate_scores_every_test_case(court, run_async: bool) -> None:
    cases = [case(HALLUCINATED), case(FAITHFUL), case(FAITHFUL, retrieval_context=None, context=CONTEXT)]
    result = deepeval.evaluate(cases, [CourtroomMetric(court)], async_config=AsyncConfig(run_async=run_async),
                               display_config=DisplayConfig(show_indicator=False, print_results=False))
    outcomes = {}
    for test in result.test_results:
        [data] = test.metrics_data
        assert data.name == NAME and data.error is None and data.threshold == pytest.approx(0.48)
        outcomes.setdefault(test.actual_output, set()).add((data.success, round(data.score, 6)))
    [(hallucinated_ok, hallucinated)] = outcomes[HALLUCINATED]
    [(faithful_ok, faithful)] = outcomes[FAITHFUL]  # with retrieval_context or context: the same score
    assert not hallucinated_ok and faithful_ok and hallucinated > 0.48 > faithful


def test_a_threshold_of_your_own_and_a_missing_context(court) -> None:
    metric = CourtroomMetric(court, threshold=0.05)
    metric.measure(case(FAITHFUL))
    assert metric.is_successful() is False
    with pytest.raises(Exception, match="retrieval_context or context cannot be None"):
        CourtroomMetric(court).measure(case(FAITHFUL, retrieval_context=None))
