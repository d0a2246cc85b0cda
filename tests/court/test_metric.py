"""The court as a metric (`Court.score`, `Court.ascore`): the argument names of Opik, DeepEval and Ragas, the value
(P(hallucinated), lower is better), the threshold and success, and the errors of a call that names too little or
too much."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.engine.metric import NAME, Score, case_from_arguments
from courtroom.errors import BackendError, CaseFailedError, MetricArgumentError
from tests.helpers.cases import CONTEXT, FAITHFUL, HALLUCINATED, QUESTION
from tests.helpers.court_script import CourtScript


@pytest.fixture
def court() -> Court:
    """The default court on the scripted backend: the statement naming 1926 is ungrounded and conceded."""
    script = CourtScript(grounding={"1926": -1.0}, moves={"prosecutor": ["argue"], "defender": ["concede"]})
    return load_court("full", ScriptedBackend(script, model="scripted"))


def test_a_score_is_the_courts_verdict_read_as_a_metric(court: Court) -> None:
    result = court.score(question=QUESTION, answer=HALLUCINATED, context=CONTEXT)
    assert isinstance(result, Score)
    assert result.name == NAME and result.threshold == court.threshold == 0.48
    assert result.value == result.verdict.score == result.score and result.value > 0.48
    assert result.success is False and result.verdict.label == "FAIL" and result.reason == result.verdict.reason
    faithful = court.score(question=QUESTION, answer=FAITHFUL, context=CONTEXT)
    assert faithful.success is True and faithful.value < 0.48


@pytest.mark.parametrize("names", [("question", "answer", "context"), ("input", "output", "context"),
                                   ("input", "actual_output", "retrieval_context"),
                                   ("user_input", "response", "retrieved_contexts")])
def test_every_tools_argument_names_judge_the_same_case(court: Court, names: tuple[str, str, str]) -> None:
    question, answer, context = names
    result = court.score(**{question: QUESTION, answer: HALLUCINATED, context: CONTEXT})
    assert result.value == pytest.approx(court.score(question=QUESTION, answer=HALLUCINATED, context=CONTEXT).value)


def test_a_context_may_be_one_string_and_the_question_may_be_left_out(court: Court) -> None:
    assert court.score(answer=HALLUCINATED, context=CONTEXT[0]).success is False


def test_a_threshold_of_your_own_decides_success_by_the_value(court: Court) -> None:
    result = court.score(answer=FAITHFUL, context=CONTEXT, threshold=0.05, name="mine")
    assert result.threshold == 0.05 and result.name == "mine" and result.success is False and result.value >= 0.05
    assert court.score(answer=HALLUCINATED, context=CONTEXT, threshold=0.99).success is True


@pytest.mark.parametrize(("arguments", "message"), [
    ({"context": CONTEXT}, "no answer given: pass it as answer or output or actual_output or response"),
    ({"answer": FAITHFUL}, "no context given: pass it as context or retrieval_context or retrieved_contexts"),
    ({"output": FAITHFUL, "actual_output": FAITHFUL, "context": CONTEXT}, "ambiguous answer: both output and actual_output"),
    ({"answer": FAITHFUL, "context": CONTEXT, "retrieval_context": CONTEXT}, "ambiguous context: both context and "
                                                                              "retrieval_context"),
    ({"answer": FAITHFUL, "retrieved_context": CONTEXT}, "unknown argument retrieved_context: the court takes "
                                                         "question: question | input | user_input; answer:"),
    ({"answer": FAITHFUL, "context": []}, "the context is an empty list"),
    ({"answer": FAITHFUL, "context": [1962]}, "context must be text"),
    ({"answer": FAITHFUL, "context": {"a": "b"}}, "context must be a string or a list of strings, not dict"),
    ({"answer": FAITHFUL, "context": CONTEXT, "threshold": 48}, "threshold 48: a P(hallucinated) threshold lies in"),
])
def test_a_call_that_names_too_little_or_too_much_is_a_clear_error(court: Court, arguments: dict, message: str) -> None:
    with pytest.raises(MetricArgumentError) as error:
        court.score(**arguments)
    assert message in str(error.value)
    assert isinstance(error.value, TypeError)


def test_positional_arguments_are_refused(court: Court) -> None:
    with pytest.raises(TypeError):
        court.score(QUESTION, FAITHFUL, CONTEXT)  # type: ignore[misc]


def test_ascore_is_the_async_twin(court: Court) -> None:
    result = asyncio.run(court.ascore(input=QUESTION, output=HALLUCINATED, context=CONTEXT))
    assert result.value == pytest.approx(court.score(answer=HALLUCINATED, context=CONTEXT, question=QUESTION).value)
    with pytest.raises(MetricArgumentError, match="no context given"):
        asyncio.run(court.ascore(answer=FAITHFUL))
    with pytest.raises(MetricArgumentError, match="threshold -1"):
        asyncio.run(court.ascore(answer=FAITHFUL, context=CONTEXT, threshold=-1))


def test_a_case_is_named_by_its_content_so_the_same_call_gets_the_same_prompts() -> None:
    one = case_from_arguments({"answer": FAITHFUL, "context": CONTEXT})
    assert one.id == case_from_arguments({"output": FAITHFUL, "context": CONTEXT[0]}).id
    assert one.id != case_from_arguments({"answer": HALLUCINATED, "context": CONTEXT}).id


def answers(n: int) -> list[str]:
    return [f"It was first lit in 1874. It was automated in {1926 if i % 2 else 1962}, and it has {i} rooms."
            for i in range(n)]


def test_concurrent_ascores_are_judged_together_in_lockstep(court: Court) -> None:
    texts = answers(6)
    sequential = [court.score(answer=a, context=CONTEXT) for a in texts]
    backend = court.backend
    backend.batches.clear()

    async def gathered() -> list[Score]:
        return await asyncio.gather(*(court.ascore(answer=a, context=CONTEXT) for a in texts + texts[:2]))
    results = asyncio.run(gathered())
    assert [r.value for r in results] == [r.value for r in sequential + sequential[:2]]
    assert [r.success for r in results[:6]] == [True, False] * 3
    assert max(backend.batches) >= 6  # six cases' calls in one batch (the two repeated ones judged once)


def test_concurrent_scores_from_threads_are_judged_together(court: Court) -> None:
    texts = answers(4)
    sequential = [court.score(answer=a, context=CONTEXT).value for a in texts]
    court.backend.batches.clear()
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda a: court.score(answer=a, context=CONTEXT).value, texts))
    assert values == sequential and max(court.backend.batches) >= 4


def test_a_case_that_fails_fails_its_call_alone() -> None:
    script = CourtScript(grounding={"1926": -1.0}, moves={"prosecutor": ["argue"], "defender": ["concede"]})

    def flaky(request):
        if "it has 1 rooms." in request.messages[-1].content:
            raise RuntimeError("the model fell over")
        return script(request)
    court = load_court("full", ScriptedBackend(flaky, model="scripted"))

    async def gathered() -> list:
        return await asyncio.gather(*(court.ascore(answer=a, context=CONTEXT) for a in answers(3)),
                                    return_exceptions=True)
    ok, failed, also_ok = asyncio.run(gathered())
    assert isinstance(failed, CaseFailedError) and "the model fell over" in str(failed)
    assert ok.success and also_ok.success
    assert court.score(answer=answers(1)[0], context=CONTEXT).success  # the court goes on after a failure


class Unloadable(ScriptedBackend):
    def prepare(self) -> None:
        raise OSError("no weights here")


def test_a_court_whose_model_cannot_load_fails_every_waiting_call_and_recovers(court: Court) -> None:
    broken = load_court("full", Unloadable(lambda request: None, model="scripted"))

    async def gathered() -> list:
        return await asyncio.gather(*(broken.ascore(answer=a, context=CONTEXT) for a in answers(3)),
                                    return_exceptions=True)
    errors = asyncio.run(gathered())
    assert all(isinstance(e, BackendError) and "could not be loaded: OSError: no weights here" in str(e) for e in errors)
    broken.attach(court.backend)  # the model is there now: the next call is judged
    assert broken.score(answer=FAITHFUL, context=CONTEXT).success
