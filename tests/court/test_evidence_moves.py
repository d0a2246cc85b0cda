"""Moves that are evidence the court checks (#21.2), in the shipped `evidence` court: the defender's citation is a
scored choice over the numbered sentences (every sentence's probability recorded) whose grounding the court
measures; the prosecutor names an item of the statement (a scored choice) that the court checks against the
context, which shifts P(suspect) as the court says; another round is held exactly when the first left the evidence
open, and the trial stops when a round brings nothing new."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.case import Case
from courtroom.cli import app
from courtroom.court import Court, courts_dir
from courtroom.court.exhibits import MAX_ITEMS, Sources, candidates, items
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.recorded import RecordedCalls
from courtroom.engine.lockstep import run_lockstep
from courtroom.errors import CourtError
from courtroom.evaluate.datasets import example_cases
from courtroom.log.replay import replay
from courtroom.text.numbers import number_value
from tests.helpers.court_script import CourtScript
from tests.helpers.courts import court_file

LAMP = Case(id="lamp", question="When was the lamp first lit?", label="FAIL", answer="The lamp was first lit in 1926.",
            context=["The lamp was first lit in 1874. It was automated in 1962. The museum opened in 1990."])
"""One charge (`1926`, grounded at -0.8 in the whole context: P(suspect) 0.98); three context sentences."""
FULL = -0.8


def p_suspect(grounding: float, shift: float = 0.0) -> float:
    """The evidence court's measure: center 0.4, scale 0.3."""
    return 1 / (1 + math.exp(-((0.4 - grounding) / 0.3 + shift)))


def trial(cited: float = FULL, cite: list[int] | None = None, name: list[str] | None = None,
          defender: list[str] | None = None, **overrides: object) -> tuple[list, object]:
    """The evidence court on LAMP: the prosecutor argues naming `name`, the defender rebuts citing `cite`, the
    cited sentence grounds the statement at `cited`; the events and the verdict."""
    script = CourtScript(grounding={"1926": FULL}, cited_grounding={"1926": cited}, context_sentences=3,
                         moves={"prosecutor": ["argue"], "defender": defender or ["rebut"]},
                         cite=cite or [2], name=name or ["1926"], p_hallucinated=0.9)
    if "judge_weight" in overrides:
        overrides["ruling.judge_weight"] = overrides.pop("judge_weight")
    court = Court.load("evidence", ScriptedBackend(script, model="default"), overrides=overrides or None)
    [outcome] = list(court.run_many([LAMP]))
    assert outcome.verdict is not None, outcome.error
    return outcome.events, outcome.verdict


def moves(events: list, node: str) -> list:
    return [e for e in events if e.event == "move" and e.node == node]


# -- the citation ---------------------------------------------------------------------------------------------------
def test_the_citation_is_a_scored_choice_whose_every_sentence_probability_is_recorded() -> None:
    events, verdict = trial(cited=0.1)
    [defence, *_] = moves(events, "defense")
    assert defence.move == "rebut" and defence.payload == {"evidence": 2} and defence.evidence_found is True
    assert defence.choice_probs == pytest.approx({"0": 0.1, "1": 0.1, "2": 0.7, "3": 0.1})
    call = next(e for e in events if e.event == "model_call" and e.role == "defender" and e.purpose == "payload")
    assert call.output_type == "Literal" and call.option_probs == defence.choice_probs  # constrained, scored
    [weigh] = [e for e in events if e.event == "model_call" and e.purpose == "weigh"]  # measured once, when cited
    assert weigh.charge == 0 and "[2] It was automated in 1962." in next(
        p.content for p in events if p.event == "prompt" and p.hash == weigh.messages[-1])
    assert defence.finding == "the statement grounded in [2] at +0.10 nats/token (in the whole context -0.80)"
    [ruling] = verdict.rulings
    assert ruling.evidence == pytest.approx(0.1)  # the better of the whole context and the cited sentence
    assert "the cited sentence [2] at +0.10" in ruling.reason


def test_citing_no_sentence_measures_nothing() -> None:
    events, verdict = trial(cite=[0], name=["(none)"])
    [defence] = moves(events, "defense")
    assert defence.payload == {"evidence": 0} and defence.evidence_found is None
    assert not [e for e in events if e.event == "model_call" and e.purpose == "weigh"]
    assert verdict.rulings[0].evidence == pytest.approx(FULL) and verdict.rulings[0].rounds == 1


