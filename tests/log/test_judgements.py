"""The run's one record of human judgement (`judgements.jsonl`): any number of writers at once, threads or processes,
lose nothing; a line that is no judgement, or judges a case the run does not hold, is refused naming file and line;
the corrections of `edits.jsonl` (earlier versions) are read into it and count as labels; and a run being written is
read by what it appends."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import AuditError
from courtroom.log.audit import Audit
from courtroom.log.judgements import Judgement
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.killed import ROOT

WRITER = """
import sys
from courtroom.log.audit import Audit
from courtroom.log.judgements import Judgement
run, writer, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.stdin.readline()  # all start together
for n in range(25):
    Audit(run).record_judgements([Judgement(case_id=cases[n % len(cases)], label="hallucinated", author=f"w{writer}",
                                            note=f"{writer}-{n}", source="view")])
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("record") / "run"
    run = start_run(RunSpec.build("examples", judge="rails", limit=6), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return out


@pytest.fixture
def run(made: Path, tmp_path: Path) -> Path:
    shutil.copytree(made, tmp_path / "run")
    return tmp_path / "run"


def test_writers_at_once_in_threads_and_processes_lose_nothing(run: Path) -> None:
    cases = [r.case_id for r in Audit(run).rows()]
    go = threading.Barrier(8)

    def write(writer: int) -> None:
        audit = Audit(run)  # each its own reader and writer, as two pages or a page and a terminal
        go.wait()
        for n in range(25):
            audit.record_judgements([Judgement(case_id=cases[n % len(cases)], label="faithful", author=f"t{writer}",
                                               note=f"t{writer}-{n}", source="view")])

    processes = [subprocess.Popen([sys.executable, "-c", WRITER, str(run), str(w), *cases], cwd=ROOT, text=True,
                                  stdin=subprocess.PIPE, stderr=subprocess.PIPE) for w in range(4)]
    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for p in processes:
        p.stdin.write("go\n")
        p.stdin.flush()
    for t in threads:
        t.join(120)
    for p in processes:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    notes = [j.note for j in Audit(run).judgements()]
    assert sorted(notes) == sorted([f"t{w}-{n}" for w in range(8) for n in range(25)] +
                                   [f"{w}-{n}" for w in range(4) for n in range(25)])  # 300 written, 300 read
    assert len((run / "judgements.jsonl").read_text().splitlines()) == 300


@pytest.mark.parametrize(("line", "says"), [
    ('{"case_id": "x", "label": "hallucinated"', "not a judgement"),
    ('{"case_id": "CASE", "label": "maybe", "author": "a", "source": "view"}', "field label"),
    ('{"case_id": "CASE", "label": "skip", "author": "a", "source": "view", "verdict": "PASS"}', "field verdict"),
    ('{"case_id": "not-in-this-run", "label": "skip", "author": "a", "source": "view"}', "which the run does not hold")])
def test_a_forged_line_is_refused_naming_the_file_and_line(run: Path, line: str, says: str) -> None:
    case = Audit(run).rows()[0].case_id
    Audit(run).edit(case, "hallucinated", "first", "me")
    with (run / "judgements.jsonl").open("a") as handle:
        handle.write(line.replace("CASE", case) + "\n")
    with pytest.raises(AuditError, match=f"judgements.jsonl:2: .*{says}"):
        Audit(run).judgements()
    result = CliRunner().invoke(app, ["audit", str(run)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "judgements.jsonl:2" in result.output and says in " ".join(result.output.split())


def test_the_edits_of_earlier_versions_are_read_into_the_record(run: Path) -> None:
    rows = Audit(run).rows()
    old = {"case_id": rows[0].case_id, "event": {"seq": 9, "time": "2026-01-02T03:04:05Z", "event": "edit", "charge": None,
                                                 "verdict": "hallucinated", "provenance": {"author": "ann", "reason": "by hand",
                                                                                           "time": "2026-01-02T03:04:05Z"}}}
    (run / "edits.jsonl").write_text(json.dumps(old) + "\n")
    Audit(run).edit(rows[1].case_id, "supported", "checked", "bob")
    audit = Audit(run)
    assert [(j.case_id, j.label, j.author, j.note, j.source) for j in audit.judgements()] == [
        (rows[0].case_id, "hallucinated", "ann", "by hand", "edit"), (rows[1].case_id, "faithful", "bob", "checked", "edit")]
    assert audit.human_labels() == {rows[0].case_id: "FAIL", rows[1].case_id: "PASS"}  # labels, for calibrate too
    assert [r.label for r in audit.corrected_rows()][:2] == ["FAIL", "PASS"]
    assert audit.events(rows[0].case_id)[-1].provenance.reason == "by hand"
    assert (run / "edits.jsonl").read_text() == json.dumps(old) + "\n"  # never written again


def test_a_run_being_written_is_read_by_what_it_appends(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = run / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:2]) + lines[2][:10])  # two rows and a torn third, as while it is written
    audit = Audit(run)
    assert [r.case_id for r in audit.rows()] == [json.loads(line)["case_id"] for line in lines[:2]]
    whole = [json.loads(line)["case_id"] for line in lines]
    read = []
    real = __import__("courtroom.log.store", fromlist=["read_lines"]).read_lines

    def counted(path: Path, *args: object, at: tuple[int, int] = (0, 0)) -> object:
        read.append(at)
        return real(path, *args, at=at)

    monkeypatch.setattr("courtroom.log.store.read_lines", counted)
    results.write_text("".join(lines))
    assert audit.refresh() == {json.loads(line)["case_id"] for line in lines[2:]}
    assert read == [(len("".join(lines[:2]).encode()), 2)]  # from where the last whole row ended
    assert [r.case_id for r in audit.rows()] == whole
    assert audit.refresh() == set() and read == [(len("".join(lines[:2]).encode()), 2)]  # nothing new: nothing read
    audit.edit(whole[0], "supported", "r", "me")
    assert audit.refresh() == {whole[0]}  # a judgement changes its case
    results.write_text("".join(lines[:3]))  # cut: read anew
    assert audit.refresh() is None and len(audit.rows()) == 3
