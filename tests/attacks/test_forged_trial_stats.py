"""Attack: a run handed over with a results row whose trial diagnostics (#44) name an ending that is not
`source@round`. `audit summary`, `compare` and the report split each ending at its `@`: such a row ended them in an
IndexError; it is refused on reading, naming the file, line and field, as any malformed row is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run


@pytest.fixture(scope="module")
def trial_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("trials") / "run"
    run = start_run(RunSpec.build("examples", judge="courtroom", court="full", limit=3, window=3), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    return out


@pytest.mark.parametrize("ending", ["judge", "judge@", "judge@two", "<b>judge</b>@1"])
def test_a_trial_ending_not_source_at_round_is_refused_naming_the_line(trial_run: Path, tmp_path: Path,
                                                                         ending: str) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(trial_run, run)
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    tried = [r for r in rows if r.get("trial")]
    assert tried, "the full court on the pseudo-model tries some charge"
    tried[0]["trial"]["endings"] = {ending: 1}
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for args in (["audit", "summary", str(run)], ["compare", str(run), str(run)]):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and not isinstance(result.exception, IndexError), (args, result.exception)
        assert "results.jsonl:" in text and "trial.endings" in text, text