# -- the exhibit ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("named, held, shift", [("1926", False, 1.0), ("lamp", True, -1.0), ("(none)", None, 0.0)])
def test_the_court_checks_the_named_item_and_shifts_p_suspect_as_it_says(named: str, held: bool | None,
                                                                           shift: float) -> None:
    events, verdict = trial(name=[named], judge_weight=0.0)  # the ruling is then the evidence alone
    prosecution = moves(events, "prosecution")[0]
    assert prosecution.payload == {"exhibit": named}
    assert prosecution.choice_probs == pytest.approx(
        {"lamp": 0.15, "1926": 0.15, "(none)": 0.15} | {named: 0.7})  # the candidates: weakest word, absent number
    assert prosecution.finding == {False: "'1926' not in the context", True: "'lamp' in the context",
                                   None: "nothing named to check"}[held]
    [ruling] = verdict.rulings
    assert ruling.p_hallucinated == pytest.approx(p_suspect(FULL, shift))
    if held is not None:
        assert f"({shift:+.2f} to the log-odds)" in ruling.reason
    # without `exhibit_check` the check is recorded and shown, not weighed
    _, unweighed = trial(name=[named], judge_weight=0.0, exhibit_check=None)
    assert unweighed.rulings[0].p_hallucinated == pytest.approx(p_suspect(FULL))


def test_exhibit_weights_are_the_court_s_and_change_the_ruling_only_through_them() -> None:
    _, verdict = trial(name=["1926"], judge_weight=0.0, exhibit_check={"absent": 2.5, "present": 0.0})
    assert verdict.rulings[0].p_hallucinated == pytest.approx(p_suspect(FULL, 2.5))


# -- another round exactly when the evidence is open ----------------------------------------------------------------
def bench(events: list) -> list[tuple[int, str, str]]:
    return [(e.round, e.move, e.rule or "") for e in moves(events, "judge") + moves(events, "bench")]


def test_settled_evidence_ends_the_trial_in_round_one() -> None:
    events, verdict = trial(cited=FULL, name=["1926"])  # the citation agrees, the named number is absent: settled
    assert verdict.rulings[0].rounds == 1
    [(round, move, rule)] = bench(events)
    assert (round, move) == (1, "rule") and rule.startswith("the evidence is settled")


def test_a_citation_that_disagrees_with_the_context_opens_a_second_round_which_stops_when_nothing_is_new() -> None:
    events, verdict = trial(cited=1.0, name=["1926"])  # [2] grounds the statement (P 0.12), the context does not
    assert verdict.rulings[0].rounds == 2
    (r1, m1, why1), (r2, m2, why2) = bench(events)
    assert (r1, m1) == (1, "next_round") and why1.startswith("the evidence is open (the cited sentence [2]")
    assert why1.endswith("and round 1 brought '1926', [2]")
    assert (r2, m2) == (2, "rule") and why2.endswith("but round 2 brought nothing new")
    # the second round's prompts carry what the court found in the first
    prompts = {e.hash: e.content for e in events if e.event == "prompt"}
    second = next(e for e in events if e.event == "model_call" and e.round == 2 and e.role == "prosecutor")
    text = prompts[second.messages[-1]]
    assert "- Round 1, prosecutor (argue): names \"1926\"; the court finds '1926' not in the context" in text
    assert "- Round 1, judge (next_round): the court finds the evidence is open" in text


def test_new_evidence_in_an_open_round_holds_another_until_the_round_limit() -> None:
    events, verdict = trial(cited=1.0, cite=[2, 3, 1])  # each round cites a new sentence, each disagreeing
    assert verdict.rulings[0].rounds == 3
    assert [(r, m) for r, m, _ in bench(events)] == [(1, "next_round"), (2, "next_round"), (3, "rule")]
    assert moves(events, "bench")[-1].forced  # at the limit only `rule` is legal


def test_an_exhibit_check_that_contradicts_the_measurement_opens_a_round() -> None:
    # the citation agrees with the context (both suspect), but the item named is in the context: open
    events, verdict = trial(cited=FULL, name=["lamp", "1926"])
    (r1, m1, why1), (r2, m2, why2) = bench(events)
    assert (m1, m2) == ("next_round", "rule") and verdict.rulings[0].rounds == 2
    assert "every item named is in the context, but the measurement finds the statement hallucinated" in why1
    assert why2.startswith("the evidence is settled")  # round 2 named the absent number: the check agrees now


def test_a_concession_ends_the_trial_before_the_bench() -> None:
    events, verdict = trial(defender=["concede"], **{"trial.exchange_rounds": 0})  # no round of exchange: at once
    assert not bench(events) and verdict.rulings[0].source == "conceded" and verdict.rulings[0].rounds == 1


def test_on_the_pseudo_model_rounds_follow_the_rule_and_transcripts_replay() -> None:
    rounds = []
    for seed in range(4):
        court = Court.load("evidence", ScriptedBackend(PseudoModel(seed), model="default"))
        for outcome in court.run_many(example_cases()):
            assert outcome.verdict is not None, outcome.error
            assert replay(outcome.events, court).matches
            for ruling in outcome.verdict.rulings:
                rounds.append(ruling.rounds)
                ruled = [e for e in moves(outcome.events, "bench") if e.charge == ruling.charge]
                for e in ruled:  # a round after r exactly when the rule at r found the evidence open and new
                    held_again = e.round < ruling.rounds
                    assert (e.move == "next_round") is held_again
                    rule = e.rule or ""  # None: forced at the round limit
                    assert held_again is (rule.startswith("the evidence is open") and "brought" in rule
                                          and "nothing new" not in rule)
    assert max(rounds) >= 2 and rounds.count(1) > len(rounds) / 2


