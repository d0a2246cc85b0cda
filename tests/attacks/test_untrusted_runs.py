"""Attacks 1, 2, 3 and 5 (second review): a run directory someone hands you, and `--out` pointed at your files.

A result row that names its transcript `../victim.txt` or an absolute path; a `metrics.json`, `edits.jsonl` or
`transcripts/` that is a symbolic link to a file or folder of the operator's: resuming the run (`run`), `rejudge`
and `audit edit` end with one line naming the file and the field, and nothing outside the run is written. And
`run --out DIR` writes only into a new, an empty or a run directory; `--fresh` deletes only what a run writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cli import invoke
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

RUN = ["run", "examples", "--judge", "rails", "--limit", "4"]
"""The command that made the handed run: run again, it resumes it."""


def judged(out: Path, judge: str = "rails", limit: int = 4) -> Path:
    run = start_run(RunSpec.build("examples", judge=judge, limit=limit), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return out


def plant(out: Path, line: int, **fields: object) -> str:
    """Rewrite fields of result line `line` (from 1); returns its case id."""
    path = out / "results.jsonl"
    rows = [json.loads(text) for text in path.read_text().splitlines()]
    rows[line - 1].update(fields)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return rows[line - 1]["case_id"]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text("the operator's own file\n")
    return path


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_transcript_path_outside_the_run_is_refused(tmp_path: Path, victim: Path, pseudo_runs, where: str) -> None:  # noqa: F811
    out = judged(tmp_path / "handed")
    planted = "../victim.txt" if where == "relative" else str(victim)
    plant(out, 1, transcript=planted, error="boom", error_type="BackendError", label=None, score=None)  # resume rejudges it
    finished = plant(out, 2, transcript=planted)
    for command in ([*RUN, "--out", str(out)], ["audit", "edit", str(out), finished, "--verdict", "supported",
                                                "--reason", "r", "--author", "a"],
                    ["audit", "list", str(out)], ["audit", "verify", str(out)], ["export", str(out), "-o",
                                                                              str(tmp_path / "x.csv")]):
        code, output = invoke(*command)
        assert code == 2 and "results.jsonl:1" in output and "transcript" in output, (command, output)
        assert victim.read_text() == "the operator's own file\n"


@pytest.mark.parametrize("name", ["metrics.json", "transcripts"])
def test_resume_never_writes_through_a_link_in_the_run(tmp_path: Path, victim: Path, pseudo_runs, name: str) -> None:  # noqa: F811
    out = judged(tmp_path / "handed")
    plant(out, 1, error="boom", error_type="BackendError", label=None, score=None)  # a case to judge again
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if name == "transcripts":
        for path in (out / name).iterdir():
            path.rename(elsewhere / path.name)
        (out / name).rmdir()
    else:
        (out / name).unlink(missing_ok=True)
    (out / name).symlink_to(elsewhere if name == "transcripts" else victim)
    before = sorted((p.name, p.read_bytes()) for p in elsewhere.iterdir())
    code, output = invoke(*RUN, "--out", str(out))
    assert code == 2 and f"{out / name}" in output and "symbolic link" in output, output
    assert victim.read_text() == "the operator's own file\n"
    assert sorted((p.name, p.read_bytes()) for p in elsewhere.iterdir()) == before


def test_rejudge_never_writes_through_a_link(tmp_path: Path, victim: Path) -> None:
    source = judged(tmp_path / "source", judge="unstructured")
    target = tmp_path / "target"
    target.mkdir()
    (target / "metrics.json").symlink_to(victim)
    code, output = invoke("rejudge", str(source), "--out", str(target), "--reading", "lenient")
    assert code == 2 and "metrics.json" in output and "symbolic link" in output, output
    assert victim.read_text() == "the operator's own file\n"
    assert sorted(p.name for p in target.iterdir()) == ["metrics.json"]  # nothing written


@pytest.mark.parametrize("name", ["judgements.jsonl", "edits.jsonl"])  # the record, and where earlier versions kept edits
def test_audit_edit_never_appends_through_a_link(tmp_path: Path, victim: Path, name: str) -> None:
    out = judged(tmp_path / "handed")
    (out / name).symlink_to(victim)
    case = json.loads((out / "results.jsonl").read_text().splitlines()[0])["case_id"]
    code, output = invoke("audit", "edit", str(out), case, "--verdict", "supported", "--reason", "r", "--author", "a")
    assert code == 2 and f"{out / name}" in output and "symbolic link" in output, output
    assert victim.read_text() == "the operator's own file\n"


@pytest.mark.parametrize("theirs", ["metrics.json", "results.jsonl"])
def test_run_refuses_a_directory_that_holds_files_but_no_run(tmp_path: Path, pseudo_runs, theirs: str) -> None:  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    (home / theirs).write_text("my own file\n")
    for fresh in ([], ["--fresh"]):
        code, output = invoke(*RUN, "--out", str(home), *fresh)
        assert code == 2 and "not a run directory" in output and theirs in output, output
        assert [p.name for p in home.iterdir()] == [theirs]  # nothing written, not even the lock
        assert (home / theirs).read_text() == "my own file\n"


def test_run_takes_an_empty_directory_and_fresh_keeps_what_a_run_does_not_write(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "empty"
    out.mkdir()
    assert invoke(*RUN, "--out", str(out))[0] == 0
    (out / "transcripts" / "notes.txt").write_text("mine")
    (out / "notes.md").write_text("mine too")
    assert invoke(*RUN, "--out", str(out), "--fresh")[0] == 0
    assert (out / "transcripts" / "notes.txt").read_text() == "mine" and (out / "notes.md").read_text() == "mine too"
    assert len((out / "results.jsonl").read_text().splitlines()) == 4
