"""The rows of a dataset file, read as they are: JSON Lines (or one JSON array), CSV (TSV) and Parquet. Each
row comes with where it stands (`file:line`, `file item N`, `file row N`); a row that cannot be read comes as
its `DatasetError`, refused or, with `skip_invalid`, skipped and counted by `datasets.validate_rows`."""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from courtroom.errors import DatasetError

_UNDECODABLE = re.compile("[\udc80-\udcff]")
"""What a byte that is not UTF-8 becomes when text is read with `errors="surrogateescape"`."""


def _not_utf8(where: str, text: str) -> DatasetError | None:
    """A row error if `text` (read with surrogateescape) held bytes that are not UTF-8."""
    bad = _UNDECODABLE.search(text)
    if bad is None:
        return None
    column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
    return DatasetError(f"{where}: not valid UTF-8 (byte 0x{ord(bad.group()) - 0xDC00:02x} at column "
                        f"{column})")


class Unreadable(ValueError):
    """JSON that parses but that Python cannot hold: nested too deep, or a number too long."""


def load_json(text: str) -> Any:
    """`json.loads`; JSON that Python cannot hold raises `Unreadable`, saying why."""
    try:
        return json.loads(text)
    except RecursionError:
        raise Unreadable("nested deeper than the JSON reader goes") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "integer string conversion" not in str(exc):
            raise
        raise Unreadable(f"a number of more than {sys.get_int_max_str_digits()} digits") from None


def _json_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """JSON Lines, or (in a `.json` file) one JSON array of rows; a line not UTF-8 or not JSON is a row
    error."""
    if path.suffix.lower() == ".json":
        with path.open("rb") as handle:
            first = handle.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")[:1]
        if first == "[":
            text = path.read_text(encoding="utf-8-sig", errors="surrogateescape")
            bad = _UNDECODABLE.search(text)
            if bad is not None:
                yield str(path), _not_utf8(f"{path}:{text.count(chr(10), 0, bad.start()) + 1}", text)
                return
            try:
                rows = load_json(text)
            except json.JSONDecodeError as exc:
                yield str(path), DatasetError(f"{path}:{exc.lineno}: not a valid JSON array ({exc.msg} at "
                                              f"column {exc.colno})")
                return
            except Unreadable as exc:
                yield str(path), DatasetError(f"{path}: not a valid JSON array ({exc})")
                return
            for number, row in enumerate(rows, start=1):
                yield f"{path} item {number}", row
            return
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as handle:
        for number, line in enumerate(handle, start=1):
            where = f"{path}:{number}"
            if (error := _not_utf8(where, line)) is not None:
                yield where, error
                continue
            if not line.strip():
                continue
            try:
                yield where, load_json(line.rstrip("\r\n"))  # its line ending would be read as a second line
            except json.JSONDecodeError as exc:
                yield where, DatasetError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
            except Unreadable as exc:
                yield where, DatasetError(f"{where}: not valid JSON ({exc})")


def _csv_not_utf8(where: str, row: dict[Any, Any]) -> DatasetError | None:
    for column, value in row.items():
        for cell in value if column is None else [value]:
            if isinstance(cell, str) and (bad := _UNDECODABLE.search(cell)):
                name = f"column {column!r}" if column is not None else "a cell beyond the header"
                return DatasetError(f"{where}: not valid UTF-8 (byte 0x{ord(bad.group()) - 0xDC00:02x} in "
                                    f"{name})")
    return None


def _csv_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """CSV (`.tsv`: tab-separated) with a header line; a row with bytes that are not UTF-8 is a row error."""
    csv.field_size_limit(1 << 30)
    with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        header = "\t".join(reader.fieldnames or [])
        if bad := _UNDECODABLE.search(header):
            raise DatasetError(f"{path}:1: not valid UTF-8 (byte 0x{ord(bad.group()) - 0xDC00:02x} in the "
                               "header line)")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if (error := _csv_not_utf8(where, row)) is not None:
                yield where, error
            elif None in row:  # DictReader keeps the cells beyond the header under the key None
                yield where, DatasetError(f"{where}: {len(row[None])} more cells than the header's "
                                          f"{len(reader.fieldnames or [])} columns (an unquoted separator?)")
            else:
                yield where, row


def parquet_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """A Parquet file's rows (`file row N`)."""
    import pyarrow.parquet as pq

    for number, row in enumerate(pq.read_table(path).to_pylist(), start=1):
        yield f"{path} row {number}", row


def file_rows(path: Path) -> Iterator[tuple[str, Any]]:
    """Every row of a dataset file with where it stands, or the `DatasetError` of a row that cannot be
    read."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _json_rows(path)
    if suffix in (".csv", ".tsv"):
        return _csv_rows(path)
    if suffix == ".parquet":
        return parquet_rows(path)
    raise DatasetError(f"{path}: unsupported file type {suffix!r}; use .jsonl, .json, .csv, .tsv or .parquet")
