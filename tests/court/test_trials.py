"""Trials that happen (#44): rounds of exchange before anyone may give up, arguments of whole sentences, a blind judge,
sides polled where the rules force their move (#51); and
every trial of a shipped debate court ends with a ruling after an exchange (or a concession after it)."""

from __future__ import annotations

import pytest

from courtroom.case import Case
from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962."],
            answer="It was automated in 1926.", label="FAIL")
CHARGE = {"quote": "It was automated in 1926.", "reason": "the context says 1962"}


def court(script: CourtScript, **changes: object) -> tuple[Court, ScriptedBackend]:
    """The full court on the scripted backend, its charges drafted, its rulings the court's own verdict, and up to 3
    rounds (the shipped court holds one), so the rounds after the exchange are tested."""
    backend = ScriptedBackend(script, model="scripted")
    overrides = {"trial.charges": "drafted", "trial.personas.clerk": "clerk", "trial.judge_weight": 1.0,
                 "trial.max_rounds": 3, "aggregation.by_model": {},
                 **{k.replace("__", "."): v for k, v in changes.items()}}
    return load_court("full", backend, overrides=overrides), backend


def moves(outcome) -> list:  # noqa: ANN001
    return [e for e in outcome.events if e.event == "move"]


def test_no_side_may_give_up_in_the_rounds_of_exchange() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["withdraw"], "defender": ["concede"],
                                                  "judge": ["next_round", "rule"]})
    [outcome] = list(court(script, trial__exchange_rounds=1)[0].run_many([CASE]))
    made = [(m.round, m.role, m.move, m.forced) for m in moves(outcome)]
    assert made[:3] == [(1, "prosecutor", "argue", True), (1, "defender", "rebut", True), (1, "judge", "next_round",
                                                                                         False)]
    assert made[3] == (2, "prosecutor", "withdraw", False)  # after the exchange, a withdrawal is legal again
    [ruling] = outcome.verdict.rulings
    assert ruling.source == "withdrawn" and ruling.rounds == 2
    without = list(court(CourtScript(charges=[CHARGE], moves={"prosecutor": ["withdraw"]}),
                         trial__exchange_rounds=0)[0].run_many([CASE]))
    assert [(m.round, m.move) for m in moves(without[0])] == [(1, "withdraw")]  # today's court: gone on move one


def test_an_exchange_as_long_as_the_trial_leaves_the_ruling_to_the_judge() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["withdraw"], "defender": ["concede"],
                                                  "judge": ["next_round"]})
    [outcome] = list(court(script, trial__exchange_rounds=3)[0].run_many([CASE]))
    assert {m.move for m in moves(outcome)} <= {"argue", "rebut", "next_round", "rule"}
    assert [m.move for m in moves(outcome)][-1] == "rule" and outcome.verdict.rulings[0].source == "judge"








def test_a_blind_judge_reads_no_context_but_the_debaters_do() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                         sentence_grounding={"1962": 1.0, "1874": -1.0})
    c, backend = court(script, trial__blind_judge=True)
    [outcome] = list(c.run_many([CASE]))
    assert outcome.verdict.rulings[0].source == "judge"
    defence = next(m for m in moves(outcome) if m.role == "defender")
    assert defence.grounds.sentence == 2 and "It was automated in 1962" in defence.payload["argument"]
    judge = [r.messages[-1].content for r in backend.calls if "ANSWER UNDER JUDGMENT" in r.messages[-1].content
             and ("rule on" in r.messages[-1].content or "Give your verdict" in r.messages[-1].content)]
    read = [r.messages[-1].content for r in backend.calls if r.spec.kind == "choice" and len(r.spec.options) == 1]
    assert judge and all("CONTEXT:" not in p and "first lit in 1874" not in p for p in judge)
    assert all("Sentence 2 states it." in p and "automated in 1962" not in p for p in judge)  # cited by number alone
    assert any("CONTEXT:\n[2] It was automated in 1962." in p for p in read)  # the sides' pieces: off the context


def test_a_polled_side_says_what_it_would_have_done_and_the_forced_move_stands() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["withdraw"], "defender": ["concede"],
                                                  "judge": ["rule"]}, move_p=0.8)
    c, backend = court(script, trial__exchange_rounds=1, trial__max_rounds=1, trial__poll_moves=True)
    [outcome] = list(c.run_many([CASE]))
    made = {m.role: m for m in moves(outcome)}
    assert [m.move for m in moves(outcome)] == ["argue", "rebut", "rule"] and all(m.forced for m in made.values())
    assert made["prosecutor"].polled_probs == pytest.approx({"withdraw": 0.8, "argue": 0.2})
    assert made["defender"].polled_probs == pytest.approx({"concede": 0.8, "rebut": 0.2})
    assert made["judge"].polled_probs is None  # the bench is not a side: its ruling is its opinion
    polls = [e for e in outcome.events if e.event == "model_call" and e.purpose == "poll"]
    assert {e.role for e in polls} == {"prosecutor", "defender"}
    unpolled = list(court(script, trial__exchange_rounds=1, trial__max_rounds=1)[0].run_many([CASE]))
    assert not any(e.event == "model_call" and e.purpose == "poll" for e in unpolled[0].events)
    assert court(script)[0].config()["court"]["trial"]["poll_moves"] is False  # recorded at every value
