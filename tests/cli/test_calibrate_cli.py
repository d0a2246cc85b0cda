"""`courtroom calibrate RUN`: the verdict threshold fitted on a labelled run, estimated out of fold, written into a
court file that carries it (whatever --model names it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from courtroom.calibrate.threshold_runs import calibrate
from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door.spec import BackendSpec
from courtroom.log.audit import Audit
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
NO_RULING = ["--set", "witnesses.rulings={}"]
"""The court without fitted rulings (the default court files none; a court that does decides by the ruling's own
threshold: test_a_ruled_run_is_refused...)."""


@pytest.fixture
def court_run(tmp_path: Path, pseudo_runs) -> Path:  # noqa: F811
    out = tmp_path / "court"
    result = runner.invoke(app, ["run", "examples", "--out", str(out), *NO_RULING], env=WIDE)
    assert result.exit_code == 0, result.output
    return out


def test_a_ruled_run_is_refused_naming_the_ruling_and_how_to_refit_it(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    ruled = tmp_path / "ruled"
    ruling = ["--set", "witnesses.rulings={smollm2-135m: rulings/default.smollm2-135m.yaml}"]  # the shipped one
    assert runner.invoke(app, ["run", "examples", "--out", str(ruled), "--limit", "12", *ruling], env=WIDE).exit_code == 0
    result = runner.invoke(app, ["calibrate", str(ruled)], env=WIDE)
    assert result.exit_code != 0
    text = " ".join(result.output.split())
    assert "weighed by the ruling fitted for default" in text and f"calibrate {ruled} --ruling" in text


def test_calibrate_fits_estimates_and_writes_a_court_whose_rejudge_gives_the_fit(court_run: Path, tmp_path: Path) -> None:
    fit = calibrate(court_run)
    rows = Audit(court_run).rows()
    gold = np.array([r.gold == "FAIL" for r in rows])
    assert fit.cases == len(rows) == 20 and fit.current == pytest.approx(0.44)  # the default court's for SmolLM2
    assert fit.at_current.pooled == pytest.approx(json.loads((court_run / "metrics.json").read_text())[
        "balanced_accuracy"]["value"])  # the current threshold on every fold is the run as it was judged
    assert len(fit.at_current.per_fold) == len(fit.calibrated.per_fold) == len(fit.fold_thresholds) == 5
    assert fit.in_sample_fitted >= fit.in_sample_current

    out = tmp_path / "calibrated" / "court.yaml"
    result = runner.invoke(app, ["calibrate", str(court_run), "-o", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"current {fit.current:g}" in text and f"fitted on all cases: {fit.fitted:g}" in text
    assert f"{fit.calibrated.pooled:.3f}" in text and f"{fit.at_current.pooled:.3f}" in text
    written = yaml.safe_load(out.read_text())
    assert written["aggregation"]["threshold"] == fit.fitted and "by_model" not in written["aggregation"]
    for model in ("default", "qwen2.5-coder-0.5b"):  # the threshold travels with the court, not a model name
        assert load_court(out, BackendSpec(model=model)).threshold == fit.fitted

    rejudged = tmp_path / "rejudged"
    result = runner.invoke(app, ["rejudge", str(court_run), "--court", str(out), "--out", str(rejudged)], env=WIDE)
    assert result.exit_code == 0, result.output
    again = {r.case_id: r for r in Audit(rejudged).rows()}
    pred = np.array([again[r.case_id].label == "FAIL" for r in rows])
    balanced = ((pred & gold).sum() / gold.sum() + (~pred & ~gold).sum() / (~gold).sum()) / 2
    assert balanced == pytest.approx(fit.in_sample_fitted)  # the fit's labels are exactly the court's


def test_calibrate_refuses_what_it_cannot_fit(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    rails = tmp_path / "rails"
    assert runner.invoke(app, ["run", "examples", "--judge", "rails", "--out", str(rails), "--limit", "4"]).exit_code == 0
    refused = runner.invoke(app, ["calibrate", str(rails)], env=WIDE)
    assert refused.exit_code == 2 and "a run of the rails judge" in refused.output
    few = tmp_path / "few"
    assert runner.invoke(app, ["run", "examples", "--out", str(few), "--limit", "4", *NO_RULING]).exit_code == 0
    refused = runner.invoke(app, ["calibrate", str(few)], env=WIDE)
    assert refused.exit_code == 2 and "needs at least 5 of each label" in refused.output


def _court_with_its_own_judge(tmp_path: Path) -> Path:
    """A folder `tmp_path / "mine"` with the default court whose judge is a persona file beside it, `my_judge.yaml`."""
    shipped = Path(__file__).resolve().parents[2] / "personas"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "court.yaml").write_text((shipped / "courts" / "full.yaml").read_text().replace(
        "judge: judge}", "judge: my_judge.yaml}"))
    (mine / "my_judge.yaml").write_text((shipped / "judge.yaml").read_text().replace("name: judge", "name: my_judge"))
    return mine


def test_a_court_with_its_own_persona_file_is_written_with_it(tmp_path: Path, pseudo_runs, monkeypatch) -> None:  # noqa: F811
    mine = _court_with_its_own_judge(tmp_path)
    run = tmp_path / "run"
    assert runner.invoke(app, ["run", "examples", "--court", str(mine / "court.yaml"), "--out", str(run)]).exit_code == 0
    out = tmp_path / "elsewhere" / "calibrated.yaml"
    result = runner.invoke(app, ["calibrate", str(run), "-o", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output
    written = yaml.safe_load(out.read_text())
    personas = written["trial"]["personas"]
    assert personas["judge"] == "calibrated.my_judge.yaml" and personas["prosecutor"] == "prosecutor"
    assert load_court(out).personas["judge"][0].name == "my_judge"


def test_a_calibrated_court_names_its_personas_from_its_own_folder(tmp_path: Path, pseudo_runs,  # noqa: F811
                                                                   monkeypatch) -> None:
    """A persona the run's court found from the working directory is named relative to the written court, so the
    court validates from any working directory."""
    mine = _court_with_its_own_judge(tmp_path)
    monkeypatch.chdir(mine)
    assert runner.invoke(app, ["run", "examples", "--court", "court.yaml", "--out", "../run"]).exit_code == 0
    result = runner.invoke(app, ["calibrate", "../run", "-o", "../elsewhere/fit.yaml"], env=WIDE)
    assert result.exit_code == 0, result.output
    out = tmp_path / "elsewhere" / "fit.yaml"
    assert yaml.safe_load(out.read_text())["trial"]["personas"]["judge"] == "../mine/my_judge.yaml"
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    validated = runner.invoke(app, ["court", "validate", str(out)], env=WIDE)
    assert validated.exit_code == 0, validated.output
    assert load_court(out).personas["judge"][0].name == "my_judge"
