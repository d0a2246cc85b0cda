"""Load cases from JSONL, CSV and Parquet files, Hugging Face datasets, or the shipped examples.

Columns are mapped onto case fields with `field_map` (the CLI's `--field question=query`); without a
mapping the normalized schema of `../shared/data` is expected: `id, source, question, context,
answer, label`. A bad row raises `DatasetError` naming the file, the row and the field, unless
`skip_invalid` is set, in which case it is skipped and counted.

Labels: `PASS`/`FAIL` (HaluBench convention), `faithful`/`supported`/`factual` (PASS),
`hallucinated` (FAIL), or a boolean / 0-1 value meaning "hallucinated".
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import Case
from courtroom.errors import DatasetError

CASE_FIELDS = ("id", "question", "context", "answer", "label", "source")
PASS_WORDS = {"pass", "faithful", "supported", "factual", "false", "0", "no"}
FAIL_WORDS = {"fail", "hallucinated", "hallucination", "unsupported", "true", "1", "yes"}


@dataclass
class LoadReport:
    """What loading a dataset found."""

    path: str
    rows: int = 0
    skipped: list[str] = field(default_factory=list)
    """One message per invalid row that was skipped."""


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
    raise DatasetError(f"label {value!r} is not PASS/FAIL (or faithful/hallucinated, or 0/1)")


def _context(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                parsed = json.loads(text)
                if isinstance(parsed, list):
                    return [str(p) for p in parsed]
            except json.JSONDecodeError:
                pass
        return [value]
    if hasattr(value, "tolist"):
        value = value.tolist()
    return value


def row_to_case(row: dict[str, Any], where: str, field_map: dict[str, str] | None = None,
                default_source: str = "custom", default_id: str = "") -> Case:
    """Validate one raw row as a Case; errors name the row and the field."""
    if not isinstance(row, dict):
        raise DatasetError(f"{where}: expected an object with fields, got {type(row).__name__}")
    mapping = {name: (field_map or {}).get(name, name) for name in CASE_FIELDS}
    data: dict[str, Any] = {}
    for name, column in mapping.items():
        if column in row and row[column] is not None:
            data[name] = row[column]
    for required in ("question", "context", "answer"):
        if required not in data:
            hint = f" (mapped from column {mapping[required]!r})" if mapping[required] != required else ""
            raise DatasetError(f"{where}: missing field {required!r}{hint}; columns present: {sorted(map(str, row))}")
    try:
        data["label"] = normalize_label(data.get("label"))
    except DatasetError as exc:
        raise DatasetError(f"{where}: field 'label': {exc}") from exc
    data["context"] = _context(data["context"])
    data["id"] = str(data["id"]) if data.get("id") not in (None, "") else default_id
    data["source"] = str(data["source"]) if data.get("source") not in (None, "") else default_source
    data["question"] = str(data["question"])
    data["answer"] = str(data["answer"])
    extra = {k: v for k, v in row.items() if k not in mapping.values()}
    if extra:
        data["metadata"] = {k: v for k, v in extra.items() if isinstance(v, (str, int, float, bool)) or v is None}
    try:
        return Case.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"field {'.'.join(map(str, e['loc'])) or '<row>'}: {e['msg']}" for e in exc.errors()[:5])
        raise DatasetError(f"{where}: {problems}") from exc


def _json_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """JSON Lines, or (in a `.json` file) one JSON array of rows."""
    if path.suffix.lower() == ".json":
        with path.open(encoding="utf-8-sig") as handle:
            first = handle.read(4096).lstrip()[:1]
        if first == "[":
            try:
                rows = json.loads(path.read_text(encoding="utf-8-sig"))
            except json.JSONDecodeError as exc:
                yield str(path), DatasetError(f"{path}: not a valid JSON array (line {exc.lineno}: {exc.msg})")
                return
            for number, row in enumerate(rows, start=1):
                yield f"{path} item {number}", row
            return
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield f"{path}:{number}", json.loads(line)
            except json.JSONDecodeError as exc:
                yield f"{path}:{number}", DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})")


def _csv_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """CSV (`.tsv`: tab-separated) with a header line; a byte-order mark is ignored."""
    csv.field_size_limit(1 << 30)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if None in row:  # DictReader keeps the cells beyond the header under the key None
                yield where, DatasetError(f"{where}: {len(row[None])} more cells than the header's "
                                          f"{len(reader.fieldnames or [])} columns (an unquoted separator?)")
            else:
                yield where, row


def parquet_rows(path: Path) -> Iterator[tuple[str, Any]]:
    import pyarrow.parquet as pq

    for number, row in enumerate(pq.read_table(path).to_pylist(), start=1):
        yield f"{path} row {number}", row


def _rows(path: Path) -> Iterator[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _json_rows(path)
    if suffix in (".csv", ".tsv"):
        return _csv_rows(path)
    if suffix == ".parquet":
        return parquet_rows(path)
    raise DatasetError(f"{path}: unsupported file type {suffix!r}; use .jsonl, .json, .csv, .tsv or .parquet")


def load_file(path: str | Path, field_map: dict[str, str] | None = None, skip_invalid: bool = False,
              report: LoadReport | None = None) -> list[Case]:
    """Cases from a JSONL, CSV or Parquet file."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such dataset file")
    return validate_rows(_rows(path), path.stem, field_map, skip_invalid, report or LoadReport(str(path)))


def validate_rows(rows: Iterable[tuple[str, Any]], stem: str, field_map: dict[str, str] | None,
                   skip_invalid: bool, report: LoadReport) -> list[Case]:
    cases: list[Case] = []
    seen: set[str] = set()
    for index, (where, row) in enumerate(rows):
        report.rows += 1
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
            raise DatasetError(f"--field {item!r}: expected FIELD=COLUMN with FIELD one of {list(CASE_FIELDS)}")
        mapping[target] = column
    return mapping
