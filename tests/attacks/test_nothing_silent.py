"""Attack 13 (issue 43), the low defects: a context written as a JSON string nested 1,100 deep ended `run
--skip-invalid` in a RecursionError; the pseudo-model failed every answer starting or ending with a quote (the
choice parser stripped quotes the option itself has)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Literal

import pytest

import courtroom
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.outputs import output_spec
from courtroom.errors import DatasetError
from courtroom.evaluate.datasets import LoadReport, load_file
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
