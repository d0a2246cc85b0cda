"""`--dtype`: the type a model runs in is a setting of the run's backend, passed to the in-process door; `auto` is
bfloat16 on a CPU that computes in it, and a run records what it resolved to."""

from __future__ import annotations

import json

import pytest

from courtroom.door.devices import cpu_computes_bf16, dtype_choice, pick_dtype
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


@pytest.mark.parametrize(("flags", "computes"), [("fpu sse avx2 avx512f avx512_bf16 avx512_vnni", True),
                                                 ("fpu sse amx_bf16 amx_tile", True), ("fpu sse avx2 avx512f", False)])
def test_a_cpu_computes_in_bfloat16_when_its_flags_say_so(tmp_path, flags: str, computes: bool) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
    assert cpu_computes_bf16(cpuinfo) is computes
    assert cpu_computes_bf16(tmp_path / "missing") is False  # not Linux: float32, as before


@pytest.mark.parametrize("computes", [True, False])
def test_auto_is_bfloat16_on_a_cpu_that_computes_in_it_and_the_run_records_the_choice(
        tmp_path, monkeypatch, computes: bool) -> None:
    monkeypatch.setattr("courtroom.door.devices.cpu_computes_bf16", lambda: computes)
    wanted = "bfloat16" if computes else "float32"
    assert dtype_choice("cpu")[0] == wanted and str(pick_dtype("cpu")) == f"torch.{wanted}"
    assert dtype_choice("cpu", "float32") == ("float32", "asked for (--dtype)")  # pinned: what was asked
    run = start_run(RunSpec.build("examples", limit=1, device="cpu"), tmp_path / "run")
    run.close()
    placement = json.loads((tmp_path / "run" / "manifest.json").read_text())["placement"]
    assert placement["device"] == "cpu" and placement["dtype"] == wanted
    assert placement["why"].startswith("auto: the CPU computes in bfloat16" if computes else "auto: the device does not")
    assert RunSpec.build("examples").model_dump(mode="json")["backend"].get("dtype") is None  # the spec stays auto


def test_a_run_begun_in_float32_is_not_resumed_in_bfloat16(tmp_path, monkeypatch) -> None:
    """A run started where `auto` was float32 (before this CPU's bfloat16 was used, or on another machine) resumed
    in bfloat16 would mix scores of two types: refused, naming the way to finish it as it began."""
    monkeypatch.setattr("courtroom.door.devices.cpu_computes_bf16", lambda: False)
    start_run(RunSpec.build("examples", limit=2, device="cpu"), tmp_path / "run").close()
    manifest = tmp_path / "run" / "manifest.json"
    recorded = json.loads(manifest.read_text())
    (tmp_path / "run" / "results.jsonl").write_text(json.dumps({
        "case_id": "example-lighthouse-year", "source": "examples", "gold": "PASS", "label": "PASS", "score": 0.2,
        "transcript": "transcripts/x.jsonl"}) + "\n")
    monkeypatch.setattr("courtroom.door.devices.cpu_computes_bf16", lambda: True)
    for manifest_text in (json.dumps(recorded), json.dumps({k: v for k, v in recorded.items() if k != "placement"})):
        manifest.write_text(manifest_text)  # as recorded, and as a run recorded before runs kept their dtype
        with pytest.raises(RunError, match=r"was judged in float32, and --dtype auto computes in bfloat16 here "
                                           r"\(auto: the CPU computes in bfloat16 .*add --dtype float32 to finish it"):
            start_run(RunSpec.build("examples", limit=2, device="cpu"), tmp_path / "run")
    start_run(RunSpec.build("examples", limit=2, device="cpu", dtype="float32"), tmp_path / "run").close()
