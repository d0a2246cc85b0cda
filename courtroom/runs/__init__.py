"""Evaluation runs: starting or resuming a run directory (`start`), and the runners (local, Ray).

The names `courtroom.runs` held before 0.2 (`RunSpec`, `start_run`, ...) are still served from here, with a
`DeprecationWarning` naming their new module.
"""

from __future__ import annotations

from typing import Any

_MOVED = {"RunSpec": "courtroom.log.manifest", "start_run": "courtroom.runs.start", "build_judge": "courtroom.runs.start",
          "Run": "courtroom.runs.start", "run_cases": "courtroom.log.cases", "excluded_case_ids": "courtroom.log.cases"}
"""Names of the former `courtroom.runs` module, and where they live now."""


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module 'courtroom.runs' has no attribute {name!r}")
    import importlib
    import warnings

    warnings.warn(f"courtroom.runs.{name} moved to {_MOVED[name]}.{name}; the old path will be removed in courtroom 0.3",
                  DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(_MOVED[name]), name)
