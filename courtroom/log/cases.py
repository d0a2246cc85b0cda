"""The cases of recorded runs: a run's selection rebuilt from its manifest, and the ids other runs exclude."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from courtroom.case import Case
from courtroom.errors import RunError
from courtroom.evaluate.datasets import LoadReport
from courtroom.evaluate.selection import CaseSelection
from courtroom.log.store import RunStore


def selected_cases(selection: CaseSelection, *, skip_invalid: bool = False,
                   report: LoadReport | None = None) -> list[Case]:
    """The cases a selection names, with the cases of the runs it excludes left out."""
    return selection.cases(excluded_case_ids(selection.exclude), skip_invalid=skip_invalid, report=report)


def run_cases(store: RunStore) -> list[Case]:
    """The cases a run selected, rebuilt from its manifest (finished or not)."""
    return selected_cases(store.manifest().spec.selection, skip_invalid=True)


def excluded_case_ids(paths: Sequence[str]) -> set[str]:
    """The case ids of run directories (every case selected or finished) or of id files (one id per line)."""
    ids: set[str] = set()
    for item in paths:
        path = Path(item)
        if path.is_dir():
            store = RunStore(path)
            if not store.exists():
                raise RunError(f"--exclude {item}: not a run directory (no manifest.json) nor an id file")
            ids.update(case.id for case in run_cases(store))
            ids.update(row.case_id for row in store.rows())
        elif path.is_file():
            ids.update(line.strip() for line in path.read_text().splitlines() if line.strip())
        else:
            raise RunError(f"--exclude {item}: no such run directory or id file")
    return ids
