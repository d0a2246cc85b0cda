"""The command line: personas, courts and schemas (no model needed)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from courtroom.cli import app

runner = CliRunner()


def test_personas_validate_reports_broken_files(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: x\nrole: judge\ndescription: d\ninstructions: hi\ncolour: red\n")
    result = runner.invoke(app, ["personas", "validate", str(tmp_path)])
    assert result.exit_code == 1
    assert "bad.yaml:5" in result.output and "colour" in result.output


def test_personas_validate_accepts_the_shipped_personas() -> None:
    result = runner.invoke(app, ["personas", "validate", "personas"])
    assert result.exit_code == 0 and result.output.count("ok ") >= 9


def test_schemas_are_json() -> None:
    for command in (["personas", "schema"], ["court", "schema"], ["transcript", "schema"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 0
        assert json.loads(result.output)["title"]


def test_court_show_draws_the_graph() -> None:
    result = runner.invoke(app, ["court", "show", "cross_examination", "--mermaid"])
    assert result.exit_code == 0
    assert "flowchart TD" in result.output and "cross -->|question| witness" in result.output


def test_unknown_court_is_a_clear_error() -> None:
    result = runner.invoke(app, ["court", "validate", "no_such_court"])
    assert result.exit_code == 2 and "unknown court 'no_such_court'" in result.output


def test_default_run_names_keep_hub_ids_apart_and_are_those_of_the_library() -> None:
    from courtroom.runs.api import default_run_dir

    names = {default_run_dir("d.jsonl", "courtroom", "default", m).name
             for m in ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-3B-Instruct")}
    assert names == {"d-default-Qwen_Qwen2.5-7B-Instruct", "d-default-Qwen_Qwen2.5-3B-Instruct"}
    assert default_run_dir("d.jsonl", "courtroom", "full", "/models/SmolLM2-135M.Q4_1.gguf").name == \
        "d-full-SmolLM2-135M.Q4_1"
    # a run directory as the court, as the review found `runs/old-run.v2` named two ways
    assert default_run_dir("d.jsonl", "courtroom", "runs/old-run.v2", "default").name == "d-old-run.v2-default"


def test_errors_print_brackets_literally(tmp_path: Path) -> None:
    missing = tmp_path / "[/x]" / "cases [a-z].jsonl"  # rich would read these brackets as markup
    result = runner.invoke(app, ["run", str(missing)], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "[/x]" in result.output and "cases [a-z].jsonl" in result.output


def test_an_option_of_another_judge_is_refused_before_anything_loads(tmp_path: Path) -> None:
    for option in (["--judge", "single", "--votes", "3"], ["--judge", "vote", "--reading", "lenient"]):
        result = runner.invoke(app, ["run", "examples", *option, "--out", str(tmp_path / "run")])
        assert result.exit_code == 2 and "is an option of the" in result.output, result.output
        assert not (tmp_path / "run").exists()
