"""courtroom: decide whether a RAG answer is hallucinated, by measuring it and hearing witnesses (the default
court) or trying each suspect statement (`full` and the other trial courts). The public API is imported
lazily."""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {name: module for module, names in {
    "courtroom.case": "Case Charge Ruling CaseVerdict Verdict Testimony HallucinatedSpan",
    "courtroom.clerk": "Clerk", "courtroom.court": "Court", "courtroom.courts": "load_court",
    "courtroom.court.personas": "Persona",
    "courtroom.engine.judge": "Judge", "courtroom.door": "ScriptedBackend make_backend",
    "courtroom.door.requests": "GenerationRequest GenerationResponse ChatMessage Sampling",
    "courtroom.evaluate.selection": "load_dataset", "courtroom.evaluate.datasets": "example_cases",
    "courtroom.evaluate.metrics": "compute_metrics", "courtroom.log.replay": "replay",
    "courtroom.runs.api": "run RunResult", "courtroom.engine.metric": "Score",
    "courtroom.testing": "assert_faithful", "courtroom.door.spec": "BackendSpec",
}.items() for name in names.split()}
"""Each public name and the module it is imported from, on first use."""
__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'courtroom' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
