"""Backends: the one door to a model. Heavy implementations are imported only when built."""

from __future__ import annotations

from typing import Any

from courtroom.door.backend import Backend
from courtroom.door.scripted import Scored, ScriptedBackend, Truncated, Unparseable

__all__ = ["Backend", "ScriptedBackend", "Scored", "Truncated", "Unparseable", "make_backend", "BACKENDS"]

BACKENDS = ("transformers", "scripted")


def make_backend(name: str = "transformers", **options: Any) -> Backend:
    """Build a backend by name; `transformers` imports torch only here."""
    if name == "transformers":
        from courtroom.door.transformers import TransformersBackend

        return TransformersBackend(**options)
    if name == "scripted":
        return ScriptedBackend(**options)
    raise ValueError(f"unknown backend {name!r}; choose one of {list(BACKENDS)}")
