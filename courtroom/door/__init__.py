"""The model door: requests and responses, and the backends that serve them. Heavy implementations
(torch, transformers, Outlines) are imported only when a backend is built."""

from __future__ import annotations

from courtroom.door.backend import Backend, prepare_backend
from courtroom.door.pseudo import PseudoModel
from courtroom.door.requests import ChatMessage, GenerationRequest, GenerationResponse, Sampling
from courtroom.door.scripted import Scored, ScriptedBackend, Truncated, Unparseable
from courtroom.door.spec import BackendSpec

__all__ = ["Backend", "BackendSpec", "ChatMessage", "GenerationRequest", "GenerationResponse", "PseudoModel",
           "Sampling", "Scored", "ScriptedBackend", "Truncated", "Unparseable", "make_backend",
           "prepare_backend"]


def make_backend(spec: BackendSpec | str = "transformers", **settings: str) -> Backend:
    """Build a backend from a spec, or from a kind and the spec's fields (`make_backend("transformers",
    device="cpu")`)."""
    if isinstance(spec, str):
        spec = BackendSpec(kind=spec, **settings)
    return spec.build()
