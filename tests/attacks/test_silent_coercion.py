"""Attack 10: silent coercion. A list or a number as `answer`/`question`/`id` was judged as Python's `str()` of
it (`"['x', 'y']"`); `--field label=COL` or `--field id=COL` naming a column no row has gave a run with no gold
labels or generated ids; an empty label silently meant "unlabelled". Wrong types are refused naming the
field, a mapped column that no row has is refused, and the run header counts the unlabelled cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import DatasetError
from courtroom.evaluate.datasets import LoadReport, load_file, parse_field_map
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

runner = CliRunner()
ROW = {"id": "a", "question": "Q?", "context": ["The sky is blue."], "answer": "It is blue.", "label": "PASS"}


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("change, expected", [
    ({"answer": ["x", "y"]}, "field 'answer': expected a string, got list ['x', 'y']"),
    ({"answer": 42}, "field 'answer': expected a string, got int 42"),
    ({"question": {"text": "Q?"}}, "field 'question': expected a string, got dict"),
    ({"question": 3.5}, "field 'question': expected a string, got float"),
    ({"id": ["a", "b"]}, "field 'id': expected a string or an integer, got list"),
    ({"id": 1.5}, "field 'id': expected a string or an integer, got float"),
    ({"id": True}, "field 'id': expected a string or an integer, got bool"),
    ({"context": {"passage": "x"}}, "field 'context': expected a string or a list of strings, got dict"),
    ({"context": ["fine", 7]}, "field 'context': passage 2 is not a string (got int 7)"),
    ({"context": 7}, "field 'context': expected a string or a list of strings, got int"),
])
def test_a_wrong_type_is_refused_with_the_field(tmp_path: Path, change: dict, expected: str) -> None:
    path = write(tmp_path / "cases.jsonl", [{**ROW, **change}])
    with pytest.raises(DatasetError) as info:
        load_file(path)
    assert str(info.value).startswith(f"{path}:1: ") and expected in str(info.value)


def test_integer_ids_and_json_text_contexts_still_load(tmp_path: Path) -> None:
    path = write(tmp_path / "cases.jsonl", [{**ROW, "id": 7, "context": '["one", "two"]'}])
    [case] = load_file(path)
    assert case.id == "7" and case.context == ["one", "two"]
    csv = tmp_path / "cases.csv"
    csv.write_text('id,question,context,answer\n1,Q?,"[""a"", 2]",A.\n')
    with pytest.raises(DatasetError, match="passage 2 is not a string"):
        load_file(csv)


@pytest.mark.parametrize("field", ["label=verdict", "id=case_id", "source=origin"])
def test_a_mapped_column_that_no_row_has_is_refused(tmp_path: Path, field: str) -> None:
    path = write(tmp_path / "cases.jsonl", [ROW, {**ROW, "id": "b"}])
    name, column = field.split("=")
    with pytest.raises(DatasetError, match=rf"--field {field}: no row has a column '{column}'; columns present: "
                                           r"\['answer', 'context', 'id', 'label', 'question'\]"):
        load_file(path, parse_field_map([field]))
    result = runner.invoke(app, ["run", str(path), "--field", field, "--model", "no-such-model",
                                 "--out", str(tmp_path / "run")], env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and f"--field {field}: no row has a column '{column}'" in output, output
    assert "Traceback" not in result.output


def test_a_mapped_column_that_some_rows_have_is_fine(tmp_path: Path) -> None:
    path = write(tmp_path / "cases.jsonl", [{**ROW, "verdict": "FAIL"}, {**ROW, "id": "b"}])
    report = LoadReport(str(path))
    cases = load_file(path, parse_field_map(["label=verdict"]), report=report)
    assert [c.label for c in cases] == ["FAIL", None] and report.unlabelled == 1 and report.cases == 2


def test_the_run_header_counts_cases_without_a_gold_label(tmp_path: Path) -> None:
    path = write(tmp_path / "cases.jsonl", [ROW, {**ROW, "id": "b", "label": ""}, {**ROW, "id": "c", "label": None}])
    out = tmp_path / "run"
    run = start_run(RunSpec.build(str(path), judge="rails"), out)  # judged here, so the CLI only resumes
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    result = runner.invoke(app, ["run", str(path), "--judge", "rails", "--out", str(out)], env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 0, output
    assert "2 of 3 cases have no gold label (an empty label means unlabelled)" in output
