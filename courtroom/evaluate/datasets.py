"""Load cases from JSONL, CSV and Parquet files (`dataset_files`), Hugging Face datasets, or the shipped
examples. Columns map onto case fields by `field_map` (`--field question=query`), else `CASE_FIELDS` are
expected; a bad row is a `DatasetError` naming file, row and field (or, with `skip_invalid`, skipped and
counted)."""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import Case
from courtroom.errors import DatasetError
from courtroom.evaluate.dataset_files import Unreadable, file_rows, load_json

CASE_FIELDS = ("id", "question", "context", "answer", "label", "source", "spans")
PASS_WORDS = {"pass", "faithful", "supported", "factual", "false", "0"}
FAIL_WORDS = {"fail", "hallucinated", "hallucination", "unsupported", "true", "1"}
AMBIGUOUS_WORDS = {"yes", "no"}
"""Labels refused: the answer to a question the data does not say (faithful? or hallucinated?)."""


@dataclass
class LoadReport:
    """What loading a dataset found."""

    path: str
    rows: int = 0
    skipped: list[str] = field(default_factory=list)
    """One message per invalid row that was skipped."""
    cases: int = 0
    """Valid cases loaded."""
    unlabelled: int = 0
    """Valid cases with no gold label (no label column, or an empty or null label)."""


def normalize_label(value: Any) -> str | None:
    """Map a label value onto PASS / FAIL (None when there is no label)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "FAIL" if value else "PASS"
    if isinstance(value, (int, float)):
        if value in (0, 1):
            return "FAIL" if value == 1 else "PASS"
        raise DatasetError(f"numeric label {value!r} must be 0 (faithful) or 1 (hallucinated)")
    text = str(value).strip().lower()
    if text in PASS_WORDS:
        return "PASS"
    if text in FAIL_WORDS:
        return "FAIL"
    if text in AMBIGUOUS_WORDS:
        raise DatasetError(f"label {value!r} is ambiguous (yes to 'faithful?' or to 'hallucinated?'); write "
                           "PASS (faithful) or FAIL (hallucinated), or true/1 for hallucinated")
    raise DatasetError(f"label {value!r} is not PASS/FAIL (or faithful/hallucinated, or 0/1)")


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 60, 60, 4, 4, 2


def _kind(value: Any) -> str:
    """A value's type and a short look at it, for an error message."""
    return f"{type(value).__name__} {_SHORT.repr(value)}"


def _context(value: Any, where: str) -> list[str]:
    """The context as a list of passages: a string (a JSON list written as text is that list) or a list of
    strings."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                parsed = load_json(text)
            except json.JSONDecodeError:
                parsed = None
            except Unreadable as exc:
                raise DatasetError(f"{where}: field 'context': a JSON list written as text, but "
                                   f"{exc}") from None
            if isinstance(parsed, list):
                value = parsed
        if isinstance(value, str):
            return [value]
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise DatasetError(f"{where}: field 'context': expected a string or a list of strings, got "
                           f"{_kind(value)}")
    for number, passage in enumerate(value, start=1):
        if not isinstance(passage, str):
            raise DatasetError(f"{where}: field 'context': passage {number} is not a string (got "
                               f"{_kind(passage)})")
    return list(value)


def row_to_case(row: dict[str, Any], where: str, field_map: dict[str, str] | None = None,
                default_source: str = "custom", default_id: str = "") -> Case:
    """Validate one raw row as a Case; errors name the row and the field."""
    if not isinstance(row, dict):
        raise DatasetError(f"{where}: expected an object with fields, got {type(row).__name__}")
    mapping = {name: (field_map or {}).get(name, name) for name in CASE_FIELDS}

    def hint(name: str) -> str:
        return f" (mapped from column {mapping[name]!r})" if mapping[name] != name else ""

    data: dict[str, Any] = {name: row[column] for name, column in mapping.items()
                            if row.get(column) is not None}
    for required in ("question", "context", "answer"):
        if required not in data:
            if mapping[required] in row:
                raise DatasetError(f"{where}: field {required!r}{hint(required)} is null")
            raise DatasetError(f"{where}: missing field {required!r}{hint(required)}; columns present: "
                               f"{sorted(map(str, row))}")
    if ("spans" in data and not isinstance(data["spans"], (list, tuple))
        and not hasattr(data["spans"], "tolist")):
        raise DatasetError(f"{where}: field 'spans'{hint('spans')}: expected a list of spans ({{\"start\", "
                           f"\"end\", \"text\"}}), got {_kind(data['spans'])}")
    if hasattr(data.get("spans"), "tolist"):
        data["spans"] = data["spans"].tolist()
    for name in ("question", "answer"):
        if not isinstance(data[name], str):
            raise DatasetError(f"{where}: field {name!r}{hint(name)}: expected a string, got "
                               f"{_kind(data[name])}")
    try:
        data["label"] = normalize_label(data.get("label"))
    except DatasetError as exc:
        raise DatasetError(f"{where}: field 'label': {exc}") from exc
    data["context"] = _context(data["context"], where)
    if data.get("id") in (None, ""):
        data["id"] = default_id
    elif isinstance(data["id"], bool) or not isinstance(data["id"], (str, int)):
        raise DatasetError(f"{where}: field 'id'{hint('id')}: expected a string or an integer, got "
                           f"{_kind(data['id'])}")
    else:
        data["id"] = str(data["id"])
    data["source"] = str(data["source"]) if data.get("source") not in (None, "") else default_source
    data["metadata"] = {k: v for k, v in row.items()  # the other columns' plain values
                        if k not in mapping.values() and (isinstance(v, (str, int, float, bool))
                                                          or v is None)}
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        raise DatasetError(f"{where}: {'; '.join(map(_problem, exc.errors()[:5]))}") from exc


def _problem(error: Any) -> str:
    """A validation error without pydantic's "Value error, " prefix, saying what a strict field refused."""
    message = error["msg"].removeprefix("Value error, ")
    got = f" (got {_kind(error['input'])})" if error["type"].endswith("_type") else ""
    return f"field {'.'.join(map(str, error['loc']))}: {message}{got}" if error["loc"] else message


