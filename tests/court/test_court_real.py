"""The court end to end on the real default model: a shipped example case, replay, and injection."""

from __future__ import annotations

import pytest

from courtroom.court import Court
from courtroom.engine.events import parse_event
from courtroom.evaluate.datasets import example_cases
from courtroom.log.replay import replay
from tests.helpers.cases import INJECTED

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def court(real_backend) -> Court:
    return Court.load("full", real_backend)


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
    result = replay(outcome.events, Court.from_config(court.config()))
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
