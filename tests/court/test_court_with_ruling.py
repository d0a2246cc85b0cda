"""A court with a trial and a ruling fitted for its model: the clerk's ruling decides, with no trial call, and the
trial's testimony says none was held. A ruling fitted on trial runs before trial weights were retired (#51), naming
the `trial` witness and holding trial weights, still loads, without them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from courtroom.case import Case
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962."],
            answer="It was automated in 1926.", label="FAIL")
MODEL = "smollm2-135m"
TRIAL_WEIGHTS = {"linear": {"features": ["figures.absent", "trial.bench_max"], "mean": [0.0, 0.0],
                            "scale": [1.0, 1.0], "weights": [0.0, 2.0], "intercept": 0.0}, "threshold": 0.5}


def court_file(tmp_path: Path, fitted_on_trials: bool) -> Path:
    clerk = Linear(features=["figures.absent"], mean=[0.0], scale=[1.0], weights=[0.0], intercept=-0.5)
    data = FittedRuling(model=MODEL, court="tried", witnesses={"figures": WITNESSES["figures"].version},
                        families={"any": FamilyRuling(linear=clerk)}).model_dump(mode="json")
    if fitted_on_trials:  # as `calibrate --ruling` wrote it on trial runs before #51's retirement
        data["witnesses"]["trial"] = 1
        data["families"]["any"]["trial"] = TRIAL_WEIGHTS
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(data))
    path = tmp_path / "tried.yaml"
    path.write_text(f"name: tried\nextends: full\nwitnesses: {{heard: [grounding, figures], rulings: {{{MODEL}: r.yaml}}}}\n")
    return path


@pytest.mark.parametrize("fitted_on_trials", [False, True])
def test_the_clerks_ruling_decides_a_trial_court_with_no_trial_call(tmp_path: Path, fitted_on_trials: bool) -> None:
    court = load_court(court_file(tmp_path, fitted_on_trials), ScriptedBackend(
        script := CourtScript(moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                              p_hallucinated=0.9, grounding={"1926": 1.5}), model=MODEL),
        overrides={"indictment.threshold": 0.0})
    assert court.ruling is not None and set(court.ruling.witnesses) == {"figures"}
    assert "trial" not in court.ruling.model_dump()["families"]["any"]
    [outcome] = list(court.run_many([CASE]))
    verdict = outcome.verdict
    assert outcome.ok and verdict.weighing is not None and verdict.weighing.p_hallucinated == pytest.approx(0.3775, abs=1e-3)
    assert verdict.label == "PASS" and "verdict" not in script.seen
    assert not any(e.event == "model_call" and e.role in ("prosecutor", "defender", "judge") for e in outcome.events)
    [trial] = [t for t in verdict.testimony if t.witness == "trial"]
    assert trial.values["held"] == 0