def load_file(path: str | Path, field_map: dict[str, str] | None = None, skip_invalid: bool = False,
              report: LoadReport | None = None) -> list[Case]:
    """Cases from a JSONL, CSV or Parquet file."""
    path = Path(path)
    if path.is_dir():
        raise DatasetError(f"{path}: is a directory, not a dataset file")
    if not path.is_file():
        raise DatasetError(f"{path}: no such dataset file")
    return validate_rows(file_rows(path), path.stem, field_map, skip_invalid, report or LoadReport(str(path)))


def validate_rows(rows: Iterable[tuple[str, Any]], stem: str, field_map: dict[str, str] | None,
                   skip_invalid: bool, report: LoadReport) -> list[Case]:
    """Every row as a Case (a bad row raises, or with `skip_invalid` is skipped and counted in `report`); then
    a `field_map` column that no row has is refused (it would silently leave every case without it)."""
    cases: list[Case] = []
    seen: set[str] = set()
    columns: set[str] = set()
    for index, (where, row) in enumerate(rows):
        report.rows += 1
        if isinstance(row, dict):
            columns.update(map(str, row))
        try:
            if isinstance(row, DatasetError):
                raise row
            case = row_to_case(row, where, field_map, default_source=stem, default_id=f"{stem}-{index}")
            if case.id in seen:
                raise DatasetError(f"{where}: field 'id': duplicate id {case.id!r}")
        except DatasetError as exc:
            if not skip_invalid:
                raise
            report.skipped.append(str(exc))
            continue
        seen.add(case.id)
        cases.append(case)
        report.cases += 1
        report.unlabelled += case.label is None
    if columns:
        for name, column in (field_map or {}).items():
            if column not in columns:
                raise DatasetError(f"--field {name}={column}: no row has a column {column!r}; columns "
                                   f"present: {sorted(columns)}")
    return cases


def example_cases() -> list[Case]:
    """The hand-written labelled example cases shipped with the package."""
    with resources.as_file(resources.files("courtroom") / "data" / "examples.jsonl") as path:
        return load_file(path)


def parse_field_map(items: list[str]) -> dict[str, str]:
    """`["question=query", "context=passage"]` -> `{"question": "query", "context": "passage"}`."""
    mapping = {}
    for item in items:
        target, sep, column = item.partition("=")
        if not sep or target not in CASE_FIELDS or not column:
            raise DatasetError(f"--field {item!r}: expected FIELD=COLUMN with FIELD one of "
                               f"{list(CASE_FIELDS)}")
        mapping[target] = column
    return mapping
