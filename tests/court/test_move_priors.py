"""Calibrated move choices (#21.3): with move priors, the court chooses a move by p(m) / prior(m) renormalised over
the legal moves, records raw and calibrated probabilities, and a transcript replays; priors are estimated from a
run's transcripts and written as court YAML."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from courtroom.court import Court
from courtroom.court.move_priors import calibrate, most_probable, move_priors, priors_yaml, turns
from courtroom.court.spec import with_overrides
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import CourtError
from courtroom.evaluate.datasets import example_cases
from courtroom.log.audit import Audit
from courtroom.log.case_record import CaseRecord
from courtroom.log.manifest import RunSpec
from courtroom.log.replay import replay
from courtroom.report.record import court_record
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from experiments.dev import move_priors as script
from tests.helpers.court_script import CourtScript
from tests.helpers.courts import court_file

PRIORS = {"prosecution": {"argue": 0.2, "withdraw": 0.8}}


def test_calibration_divides_out_the_prior_and_renormalises() -> None:
    calibrated = calibrate({"argue": 0.3, "withdraw": 0.7}, {"argue": 0.2, "withdraw": 0.8})
    assert calibrated == pytest.approx({"argue": 1.5 / 2.375, "withdraw": 0.875 / 2.375})
    assert most_probable(calibrated) == "argue" and most_probable({"argue": 0.3, "withdraw": 0.7}) == "withdraw"
    assert most_probable({"rule": 0.5, "next_round": 0.5}) == "rule"  # a tie: the first in order
    assert calibrate({"a": 0.2, "b": 0.8}, {"a": 0.5, "b": 0.5}) == pytest.approx({"a": 0.2, "b": 0.8})  # flat prior


def court(move_p: float, priors: dict | None = None, model: str = "default", seed: int | None = None) -> Court:
    backend = ScriptedBackend(PseudoModel(seed) if seed is not None else CourtScript(
        grounding={"1926": -0.8, "e": 0.1}, move_p=move_p,
        moves={"prosecutor": ["withdraw"], "defender": ["rebut"], "judge": ["rule"]}), model=model)
    return Court.load("full", backend, overrides={"move_priors": priors} if priors else None)


def first_moves(judge: Court) -> list:
    outcomes = list(judge.run_many(example_cases()[:6]))
    return [next(e for e in o.events if e.event == "move" and e.round == 1 and e.node == "prosecution")
            for o in outcomes if o.verdict and o.verdict.charges]


def test_priors_change_the_move_as_computed_and_the_record_keeps_both() -> None:
    raw = first_moves(court(0.7))
    assert raw and all(m.move == "withdraw" and m.calibrated_probs is None for m in raw)
    calibrated = first_moves(court(0.7, {"nodes": PRIORS}))
    for move in calibrated:
        assert move.move_probs == pytest.approx({"argue": 0.3, "withdraw": 0.7})  # what the model said
        assert move.calibrated_probs == pytest.approx({"argue": 1.5 / 2.375, "withdraw": 0.875 / 2.375})
        assert move.move == "argue" and move.payload  # the court argued: its payload was written
    # a withdrawal the calibration does not overturn implies the calibrated probability, not the raw one
    judge = court(0.95, {"nodes": PRIORS})
    for outcome in judge.run_many(example_cases()[:6]):
        for ruling in outcome.verdict.rulings:
            assert ruling.source == "withdrawn"
            assert ruling.opinion == pytest.approx(1 - (0.95 / 0.8) / (0.05 / 0.2 + 0.95 / 0.8))
            assert "P(withdraw) = 0.83, calibrated by the court's priors; the model's own P(withdraw) = 0.95" \
                in ruling.reason


def test_a_calibrated_transcript_replays_and_only_with_its_priors() -> None:
    judge = court(0.7, {"nodes": PRIORS})
    outcomes = [o for o in judge.run_many(example_cases()[:6]) if o.verdict and o.verdict.charges]
    assert outcomes
    for outcome in outcomes:
        assert replay(outcome.events, judge).matches
        uncalibrated = court(0.7)
        replayed = replay(outcome.events, uncalibrated, config_hash=judge.config_hash())
        assert not replayed.matches  # without the priors the court withdraws and asks other things


def test_priors_by_model_override_the_court_s_node_by_node() -> None:
    priors = {"nodes": {"prosecution": {"argue": 0.5, "withdraw": 0.5}}, "by_model": {"smollm2-135m": PRIORS}}
    assert court(0.7, priors, model="default").move_priors == PRIORS  # `default` is smollm2-135m
    assert court(0.7, priors, model="other").move_priors == priors["nodes"]
    assert all(m.move == "argue" for m in first_moves(court(0.7, priors, model="default")))
    assert all(m.move == "withdraw" for m in first_moves(court(0.7, priors, model="other")))
    plain = {"aggregation.by_model": {}}  # no per-model threshold: only the priors depend on the model
    assert "model" not in Court.load("full", overrides=plain).config()
    assert Court.load("full", ScriptedBackend([], model="other"),
                      overrides={**plain, "move_priors": priors}).config()["model"] == "other"
    assert "move_priors" not in Court.load("full").config()["court"]


def run_dir(tmp_path: Path) -> Path:
    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4)
    started = start_run(spec, tmp_path / "run")
    started.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    started.close()
    return tmp_path / "run"


def test_priors_are_the_mean_raw_probability_of_each_move_per_node(tmp_path: Path) -> None:
    audit = Audit(run_dir(tmp_path))
    events = [e for row in audit.rows() for e in audit.events(row.case_id)]
    chosen = [e for e in events if e.event == "move" and not e.forced]
    expected = {}
    for node in {e.node for e in chosen}:
        at = [e.move_probs for e in chosen if e.node == node]
        means = {m: sum(p[m] for p in at) / len(at) for m in at[0]}
        expected[node] = {m: v / sum(means.values()) for m, v in means.items()}
    priors = move_priors(events)
    assert set(priors) == set(expected) and "prosecution" in priors
    for node in expected:
        assert priors[node] == pytest.approx(expected[node], abs=1e-4)
    assert move_priors(audit) == priors == move_priors([e.model_dump(mode="json") for e in events])
    assert turns(audit) == {node: sum(e.node == node for e in chosen) for node in expected}
    # the YAML is a court's section: it loads, validates and calibrates
    section = yaml.safe_load(priors_yaml(priors))["move_priors"]
    spec = with_overrides(Court.load("full").spec, {"move_priors": section})
    assert spec.move_priors.nodes == priors
    by_model = yaml.safe_load(priors_yaml(priors, "qwen2.5-coder-0.5b"))["move_priors"]
    assert by_model == {"by_model": {"qwen2.5-coder-0.5b": priors}}


def test_the_script_prints_the_yaml_of_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = run_dir(tmp_path)
    text = script.main([str(run), "--model", "qwen2.5-coder-0.5b"])
    assert capsys.readouterr().out == text
    assert text.startswith(f"# move priors of {run} (default): prosecution over ")
    loaded = yaml.safe_load(text)["move_priors"]["by_model"]["qwen2.5-coder-0.5b"]
    assert loaded == move_priors(Audit(run))


def test_the_record_shows_raw_and_calibrated_probabilities() -> None:
    judge = court(0.7, {"nodes": PRIORS})
    outcome = next(o for o in judge.run_many(example_cases()[:6]) if o.verdict and o.verdict.charges)
    out = io.StringIO()
    Console(file=out, width=200).print(court_record(CaseRecord.of(outcome.events)))
    assert "0.63 calibrated (raw 0.30)" in out.getvalue()


@pytest.mark.parametrize("priors, message", [
    ({"nodes": {"lobby": {"argue": 0.5}}}, r"field move_priors\.nodes\.lobby: 'lobby' is not a node of the graph"),
    ({"nodes": {"prosecution": {"argue": 0.2, "withdraw": 0.7, "sing": 0.1}}},
     r"field move_priors\.nodes\.prosecution: sing: not a move at 'prosecution'"),
    ({"nodes": {"prosecution": {"argue": 0.2}}},
     r"field move_priors\.nodes\.prosecution: no prior for withdraw: give one for every move"),
    ({"by_model": {"qwen": {"defense": {"rebut": 1.0}}}},
     r"field move_priors\.by_model\.qwen\.defense: no prior for concede"),
    ({"nodes": {"prosecution": {"argue": 0.0, "withdraw": 1.0}}},
     r"field move_priors\.nodes\.prosecution\.argue: Input should be greater than 0"),
    ({"prosecution": {"argue": 0.2, "withdraw": 0.8}}, r"field move_priors\.prosecution: Extra inputs are not permitted"),
])
def test_malformed_priors_are_refused_naming_the_file_and_field(tmp_path: Path, priors: dict, message: str) -> None:
    path = court_file(tmp_path, lambda data: data.update(move_priors=priors))
    with pytest.raises(CourtError, match=rf"{path}:\d*: {message}"):
        Court.load(path)


def test_a_node_the_court_decides_takes_no_priors() -> None:
    with pytest.raises(CourtError, match=r"field move_priors\.nodes\.bench: node 'bench' is decided by the court's rule"):
        Court.load("evidence", overrides={"move_priors": {"nodes": {"bench": {"rule": 0.5, "next_round": 0.5}}}})