def test_other_exhibit_weights_decide_a_recorded_run_again_with_the_same_calls() -> None:
    court = Court.load("evidence", ScriptedBackend(PseudoModel(), model="default"))
    outcomes = [o for o in court.run_many(example_cases()) if o.verdict and o.verdict.rulings]
    heavier = Court.load("evidence", overrides={"exhibit_check": {"absent": 3.0, "present": -3.0}})
    changed = 0
    for outcome in outcomes:
        calls = [e for e in outcome.events if e.event == "model_call"]
        [again] = run_lockstep([outcome.case], heavier.program, RecordedCalls(calls), judge_name=heavier.name,
                               config_hash=heavier.config_hash(), window=1)
        assert again.verdict is not None, again.error
        assert len([e for e in again.events if e.event == "model_call"]) == len(calls)
        changed += again.verdict.score != outcome.verdict.score
    assert changed


# -- the items and numbers ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [
    ("1,200", 1200.0), ("1200", 1200.0), ("$1,200", 1200.0), ("1.2 thousand", 1200.0), ("1.2k", 1200.0),
    ("1200.0", 1200.0), ("3.5bn", 3.5e9), ("2 million", 2e6), ("12%", 12.0), ("12 percent", 12.0),
    ("3rd", None), ("twelve", None), ("1.2.3", None),
])
def test_numbers_are_compared_by_value(text: str, value: float | None) -> None:
    assert number_value(text) == value


def test_items_and_the_check_against_the_sources() -> None:
    statement = "The Harrow Point lighthouse earned $1,200, or 1.2 thousand dollars, in 1926."
    found = items(statement)
    assert [(i.text, i.kind) for i in found] == [("Harrow Point", "name"), ("lighthouse", "word"), ("earned", "word"),
                                                 ("$1,200", "number"), ("dollars", "word"), ("1926", "number")]
    sources = Sources(["The lighthouse at Harrow point cost 1200 dollars and was lit in 1874."])
    assert [sources.holds(i) for i in found] == [True, True, False, True, True, False]
    offered = candidates(statement, sources, weakest=["lighthouse"])
    assert [i.text for i in offered] == ["lighthouse", "earned", "$1,200", "1926"]
    many = " ".join(f"word{chr(97 + i)}x" for i in range(15))
    assert len(candidates(many, Sources(["nothing"]))) == MAX_ITEMS


# -- the court file -------------------------------------------------------------------------------------------------
def test_every_shipped_court_validates_from_the_command_line() -> None:
    for path in sorted(courts_dir().glob("*.yaml")):
        result = CliRunner().invoke(app, ["court", "validate", str(path)])
        assert result.exit_code == 0 and result.output.startswith(f"ok {path.stem}"), result.output
    assert "choice" not in str(Court.load("full").config()["court"]["trial"]["graph"])  # left out at `model`
    assert Court.load("evidence").config()["court"]["trial"]["graph"]["nodes"]["bench"]["choice"] == "evidence"


def _edges(data: dict) -> None:
    data["trial"]["graph"]["nodes"]["bench"]["choice"] = "evidence"
    data["trial"]["graph"]["edges"].append({"from": "bench", "move": "adjourn", "to": "acquit", "payload": "none",
                                   "description": "adjourn"})


@pytest.mark.parametrize("edit, message", [
    (_edges, r"field trial\.graph\.nodes\.bench\.choice: node 'bench' is decided by the evidence, so it needs exactly two "
             r"moves, one that starts a new round and one that does not \(it has: rule, next_round \(new_round\), "
             r"adjourn\)"),
    (lambda data: data["trial"]["graph"]["nodes"]["bench"].update(choice="oracle"),
     r"field trial\.graph\.nodes\.bench\.choice: Input should be 'model' or 'evidence'"),
    (lambda data: data["trial"]["graph"]["edges"][2].update(payload="citations"), r"unknown payload 'citations'"),
    (lambda data: data["trial"].update(exhibit_check={"absent": "a lot"}),
     r"field trial\.exhibit_check\.absent: Input should be"),
])
def test_a_malformed_evidence_court_is_refused_naming_the_file_and_field(tmp_path: Path, edit, message: str) -> None:
    path = court_file(tmp_path, edit)
    with pytest.raises(CourtError, match=message) as raised:
        Court.load(path)
    assert str(path) in str(raised.value)
