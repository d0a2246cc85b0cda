"""Each role may speak through its own model (`trial.models`, #44): the panel of doors sends every call to its seat's
model, a call for a seat without a door fails instead of reaching another model, transcripts name each call's seat
and replay with it, and a jury may sit on different models."""

from __future__ import annotations

from typing import Literal

import pytest

from courtroom.case import Case
from courtroom.court import Court
from courtroom.courts import court_from_config, load_court
from courtroom.door import ScriptedBackend
from courtroom.door.panel import Panel
from courtroom.door.requests import ChatMessage, GenerationRequest, message_hash
from courtroom.door.spec import BackendSpec
from courtroom.errors import ConfigError, CourtError, ModelNotFoundError, ReplayMismatch
from courtroom.log.replay import replay
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962."],
            answer="It was automated in 1926.", label="FAIL")
CHARGE = {"quote": "It was automated in 1926.", "reason": "the context says 1962"}
MOVES = {"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}


def court(name: str = "full", **models: object) -> Court:
    overrides = {"trial.charges": "drafted", "trial.personas.clerk": "clerk", "trial.judge_weight": 1.0,
                 "aggregation.by_model": {}, **{f"trial.models.{role}": model for role, model in models.items()}}
    return load_court(name, BackendSpec(model="debaters"), overrides=overrides)


def doors(judge_p: float = 0.1) -> tuple[ScriptedBackend, ScriptedBackend]:
    """The debaters' model (which would find the charge hallucinated) and the judge's (which finds it supported)."""
    return (ScriptedBackend(CourtScript(charges=[CHARGE], moves=MOVES, p_hallucinated=0.9), model="debaters"),
            ScriptedBackend(CourtScript(charges=[CHARGE], moves=MOVES, p_hallucinated=judge_p), model="judge-model"))


def test_the_judges_calls_go_to_the_judges_model_and_no_other() -> None:
    c = court(judge="judge-model")
    debaters, judges = doors()
    [outcome] = list(c.run_many([CASE], Panel(debaters, {"judge-model": judges})))
    calls = [e for e in outcome.events if e.event == "model_call"]
    assert {e.seat for e in calls if e.role == "judge"} == {"judge-model"}
    assert {e.seat for e in calls if e.role != "judge"} == {None}
    judge_prompts = {e.messages[-1] for e in calls if e.role == "judge"}
    assert len(judges.calls) == len([e for e in calls if e.role == "judge"]) > 0
    assert len(debaters.calls) + len(judges.calls) == len(calls)
    assert not any(message_hash(r.messages[-1]) in judge_prompts for r in debaters.calls)  # none reached the debaters
    assert outcome.verdict.rulings[0].source == "judge" and outcome.verdict.score == pytest.approx(0.1)


def test_a_call_for_a_seat_the_panel_has_no_model_for_fails_the_case() -> None:
    c = court(judge="judge-model")
    debaters, judges = doors()
    [outcome] = list(c.run_many([CASE], Panel(debaters, {"someone-else": judges})))
    assert outcome.verdict is None and "seat 'judge-model'" in outcome.error


def test_a_seated_transcript_replays_and_a_replay_against_other_seats_is_refused() -> None:
    c = court(judge="judge-model")
    debaters, judges = doors()
    [outcome] = list(c.run_many([CASE], Panel(debaters, {"judge-model": judges})))
    again = replay(outcome.events, court_from_config(c.config(), BackendSpec(model="debaters")))
    assert again.matches and again.verdict.score == outcome.verdict.score
    same_model = court()  # the same court with the judge on the debaters' model: its calls go elsewhere
    other = replay(outcome.events, same_model, config_hash=c.config_hash())
    [error] = [e for e in other.events if e.event == "error"]
    assert not other.matches and error.error_type == ReplayMismatch.__name__
    assert "goes to the run's model, the record's went to seat 'judge-model'" in error.message


def test_a_jury_of_three_models_votes_each_through_its_own() -> None:
    c = court("jury", jury=["a", "b", "c"])
    main = ScriptedBackend(CourtScript(charges=[CHARGE], moves={**MOVES, "judge": ["call_jury"]}), model="debaters")
    jurors = {key: ScriptedBackend(CourtScript(charges=[CHARGE], p_hallucinated=p), model=key)
              for key, p in (("a", 0.9), ("b", 0.8), ("c", 0.1))}
    [outcome] = list(c.run_many([CASE], Panel(main, jurors)))
    assert outcome.verdict is not None, outcome.error
    assert [len(jurors[k].calls) for k in "abc"] == [1, 1, 1]
    assert outcome.verdict.rulings[0].source == "jury"
    assert "2 of 3 jurors voted hallucinated" in outcome.verdict.rulings[0].reason


def test_a_seated_court_given_a_door_of_one_model_builds_its_seats_and_never_lets_that_door_answer_for_them() -> None:
    c = court(judge="judge-model")
    debaters, _ = doors()
    with pytest.raises(ModelNotFoundError, match="unknown model 'judge-model'"):  # looked for, not answered for
        list(c.run_many([CASE], debaters))
    request = GenerationRequest(messages=(ChatMessage(role="user", content="Rule."),), output_type=Literal["a", "b"],
                                seat="judge-model")
    with pytest.raises(ConfigError, match="a request for seat 'judge-model' reached the door of one model"):
        debaters.generate([request])


def test_seats_are_built_beside_the_runs_model_and_one_naming_it_is_the_runs() -> None:
    c = court(judge="judge-model", prosecutor="debaters",
              defender={"model": "served-one", "url": "http://127.0.0.1:9/v1", "gpus": 0.5})
    assert c.seat_keys() == {"judge": ["judge-model"], "prosecutor": [None],
                             "defender": ["served-one@http://127.0.0.1:9/v1"]}
    seats = c.seats()
    assert seats["judge-model"] == BackendSpec(model="judge-model")
    assert seats["served-one@http://127.0.0.1:9/v1"].kind == "served"
    assert c.seat_gpus() == {"judge-model": 0.0, "served-one@http://127.0.0.1:9/v1": 0.5}
    built: list[tuple[str, str]] = []
    panel = c.seated(ScriptedBackend([], model="debaters"), {"judge-model": "cuda:1"},
                     lambda spec, device: built.append((spec.model, device)) or ScriptedBackend([], model=spec.model))
    assert isinstance(panel, Panel) and sorted(panel.seats) == sorted(seats)
    assert ("judge-model", "cuda:1") in built
    assert "trial.models" not in str(load_court("full").config())  # no seat: the configuration (and hash) as before
    assert c.config()["court"]["trial"]["models"]["judge"] == [{"model": "judge-model", "url": None, "api_key_env": None,
                                                                     "gpus": 0.0}]


def test_models_for_a_role_nobody_sits_in_or_a_panel_of_the_wrong_size_are_refused() -> None:
    with pytest.raises(CourtError, match="trial.models.bailiff: no persona sits in role 'bailiff'"):
        court(bailiff="x")
    with pytest.raises(CourtError, match="2 models for the 3 personas of role 'jury'"):
        court("jury", jury=["a", "b"])
    with pytest.raises(CourtError, match="credentials"):
        court(judge={"model": "m", "url": "http://user:secret@127.0.0.1:9/v1"})
    with pytest.raises(ConfigError, match="at least one seat"):
        Panel(ScriptedBackend([]), {})
