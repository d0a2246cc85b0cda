"""Which model door a judge speaks through, named once: a `BackendSpec` (backend kind, model, how it runs) is
data a run records, a Ray worker builds its backend from, and everything model-dependent asks."""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from courtroom.door.backend import Backend
from courtroom.door.constraints import DEFAULT_ENGINE, ConstraintEngine
from courtroom.door.http_client import ServedUrl, origin
from courtroom.errors import ConfigError, did_you_mean

DEVICE = re.compile(r"auto|cpu|mps|(cuda|xpu)(:\d+)?")
"""The devices a model runs on in this process (torch's names)."""
BackendKind = Literal["transformers", "served"]
"""Backends a spec can build (the scripted backend is built in code, with its script)."""


class Placement(BaseModel):
    """Where a model in this process computes and in what type, as `auto` resolved when a run started."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    device: str
    dtype: str
    why: str
    """Why that dtype: asked for, or what `auto` found the device computes in."""


class BackendSpec(BaseModel):
    """A model door as data."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: BackendKind = "transformers"
    """The implementation: `transformers` runs the model in this process (torch, Outlines constraints);
    `served` asks a model served over an OpenAI-compatible API at `url`."""
    model: str = "default"
    """The model: an alias (`default`, `qwen2.5-coder-0.5b`), a `.gguf` file, a model directory or a Hub id;
    for a served model, the name it is served under."""
    url: ServedUrl = None
    """The served API's base (`http://127.0.0.1:8000/v1`), for `served`."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """The environment variable holding the served API's key (only its name is recorded); None sends no
    key."""
    concurrency: int = Field(8, ge=1)
    """Requests in flight at once to a served model."""
    timeout: float = Field(120.0, gt=0)
    """Seconds a request to a served model may take."""
    engine: ConstraintEngine = DEFAULT_ENGINE
    """The constraint engine of JSON outputs: xgrammar, llguidance or outlines_core."""
    device: str = "auto"
    """auto (CUDA when torch sees a GPU, else CPU), cpu, cuda, cuda:1 ..."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field("auto", exclude_if=lambda v: v == "auto")
    """The weights' and activations' type in this process: auto is bfloat16 where the device computes in it
    (GPUs from Ampere on, CPUs with AVX-512 BF16 or AMX), else float16 on a GPU and float32 on a CPU
    (`door.devices.pick_dtype`); a run records what it resolved to (`Placement`)."""

    @field_validator("device")
    @classmethod
    def _a_device(cls, device: str) -> str:
        if not DEVICE.fullmatch(device):
            raise ValueError(f"{device!r} is not a device: auto, cpu, cuda, cuda:N, mps, xpu or xpu:N"
                             + did_you_mean(device, ("auto", "cpu", "cuda", "mps", "xpu")))
        return device

    @model_validator(mode="after")
    def _served_needs_a_url(self) -> BackendSpec:
        if self.kind == "served" and not self.url:
            raise ValueError("a served model needs the URL of its API (--model-url http://HOST:PORT/v1)")
        return self

    @classmethod
    def of(cls, *, model: str = "default", url: str | None = None, **settings: Any) -> BackendSpec:
        """The spec the command line names: a served model when given its API's `url`, else one in this
        process."""
        return cls(kind="served" if url else "transformers", model=model, url=url, **settings)

    @property
    def backend_class(self) -> type[Backend]:
        """The class of the backend this spec builds (its heavy packages are imported when it loads a
        model)."""
        if self.kind == "served":
            from courtroom.door.served import ServedBackend

            return ServedBackend
        from courtroom.door.transformers import TransformersBackend

        return TransformersBackend

    @property
    def light(self) -> bool:
        """Whether the backend is a light client (`Backend.light`)."""
        return self.backend_class.light

    def check_model(self) -> None:
        """Fail now for a model the backend cannot find (`Backend.check_model`), or a device this machine has
        not."""
        self.backend_class.check_model(self.model)
        if self.kind == "transformers":
            from courtroom.door.devices import check_device

            check_device(self.device)

    def placement(self) -> Placement | None:
        """Where and in what type the model computes, `auto` resolved here (None for a served model); imports
        torch."""
        if self.kind == "served":
            return None
        from courtroom.door.devices import dtype_choice, pick_device

        device = pick_device(self.device)
        dtype, why = dtype_choice(device, self.dtype)
        return Placement(device=device, dtype=dtype, why=why)

    def build(self, device: str | None = None) -> Backend:
        """The backend this spec describes (on `device` instead of the spec's: a Ray worker's GPU)."""
        if self.kind == "served":
            return self.backend_class(self.url, self.model, api_key_env=self.api_key_env,  # type: ignore[call-arg]
                                      concurrency=self.concurrency, timeout=self.timeout)
        return self.backend_class(self.model, engine=self.engine, device=device or self.device,  # type: ignore[call-arg]
                                  dtype=self.dtype)


class HostGrant(BaseModel):
    """The user's consent to a host a court seats a model on (`--allow-host ORIGIN[=KEY_ENV]`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    origin: str = Field(pattern=r"^https?://(\[[0-9a-fA-F:.]+\]|[^/:\[\]]+):\d+$")
    """Scheme, host and port the cases may be sent to."""
    key_env: str | None = None
    """The environment variable whose value may go to that host as its key; None: no key goes there."""

    @classmethod
    def parse(cls, text: str) -> HostGrant:
        """`http://HOST:PORT[/v1]` or `http://HOST:PORT=KEY_ENV`."""
        url, _, key_env = text.partition("=")
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"--allow-host {text!r}: expected a URL's origin, http://HOST:PORT (or "
                              "=KEY_ENV after it to let the key in that environment variable go there)")
        try:
            return cls(origin=origin(url.strip()), key_env=key_env.strip() or None)
        except ValueError as exc:  # a port that is none
            raise ConfigError(f"--allow-host {text!r}: {exc}") from None
