"""What a trial testifies (#51): the `trial` witness, read off the trial's events, in the verdict beside the clerk's
witnesses: the bench's log-odds (a jury's mean and spread), each side's log-odds of holding its side (chosen or
polled), the defence's cited grounding, the rounds; per case, max and mean over the tried charges, and whether any
trial was held. Runs recorded before it replay without it."""

from __future__ import annotations

import math

import pytest

from courtroom.case import Case
from courtroom.court.testimony import TRIAL, log_odds
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.registry import judge_from_config, upgrade_config
from courtroom.evaluate.datasets import example_cases
from courtroom.log.replay import replay
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962."],
            answer="It was first lit in 1874. It was automated in 1926.", label="FAIL")
CHARGES = [{"quote": "It was first lit in 1874.", "reason": "r"}, {"quote": "It was automated in 1926.", "reason": "r"}]
MOVES = {"prosecutor": ["withdraw"], "defender": ["concede"], "judge": ["rule"]}


def trial_values(outcome) -> dict[str, float]:  # noqa: ANN001
    [testimony] = [t for t in outcome.verdict.testimony if t.witness == TRIAL]
    return testimony.values


def tried(script: CourtScript, court: str = "full", **changes: object):  # noqa: ANN201
    overrides = {"trial.charges": "drafted", "trial.personas.clerk": "clerk", "trial.poll_moves": True,
                 "aggregation.by_model": {}, **{k.replace("__", "."): v for k, v in changes.items()}}
    [outcome] = list(load_court(court, ScriptedBackend(script, model="scripted"), overrides=overrides).run_many([CASE]))
    return outcome


def test_each_charge_testifies_and_the_case_takes_max_and_mean() -> None:
    outcome = tried(CourtScript(charges=CHARGES, moves=MOVES, p_hallucinated=[0.2, 0.9], move_p=0.7))
    values = trial_values(outcome)
    bench = sorted(log_odds(p) for p in (0.2, 0.9))
    assert values["held"] == 1.0
    assert values["bench_max"] == pytest.approx(bench[1], abs=1e-6)
    assert values["bench_mean"] == pytest.approx(sum(bench) / 2, abs=1e-6)
    # polled: the prosecutor would withdraw (0.7): it presses at log(0.3/0.7); the defender would concede (0.7)
    assert values["prosecution_max"] == pytest.approx(math.log(0.3 / 0.7), abs=1e-6)
    assert values["defence_mean"] == pytest.approx(math.log(0.7 / 0.3), abs=1e-6)
    assert values["rounds_max"] == 1.0 and values["cited_max"] == 1.0  # the defence cited [1], which exists
    assert "cited_gain_max" not in values  # drafted charges are not measured: no gain to measure against
    assert {t.witness for t in outcome.verdict.testimony} == {TRIAL}  # `full` hears no clerk's witness


def test_a_measured_charge_testifies_how_much_better_the_cited_sentence_grounds_it() -> None:
    script = CourtScript(moves=MOVES, grounding={"1926": -0.4}, cited_grounding={"1926": 0.3}, context_sentences=2)
    overrides = {"trial.poll_moves": True, "aggregation.by_model": {}, "indictment.threshold": 0.0}
    [outcome] = list(load_court("full", ScriptedBackend(script, model="scripted"), overrides=overrides).run_many([CASE]))
    values = trial_values(outcome)
    assert values["cited_gain_max"] == pytest.approx(0.7, abs=0.05)  # [1] grounds "1926" at +0.3, the context at -0.4


def test_a_jury_testifies_its_mean_and_spread() -> None:
    outcome = tried(CourtScript(charges=CHARGES[1:], moves={**MOVES, "judge": ["to_jury"]},
                                p_hallucinated=[0.9, 0.5, 0.1]), court="jury")
    jurors = [log_odds(p) for p in (0.9, 0.5, 0.1)]
    values = trial_values(outcome)
    assert values["bench_mean"] == pytest.approx(sum(jurors) / 3, abs=1e-6)
    assert values["jury_spread_max"] == pytest.approx((sum(j * j for j in jurors) / 3) ** 0.5, abs=1e-6)


def test_a_case_without_a_trial_says_so_and_a_court_that_does_not_testify_says_nothing() -> None:
    outcome = tried(CourtScript(charges=[], moves=MOVES))
    assert trial_values(outcome) == {"held": 0.0}
    silent = tried(CourtScript(charges=CHARGES, moves=MOVES), trial__testify=False)
    assert all(t.witness != TRIAL for t in silent.verdict.testimony)


def test_a_run_recorded_before_the_testimony_replays_without_it() -> None:
    court = load_court("full", ScriptedBackend(PseudoModel()), overrides={"trial.testify": False})
    [outcome] = list(court.run_many(example_cases()[:1]))
    recorded = court.config()
    for key in ("testify", "poll_moves"):
        del recorded["court"]["trial"][key]  # as runs recorded them before #51
    upgraded, applied = upgrade_config(recorded)
    assert upgraded == court.config() and any(name.startswith("court 14") for name in applied)
    assert replay(outcome.events, judge_from_config(upgraded, ScriptedBackend(PseudoModel()))).matches
