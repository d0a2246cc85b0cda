"""Model names resolve to sources, and unknown names fail with what was tried, never a hang."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from courtroom.door.models import resolve_model
from courtroom.errors import ModelNotFoundError


def test_default_is_the_embedded_gguf() -> None:
    source = resolve_model("default")
    assert source.kind == "gguf" and source.location.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert Path(source.location).is_file()


def test_local_gguf_and_directory(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf)).kind == "gguf"
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "config.json").write_text(json.dumps({"model_type": "llama"}))
    assert resolve_model(str(tmp_path / "hf")).kind == "hf_dir"
    with pytest.raises(ModelNotFoundError, match="no config.json"):
        resolve_model(str(tmp_path))


def test_hub_id_form() -> None:
    assert resolve_model("Qwen/Qwen2.5-0.5B-Instruct").kind == "hf_id"


@pytest.mark.parametrize("name", ["models/qwen.gguf", "~/no-such-model-dir", "./checkpoints/m"])
def test_a_mistyped_local_path_is_not_taken_for_a_hub_id(name: str) -> None:
    with pytest.raises(ModelNotFoundError, match="looks like a local path, but .* does not exist"):
        resolve_model(name)


@pytest.mark.parametrize("device, capability, expected", [
    ("cuda", (8, 0), "bfloat16"), ("cuda:1", (7, 5), "float16"), ("cuda:0", (9, 0), "bfloat16"),
])
def test_gpus_get_bfloat16_only_where_it_is_native(monkeypatch: pytest.MonkeyPatch, device, capability,
                                                   expected) -> None:
    import torch

    from courtroom.door.devices import pick_dtype

    asked = []
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index: asked.append(index) or capability)
    assert pick_dtype(device) == getattr(torch, expected)
    assert asked == [int(device.partition(":")[2] or 0)]  # the card asked for, not the current one
    monkeypatch.setattr("courtroom.door.devices.cpu_computes_bf16", lambda: False)
    assert pick_dtype("cpu") == torch.float32  # a CPU without bfloat16 instructions (one with them: bfloat16)


def test_unknown_name_lists_what_was_tried() -> None:
    with pytest.raises(ModelNotFoundError) as info:
        resolve_model("no-such-model")
    message = str(info.value)
    assert "alias" in message and "local path" in message and "Hugging Face id" in message


def test_unreachable_hub_is_a_clear_error_not_a_hang(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from courtroom.door.models import load_model

    monkeypatch.setenv("HF_HOME", str(tmp_path))  # nothing cached
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(ModelNotFoundError) as info:
        load_model("courtroom-tests/no-such-model")
    assert "not cached" in str(info.value) and "HF_HUB_OFFLINE" in str(info.value)
    assert time.perf_counter() - start < 30


def test_a_dequantized_copy_in_shards_is_found_complete(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from courtroom.door import models

    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    gguf = tmp_path / "big.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    target = models._gguf_cache_dir(gguf)
    target.mkdir(parents=True)
    for name in ("config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                 "model.safetensors.index.json", models.DEQUANTIZED_MARKER):
        (target / name).write_text("{}")
    assert models.dequantized_dir(gguf) == target  # found, not converted again (that would need transformers)
