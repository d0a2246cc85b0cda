"""Attack 13 (issue 43), the low defects: a context written as a JSON string nested 1,100 deep ended `run
--skip-invalid` in a RecursionError; the pseudo-model failed every answer starting or ending with a quote (the
choice parser stripped quotes the option itself has); a YAML file that is not UTF-8 gave a UnicodeDecodeError
traceback; a gold span's fields were coerced (`"start": true` read as 1, `"4"` as 4) though ids are refused for
that; two writes of one file at once in one process (two `courtroom.run()` calls finishing one run) shared the
temporary name `metrics.json.tmpPID`, and one failed with FileNotFoundError; NaN, Infinity or numbers out of range
in a run handed over (a score of NaN or 7, a span running backwards, a testimony value of Infinity) crashed `audit
report` and `calibrate --ruling` with tracebacks; `audit report` and `calibrate` printed OSError tracebacks for an
output they could not write (and replaced a FIFO or a link to /dev/null given as the output with a file)."""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import shutil
from pathlib import Path
from typing import Literal

import pytest
from typer.testing import CliRunner

import courtroom
from courtroom.cli import app
from courtroom.court.personas import Persona
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.outputs import output_spec
from courtroom.errors import DatasetError, PersonaError
from courtroom.evaluate.datasets import LoadReport, load_file
from courtroom.log.files import atomic_file
from courtroom.runs.runners import LocalRunner
from tests.helpers.cases import NO_RULING_MODEL

ROW = {"id": "a", "question": "Q?", "context": ["The sky is blue."], "answer": "It is blue.", "label": "PASS"}
DEEP = {**ROW, "id": "deep", "context": "[" * 1100 + "]" * 1100}


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_context_string_nested_too_deep_is_a_row_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"cases{suffix}"
    rows = [ROW, DEEP, {**ROW, "id": "b"}]
    if suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(ROW))
            writer.writeheader()
            writer.writerows({**r, "context": r["context"] if isinstance(r["context"], str) else json.dumps(r["context"])}
                             for r in rows)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = 3 if suffix == ".csv" else 2  # below the header line
    with pytest.raises(DatasetError, match=rf"^{path}:{line}: field 'context': .*nested deeper than"):
        load_file(path)
    report = LoadReport(str(path))
    assert [c.id for c in load_file(path, skip_invalid=True, report=report)] == ["a", "b"]
    assert len(report.skipped) == 1 and "field 'context'" in report.skipped[0]


@pytest.mark.parametrize("answer", ['"Hello," she said to the crowd.', 'She said "hello"', ' "quoted" '])
def test_an_answer_in_quotes_is_judged(tmp_path: Path, answer: str) -> None:
    assert output_spec(Literal[answer]).parse(answer) == answer
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**ROW, "context": ["She said hello to the crowd."], "answer": answer}) + "\n")
    result = courtroom.run(str(path), out=tmp_path / "run",
                           runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    assert [r.error for r in result.rows] == [None]


def test_a_yaml_file_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_bytes(b"name: judge\nrole: judge\ndescription: A caf\xe9 judge.\ninstructions: Rule.\n")
    with pytest.raises(PersonaError, match=rf"^{path}:3: not valid UTF-8 \(byte 0xe9 at column 19\)$"):
        Persona.from_file(path)
    result = CliRunner().invoke(app, ["personas", "validate", str(path)], env={"COLUMNS": "1000"})
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit)
    assert f"{path}:3: not valid UTF-8" in " ".join(result.output.split())


@pytest.mark.parametrize(("span", "says"), [
    ({"start": True, "end": 4}, "spans.0.start: Input should be a valid integer (got bool True)"),
    ({"start": 0, "end": "4"}, "spans.0.end: Input should be a valid integer (got str '4')"),
    ({"start": 0, "end": 4.0}, "spans.0.end: Input should be a valid integer (got float 4.0)"),
    ({"start": 0, "end": 4, "text": 7}, "spans.0.text: Input should be a valid string (got int 7)"),
    ({"start": 0, "end": 4, "implicit_true": "yes"}, "spans.0.implicit_true: Input should be a valid boolean")])
def test_a_gold_span_field_is_not_coerced(tmp_path: Path, span: dict, says: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**ROW, "label": "FAIL", "spans": [span]}) + "\n")
    with pytest.raises(DatasetError, match=rf"^{path}:1: field {re.escape(says)}"):
        load_file(path)


