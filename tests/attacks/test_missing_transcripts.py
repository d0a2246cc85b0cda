"""Attack 9 (the report over a missing, empty or truncated transcript) and the committed experiment runs, which
keep result rows but no transcripts: `audit show`, `list` and `report` say which transcript is missing and
show what the results row holds, with no traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.report.html import build_report
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

COMMITTED = Path(__file__).resolve().parents[2] / "experiments" / "results" / "qwen2.5-coder-0.5b" / "halubench-rails"


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run = start_run(RunSpec.build("examples", judge="courtroom", limit=4), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    store = RunStore(out)
    ids = [r.case_id for r in store.rows()]
    store.transcript_path(ids[0]).unlink()
    store.transcript_path(ids[1]).write_text("")
    path = store.transcript_path(ids[2])
    path.write_text(path.read_text()[:150])
    return out


def test_the_report_shows_every_case_and_names_what_is_missing(damaged: Path) -> None:
    page = build_report(damaged)
    assert "the transcript is missing" in page and "the transcript is empty" in page
    assert "not a transcript event" in page
    result = CliRunner().invoke(app, ["audit", "report", str(damaged), "-o", str(damaged / "r.html")])
    assert result.exit_code == 0 and "Traceback" not in result.output


def test_show_falls_back_to_the_results_row(damaged: Path) -> None:
    case = RunStore(damaged).rows()[0].case_id
    result = CliRunner().invoke(app, ["audit", "show", str(damaged), case], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "the transcript is missing" in result.output
    assert "the results row (no transcript)" in result.output and case in result.output


def test_a_committed_experiment_run_without_transcripts_is_audited(tmp_path: Path) -> None:
    run = tmp_path / "committed"
    shutil.copytree(COMMITTED, run)
    assert not (run / "transcripts").exists()
    case = RunStore(run).rows()[0].case_id
    for args in (["audit", str(run)], ["audit", "list", str(run)], ["audit", "show", str(run), case],
                 ["audit", "report", str(run), "-o", str(tmp_path / "r.html")]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        assert result.exit_code == 0 and "Traceback" not in result.output, (args, result.output)
    assert (tmp_path / "r.html").stat().st_size > 10_000
