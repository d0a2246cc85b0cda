"""Attack 8 (second review): `audit edit` killed, on a full disk, or six at once. An edit was two unguarded appends
(the transcript, then `edits.jsonl`): a kill between them left a torn line that crashed `audit`, `list`, `verify`,
`report` and `export`; a full disk left the edit in the transcript only, and `verify` failed for good; concurrent
editors interleaved the two files. Now the run's record of human judgement (`judgements.jsonl`) alone records edits
(and labels), one line per judgement written whole or not at all, under a lock; a torn last line is skipped with a
warning and cut by the next one."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import RunError
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.verify import verify
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cli import invoke
from tests.helpers.killed import ROOT, disk_full_at, killed_at

RECORD = "judgements.jsonl"
REASON = "checked against the context by hand " * 30
"""A long reason: the edit's line is long enough to be cut in the middle."""


@pytest.fixture
def edited(tmp_path: Path) -> tuple[Path, str]:
    """A rails run with three long edits of other cases (the record is then longer than a transcript and an edit
    together, so a file-size limit inside the next edit's line stops nothing before it); the case to edit."""
    out = tmp_path / "run"
    run = start_run(RunSpec.build("examples", judge="rails", limit=4), out)
    rows = run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    (out / "metrics.json").write_text(compute_metrics(rows).model_dump_json(indent=2))
    audit = Audit(out)
    for row in rows[1:]:
        audit.edit(row.case_id, "supported", REASON * 2, "earlier@example.org")
    return out, rows[0].case_id


def edit_command(out: Path, case: str) -> list[str]:
    return ["audit", "edit", str(out), case, "--verdict", "hallucinated", "--reason", REASON, "--author", "me"]


def edits_of(out: Path, case: str) -> list:
    return Audit(out).judged().get(case, [])


def middle_of_the_next_edit(out: Path, case: str) -> int:
    """A file size inside the line the next edit appends to the record."""
    size = (out / RECORD).stat().st_size
    transcript = out / Audit(out).row(case).transcript
    assert size > transcript.stat().st_size + len(REASON) + 1000  # nothing else written reaches it
    return size + len(REASON) // 2


def test_an_edit_killed_mid_line_loses_nothing_and_the_same_command_records_it(edited: tuple[Path, str]) -> None:
    out, case = edited
    before = (out / RECORD).read_bytes()
    killed_at(middle_of_the_next_edit(out, case), *edit_command(out, case))
    torn = (out / RECORD).read_bytes()
    assert torn.startswith(before) and len(torn) > len(before) and not torn.endswith(b"\n")  # killed mid-line
    for command in (["audit", str(out)], ["audit", "list", str(out)], ["audit", "verify", str(out)],
                    ["audit", "report", str(out), "-o", str(out.parent / "r.html")],
                    ["export", str(out), "-o", str(out.parent / "x.csv")], ["audit", "show", str(out), case]):
        code, output = invoke(*command)
        assert code == 0 and RECORD in output and "torn" in output, (command, output)
    assert edits_of(out, case) == []
    code, output = invoke(*edit_command(out, case))
    assert code == 0, output
    assert (out / RECORD).read_bytes().startswith(before)
    assert [j.label for j in edits_of(out, case)] == ["hallucinated"]
    assert verify(Audit(out)) == []


def test_an_edit_on_a_full_disk_changes_nothing_and_the_same_command_succeeds_later(edited: tuple[Path, str]) -> None:
    out, case = edited
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = disk_full_at(middle_of_the_next_edit(out, case), *edit_command(out, case))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert RECORD in result.stderr and "the run is unchanged" in " ".join(result.stderr.split())
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert verify(Audit(out)) == []
    assert invoke(*edit_command(out, case))[0] == 0
    assert len(edits_of(out, case)) == 1 and verify(Audit(out)) == []


def test_no_space_left_in_the_middle_of_an_edit(edited: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    out, case = edited
    before = (out / RECORD).read_bytes()
    real_write = os.write

    def full(fd: int, data: bytes) -> int:  # half the line lands, then the disk is full
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch:
        patch.setattr(os, "write", full)
        with pytest.raises(RunError, match="No space left on device.*the run is unchanged"):
            Audit(out).edit(case, "hallucinated", REASON, "me")
    assert (out / RECORD).read_bytes() == before and verify(Audit(out)) == []
    Audit(out).edit(case, "hallucinated", REASON, "me")
    assert len(edits_of(out, case)) == 1 and verify(Audit(out)) == []


def test_a_bad_line_inside_the_edits_is_a_clear_error(edited: tuple[Path, str]) -> None:
    out, case = edited
    lines = (out / RECORD).read_text().splitlines()
    lines.insert(1, '{"case_id": "x", "ev')
    (out / RECORD).write_text("\n".join(lines) + "\n")
    for command in (["audit", str(out)], ["audit", "list", str(out)], ["audit", "verify", str(out)],
                    ["export", str(out), "-o", str(out.parent / "x.csv")], edit_command(out, case)):
        code, output = invoke(*command)
        assert code == 2 and f"{RECORD}:2" in output, (command, output)


EDITOR = """
import sys
from courtroom.log.audit import Audit
run, case, editor = sys.argv[1:]
sys.stdin.readline()  # all start together
for n in range(25):
    Audit(run).edit(case, "supported" if n % 2 else "hallucinated", f"editor {editor}, edit {n}", f"editor-{editor}")
"""


def test_six_editors_at_once_keep_the_run_verifiable(edited: tuple[Path, str]) -> None:
    out, case = edited
    editors = [subprocess.Popen([sys.executable, "-c", EDITOR, str(out), case, str(n)], cwd=ROOT, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for n in range(6)]
    for editor in editors:
        editor.stdin.write("go\n")
        editor.stdin.flush()
    for editor in editors:
        _, stderr = editor.communicate(timeout=120)
        assert editor.returncode == 0, stderr
    edits = edits_of(out, case)
    assert len(edits) == 150 and verify(Audit(out)) == []
    assert len({j.note for j in edits}) == 150  # each whole, none lost
    lines = (out / RECORD).read_text().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) == 153
