"""Looking inside the model's pass at the door: what a request asks to observe, the scripted backend's answer to it,
span means, and recorded calls that did or did not observe."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import pytest
from pydantic import ValidationError

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.observe import TokenIndex, span_means
from courtroom.door.recorded import RecordedCall, RecordedCalls, ReplayBackend, recorded_fields
from courtroom.door.requests import ChatMessage, GenerationRequest, Observation
from courtroom.door.scripted import Scored
from courtroom.errors import BackendError, ReplayMismatch
from tests.helpers.cases import NO_RULING_MODEL

TEXT = "Paris is big. It is old."
SPANS = ((0, 13), (14, 24), (0, 24))
INSIDE = {"lookback": [[[0.5, 0.6]], [[0.2, 0.3]], [[0.4, 0.5]]], "token_lookback": [0.6, 0.5, 0.4, 0.3],
          "hidden": [[[1.0, 2.0]], [[3.0, 4.0]], [[2.0, 3.0]]]}


def request(observe: Observation | None) -> GenerationRequest:
    return GenerationRequest(messages=(ChatMessage(role="user", content="CONTEXT: Paris is big and old."),),
                             output_type=Literal[(TEXT,)], cache_group="c", observe=observe)


def scored(observed: dict | None = None) -> Scored:
    return Scored({TEXT: -4.0}, tokens=[("Paris is", -1.0), (" big.", -1.0), (" It is", -1.0), (" old.", -1.0)],
                  observed=observed)


BOTH = Observation(spans=SPANS, lookback=True, hidden=(0.5,))


def test_an_observation_needs_what_it_asks_for() -> None:
    assert Observation(spans=SPANS).needs == frozenset()
    assert Observation(spans=SPANS, lookback=True).needs == {"attention"}
    assert Observation(spans=SPANS, hidden=(0.5, 1.0)).needs == {"hidden_states"}
    assert BOTH.needs == {"attention", "hidden_states"}
    with pytest.raises(ValidationError):
        Observation(spans=())
    for depth in (0.0, 1.5):
        with pytest.raises(ValidationError):
            Observation(spans=SPANS, hidden=(depth,))
    # words projected onto a direction: only of the words' states, at one depth
    words = Observation(spans=SPANS, hidden=(0.5,), hidden_only=((0, 3),), project_words=(1.0, -1.0))
    assert "project_words" in words.model_dump() and "project_words" not in BOTH.model_dump()  # old records unchanged
    for wrong in ({"hidden": (0.5,)}, {"hidden": (0.5, 1.0), "hidden_only": ((0, 3),)}):
        with pytest.raises(ValidationError, match="project_words needs the words' spans"):
            Observation(spans=SPANS, project_words=(1.0,), **wrong)


def test_token_indices_find_the_tokens_overlapping_a_span() -> None:
    token_indices = TokenIndex([(0, 5), (5, 8), (8, 13), (13, 14), (14, 17)]).within
    assert token_indices(0, 13) == [0, 1, 2]
    assert token_indices(6, 9) == [1, 2]       # partial overlaps count
    assert token_indices(13, 14) == [3]
    assert token_indices(5, 5) == []           # an empty span holds no token
    assert token_indices(20, 30) == [] and TokenIndex([]).within(0, 10) == []


def test_span_means_average_each_spans_tokens_and_fall_back_to_the_first() -> None:
    per_token = [[1.0, 10.0], [3.0, 20.0], [5.0, 30.0]]
    assert span_means(per_token, [[0, 1], [2], []]) == [[2.0, 15.0], [5.0, 30.0], [1.0, 10.0]]
    assert span_means([[0.12345]], [[0]], digits=2) == [[0.12]]


def test_the_scripted_backend_reports_observations_only_when_it_looks_inside() -> None:
    blind = ScriptedBackend([scored(INSIDE)]).generate_one(request(BOTH))
    assert blind.token_logprobs == [-1.0] * 4
    assert blind.lookback is None and blind.token_lookback is None and blind.hidden is None
    seeing = ScriptedBackend([scored(INSIDE)], looks_inside={"attention", "hidden_states"}).generate_one(request(BOTH))
    assert seeing.lookback == INSIDE["lookback"] and seeing.hidden == INSIDE["hidden"]
    assert seeing.token_lookback == INSIDE["token_lookback"] and seeing.token_logprobs == blind.token_logprobs
    # a backend that sees attention only reports attention only
    attention = ScriptedBackend([scored(INSIDE)], looks_inside={"attention"}).generate_one(request(BOTH))
    assert attention.lookback == INSIDE["lookback"] and attention.hidden is None
    # a request that asks nothing gets nothing, whatever the script holds
    plain = ScriptedBackend([scored(INSIDE)], looks_inside={"attention", "hidden_states"}).generate_one(request(None))
    assert plain.lookback is None and plain.hidden is None
    hidden_only = ScriptedBackend([scored(INSIDE)], looks_inside={"attention", "hidden_states"}).generate_one(
        request(Observation(spans=SPANS, hidden=(0.5,))))
    assert hidden_only.hidden == INSIDE["hidden"] and hidden_only.lookback is None


def test_a_script_without_the_observations_asked_for_is_a_bug_in_the_test() -> None:
    backend = ScriptedBackend([scored({"lookback": INSIDE["lookback"]})], looks_inside={"attention"})
    with pytest.raises(BackendError, match=r"no \['token_lookback'\]"):
        backend.generate_one(request(BOTH))
    # a blind backend never reads them
    assert ScriptedBackend([scored()]).generate_one(request(BOTH)).lookback is None


def test_the_pseudo_model_observes_per_span_and_per_token() -> None:
    backend = ScriptedBackend(PseudoModel(), looks_inside={"attention", "hidden_states"})
    response = backend.generate_one(request(BOTH))
    assert len(response.lookback) == len(SPANS) and len(response.hidden) == len(SPANS)
    assert len(response.token_lookback) == len(response.token_logprobs)
    assert all(0 < v < 1 for v in response.token_lookback)


def recorded(observe: Observation | None) -> RecordedCall:
    req = request(observe)
    response = ScriptedBackend([scored(INSIDE)], looks_inside={"attention", "hidden_states"}).generate_one(req)
    return RecordedCall.model_validate(recorded_fields(req, response))


def test_replay_refuses_a_request_that_observes_otherwise_than_the_record() -> None:
    call = recorded(BOTH)
    again = ReplayBackend([call]).generate_one(request(BOTH))
    assert again.lookback == INSIDE["lookback"] and again.hidden == INSIDE["hidden"]
    for other in (None, Observation(spans=SPANS, lookback=True), Observation(spans=SPANS[:2], lookback=True,
                                                                              hidden=(0.5,))):
        with pytest.raises(ReplayMismatch, match="observe inside the model differs from the record"):
            ReplayBackend([call]).generate_one(request(other))
    with pytest.raises(ReplayMismatch, match="observe"):
        ReplayBackend([recorded(None)]).generate_one(request(BOTH))


def test_recorded_calls_serve_a_request_that_observes_more_than_the_record_without_the_observations() -> None:
    served = RecordedCalls([recorded(None)]).generate_one(request(BOTH))
    assert served.token_logprobs == [-1.0] * 4 and served.lookback is None and served.hidden is None
    # and a recorded observation is served to a request that asks for none (a court with fewer witnesses)
    assert RecordedCalls([recorded(BOTH)]).generate_one(request(None)).token_logprobs == [-1.0] * 4


def test_a_recorded_call_keeps_its_observations_through_json() -> None:
    call = recorded(BOTH)
    again = RecordedCall.model_validate_json(call.model_dump_json())
    assert again.observe == BOTH and again.lookback == INSIDE["lookback"] and again.hidden == INSIDE["hidden"]
    blind = recorded(None)
    assert "observe" not in blind.model_dump() and "lookback" not in blind.model_dump()


def test_an_older_run_rejudged_by_a_court_with_more_witnesses_records_them_not_heard(tmp_path: Path) -> None:
    from courtroom.courts import courts_dir
    from courtroom.engine.events import VerdictEvent
    from courtroom.engine.registry import JudgeSpec
    from courtroom.log.audit import Audit
    from courtroom.log.manifest import RunSpec
    from courtroom.log.rejudge import rejudge_run
    from courtroom.runs.runners import LocalRunner
    from courtroom.runs.start import start_run

    shipped = (courts_dir() / "default.yaml").read_text()
    heard = "heard: [grounding, lookback, hidden, figures, names, polarity, overlap, verdict]"
    older = tmp_path / "older.yaml"
    shipped = re.sub(r"\n  rulings:\n(    .*\n)+", "\n", shipped)  # its rulings weigh witnesses this court drops
    older.write_text(shipped.replace(heard, "heard: [grounding, figures, names, polarity, overlap, verdict]"))
    spec = RunSpec.build("examples", judge="courtroom", court=str(older), limit=4, model=NO_RULING_MODEL)
    run = start_run(spec, tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="pseudo",
                                                   looks_inside={"attention", "hidden_states"})))
    run.close()
    before = {r.case_id: r for r in Audit(tmp_path / "run").rows()}
    rejudge_run(tmp_path / "run", tmp_path / "again", judge=JudgeSpec(court="default"))
    audit = Audit(tmp_path / "again")
    assert len(audit.rows()) == len(before) == 4
    for row in audit.rows():
        [verdict] = [e.verdict for e in audit.events(row.case_id) if isinstance(e, VerdictEvent)]
        testimony = {t.witness: t for t in verdict.testimony}
        for name in ("lookback", "hidden"):
            assert not testimony[name].heard and "reports no" in testimony[name].why_not and not testimony[name].values
        assert testimony["figures"].heard and testimony["grounding"].heard
        assert (row.label, row.score) == (before[row.case_id].label, before[row.case_id].score)  # no ruling: as before



def test_a_run_that_looked_inside_replays_call_for_call(tmp_path: Path) -> None:
    from courtroom.log.audit import Audit
    from courtroom.log.manifest import RunSpec
    from courtroom.log.verify import verify
    from courtroom.runs.runners import LocalRunner
    from courtroom.runs.start import start_run

    run = start_run(RunSpec.build("examples", judge="courtroom", court="default", limit=3, model=NO_RULING_MODEL),
                    tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="pseudo",
                                                   looks_inside={"attention", "hidden_states"})))
    run.close()
    assert verify(Audit(tmp_path / "run")) == []
    # the transcript keeps what each call asked to observe, and what it saw
    text = next((tmp_path / "run" / "transcripts").glob("*.jsonl")).read_text()
    assert '"observe"' in text and '"lookback"' in text and '"hidden"' in text
