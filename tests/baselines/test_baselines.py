"""The baselines on the scripted backend: what each asks the model, and how its answers become a verdict."""

from __future__ import annotations

import pytest

from courtroom.baselines import (
    Candidates,
    CandidateScore,
    PerContextJudge,
    RailsJudge,
    SingleJudge,
    TwoStepJudge,
    UnstructuredJudge,
    VoteJudge,
    read_leniently,
)
from courtroom.case import Case
from courtroom.door import ScriptedBackend, Unparseable
from courtroom.door.requests import GenerationRequest
from courtroom.errors import ConfigError

CASE = Case(id="b1", question="When was the lighthouse automated?",
            context=["The lighthouse was first lit in 1874.", "It was automated in 1962."],
            answer="It was first lit in 1874 and automated in 1926.", label="FAIL")


def task_of(request: GenerationRequest) -> str:
    return request.messages[-1].content


def test_single_judge_labels_by_its_score_threshold() -> None:
    backend = ScriptedBackend([{"reasons": ["1926 is not in the context"], "score": 0.7},
                               {"reasons": [], "score": 0.3}])
    judge = SingleJudge(backend)
    hallucinated, faithful = judge.judge_many([CASE, CASE.model_copy(update={"id": "b2"})])
    assert (hallucinated.label, hallucinated.score, hallucinated.reason) == ("FAIL", 0.7, "1926 is not in the context")
    assert (faithful.label, faithful.reason) == ("PASS", "no reason given")


def test_rails_scores_by_the_probability_of_hallucinated() -> None:
    backend = ScriptedBackend([{"factual": 0.35, "hallucinated": 0.65}])
    verdict = RailsJudge(backend).judge(CASE)
    assert verdict.label == "FAIL" and verdict.score == pytest.approx(0.65)
    [request] = backend.calls
    assert request.spec.options == ("factual", "hallucinated")


def test_two_step_asks_for_candidates_and_stops_at_the_first_hallucinated_one() -> None:
    candidates = {"potential_hallucinations": [
        {"statement": "first lit in 1874", "reasoning": "check the year"},
        {"statement": "automated in 1926", "reasoning": "the context says 1962"},
        {"statement": "It was", "reasoning": "vague"}]}
    backend = ScriptedBackend([candidates, {"reason": "stated in the context", "score": 0.1},
                               {"reason": "the context says 1962", "score": 0.9}])
    verdict = TwoStepJudge(backend).judge(CASE)
    assert verdict.label == "FAIL" and verdict.score == 0.9
    assert "automated in 1926" in verdict.reason
    extract, *scores = backend.calls
    assert extract.output_type is Candidates and len(scores) == 2  # the third candidate is never scored
    assert "STATEMENT: automated in 1926" in task_of(scores[1])
    assert all(call.output_type is CandidateScore for call in scores)


def test_two_step_must_name_a_candidate_and_passes_when_none_is_hallucinated() -> None:
    assert Candidates.model_json_schema()["properties"]["potential_hallucinations"]["minItems"] == 1
    backend = ScriptedBackend([{"potential_hallucinations": [{"statement": "a", "reasoning": "b"},
                                                             {"statement": "c", "reasoning": "d"}]},
                               {"reason": "supported", "score": 0.2}, {"reason": "supported", "score": 0.4}])
    verdict = TwoStepJudge(backend).judge(CASE)
    assert verdict.label == "PASS" and verdict.score == 0.4 and '"c"' in verdict.reason


def test_per_context_labels_by_the_share_of_contradicted_passages() -> None:
    backend = ScriptedBackend([{"yes": 0.2, "no": 0.8}, {"yes": 0.6, "no": 0.4}])
    verdict = PerContextJudge(backend).judge(CASE)
    # DeepEval: 1 of 2 passages contradicted is a share of 0.5, not above the threshold 0.5; the mean
    # P(contradicted), 0.6, is the score that ranks cases
    assert verdict.score == pytest.approx(0.6) and verdict.label == "PASS"
    assert "1 of 2 context passages" in verdict.reason
    assert [c.cache_group for c in backend.calls] == ["b1", "b1"]
    assert "PASSAGE: It was automated in 1962." in task_of(backend.calls[1])
    stricter = PerContextJudge(ScriptedBackend([{"yes": 0.2, "no": 0.8}, {"yes": 0.6, "no": 0.4}]), threshold=0.4)
    assert stricter.judge(CASE).label == "FAIL"


def test_per_context_does_not_ask_about_blank_passages() -> None:
    backend = ScriptedBackend([{"yes": 0.1, "no": 0.9}])
    verdict = PerContextJudge(backend).judge(CASE.model_copy(update={"context": ["It was automated in 1962.", "  "]}))
    assert len(backend.calls) == 1 and verdict.label == "FAIL" and "1 of 1 context passages" in verdict.reason


