"""The debate's gain on every court run: each case decided again, from its own recorded calls, by the court's
measurement alone and by its agents alone, and shown beside the court with paired tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.court import with_overrides
from courtroom.courts import load_court, parse_override
from courtroom.door import ScriptedBackend
from courtroom.engine.registry import JudgeSpec
from courtroom.errors import CourtError
from courtroom.evaluate.comparison import Contender, debate_gain
from courtroom.evaluate.results import as_variant
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.court_script import CourtScript


def scripted() -> LocalRunner:
    """Statements with an `e` are weakly grounded and charged; the agents argue and the judge rules at 0.2."""
    return LocalRunner(ScriptedBackend(CourtScript(
        grounding={"1926": -0.8, "e": 0.1}, p_hallucinated=0.2,
        moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}), model="default"))


def run(tmp_path: Path, name: str, **options) -> list:
    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4, judge_options=options)
    started = start_run(spec, tmp_path / name)
    rows = started.execute(runner=scripted())
    started.close()
    return rows


def test_each_variant_decides_as_a_live_run_of_that_court_would(tmp_path: Path) -> None:
    court = run(tmp_path, "court")
    assert all(set(r.variants) == {"measurement only", "agents only"} for r in court)
    measurement = run(tmp_path, "measurement", overrides={"trial.judge_weight": 0.0})
    agents = run(tmp_path, "agents", overrides={"trial.judge_weight": 1.0, "aggregation.method": "any"})
    for name, live in (("measurement only", measurement), ("agents only", agents)):
        derived = {r.case_id: (r.label, r.score) for r in as_variant(court, name)}
        assert derived == {r.case_id: (r.label, r.score) for r in live}
    assert any(r.variants["agents only"].label != r.variants["measurement only"].label for r in court)


def test_the_gain_is_reported_with_paired_tests(tmp_path: Path) -> None:
    rows = run(tmp_path, "court")
    gain = debate_gain(Contender.of("court", rows))
    assert [c.name for c in gain.contenders] == ["court", "measurement only", "agents only"]
    assert [p.shared for p in gain.pairings] == [20, 20]
    summary = CliRunner().invoke(app, ["audit", str(tmp_path / "court")], env={"COLUMNS": "200"})
    assert summary.exit_code == 0 and "the debate's gain" in summary.output and "measurement only" in summary.output
    compared = CliRunner().invoke(app, ["compare", str(tmp_path / "court"), "--debate-gain"], env={"COLUMNS": "200"})
    assert compared.exit_code == 0 and "court: agents only" in compared.output


def test_court_settings_can_be_changed_from_the_command_line(tmp_path: Path) -> None:
    assert parse_override("trial.judge_weight=0.3") == ("trial.judge_weight", 0.3)
    spec = load_court("full").spec
    assert with_overrides(spec, {"aggregation.method": "any"}).aggregation.method == "any"
    assert load_court("full", overrides={"ruling.judge_weight": 0.3}).spec.trial.judge_weight == 0.3  # as courts wrote it
    with pytest.raises(CourtError, match="no setting 'weight' there"):
        with_overrides(spec, {"trial.weight": 1})
    with pytest.raises(CourtError, match="--set trial.judge_weight: Input should be less than or equal to 1"):
        with_overrides(spec, {"trial.judge_weight": 3})
    run(tmp_path, "court")
    result = CliRunner().invoke(app, ["rejudge", str(tmp_path / "court"), "--set", "trial.judge_weight=0",
                                      "--out", str(tmp_path / "re")])
    assert result.exit_code == 0, result.output
    rejudged = {r.case_id: (r.label, r.score) for r in RunStore(tmp_path / "re").rows()}
    derived = {r.case_id: (r.label, r.score) for r in as_variant(RunStore(tmp_path / "court").rows(), "measurement only")}
    assert rejudged == derived
    assert RunStore(tmp_path / "re").manifest().spec.judge == JudgeSpec(  # the run's own court, one setting changed
        court=str(tmp_path / "court"), options={"overrides": {"trial.judge_weight": 0}})
