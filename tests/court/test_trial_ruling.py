"""A ruling that weighs the trial (#51): a court whose ruling has trial weights charges by the measure, tries the cases
whose P(hallucinated) by the clerk's testimony lies in its escalation band, and decides them by the trial weights over
the clerk's testimony and the trial's; the others by the clerk's weights, with no trial call. A court that holds no
trial refuses such a ruling in one line naming the court to use."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from courtroom.case import Case
from courtroom.court import load_court
from courtroom.court.testimony import log_odds
from courtroom.door import ScriptedBackend
from courtroom.errors import CourtError
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, TrialWeights
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962."],
            answer="It was automated in 1926.", label="FAIL")
MOVES = {"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}
MODEL = "smollm2-135m"


def a_trial_ruling(court: str = "tried") -> FittedRuling:
    """The clerk's weights say little (P 0.38 for every case); the trial weights follow the bench."""
    clerk = Linear(features=["figures.absent"], mean=[0.0], scale=[1.0], weights=[0.0], intercept=-0.5)
    trial = Linear(features=["figures.absent", "trial.bench_max"], mean=[0.0, 0.0], scale=[1.0, 1.0],
                   weights=[0.0, 2.0], intercept=0.0)
    return FittedRuling(model=MODEL, court=court, witnesses={"figures": WITNESSES["figures"].version, "trial": 1},
                        families={"any": FamilyRuling(linear=clerk, trial=TrialWeights(linear=trial))})


def court_file(tmp_path: Path, extends: str = "full", band: str = "") -> Path:
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(a_trial_ruling().model_dump(mode="json")))
    path = tmp_path / "tried.yaml"
    path.write_text(f"name: tried\nextends: {extends}\nwitnesses: {{heard: [grounding, figures], rulings: "
                    f"{{{MODEL}: r.yaml}}}}\n" + (f"trial: {{escalation: {band}}}\n" if band else ""))
    return path


def judged(path: Path, p_judge: float):  # noqa: ANN201
    script = CourtScript(moves=MOVES, p_hallucinated=p_judge, grounding={"1926": 1.5})  # well grounded: not suspect
    backend = ScriptedBackend(script, model=MODEL)
    [outcome] = list(load_court(path, backend, overrides={"indictment.threshold": 0.0}).run_many([CASE]))
    return outcome, script


@pytest.mark.parametrize("p_judge, label", [(0.9, "FAIL"), (0.1, "PASS")])
def test_the_trial_weights_decide_a_tried_case_by_what_the_bench_said(tmp_path: Path, p_judge: float,
                                                                        label: str) -> None:
    outcome, script = judged(court_file(tmp_path), p_judge)
    verdict = outcome.verdict
    assert verdict is not None and verdict.label == label and "verdict" in script.seen
    assert verdict.weighing.contributions["trial.bench_max"] == pytest.approx(2.0 * log_odds(p_judge), abs=1e-4)
    assert [c.quote for c in verdict.charges] == [CASE.answer]  # charged by the measure, though the ruling weighs


def test_outside_the_band_the_clerks_weights_decide_with_no_trial_call(tmp_path: Path) -> None:
    outcome, script = judged(court_file(tmp_path, band="{low: 0.6, high: 0.9}"), 0.9)  # the clerk says 0.38
    assert outcome.verdict.label == "PASS" and outcome.verdict.weighing.p_hallucinated == pytest.approx(0.3775, abs=1e-3)
    assert not any(e.event == "model_call" and e.role in ("prosecutor", "defender", "judge") for e in outcome.events)
    assert "verdict" not in script.seen
    inside, _ = judged(court_file(tmp_path, band="{low: 0.3, high: 0.6}"), 0.9)
    assert inside.verdict.label == "FAIL"


def test_a_court_without_a_trial_refuses_a_ruling_that_weighs_one_naming_the_court_to_use(tmp_path: Path) -> None:
    with pytest.raises(CourtError) as refused:
        load_court(court_file(tmp_path, extends="default"))
    message = str(refused.value)
    assert "weighs what a trial testifies" in message and "--court tried" in message and "\n" not in message


def test_a_run_whose_every_case_was_tried_is_decided_again_with_a_band_and_no_model_call(tmp_path: Path) -> None:
    from courtroom.engine.registry import JudgeSpec
    from courtroom.evaluate.datasets import example_cases
    from courtroom.log.manifest import RunSpec
    from courtroom.log.rejudge import rejudge_run
    from courtroom.runs.runners import LocalRunner
    from courtroom.runs.start import start_run

    court = court_file(tmp_path)
    spec = RunSpec.build("examples", court=str(court), model=MODEL, window=4,
                         judge_options={"overrides": {"indictment.threshold": 0.0}})
    script = CourtScript(moves=MOVES, p_hallucinated=0.9, grounding={"": 1.5})
    start_run(spec, tmp_path / "all").execute(runner=LocalRunner(ScriptedBackend(script, model=MODEL)))
    banded = JudgeSpec(court=str(court), options={"overrides": {"indictment.threshold": 0.0,
                                                                "trial.escalation": {"low": 0.6, "high": 0.9}}})
    rows = rejudge_run(tmp_path / "all", tmp_path / "banded", judge=banded)  # served from the recorded calls alone
    assert len(rows) == len(example_cases()) and all(r.error is None for r in rows)
    assert all(r.label == "PASS" for r in rows)  # the clerk's 0.38 lies outside the band: no case tried
