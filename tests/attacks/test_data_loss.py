"""Attacks 1 and 2: `--fresh` may clear only a run directory, and distinct case ids never share a transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import RunError
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore, legacy_transcript_name, transcript_name
from courtroom.log.verify import verify
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run


def judged(dataset: Path, out: Path, fresh: bool = False) -> RunStore:
    run = start_run(RunSpec.build(str(dataset), judge="rails"), out, fresh=fresh)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return RunStore(out)


def write_cases(path: Path, ids: list[str]) -> Path:
    rows = [{"id": i, "question": "Q?", "context": ["The sky is blue."], "answer": f"It is {n}.", "label": "PASS"}
            for n, i in enumerate(ids)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_fresh_refuses_a_directory_that_holds_no_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work")
    (home / "data").mkdir()
    result = CliRunner().invoke(app, ["run", "examples", "--judge", "rails", "--out", str(home), "--fresh"])
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "not a run directory" in output and "thesis.tex" in output
    assert (home / "thesis.tex").read_text() == "years of work" and (home / "data").is_dir()


def test_fresh_clears_a_run_and_keeps_what_is_not_the_runs(tmp_path: Path) -> None:
    dataset = write_cases(tmp_path / "cases.jsonl", ["a", "b"])
    out = tmp_path / "run"
    judged(dataset, out)
    (out / "notes.md").write_text("mine")
    store = judged(dataset, out, fresh=True)
    assert len(store.rows()) == 2 and (out / "notes.md").read_text() == "mine"
    with pytest.raises(RunError, match="not a run directory"):
        RunStore(tmp_path).clear()  # holds cases.jsonl and run/, but no run of its own


def test_ids_that_collided_get_distinct_transcripts(tmp_path: Path) -> None:
    ids = ["a/b", "a_b-3ec69c85", "Case", "case", "x" * 100, "x" * 100 + "y"]
    assert legacy_transcript_name("a/b") == legacy_transcript_name("a_b-3ec69c85")  # the old collision
    names = [transcript_name(i) for i in ids]
    assert len({n.lower() for n in names}) == len(ids)  # distinct, even ignoring case
    store = judged(write_cases(tmp_path / "cases.jsonl", ids), tmp_path / "run")
    files = sorted((tmp_path / "run" / "transcripts").iterdir())
    assert len(files) == len(ids)
    assert {store.events(i)[0].case.id for i in ids} == set(ids)
    assert verify(Audit(tmp_path / "run")) == []


def test_a_run_recorded_with_the_old_names_still_reads_and_verifies(tmp_path: Path) -> None:
    store = judged(write_cases(tmp_path / "cases.jsonl", ["a/b", "plain"]), tmp_path / "run")
    lines = []
    for line in store.results_path.read_text().splitlines():  # rename the files as 0.1 named them
        row = json.loads(line)
        old = f"transcripts/{legacy_transcript_name(row['case_id'])}"
        (tmp_path / "run" / row["transcript"]).rename(tmp_path / "run" / old)
        lines.append(json.dumps({**row, "transcript": old}))
    store.results_path.write_text("\n".join(lines) + "\n")
    reopened = RunStore(tmp_path / "run")
    assert reopened.events("a/b")[0].case.id == "a/b"
    assert verify(Audit(tmp_path / "run")) == []
