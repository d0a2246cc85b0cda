"""Trials that happen (#44): rounds of exchange before anyone may give up, statements written before the move and
their quotes checked, a stance check that counts the moves that disagree with their statement, a blind judge; and
every trial of a shipped debate court ends with a ruling after an exchange (or a concession after it)."""

from __future__ import annotations

import re

import pytest

from courtroom.case import Case
from courtroom.court import Court
from courtroom.court.moves import Statement
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.evaluate.datasets import example_cases
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
    return Court.load("full", backend, overrides=overrides), backend


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


def test_a_statement_comes_before_the_move_and_its_quote_is_checked() -> None:
    statements = {"prosecutor": [{"evidence": 2, "quote": "automated in 1962",
                                  "argument": "The context says 1962. The answer says 1926."}],
                  "defender": [{"evidence": 1, "quote": "automated in 1926", "argument": "The answer is right."}]}
    script = CourtScript(charges=[CHARGE], statements=statements, stance={"1962": 0.1, "right": 0.9},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    c, backend = court(script, trial__turns="statement-first", trial__exchange_rounds=1)
    [outcome] = list(c.run_many([CASE]))
    prosecution, defence, bench = moves(outcome)
    assert prosecution.payload == statements["prosecutor"][0] and prosecution.quote_verified is True
    assert prosecution.finding == "the quote is in [2]" and prosecution.stance == pytest.approx(0.1)
    assert prosecution.agrees is True  # it argues, and its statement says the context does not support the charge
    assert defence.quote_verified is False and defence.finding == "the quote is not in [1]" and defence.agrees is True
    assert bench.stance is None and bench.agrees is None  # the judge takes no side
    assert script.seen.index("statement:prosecutor") < script.seen.index("stance")
    judge_prompt = next(r.messages[-1].content for r in backend.calls if "Your legal moves" in r.messages[-1].content)
    assert 'quoting "automated in 1962"; The context says 1962.' in judge_prompt
    assert "the court finds the quote is not in [1]" in judge_prompt  # every reader sees the court's check


def test_a_move_that_gives_up_against_its_statement_is_counted_as_disagreeing() -> None:
    statements = {"prosecutor": [{"evidence": 2, "quote": "", "argument": "The context contradicts the statement."}]}
    script = CourtScript(charges=[CHARGE], statements=statements, stance={"contradicts": 0.05},
                         moves={"prosecutor": ["withdraw"]})
    [outcome] = list(court(script, trial__turns="statement-first", trial__exchange_rounds=0)[0].run_many([CASE]))
    [withdrawal] = moves(outcome)
    assert withdrawal.move == "withdraw" and withdrawal.agrees is False  # the 0.5B prosecutor's case, now recorded


def test_the_move_is_chosen_having_read_the_statement() -> None:
    statements = {"prosecutor": [{"evidence": 0, "quote": "", "argument": "Nothing in the context says 1926."}]}
    script = CourtScript(charges=[CHARGE], statements=statements, moves={"prosecutor": ["argue"],
                                                                          "defender": ["concede"]})
    c, backend = court(script, trial__turns="statement-first", trial__exchange_rounds=0)
    list(c.run_many([CASE]))
    chooses = [r.messages[-1].content for r in backend.calls if r.spec.kind == "choice"
               and set(r.spec.options) == {"argue", "withdraw"}]
    assert chooses and chooses[0].endswith("Answer with the name of one move.")
    assert 'You stated: "Nothing in the context says 1926."' in chooses[0]


def test_a_blind_judge_reads_no_context_but_the_debaters_do() -> None:
    statements = {"prosecutor": [{"evidence": 2, "quote": "automated in 1962", "argument": "The context says 1962."}]}
    script = CourtScript(charges=[CHARGE], statements=statements,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    c, backend = court(script, trial__turns="statement-first", trial__blind_judge=True)
    [outcome] = list(c.run_many([CASE]))
    assert outcome.verdict.rulings[0].source == "judge"
    judge = [r.messages[-1].content for r in backend.calls if "ANSWER UNDER JUDGMENT" in r.messages[-1].content
             and ("rule on" in r.messages[-1].content or "Give your verdict" in r.messages[-1].content)]
    others = [r.messages[-1].content for r in backend.calls if "It is your turn as prosecutor" in r.messages[-1].content]
    assert judge and all("CONTEXT:" not in p and "first lit in 1874" not in p for p in judge)
    assert all("citing [2]" in p and 'quoting "automated in 1962"' in p for p in judge)
    assert others and all("CONTEXT:" in p for p in others)
    assert len(judge[-1]) < len(others[0]) + 200  # short: no context


@pytest.mark.parametrize("argument", ["The context says 1962.", "It grew 3.5% in 2019. The context agrees. Both say so.",
                                      "(Sentence [2]) states 1962!"])
def test_an_argument_is_one_to_three_whole_sentences(argument: str) -> None:
    assert Statement(evidence=1, quote="", argument=argument).argument == argument


@pytest.mark.parametrize("argument", ["", "x", "The context contradi", "One. Two. Three. Four.", "lower case start.",
                                      "A sentence " + "very " * 40 + "long.", "1.1.1.1.1.1.1.1.",
                                      "The court will review the evidence in-.", "Too short.",
                                      'The "quoted" word breaks JSON.', "The context  says it."])
def test_an_argument_that_is_empty_cut_or_unbounded_is_not_one(argument: str) -> None:
    with pytest.raises(ValueError):
        Statement(evidence=1, quote="", argument=argument)


@pytest.mark.parametrize("name", ["full", "jury", "cross_examination", "escalated", "evidence"])
def test_every_trial_of_a_shipped_debate_court_ends_with_a_ruling_after_an_exchange(name: str) -> None:
    court = Court.load(name, ScriptedBackend(PseudoModel(), model="default"))
    assert court.spec.trial.exchange_rounds >= 1
    ended = 0
    for outcome in court.run_many(example_cases()):
        for ruling in outcome.verdict.rulings:
            if ruling.source == "measurement":  # outside the escalation band: not tried
                continue
            ended += 1
            assert ruling.source in ("judge", "jury") or ruling.rounds > court.spec.trial.exchange_rounds, ruling
            for move in (e for e in outcome.events if e.event == "move" and e.round == 1):
                assert move.move not in ("withdraw", "concede")
    assert ended or name == "escalated"


def test_the_record_never_cuts_an_argument_mid_word() -> None:
    court = Court.load("full", ScriptedBackend(PseudoModel(), model="default"),
                       overrides={"trial.turns": "statement-first"})
    arguments = [e.payload["argument"] for o in court.run_many(example_cases()[:6]) for e in o.events
                 if e.event == "move" and "argument" in e.payload and "quote" in e.payload]
    assert arguments and all(re.fullmatch(r"[A-Z0-9\"'(].*[.!?]", a) for a in arguments)


def test_a_judge_who_states_first_is_quoted_in_its_ruling_as_one_who_moves_first() -> None:
    """A sighted judge in a court of statement-first turns writes a statement, not a ruling reason: its argument is
    the ruling's words (they were dropped, the ruling's reason quoting nothing)."""
    statements = {"prosecutor": [{"evidence": 2, "quote": "automated in 1962", "argument": "The context says 1962."}],
                  "defender": [{"evidence": 1, "quote": "", "argument": "The answer is right."}],
                  "judge": [{"evidence": 2, "quote": "automated in 1962", "argument": "The context says 1962, not 1926."}]}
    script = CourtScript(charges=[CHARGE], statements=statements,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    [outcome] = list(court(script, trial__turns="statement-first", trial__exchange_rounds=1)[0].run_many([CASE]))
    [ruling] = outcome.verdict.rulings
    assert ruling.source == "judge" and '"The context says 1962, not 1926."' in ruling.reason


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
    assert "poll_moves" not in court(script)[0].config()["court"]["trial"]  # off: recorded courts are unchanged
