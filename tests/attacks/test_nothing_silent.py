"""Attack 13 (issue 43), the low defects: a context written as a JSON string nested 1,100 deep ended `run
--skip-invalid` in a RecursionError; the pseudo-model failed every answer starting or ending with a quote (the
choice parser stripped quotes the option itself has); a YAML file that is not UTF-8 gave a UnicodeDecodeError
traceback; a gold span's fields were coerced (`"start": true` read as 1, `"4"` as 4) though ids are refused for
that; two writes of one file at once in one process (two `courtroom.run()` calls finishing one run) shared the
temporary name `metrics.json.tmpPID`, and one failed with FileNotFoundError."""

from __future__ import annotations

import csv
import json
import re
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
