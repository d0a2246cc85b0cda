"""Loading cases: formats, field mappings, labels, bad rows, balanced sampling."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from courtroom.datasets import LoadReport, load_dataset, load_file, parse_field_map, select
from courtroom.errors import DatasetError

ROWS = [{"id": f"r{i}", "question": f"q{i}", "context": [f"c{i}"], "answer": f"a{i}",
         "label": "FAIL" if i % 3 == 0 else "PASS", "source": "set/A" if i < 6 else "set/B"} for i in range(12)]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_jsonl_csv_and_parquet_give_the_same_cases(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    jsonl = write_jsonl(tmp_path / "d.jsonl", ROWS)
    with (tmp_path / "d.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(ROWS[0]))
        writer.writeheader()
        writer.writerows({**r, "context": json.dumps(r["context"])} for r in ROWS)
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "d.parquet")
    cases = [load_file(tmp_path / name) for name in ("d.jsonl", "d.csv", "d.parquet")]
    assert cases[0] == cases[1] == cases[2]
    assert load_file(jsonl)[0].context == ["c0"]


def test_field_mapping_and_label_words(tmp_path: Path) -> None:
    rows = [{"query": "q", "passage": "one passage", "response": "a", "is_hallucinated": 1},
            {"query": "q", "passage": "p", "response": "b", "is_hallucinated": 0}]
    path = write_jsonl(tmp_path / "raw.jsonl", rows)
    mapping = parse_field_map(["question=query", "context=passage", "answer=response", "label=is_hallucinated"])
    cases = load_file(path, mapping)
    assert [c.label for c in cases] == ["FAIL", "PASS"]
    assert cases[0].context == ["one passage"] and cases[0].id == "raw-0" and cases[0].source == "raw"


def test_a_row_missing_context_names_row_and_field(tmp_path: Path) -> None:
    rows = [ROWS[0], {k: v for k, v in ROWS[1].items() if k != "context"}]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(DatasetError, match=rf"{path}:2: missing field 'context'"):
        load_file(path)
    report = LoadReport(str(path))
    assert len(load_file(path, skip_invalid=True, report=report)) == 1
    assert len(report.skipped) == 1 and "context" in report.skipped[0]


@pytest.mark.parametrize("row, expected", [
    ({"label": "maybe"}, "field 'label'"), ({"context": []}, "field context"),
    ({"answer": ""}, "field answer"),
])
def test_bad_values_are_named(tmp_path: Path, row, expected) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [{**ROWS[0], **row}])
    with pytest.raises(DatasetError, match=expected):
        load_file(path)


def test_bad_json_and_bad_mapping(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"id": 1\n')
    with pytest.raises(DatasetError, match=rf"{path}:1: not valid JSON"):
        load_file(path)
    with pytest.raises(DatasetError, match="FIELD=COLUMN"):
        parse_field_map(["questionquery"])


def test_balanced_sampling_is_seeded_and_balanced(tmp_path: Path) -> None:
    cases = load_file(write_jsonl(tmp_path / "d.jsonl", ROWS))
    a = select(cases, balanced=True, limit=6, seed=1)
    b = select(cases, balanced=True, limit=6, seed=1)
    c = select(cases, balanced=True, limit=6, seed=2)
    assert [x.id for x in a] == [x.id for x in b] and {x.id for x in a} != {x.id for x in c}
    assert sum(x.label == "FAIL" for x in a) == 3
    assert {x.source for x in select(cases, sources=["set/B"])} == {"set/B"}
    assert len(select(cases, limit=5)) == 5


def test_unreachable_hub_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DatasetError, match="hf:PatronusAI/HaluBench"):
        load_dataset("hf:PatronusAI/HaluBench")


def test_shipped_examples_are_balanced() -> None:
    cases = load_dataset("examples")
    assert len(cases) == 20 and sum(c.label == "FAIL" for c in cases) == 10
