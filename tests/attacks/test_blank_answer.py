"""Attack 8: a whitespace-only answer was accepted, then failed inside the backend (`IndexError`) on every
resume. It is refused when the dataset loads, naming the row and the field, like a blank context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from courtroom.case import Case
from courtroom.errors import DatasetError
from courtroom.evaluate.datasets import LoadReport, load_file

ROW = {"id": "a", "question": "Q?", "context": ["The sky is blue."], "answer": "It is blue.", "label": "PASS"}


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("answer", [" ", "   \n\t ", "\u00a0\u2003"])
def test_a_blank_answer_is_refused_with_row_and_field(tmp_path: Path, answer: str) -> None:
    path = write(tmp_path / "cases.jsonl", [ROW, {**ROW, "id": "b", "answer": answer}])
    with pytest.raises(DatasetError, match=rf"{path}:2: field answer: .*the answer is blank"):
        load_file(path)
    report = LoadReport(str(path))
    assert [c.id for c in load_file(path, skip_invalid=True, report=report)] == ["a"]
    assert len(report.skipped) == 1 and f"{path}:2" in report.skipped[0]


def test_a_case_with_a_blank_answer_cannot_be_built() -> None:
    with pytest.raises(ValidationError, match="the answer is blank"):
        Case(id="x", question="Q?", context=["C."], answer="  \n ")


def test_the_cli_refuses_a_blank_answer_before_any_model(tmp_path: Path) -> None:
    from courtroom.cli import app

    path = write(tmp_path / "cases.jsonl", [{**ROW, "answer": "   "}])
    result = CliRunner().invoke(app, ["run", str(path), "--model", "no-such-model", "--out", str(tmp_path / "run")],
                                env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and f"{path}:1: field answer" in output and "blank" in output, output
    assert "Traceback" not in result.output
