"""Which model door a judge speaks through, named once: the backend kind, the model and how it runs.

A `BackendSpec` is data: a run records it in its manifest, a Ray worker builds its own backend from it,
and everything that depends on the model (a court's per-model threshold, a run's default name) asks it.
Building it imports the heavy implementation only then.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from courtroom.door.backend import Backend
from courtroom.door.constraints import DEFAULT_ENGINE, ConstraintEngine

BackendKind = Literal["transformers", "served"]
"""Backends a spec can build (the scripted backend is built in code, with its script)."""


SECRET_PARAMETER = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameters of a URL whose names say they carry a secret (`api_key`, `access_token`, `sig`, ...)."""


def url_credentials(url: str) -> str | None:
    """What in `url` looks like a credential (a user or password before `@`, a query parameter named like a key or
    a token), or None."""
    parts = urlsplit(url)
    if "@" in parts.netloc:
        return "a user name or password before '@'"
    secret = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if SECRET_PARAMETER.search(name)]
    return f"the query parameter {secret[0]!r}" if secret else None


def refuse_credentials(url: str) -> None:
    """Refuse a served API's URL that carries credentials (they would be recorded in the run's manifest), without
    repeating them; the key belongs in an environment variable named by `--api-key-env` (`api_key_env`)."""
    if (found := url_credentials(url)) is not None:
        parts = urlsplit(url)
        shown = f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"
        raise ValueError(f"the model URL {shown} carries credentials ({found}); courtroom records the URL in the run's "
                         "manifest, so it does not take them there: put the key in an environment variable and name "
                         "it with --api-key-env (api_key_env; sent as a bearer token)")


class BackendSpec(BaseModel):
    """A model door as data."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: BackendKind = "transformers"
    """The implementation: `transformers` runs the model in this process (torch, Outlines constraints);
    `served` asks a model served over an OpenAI-compatible API at `url`."""
    model: str = "default"
    """The model: an alias (`default`, `qwen2.5-coder-0.5b`), a `.gguf` file, a model directory or a Hub id; for
    a served model, the name it is served under."""
    url: str | None = None
    """The served API's base (`http://127.0.0.1:8000/v1`), for `served`."""
    api_key_env: str = "OPENAI_API_KEY"
    """The environment variable holding the served API's key (only its name is recorded)."""
    concurrency: int = Field(8, ge=1)
    """Requests in flight at once to a served model."""
    timeout: float = Field(120.0, gt=0)
    """Seconds a request to a served model may take."""
    engine: ConstraintEngine = DEFAULT_ENGINE
    """The constraint engine of JSON outputs: xgrammar, llguidance or outlines_core."""
    device: str = "auto"
    """auto (CUDA when torch sees a GPU, else CPU), cpu, cuda, cuda:1 ..."""

    @field_validator("url")
    @classmethod
    def _no_credentials(cls, url: str | None) -> str | None:
        if url is not None:
            refuse_credentials(url)
        return url

    @model_validator(mode="after")
    def _served_needs_a_url(self) -> BackendSpec:
        if self.kind == "served" and not self.url:
            raise ValueError("a served model needs the URL of its API (--model-url http://HOST:PORT/v1)")
        return self

    def build(self, device: str | None = None) -> Backend:
        """The backend this spec describes (on `device` instead of the spec's, for a Ray worker's GPU; a served
        model has no device here)."""
        if self.kind == "served":
            from courtroom.door.served import ServedBackend

            assert self.url is not None
            return ServedBackend(self.url, self.model, api_key_env=self.api_key_env, concurrency=self.concurrency,
                                 timeout=self.timeout)
        from courtroom.door.transformers import TransformersBackend

        return TransformersBackend(self.model, engine=self.engine, device=device or self.device)
