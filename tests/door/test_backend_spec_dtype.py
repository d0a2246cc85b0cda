"""`--dtype`: the type a model runs in is a setting of the run's backend, passed to the in-process door; `auto` is
float32 on a CPU, and a run records what it resolved to."""

from __future__ import annotations

import json

import pytest

from courtroom.door.models import dtype_choice, pick_dtype
from courtroom.errors import ConfigError, RunError
from courtroom.log.manifest import RunSpec
from courtroom.runs.start import start_run


def test_the_dtype_reaches_the_in_process_backend_and_is_recorded_only_when_set() -> None:
    spec = RunSpec.build("examples", dtype="bfloat16")
    assert spec.backend.build().dtype_request == "bfloat16"
    assert spec.model_dump(mode="json")["backend"]["dtype"] == "bfloat16"
    default = RunSpec.build("examples")
    assert default.backend.build().dtype_request == "auto"
    assert "dtype" not in default.model_dump(mode="json")["backend"]  # manifests of earlier runs read the same


def test_an_unknown_dtype_is_refused_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match=r"BackendSpec.dtype: Input should be 'auto', 'float32', 'bfloat16' or"):
        RunSpec.build("examples", dtype="int4")


def test_auto_is_float32_on_a_cpu_and_the_run_records_the_choice(tmp_path) -> None:
    assert dtype_choice("cpu")[0] == "float32" and str(pick_dtype("cpu")) == "torch.float32"
    assert dtype_choice("cpu", "bfloat16") == ("bfloat16", "asked for (--dtype)")  # what was asked
    run = start_run(RunSpec.build("examples", limit=1, device="cpu"), tmp_path / "run")
    run.close()
    placement = json.loads((tmp_path / "run" / "manifest.json").read_text())["placement"]
    assert placement["device"] == "cpu" and placement["dtype"] == "float32"
    assert placement["why"].startswith("auto: float32 on a CPU (bfloat16 was 1.5x slower")
    assert RunSpec.build("examples").model_dump(mode="json")["backend"].get("dtype") is None  # the spec stays auto


def test_a_run_begun_in_bfloat16_is_not_resumed_in_float32(tmp_path, monkeypatch) -> None:
    """A run started in bfloat16 (where `auto` chose it: a GPU) resumed where `auto` is float32 would mix scores of
    two types: refused, naming the way to finish it as it began."""
    start_run(RunSpec.build("examples", limit=2, device="cpu"), tmp_path / "run").close()
    manifest = tmp_path / "run" / "manifest.json"
    recorded = json.loads(manifest.read_text())
    recorded["placement"] = {**recorded["placement"], "dtype": "bfloat16", "why": "auto: the GPU computes in bfloat16"}
    manifest.write_text(json.dumps(recorded))
    (tmp_path / "run" / "results.jsonl").write_text(json.dumps({
        "case_id": "example-lighthouse-year", "source": "examples", "gold": "PASS", "label": "PASS", "score": 0.2,
        "transcript": "transcripts/x.jsonl"}) + "\n")
    with pytest.raises(RunError, match=r"was judged in bfloat16, and --dtype auto computes in float32 here "
                                       r"\(auto: float32 on a CPU .*add --dtype bfloat16 to finish it"):
        start_run(RunSpec.build("examples", limit=2, device="cpu"), tmp_path / "run")
    start_run(RunSpec.build("examples", limit=2, device="cpu", dtype="bfloat16"), tmp_path / "run").close()
