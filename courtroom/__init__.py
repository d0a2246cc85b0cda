"""courtroom: decide whether a RAG answer is hallucinated, by measuring it and hearing witnesses (the default court) or
trying each suspect statement (`full` and the other trial courts). The public API is imported lazily."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = [
    "Case", "Charge", "Ruling", "CaseVerdict", "Verdict",
    "Clerk", "Court", "load_court", "Persona", "Judge",
    "ScriptedBackend", "make_backend",
    "GenerationRequest", "GenerationResponse", "ChatMessage", "Sampling",
    "load_dataset", "example_cases", "compute_metrics", "replay",
    "run", "RunResult", "Score", "assert_faithful", "BackendSpec", "Testimony", "HallucinatedSpan",
]

_WHERE = {
    "Case": "courtroom.case", "Charge": "courtroom.case", "Ruling": "courtroom.case",
    "CaseVerdict": "courtroom.case", "Verdict": "courtroom.case",
    "Clerk": "courtroom.clerk", "Court": "courtroom.court", "load_court": "courtroom.court",
    "Persona": "courtroom.court.personas", "Judge": "courtroom.engine.judge",
    "ScriptedBackend": "courtroom.door", "make_backend": "courtroom.door",
    "GenerationRequest": "courtroom.door.requests", "GenerationResponse": "courtroom.door.requests",
    "ChatMessage": "courtroom.door.requests", "Sampling": "courtroom.door.requests",
    "load_dataset": "courtroom.evaluate.selection", "example_cases": "courtroom.evaluate.datasets",
    "compute_metrics": "courtroom.evaluate.metrics", "replay": "courtroom.log.replay",
    "run": "courtroom.runs.api", "RunResult": "courtroom.runs.api", "Score": "courtroom.engine.metric",
    "assert_faithful": "courtroom.testing", "BackendSpec": "courtroom.door.spec", "Testimony": "courtroom.case",
    "HallucinatedSpan": "courtroom.case",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'courtroom' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
