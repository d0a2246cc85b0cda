"""Attack (#58, low, from #51's notes): `courtroom rejudge RUN --court default` of a run made with `--set trial.*`
failed on the carried setting ("the court has no section 'trial'"); the experiments worked around it, the package
not. A run's own settings are carried only into the sections the new court has, the others dropped with a note; a
`--set` the user gives now is never dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.court_script import CourtScript

ROW = {"id": "a", "question": "When was it automated?", "context": ["It was automated in 1962."],
       "answer": "It was automated in 1926.", "label": "FAIL"}


@pytest.fixture(scope="module")
def tried(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the full court made with `--set trial.exchange_rounds=0 --set max_charges=2`."""
    root = tmp_path_factory.mktemp("carried")
    (root / "cases.jsonl").write_text(json.dumps(ROW) + "\n")
    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): -0.5 for d in range(10)},
                         word_grounding={str(d): -1.5 for d in range(10)}, p_hallucinated=0.7,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    overrides = {"trial.exchange_rounds": 0, "max_charges": 2}
    run = start_run(RunSpec.build(str(root / "cases.jsonl"), judge="courtroom", court="full",
                                  judge_options={"overrides": overrides}), root / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(script)))
    run.close()
    return root / "run"


def test_a_runs_trial_settings_are_dropped_with_a_note_under_a_court_without_a_trial(tried: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["rejudge", str(tried), "--court", "default", "--out", str(tmp_path / "again")],
                                env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 0, output
    assert "note: the run's --set trial.exchange_rounds=0 is not carried: court default has no section 'trial'" in output
    carried = RunStore(tmp_path / "again").manifest().spec.judge.options["overrides"]
    assert "trial.exchange_rounds" not in carried and carried["max_charges"] == 2  # what the court has is carried


def test_a_trial_setting_the_user_gives_is_still_refused(tried: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["rejudge", str(tried), "--court", "default", "--set", "trial.judge_weight=0.3",
                                      "--out", str(tmp_path / "again")], env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "--set trial.judge_weight: the court has no section 'trial'" in output, output
