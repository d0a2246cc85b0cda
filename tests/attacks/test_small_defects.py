"""Attack 12, the smaller defects: a relative persona path in a court file resolved against the working
directory, not the court's folder; `answer: null` was reported as missing while the message listed `answer`
among the columns; a JSON error did not say where in the line; a directory given as a dataset was "no such
dataset file"; `audit edit` accepted a blank --author and --reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import AuditError, DatasetError
from courtroom.evaluate.datasets import load_file
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.courts import settings

runner = CliRunner()
ROW = {"id": "a", "question": "Q?", "context": ["The sky is blue."], "answer": "It is blue.", "label": "PASS"}
JUDGE = "name: {name}\nrole: judge\ndescription: A judge.\ninstructions: Rule.\n"


def invoke(*args: str):  # noqa: ANN201
    result = runner.invoke(app, list(args), env={"COLUMNS": "1000"})
    assert "Traceback" not in result.output
    return result, " ".join(result.output.split())


def test_a_relative_persona_path_resolves_against_the_court_file(tmp_path: Path, monkeypatch) -> None:
    court_dir, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    for folder, name in ((court_dir, "court_judge"), (elsewhere, "cwd_judge")):
        (folder / "personas").mkdir(parents=True)
        (folder / "personas" / "my_judge.yaml").write_text(JUDGE.format(name=name))
    data = settings("full")
    data["trial"]["personas"]["judge"] = "personas/my_judge.yaml"
    court_file = court_dir / "court.yaml"
    court_file.write_text(yaml.safe_dump(data, sort_keys=False))
    monkeypatch.chdir(elsewhere)
    assert load_court(court_file).bench.persona("judge").name == "court_judge"
    (elsewhere / "personas" / "my_judge.yaml").unlink()  # and found without a copy in the working directory
    assert load_court(court_file).bench.persona("judge").name == "court_judge"


def test_a_null_required_field_is_called_null(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**ROW, "answer": None}) + "\n")
    with pytest.raises(DatasetError) as info:
        load_file(path)
    assert str(info.value) == f"{path}:1: field 'answer' is null"


def test_a_json_error_says_what_and_where_in_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + '{"id": "b", "question": "Q?" "answer": "A."}\n')
    with pytest.raises(DatasetError) as info:
        load_file(path)
    assert str(info.value) == f"{path}:2: not valid JSON (Expecting ',' delimiter at column 30)"
    result, output = invoke("run", str(path), "--model", "no-such-model", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and f"{path}:2: not valid JSON (Expecting ',' delimiter at column 30)" in output
    array = tmp_path / "cases.json"
    array.write_text("[\n" + json.dumps(ROW) + "\n" + json.dumps(ROW) + "\n]\n")
    with pytest.raises(DatasetError, match=rf"^{array}:3: not a valid JSON array \(Expecting ',' delimiter at "
                                           r"column 1\)$"):
        load_file(array)


def test_a_directory_is_not_a_dataset_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=rf"^{tmp_path}: is a directory, not a dataset file$"):
        load_file(tmp_path)
    result, output = invoke("run", str(tmp_path), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and f"{tmp_path}: is a directory, not a dataset file" in output


@pytest.mark.parametrize("author, reason, blank", [("", "wrong", "--author"), ("  ", "wrong", "--author"),
                                                   ("ann", "", "--reason"), ("ann", " \t", "--reason")])
def test_an_edit_needs_an_author_and_a_reason(tmp_path: Path, author: str, reason: str, blank: str) -> None:
    dataset = tmp_path / "cases.jsonl"
    dataset.write_text(json.dumps(ROW) + "\n")
    out = tmp_path / "run"
    run = start_run(RunSpec.build(str(dataset), judge="rails"), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    with pytest.raises(AuditError, match=f"{blank} is blank"):
        Audit(out).edit("a", "hallucinated", reason, author)
    result, output = invoke("audit", "edit", str(out), "a", "--verdict", "hallucinated", "--reason", reason,
                            "--author", author)
    assert result.exit_code == 2 and f"{blank} is blank" in output, output
    assert Audit(out).judgements() == [] and not (out / "judgements.jsonl").exists()