def test_judging_settings_that_would_judge_nothing_are_refused() -> None:
    from courtroom.errors import ConfigError

    with pytest.raises(ConfigError, match="window 0"):
        RailsJudge(ScriptedBackend([]), window=0)
    with pytest.raises(ConfigError, match="votes 0"):
        VoteJudge(ScriptedBackend([]), votes=0)
    with pytest.raises(ConfigError, match=r"distinct ids .*\['b1'\]"):
        RailsJudge(ScriptedBackend([])).judge_many([CASE, CASE])


def test_vote_takes_the_majority_of_sampled_judges_with_distinct_seeds() -> None:
    scores = [0.9, 0.8, 0.2, 0.1, 0.6]
    backend = ScriptedBackend([{"reasons": [], "score": s} for s in scores])
    verdict = VoteJudge(backend, votes=5).judge(CASE)
    assert verdict.label == "FAIL" and verdict.score == pytest.approx(sum(scores) / 5)
    assert backend.batches == [5]  # the votes go out as one batch
    assert sorted(c.sampling.seed for c in backend.calls) == [0, 1, 2, 3, 4]
    assert all(c.sampling.temperature == 0.7 for c in backend.calls)


def test_a_failed_voter_is_left_out_of_the_count_and_said_so() -> None:
    from courtroom.door import Truncated

    backend = ScriptedBackend([{"reasons": [], "score": 0.9}, Truncated(), {"reasons": [], "score": 0.2},
                               {"reasons": [], "score": 0.8}])
    verdict = VoteJudge(backend, votes=4).judge(CASE)
    assert verdict.label == "FAIL" and verdict.score == pytest.approx((0.9 + 0.2 + 0.8) / 3)
    assert "2 of 3 sampled judges" in verdict.reason and "1 voters failed" in verdict.reason
    [outcome] = list(VoteJudge(ScriptedBackend([Truncated(), Truncated()]), votes=2).run_many([CASE]))
    assert outcome.verdict is None and outcome.error_type == "TruncatedGenerationError"


FENCED = '```json\n{"reasons": ["' + "1926 is not in the context. " * 12 + '"], "score": 0.9}\n```'


def test_lenient_reading_forgives_what_peer_parsers_forgive() -> None:
    assert read_leniently(FENCED) == (0.9, ["1926 is not in the context. " * 12])
    assert read_leniently('Verdict: {"score": 1, "reasons": "made up"} Hope this helps {"x": 1}') == (1.0, ["made up"])
    assert read_leniently('{"note": {"score": 0.2}} then {"score": 0.7}') == (0.7, [])  # first object with a score
    for unreadable in ('{"reasons": ["cut off', '{"score": 1.5}', '{"score": "high"}', '{"score": true}', "no json"):
        assert read_leniently(unreadable) is None, unreadable


def test_unstructured_judge_reads_strictly_or_leniently() -> None:
    replies = [Unparseable(FENCED), Unparseable("I cannot tell."), '{"reasons": [], "score": 0.0}']
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(3)]
    strict = UnstructuredJudge(ScriptedBackend(list(replies))).judge_many(cases)
    lenient = UnstructuredJudge(ScriptedBackend(list(replies)), reading="lenient").judge_many(cases)
    assert [v.parse_failures for v in strict] == [1, 1, 0] and [v.label for v in strict] == ["PASS"] * 3
    assert [v.parse_failures for v in lenient] == [0, 1, 0] and [v.label for v in lenient] == ["FAIL", "PASS", "PASS"]
    assert lenient[0].score == 0.9
    # strict runs keep the configuration they had before lenient reading existed
    assert "reading" not in UnstructuredJudge().options() and UnstructuredJudge(reading="lenient").options()["reading"]
    with pytest.raises(ConfigError, match="strict or lenient"):
        UnstructuredJudge(reading="loose")


def test_unstructured_judge_counts_a_parse_failure_as_faithful() -> None:
    backend = ScriptedBackend([Unparseable(), '{"reasons": ["1926"], "score": 1.0}'])
    broken, parsed = UnstructuredJudge(backend).judge_many([CASE, CASE.model_copy(update={"id": "b2"})])
    assert broken.parse_failures == 1 and broken.label == "PASS" and "unparseable" in broken.reason
    assert parsed.parse_failures == 0 and parsed.label == "FAIL"
    assert not any(call.constrained for call in backend.calls)


def test_a_failing_batch_of_one_case_is_not_asked_again() -> None:
    from courtroom.errors import BackendError

    backend = ScriptedBackend(lambda request: BackendError("CUDA out of memory"))
    [outcome] = list(RailsJudge(backend).run_many([CASE]))
    assert outcome.error_type == "BackendError" and len(backend.calls) == 1
