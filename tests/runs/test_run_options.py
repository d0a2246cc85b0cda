"""`courtroom run`'s options are one typed value, the run's spec (`RunSpec`): the command line, the Python `run()` and
the manifest of the run they start hold equal specs for the same options."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import courtroom
from courtroom.cli import app
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs import start as starting
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

OPTIONS = ["--limit", "4", "--seed", "3", "--source", "ex", "--field", "question=question", "--skip-invalid",
           "--court", "full", "--set", "trial.max_rounds=2", "--window", "2", "--model", "default", "--engine",
           "llguidance", "--concurrency", "3", "--request-timeout", "30", "--device", "cpu", "--dtype", "float32",
           "--allow-host", "http://127.0.0.1:9", "--workers", "1", "--chunk-timeout", "60"]
SETTINGS = dict(limit=4, seed=3, sources=["ex"], field_map={"question": "question"}, skip_invalid=True, court="full",
                judge_options={"overrides": {"trial.max_rounds": 2}}, window=2, model="default", engine="llguidance",
                concurrency=3, request_timeout=30.0, device="cpu", dtype="float32",
                allow_hosts=["http://127.0.0.1:9"], workers=1, chunk_timeout=60.0)
"""The same options, as `courtroom.run` takes them."""


def test_the_command_line_the_python_api_and_the_manifest_hold_one_typed_spec(
        tmp_path: Path, pseudo_runs, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    built: list[RunSpec] = []
    start = starting.start_run

    def spied(spec: RunSpec, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        built.append(spec)
        return start(spec, *args, **kwargs)

    monkeypatch.setattr("courtroom.runs.start.start_run", spied)
    monkeypatch.setattr("courtroom.runs.api.start_run", spied)
    result = CliRunner().invoke(app, ["run", "examples", *OPTIONS, "--out", str(tmp_path / "cli")])
    assert result.exit_code == 0, result.output
    courtroom.run("examples", out=tmp_path / "api", **SETTINGS)
    from_cli, from_api = built
    recorded = RunStore(tmp_path / "cli").manifest().spec
    assert from_cli == from_api == recorded == RunStore(tmp_path / "api").manifest().spec
    assert recorded.selection.limit == 4 and recorded.backend.engine == "llguidance" and recorded.runner.chunk_timeout
    assert RunSpec.model_validate_json(recorded.model_dump_json()) == recorded  # as a manifest reads it back


def test_the_help_groups_the_options_by_the_section_of_the_spec_they_build() -> None:
    text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    for panel, option in (("Cases (selection)", "--limit"), ("Judge (judge)", "--court"),
                          ("Model (backend)", "--model-url"), ("Runner (runner)", "--workers")):
        assert panel in text and text.index(panel) < text.index(option)
