"""The trial's testimony wherever a case is read (#51): `audit show` lists the `trial` witness beside the clerk's,
with the sides' polled probabilities in the trial's moves; the HTML report and the inspect export carry it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "tried"
    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4, judge_options={"overrides": {
        "trial.poll_moves": True, "witnesses": {"heard": ["grounding", "figures"]}, "indictment.threshold": 0.0}})
    start_run(spec, out).execute(runner=LocalRunner(ScriptedBackend(PseudoModel(1), model="default")))
    return out


def tried_case(run_dir: Path) -> str:
    audit = Audit(run_dir)
    return next(r.case_id for r in audit.rows() if r.trial is not None)


def test_audit_show_lists_the_trial_witness_and_the_polled_sides(run_dir: Path) -> None:
    shown = runner.invoke(app, ["audit", "show", str(run_dir), tried_case(run_dir)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "trial v1" in shown.output and "bench_max" in shown.output and "grounding v1" in shown.output
    assert "polled: argue" in shown.output and "polled: rebut" in shown.output


def test_the_report_and_the_inspect_export_carry_the_trial_testimony(run_dir: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    assert runner.invoke(app, ["audit", "report", str(run_dir), "-o", str(report)]).exit_code == 0
    page = report.read_text()
    assert '"name":"trial"' in page and '"name":"bench_max"' in page and '"polled"' in page
    log = tmp_path / "log.json"
    done = runner.invoke(app, ["export", str(run_dir), "--format", "inspect", "-o", str(log)])
    assert done.exit_code == 0, done.output
    assert '"witness": "trial"' in log.read_text() or '"witness":"trial"' in log.read_text()
    assert json.loads(log.read_text())  # a whole document
