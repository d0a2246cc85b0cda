"""Which model door a judge speaks through, named once: the backend kind, the model and how it runs.

A `BackendSpec` is data: a run records it in its manifest, a Ray worker builds its own backend from it,
and everything that depends on the model (a court's per-model threshold, a run's default name) asks it.
Building it imports the heavy implementation only then.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from courtroom.door.backend import Backend
from courtroom.door.constraints import DEFAULT_ENGINE, ConstraintEngine

BackendKind = Literal["transformers"]
"""Backends a spec can build (the scripted backend is built in code, with its script)."""


class BackendSpec(BaseModel):
    """A model door as data."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: BackendKind = "transformers"
    """The implementation: `transformers` runs the model in this process (torch, Outlines constraints)."""
    model: str = "default"
    """The model: an alias (`default`, `qwen2.5-coder-0.5b`), a `.gguf` file, a model directory or a Hub id."""
    engine: ConstraintEngine = DEFAULT_ENGINE
    """The constraint engine of JSON outputs: xgrammar, llguidance or outlines_core."""
    device: str = "auto"
    """auto (CUDA when torch sees a GPU, else CPU), cpu, cuda, cuda:1 ..."""

    def build(self, device: str | None = None) -> Backend:
        """The backend this spec describes (on `device` instead of the spec's, for a Ray worker's GPU)."""
        from courtroom.door.transformers import TransformersBackend

        return TransformersBackend(self.model, engine=self.engine, device=device or self.device)
