"""Attack 6: `audit verify` must not call "verified" a transcript that is empty, or whose stored prompt text was
edited (replay compares the prompt hashes the calls name, so the texts themselves are checked by content)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run = start_run(RunSpec.build("examples", judge="courtroom", limit=3), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    assert verify(Audit(out)) == []
    return out


def test_an_empty_transcript_is_a_problem(run_dir: Path) -> None:
    path = RunStore(run_dir).transcript_path(RunStore(run_dir).rows()[0].case_id)
    path.write_text("")
    problems = [str(p) for p in verify(Audit(run_dir))]
    assert any("transcript is empty" in p for p in problems)
    result = CliRunner().invoke(app, ["audit", "verify", str(run_dir)])
    assert result.exit_code == 1 and "verified" not in result.output


def test_an_edited_prompt_text_is_found_by_its_hash(run_dir: Path) -> None:
    path = RunStore(run_dir).transcript_path(RunStore(run_dir).rows()[0].case_id)
    lines = path.read_text().splitlines()
    i = next(n for n, line in enumerate(lines) if json.loads(line)["event"] == "prompt" and
             "CONTEXT" in json.loads(line)["content"])
    event = json.loads(lines[i])
    event["content"] = event["content"].replace("CONTEXT", "CONTEXT (abridged)")
    lines[i] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    problems = [str(p) for p in verify(Audit(run_dir))]
    assert any(f"{path}:{i + 1}: prompt {event['hash']}: its text was changed" in p for p in problems), problems
