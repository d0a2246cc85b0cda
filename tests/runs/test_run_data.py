"""`courtroom.run` takes the data itself, as DeepEval and Phoenix users hand it over: a pandas DataFrame or a list of
dicts (one case a row, a dataset file's columns), and gives the rows back as a DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import courtroom
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import DatasetError
from courtroom.evaluate.results import ResultRow
from courtroom.runs.runners import LocalRunner

EXAMPLES = Path(__file__).resolve().parents[2] / "courtroom" / "data" / "examples.jsonl"
ROWS = [json.loads(line) for line in EXAMPLES.read_text().splitlines()[:4]]


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def judged(data: object, out: Path) -> courtroom.RunResult:
    return courtroom.run(data, out=out, runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))


def test_a_dataframe_and_a_list_of_dicts_are_judged_as_their_file(tmp_path: Path, cache: Path) -> None:
    from_file = judged(str(EXAMPLES), tmp_path / "file")
    wanted = {r.case_id: (r.label, r.score) for r in from_file.rows if r.case_id in {row["id"] for row in ROWS}}
    frame = pd.DataFrame(ROWS).astype({"label": "string"})
    frame.loc[1, "label"] = None  # a missing cell (pandas' NA) is an unlabelled case, not a label "<NA>"
    for data, out in ((frame, "frame"), (ROWS, "list")):
        result = judged(data, tmp_path / out)
        assert {r.case_id: (r.label, r.score) for r in result.rows} == wanted
        assert [r.gold for r in result.rows] == [None if out == "frame" and i == 1 else row["label"]
                                                for i, row in enumerate(ROWS)]
    assert len(list((cache / "datasets").iterdir())) == 2  # each data written once, named by its content
    again = judged(ROWS, tmp_path / "list")  # the same rows resume the run: nothing is judged again
    assert [r.case_id for r in again.rows] == [row["id"] for row in ROWS]


def test_the_rows_come_back_as_a_dataframe(tmp_path: Path) -> None:
    result = judged(ROWS, tmp_path / "run")
    frame = result.to_pandas()
    assert list(frame.columns) == list(ResultRow.model_fields) and len(frame) == len(ROWS)
    assert frame["case_id"].tolist() == [row["id"] for row in ROWS]
    assert frame["score"].tolist() == [r.score for r in result.rows]


@pytest.mark.parametrize("data", [42, "not a list".split(), [{"id": "a"}, "b"]])
def test_other_data_is_refused_naming_what_a_dataset_is(tmp_path: Path, data: object) -> None:
    with pytest.raises(DatasetError, match="a list of dicts or a DataFrame|a row of the data"):
        courtroom.run(data, out=tmp_path / "run")
