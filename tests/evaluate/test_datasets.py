"""Loading cases: formats, field mappings, labels, bad rows, balanced sampling."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from courtroom.errors import DatasetError
from courtroom.evaluate.datasets import LoadReport, load_file, normalize_label, parse_field_map
from courtroom.evaluate.selection import load_dataset, select

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
    ({"context": ["", "  "]}, "field context: .*the context is empty"),
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


def test_tsv_byte_order_marks_and_json_arrays_read_like_jsonl(tmp_path: Path) -> None:
    reference = load_file(write_jsonl(tmp_path / "d.jsonl", ROWS[:3]))
    header = list(ROWS[0])
    lines = ["\t".join(header)] + ["\t".join(json.dumps(r[k]) if k == "context" else str(r[k]) for k in header)
                                   for r in ROWS[:3]]
    (tmp_path / "d.tsv").write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "bom.jsonl").write_text("\ufeff" + "".join(json.dumps(r) + "\n" for r in ROWS[:3]), encoding="utf-8")
    (tmp_path / "d.json").write_text(json.dumps(ROWS[:3], indent=2))
    for name in ("d.tsv", "bom.jsonl", "d.json"):
        assert load_file(tmp_path / name) == reference, name


def test_a_csv_row_with_extra_cells_is_named_and_skippable(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("question,answer,label\nq,a,PASS,stray,cells\n")  # no context either: the extra cells come first
    with pytest.raises(DatasetError, match=rf"{path}:2: 2 more cells than the header's 3 columns"):
        load_file(path)
    report = LoadReport(str(path))
    assert load_file(path, skip_invalid=True, report=report) == [] and len(report.skipped) == 1


def test_an_id_of_zero_is_kept(tmp_path: Path) -> None:
    rows = [{**ROWS[i], "id": i} for i in range(2)]
    assert [c.id for c in load_file(write_jsonl(tmp_path / "ids.jsonl", rows))] == ["0", "1"]


@pytest.mark.parametrize("limit, balanced", [(0, False), (-2, False), (1, True)])
def test_a_limit_that_selects_nothing_is_an_error(tmp_path: Path, limit: int, balanced: bool) -> None:
    cases = load_file(write_jsonl(tmp_path / "d.jsonl", ROWS))
    with pytest.raises(DatasetError, match=f"--limit {limit}: must be at least"):
        select(cases, limit=limit, balanced=balanced)


HUB_FILES = ["data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet",
             "data/test-00000-of-00001.parquet", "latest/validation/0000.parquet", "README.md.parquet"]


def test_hub_splits_match_whole_words_and_a_missing_split_lists_the_others() -> None:
    from courtroom.evaluate.hub import choose_split_files

    assert choose_split_files("o/d", HUB_FILES, None) == ["data/test-00000-of-00001.parquet"]
    assert choose_split_files("o/d", HUB_FILES, "validation") == ["latest/validation/0000.parquet"]
    assert len(choose_split_files("o/d", HUB_FILES, "train")) == 2
    with pytest.raises(DatasetError, match="no split 'est'; available: test, train, validation"):
        choose_split_files("o/d", HUB_FILES, "est")
    with pytest.raises(DatasetError, match="no test split; name one: hf:o/d:train"):
        choose_split_files("o/d", HUB_FILES[:2], None)
    assert choose_split_files("o/d", ["data.parquet", "more.parquet"], None) == ["data.parquet", "more.parquet"]


def test_known_hub_datasets_map_their_columns_under_the_users_mapping() -> None:
    from courtroom.evaluate.hub import hub_field_map

    assert hub_field_map("PatronusAI/HaluBench", None) == {"context": "passage", "source": "source_ds"}
    assert hub_field_map("PatronusAI/HaluBench", {"source": "dataset"})["source"] == "dataset"
    assert hub_field_map("org/other", {"question": "query"}) == {"question": "query"}


def test_a_malformed_jsonl_line_names_the_column_of_the_problem(tmp_path: Path) -> None:
    """Not `column 1` of a second line (the line ending parsed with it): the column on the line itself."""
    good = json.dumps(ROWS[0])
    cut = '{"id": "b", "question": "q", "context": "c"'  # cut short: the line ends where a comma was expected
    for ending in ("\n", "\r\n"):
        path = tmp_path / "cases.jsonl"
        path.write_bytes((good + ending + cut + ending).encode())
        with pytest.raises(DatasetError) as caught:
            load_file(path)
        assert str(caught.value) == f"{path}:2: not valid JSON (Expecting ',' delimiter at column {len(cut) + 1})"


@pytest.mark.parametrize("word", ["yes", "no", "Yes", " NO "])
def test_yes_and_no_are_refused_as_labels_suggesting_pass_and_fail(tmp_path: Path, word: str) -> None:
    """`yes` answers "hallucinated?" as well as "faithful?": it was read as FAIL, silently inverting data labelled
    the other way. Refused, naming the row and the words to use; booleans and 0/1 keep their documented meaning."""
    path = write_jsonl(tmp_path / "cases.jsonl", [{**ROWS[0], "label": word}])
    with pytest.raises(DatasetError) as caught:
        load_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:1: field 'label': label {word!r} is ambiguous") and "PASS" in message
    assert "FAIL" in message and "\n" not in message
    assert normalize_label(True) == "FAIL" and normalize_label("0") == "PASS" and normalize_label("faithful") == "PASS"
