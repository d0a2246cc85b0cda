"""Load cases: the shipped examples and files in the normalized schema of `../shared/data`."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import Case
from courtroom.errors import DatasetError


def _row_error(where: str, exc: ValidationError) -> DatasetError:
    problems = "; ".join(
        f"field {'.'.join(map(str, e['loc'])) or '<row>'}: {e['msg']}" for e in exc.errors()[:5]
    )
    return DatasetError(f"{where}: {problems}")


def case_from_row(row: dict[str, Any], where: str) -> Case:
    """Validate one normalized row as a Case; errors name the row and the field."""
    if not isinstance(row, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(row).__name__}")
    try:
        return Case.model_validate(row)
    except ValidationError as exc:
        raise _row_error(where, exc) from exc


def load_jsonl(path: str | Path) -> list[Case]:
    """Cases from a JSONL file in the normalized schema (id, question, context, answer, label, source)."""
    path = Path(path)
    cases = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            cases.append(case_from_row(row, f"{path}:{number}"))
    return cases


def example_cases() -> list[Case]:
    """The hand-written labelled example cases shipped with the package."""
    with resources.as_file(resources.files("courtroom") / "data" / "examples.jsonl") as path:
        return load_jsonl(path)
