"""Attack 12 (second review): commands killed while they write. `export`, `audit report` and the inspect log wrote
their file in place, so a kill left a silently truncated file where the previous export was; a `rejudge` killed
mid-write left a partial run that `audit verify` passed and the same command refused to finish. Now every such
file is written beside its name and renamed over it whole, and a rejudge records the cases it decides: `verify`
reports an unfinished one, and the same command finishes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cli import invoke
from tests.helpers.killed import killed_at, sigkill_after_writes


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "unstructured"
    run = start_run(RunSpec.build("examples", judge="unstructured", limit=8), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return out


WRITERS = {"csv": ["export", "--format", "csv"], "jsonl": ["export", "--format", "jsonl"],
           "parquet": ["export", "--format", "parquet"], "inspect": ["export", "--format", "inspect"],
           "report": ["audit", "report"]}


@pytest.mark.parametrize("what", sorted(WRITERS))
def test_a_killed_export_keeps_the_previous_one_and_the_same_command_writes_it_whole(
        run_dir: Path, tmp_path: Path, what: str) -> None:
    command = [*WRITERS[what], str(run_dir), "-o", str(tmp_path / "out")]
    assert invoke(*command)[0] == 0
    whole = (tmp_path / "out").read_bytes()
    previous = b"the previous export, which a reader may be reading\n"
    (tmp_path / "out").write_bytes(previous)
    killed_at(len(whole) // 2, *command)
    assert (tmp_path / "out").read_bytes() == previous
    assert invoke(*command)[0] == 0
    assert (tmp_path / "out").read_bytes().startswith(whole[:10]) and abs(len((tmp_path / "out").read_bytes()) - len(whole)) < 200


def rejudge(source: Path, out: Path) -> list[str]:
    return ["rejudge", str(source), "--out", str(out), "--reading", "lenient"]


def test_a_killed_rejudge_fails_verify_and_the_same_command_finishes_it(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "rejudged"
    sigkill_after_writes(3, *rejudge(run_dir, out))
    assert len(RunStore(out).rows()) == 3
    code, output = invoke("audit", "verify", str(out))
    assert code == 1 and "unfinished" in output and "5 of 8 cases" in output and "same command" in output, output
    code, output = invoke(*rejudge(run_dir, out))
    assert code == 0, output
    assert invoke("audit", "verify", str(out))[0] == 0
    assert invoke(*rejudge(run_dir, tmp_path / "whole"))[0] == 0

    def decided(path: Path) -> list[tuple]:
        rows = [json.loads(line) for line in (path / "results.jsonl").read_text().splitlines()]
        return sorted((r["case_id"], r["label"], r["score"]) for r in rows)

    assert decided(out) == decided(tmp_path / "whole") and len(decided(out)) == 8


def test_rejudge_still_refuses_another_run_in_its_out(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    run = start_run(RunSpec.build("examples", judge="rails", limit=2), other)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    code, output = invoke(*rejudge(run_dir, other))
    assert code == 2 and "already holds" in output, output