def test_two_writes_of_one_file_in_one_process_do_not_collide(tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    with atomic_file(path) as first:
        with atomic_file(path) as second:  # another thread's write of the same file, while the first is open
            second.write("second")
        first.write("first")
    assert path.read_text() == "first" and [p.name for p in tmp_path.iterdir()] == ["metrics.json"]


def towns(path: Path) -> Path:
    """A labelled file of twelve towns, each a faithful answer and one with a figure the context never states."""
    rows = []
    for i, town in enumerate(["Arden", "Brill", "Corve", "Dunmore", "Elsby", "Fenwick", "Garth", "Hollin", "Ivel",
                              "Jessop", "Kelby", "Lorne"]):
        people = 1000 + 137 * (i + 3)
        context = [f"The town of {town} had a population of {people:,} in the last census. Its market is on Tuesdays."]
        for label, figure in (("PASS", people), ("FAIL", people + 4321)):
            rows.append({"id": f"{town}-{label}", "source": "towns", "question": f"What was the population of {town}?",
                         "context": context, "answer": f"The population of {town} was {figure:,}.", "label": label})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def labelled_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("labelled")
    courtroom.run(str(towns(root / "towns.jsonl")), out=root / "run", model=NO_RULING_MODEL,
                  runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    return root / "run"


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, " ".join(result.output.split())


def tamper_row(run: Path, **fields: object) -> None:
    lines = (run / "results.jsonl").read_text().splitlines()
    lines[0] = json.dumps({**json.loads(lines[0]), **fields})
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("fields", "says"), [
    ({"score": float("nan")}, "field score: Input should be a finite number"),
    ({"score": float("inf")}, "field score: Input should be a finite number"),
    ({"score": 7.0}, "field score: Input should be less than or equal to 1"),
    ({"seconds": -1.0}, "field seconds: Input should be greater than or equal to 0"),
    ({"spans": [[9, 2, 0.5]]}, "field spans: Value error, span 0: start 9 is not before end 2")])
def test_a_row_number_out_of_range_names_its_line(labelled_run: Path, tmp_path: Path, fields: dict, says: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(labelled_run, run)
    tamper_row(run, **fields)
    status, output = cli("audit", "report", str(run), "-o", str(tmp_path / "report.html"))
    assert status == 2 and f"{run}/results.jsonl:1: not a result row ({says}" in output


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_testimony_value_that_is_not_finite_names_its_transcript_line(labelled_run: Path, tmp_path: Path,
                                                                       value: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(labelled_run, run)
    transcript = sorted((run / "transcripts").iterdir())[0]
    lines = transcript.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if '"event":"verdict"' in line)
    lines[number - 1] = re.sub(r'"mean":[-0-9.e]+', f'"mean":{value}', lines[number - 1], count=1)
    transcript.write_text("\n".join(lines) + "\n")
    status, output = cli("calibrate", str(run), "--ruling", str(tmp_path / "ruling.yaml"))
    assert status == 2 and f"{transcript}:{number}: not a transcript event (field verdict.verdict.testimony.0.values." \
        "mean: Input should be a finite number" in output
    assert cli("audit", "report", str(run), "-o", str(tmp_path / "report.html"))[0] == 0  # it shows what is there


def unwritable(tmp_path: Path, kind: str) -> Path:
    """An output path that cannot be written as a file: under a file, a FIFO, a link to /dev/null."""
    if kind == "under a file":
        (tmp_path / "a-file").write_text("mine")
        return tmp_path / "a-file" / "out.yaml"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo"
    (tmp_path / "null").symlink_to(os.devnull)
    return tmp_path / "null"


@pytest.mark.timeout(120)  # a write that opens the FIFO would wait for a reader
@pytest.mark.parametrize("kind", ["under a file", "fifo", "link to /dev/null"])
@pytest.mark.parametrize("command", [("audit", "report", "RUN", "-o", "OUT"), ("calibrate", "RUN", "-o", "OUT"),
                                     ("calibrate", "RUN", "--ruling", "OUT")])
def test_an_output_that_cannot_be_written_is_one_line(labelled_run: Path, tmp_path: Path, kind: str,
                                                      command: tuple[str, ...]) -> None:
    out = unwritable(tmp_path, kind)
    before = {p.name: (p.is_symlink(), p.is_fifo(), p.is_file()) for p in tmp_path.iterdir()}
    status, output = cli(*[{"RUN": str(labelled_run), "OUT": str(out)}.get(a, a) for a in command])
    where = out.parent if kind == "under a file" else out
    assert status == 2 and f"error: {where}: cannot write" in output
    assert {p.name: (p.is_symlink(), p.is_fifo(), p.is_file()) for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("command", [("audit", "report", "RUN", "-o", "OUT"), ("calibrate", "RUN", "-o", "OUT"),
                                     ("calibrate", "RUN", "--ruling", "OUT")])
def test_a_full_disk_is_one_line(labelled_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 command: tuple[str, ...]) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("courtroom.log.files.os.fsync", full)
    out = tmp_path / "out.yaml"
    status, output = cli(*[{"RUN": str(labelled_run), "OUT": str(out)}.get(a, a) for a in command])
    assert status == 2 and f"{out}: cannot write" in output and "No space left on device" in output
    assert list(tmp_path.iterdir()) == []


def test_a_context_literal_nested_too_deep_reads_as_text() -> None:
    """A JSON literal nested past Python's recursion limit in a context is cut as text, not a failed case."""
    from courtroom.text.sentences import structured_sentences

    deep = "[" * 1100 + "]" * 1100
    cut = structured_sentences(f"Intro line.\n{deep}\nEnd.")
    assert cut[0].startswith("Intro line.") and deep in "".join(cut).replace(" ", "") and cut[-1].endswith("End.")
