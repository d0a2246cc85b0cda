"""Old import paths, kept working: modules that moved when the package was split into layers (0.2).

`import courtroom.backends` (and every other path below) still works, warns once with a
`DeprecationWarning` naming the new path, and serves the names that moved with their module or to another
one. A name that no longer exists fails with an `AttributeError` that says where to look instead.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

MODULES: dict[str, str] = {
    "courtroom.backends": "courtroom.door",
    "courtroom.backends.base": "courtroom.door.backend",
    "courtroom.backends.scripted": "courtroom.door.scripted",
    "courtroom.backends.transformers": "courtroom.door.transformers",
    "courtroom.backends.constraints": "courtroom.door.constraints",
    "courtroom.backends.prefix_cache": "courtroom.door.prefix_cache",
    "courtroom.generation": "courtroom.door.requests",
    "courtroom.models": "courtroom.door.models",
    "courtroom.lockstep": "courtroom.engine.lockstep",
    "courtroom.judges": "courtroom.engine.judge",
    "courtroom.registry": "courtroom.engine.registry",
    "courtroom.prompts": "courtroom.casefile",
    "courtroom.personas": "courtroom.court.personas",
    "courtroom.procedure": "courtroom.court.procedure",
    "courtroom.moves": "courtroom.court.moves",
    "courtroom.yamlio": "courtroom.court.yamlio",
    "courtroom.trial": "courtroom.court.trial",
    "courtroom.grounding": "courtroom.court.grounding",
    "courtroom.lexical": "courtroom.witness.lexical",
    "courtroom.plain": "courtroom.baselines.plain",
    "courtroom.datasets": "courtroom.evaluate.datasets",
    "courtroom.metrics": "courtroom.evaluate.metrics",
    "courtroom.confounds": "courtroom.evaluate.confounds",
    "courtroom.pooling": "courtroom.log.pooled",
    "courtroom.tables": "courtroom.report.tables",
    "courtroom.runners": "courtroom.runs.runners",
    "courtroom.runners.ray_runner": "courtroom.runs.ray_runner",
    "courtroom.transcripts": "courtroom.log",
    "courtroom.transcripts.events": "courtroom.engine.events",
    "courtroom.transcripts.store": "courtroom.log.store",
    "courtroom.transcripts.replay": "courtroom.log.replay",
    "courtroom.transcripts.rejudge": "courtroom.log.rejudge",
    "courtroom.transcripts.audit": "courtroom.log.audit",
    "courtroom.transcripts.render": "courtroom.report.record",
    "courtroom.transcripts.report": "courtroom.report.html",
}
"""Old module -> the module that took its place."""

NAMES: dict[str, str] = {
    "ResultRow": "courtroom.evaluate.results", "summarize": "courtroom.evaluate.results",
    "Manifest": "courtroom.log.manifest", "RunSpec": "courtroom.log.manifest",
    "ReplayBackend": "courtroom.door.recorded", "RecordedCalls": "courtroom.door.recorded",
    "recorded_response": "courtroom.door.recorded",
    "judge_from_config": "courtroom.engine.registry", "content_hash": "courtroom.digest",
    "jsonable": "courtroom.door.requests", "message_hash": "courtroom.door.requests",
    "ReplayMismatch": "courtroom.errors", "AuditError": "courtroom.errors", "CaseFailedError": "courtroom.errors",
    "Problem": "courtroom.log.verify", "verify": "courtroom.log.verify",
    "aggregate": "courtroom.court.verdict", "share": "courtroom.court.verdict",
    "verdict_reason": "courtroom.court.verdict", "indict": "courtroom.court.indictment",
    "Measure": "courtroom.court.evidence", "measure_statements": "courtroom.court.evidence",
    "case_messages": "courtroom.court.prompts", "Entry": "courtroom.court.prompts",
    "WHOLE_ANSWER": "courtroom.case",
    "mcnemar": "courtroom.evaluate.paired", "paired_bootstrap_difference": "courtroom.evaluate.paired",
    "excluded_from_pairing": "courtroom.evaluate.paired", "gold_disagreements": "courtroom.evaluate.paired",
    "PairedTest": "courtroom.evaluate.paired",
    "best_threshold": "courtroom.evaluate.calibration", "calibrated_predictions": "courtroom.evaluate.calibration",
    "calibrated_rows": "courtroom.evaluate.calibration", "errors_as_wrong": "courtroom.evaluate.calibration",
    "load_dataset": "courtroom.evaluate.selection", "select": "courtroom.evaluate.selection",
    "load_hf": "courtroom.evaluate.hub", "choose_split_files": "courtroom.evaluate.hub",
    "hub_field_map": "courtroom.evaluate.hub",
    "start_run": "courtroom.runs.start", "build_judge": "courtroom.runs.start", "Run": "courtroom.runs.start",
    "run_cases": "courtroom.log.cases", "excluded_case_ids": "courtroom.log.cases",
    "judge_differences": "courtroom.log.manifest", "BackendStats": "courtroom.door.decoding",
}
"""Names that left their module's successor, and where they went."""

RENAMED: dict[str, tuple[str, str]] = {"WHOLE_ANSWER": ("courtroom.case", "WHOLE_ANSWER_REASON")}


class _Relocated(types.ModuleType):
    """An old module: serves the names of the module that replaced it (and of those some names went to)."""

    def __getattr__(self, name: str) -> Any:
        new = MODULES[self.__name__]
        if name.startswith("__"):
            raise AttributeError(name)
        if name in RENAMED:
            module, attribute = RENAMED[name]
            return getattr(importlib.import_module(module), attribute)
        for where in (new, NAMES.get(name)):
            if where is not None and hasattr(module := importlib.import_module(where), name):
                return getattr(module, name)
        raise AttributeError(f"{self.__name__}.{name} is gone: {self.__name__} moved to {new} (see docs/ARCHITECTURE.md)")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=any(m.startswith(fullname + ".") for m in MODULES))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        warnings.warn(f"{spec.name} moved to {MODULES[spec.name]}; the old path will be removed in courtroom 0.3",
                      DeprecationWarning, stacklevel=3)
        return _Relocated(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []  # a package for its relocated submodules (courtroom.backends.transformers)


def install() -> None:
    """Serve the old import paths (once per process)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
