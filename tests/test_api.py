"""The library's run entry point (`courtroom.run`): the same run directory as the command line, resumable, with the
rows and metrics returned; `import courtroom` stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import courtroom
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.runs.runners import LocalRunner


def runner() -> LocalRunner:
    return LocalRunner(ScriptedBackend(PseudoModel()))


def test_run_writes_a_run_directory_and_returns_its_rows_and_metrics(tmp_path: Path) -> None:
    result = courtroom.run("examples", out=tmp_path / "r", runner=runner(), limit=6)
    assert isinstance(result, courtroom.RunResult) and result.court == "default" and result.judge == "courtroom"
    assert [r.case_id for r in result.rows] == [r.case_id for r in Audit(tmp_path / "r").rows()]
    recorded = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert recorded["cases"] == result.metrics.cases == 6
    assert recorded["balanced_accuracy"]["value"] == result.metrics.balanced_accuracy.value
    assert set(result.by_source) == {"examples"} and not result.errors


def test_run_resumes_an_interrupted_run_and_judges_only_what_is_left(tmp_path: Path) -> None:
    courtroom.run("examples", out=tmp_path / "r", runner=runner(), limit=4)
    seen: list[str] = []
    again = courtroom.run("examples", out=tmp_path / "r", runner=runner(), limit=4, on_row=lambda r: seen.append(r.case_id))
    assert seen == [] and len(again.rows) == 4


def test_default_run_dir_names_the_court_so_two_courts_do_not_collide() -> None:
    from courtroom.runs.api import default_run_dir

    assert default_run_dir("data/x.jsonl", "courtroom", "default", "qwen2.5-coder-0.5b") != \
        default_run_dir("data/x.jsonl", "courtroom", "full", "qwen2.5-coder-0.5b")
    assert default_run_dir("data/x.jsonl", "rails", "default", "Qwen/Qwen2.5-7B") == Path("runs/x-rails-Qwen_Qwen2.5-7B")


def test_the_public_api_imports_without_torch_or_ray() -> None:
    code = ("import sys, courtroom; [getattr(courtroom, n) for n in courtroom.__all__]; "
            "print('torch' in sys.modules, 'ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_every_setting_of_a_run_names_a_field_of_its_section_and_a_misspelt_one_is_refused(tmp_path: Path) -> None:
    from courtroom.errors import ConfigError
    from courtroom.log.manifest import RUN_SETTINGS, RunSpec

    sections = {name: info.annotation.model_fields for name, info in RunSpec.model_fields.items()
                if isinstance(info.annotation, type) and hasattr(info.annotation, "model_fields")}
    for name, where in RUN_SETTINGS.items():
        section, _, field = where.partition(".")
        assert (field or name) in (sections[section] if section != "run" else RunSpec.model_fields), name
    with pytest.raises(ConfigError, match="'limt' is not a setting of a run; did you mean 'limit'"):
        courtroom.run("examples", out=tmp_path / "r", limt=3)
    assert not (tmp_path / "r").exists()
