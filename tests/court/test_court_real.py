"""The court end to end on the real default model: a shipped example case, replay, and injection."""

from __future__ import annotations

import pytest

from courtroom.court import Court
from courtroom.courts import court_from_config, load_court
from courtroom.door.panel import Panel
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import parse_event
from courtroom.evaluate.datasets import example_cases
from courtroom.log.replay import replay
from tests.helpers.cases import INJECTED

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def court(real_backend) -> Court:
    return load_court("full", real_backend)


def test_a_shipped_case_end_to_end(court: Court) -> None:
    case = next(c for c in example_cases() if c.id == "example-revenue-margin")
    [outcome] = list(court.run_many([case]))
    assert outcome.ok, outcome.error
    verdict = outcome.verdict
    assert verdict.label in ("PASS", "FAIL") and 0.0 <= verdict.score <= 1.0 and verdict.reason
    calls = [e for e in outcome.events if e.event == "model_call"]
    assert calls and all(c.error is None for c in calls)
    for event in outcome.events:  # every event round-trips through the published schema
        assert parse_event(event.model_dump_json()) == event
    result = replay(outcome.events, court_from_config(court.config()))
    assert result.matches, result.differences
    assert result.verdict == verdict


def test_injection_cannot_break_a_turn_on_the_real_model(court: Court) -> None:
    [outcome] = list(court.run_many([INJECTED]))
    assert outcome.ok, outcome.error
    for event in outcome.events:
        if event.event == "model_call":
            assert event.error is None  # every turn parsed under its own schema
        if event.event == "move":
            legal = {e.move for e in court.procedure.moves(event.node)}
            assert event.move in legal
    assert outcome.verdict.label in ("PASS", "FAIL")


def test_the_shipped_ruling_weighs_the_witnesses_and_points_at_words_on_the_real_model(real_backend) -> None:
    # the shipped SmolLM2 ruling decides and its span model points at words; every answer is found hallucinated
    # (thresholds 0) so the spans are always given
    court = load_court("default", real_backend, overrides={
        "indictment.threshold": 0.0, "aggregation.threshold": 0.0,
        "witnesses.rulings": {"default": "rulings/default.smollm2-135m.yaml"}})
    assert court.ruling is not None and court.ruling.court == "default"
    cases = [c for c in example_cases() if c.label == "FAIL"][:3]
    outcomes = list(court.run_many(cases))
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    for outcome in outcomes:
        assert outcome.verdict.weighing is not None and outcome.verdict.testimony
        for span in outcome.verdict.spans:
            assert outcome.case.answer[span.start:span.end] == span.text
        result = replay(outcome.events, court_from_config(court.config()))
        assert result.matches, result.differences
        assert result.verdict == outcome.verdict


def test_a_judge_seated_on_another_model_speaks_through_it_on_the_real_model(real_backend) -> None:
    """The debaters on the run's model, the judge on a second model loaded beside it (`trial.models`): every call of
    the judge goes to the judge's door, the others to the run's, and the transcript replays."""
    court = load_court("full", BackendSpec(model="default", device="cpu"),
                       overrides={"trial.models.judge": "smollm2-135m", "max_charges": 1})
    court.attach(real_backend)
    case = next(c for c in example_cases() if c.id == "example-lighthouse-automated")  # a charge is tried
    [outcome] = list(court.run_many([case]))
    assert outcome.ok, outcome.error
    panel = court.backend
    assert isinstance(panel, Panel) and panel.main is real_backend
    assert panel.seats["smollm2-135m"].loaded.model is not real_backend.loaded.model  # a model of its own
    calls = [e for e in outcome.events if e.event == "model_call"]
    judged = [e for e in calls if e.role == "judge"]
    assert judged and {e.seat for e in judged} == {"smollm2-135m"}
    assert {e.seat for e in calls if e.role != "judge"} == {None}
    result = replay(outcome.events, court_from_config(court.config(), BackendSpec(model="default")))
    assert result.matches, result.differences


STATED_IN = {"example-lighthouse-year": 2, "example-bakery-hours": 1, "example-enzyme-temperature": 2,
             "example-revenue-growth": 1, "example-river-length": 1, "example-drug-dose": 1,
             "example-library-founder": 1, "example-router-reset": 1, "example-festival-dates": 1,
             "example-orbit-period": 1}
"""The context sentence that states each faithful shipped example's answer (read by a person)."""


def test_the_defender_of_a_faithful_example_cites_the_sentence_that_states_it_on_the_real_model(real_backend) -> None:
    court = load_court("full", real_backend, overrides={"indictment.threshold": 0.0})
    cases = [c for c in example_cases() if c.id in STATED_IN]
    cited = {}
    for outcome in court.run_many(cases):
        assert outcome.ok, outcome.error
        moves = [e for e in outcome.events if e.event == "move"]
        cited[outcome.case.id] = next(m.grounds.sentence for m in moves if m.role == "defender")
        assert all(m.grounds.verified for m in moves if m.grounds is not None)
        texts = [" ".join(map(str, m.payload.values())) for m in moves]
        assert len(set(texts)) == len(texts)  # no two roles share a text
    assert cited == STATED_IN
