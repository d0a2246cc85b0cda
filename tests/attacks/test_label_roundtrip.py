"""Attack: the label file must read back every case id `courtroom label` wrote, whatever it is: an id with spaces around
it, one starting with a `'`, or a run that holds both `=x` and `'=x` (the formula guard writes `=x` as `'=x`; read
back by stripping the `'`, the two were one cell). It stays safe to open in a spreadsheet, a spreadsheet that drops
the guard's `'` on saving still reads back, and a file the previous version wrote reads as it did."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from courtroom.calibrate.label_file import read_labels
from courtroom.log.audit import Audit
from courtroom.log.export import FORMULA_STARTS, spreadsheet_safe
from tests.helpers.labels import invoke, rows
from tests.helpers.runs import judged

IDS = [" spaced ", "spaced", "=x", "'=x", "''=x", "'plain", "+1", "@a", "-b", "\tc", " =d"]


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("odd-ids")
    items = []
    for i, case_id in enumerate(IDS):
        town, people = f"Town{'ABCDEFGHIJKLMN'[i]}", 1000 + 37 * i
        items.append({"id": case_id, "source": "towns", "question": f"How many people lived in {town}?",
                      "context": [f"The town of {town} had {people} people. Its market is on Tuesdays."],
                      "answer": f"{town} had {people + 500 * (i % 2)} people.", "label": "FAIL" if i % 2 else "PASS"})
    data = tmp / "odd.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in items))
    return judged(data, tmp / "run")


def _fill(path: Path, run: Path, case_id=lambda cell: cell) -> dict[str, bool]:  # noqa: ANN001
    """Label every row by the gold of the case its digest names; return the labels expected back."""
    by_digest = {Audit(run).store.case(r.case_id).digest(): r for r in Audit(run).rows()}
    table = rows(path)
    for row in table:
        row["label"] = "hallucinated" if by_digest[row["case_digest"]].gold == "FAIL" else "faithful"
        row["case_id"] = case_id(row["case_id"])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    return {by_digest[r["case_digest"]].case_id: by_digest[r["case_digest"]].gold == "FAIL" for r in table}


def test_every_written_id_reads_back_as_itself(odd_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    result = invoke("label", str(odd_run), "--n", str(len(IDS)), "--write", str(path))
    assert result.exit_code == 0, result.output
    assert not [cell for row in rows(path) for cell in row.values() if cell.startswith(FORMULA_STARTS)]
    expected = _fill(path, odd_run)
    assert sorted(expected) == sorted(IDS)
    assert read_labels(path, odd_run) == expected
    mine = tmp_path / "mine"  # imported into a copy: the module's run keeps no record
    shutil.copytree(odd_run, mine)
    result = invoke("label", str(mine), "--read", str(path))
    assert result.exit_code == 0 and f"{len(IDS)} labels recorded" in " ".join(result.output.split()), result.output
    assert Audit(mine).human_labels() == {c: "FAIL" if v else "PASS" for c, v in expected.items()}


def test_a_spreadsheet_that_drops_the_guard_still_reads_back(odd_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    assert invoke("label", str(odd_run), "--n", str(len(IDS)), "--write", str(path)).exit_code == 0
    expected = _fill(path, odd_run, lambda cell: cell.removeprefix("'"))
    assert read_labels(path, odd_run) == expected


def test_a_file_of_the_previous_version_reads_as_before(odd_run: Path, tmp_path: Path) -> None:
    """The previous version wrote `spreadsheet_safe(id)`; where that was one id, it still reads as that id."""
    path = tmp_path / "old.csv"
    assert invoke("label", str(odd_run), "--n", str(len(IDS)), "--write", str(path)).exit_code == 0
    digests = {Audit(odd_run).store.case(i).digest(): i for i in IDS}
    expected = _fill(path, odd_run)
    table = [{**r, "case_id": spreadsheet_safe(digests[r["case_digest"]])} for r in rows(path)
             if digests[r["case_digest"]] not in ("'=x", "''=x")]  # written as `'=x`, as `=x` was
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    assert read_labels(path, odd_run) == {i: v for i, v in expected.items() if i not in ("'=x", "''=x")}


def test_labelling_in_the_terminal_resumes_over_such_ids(odd_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(odd_run, run)
    result = invoke("label", str(run), "--n", str(len(IDS)), input="h\n" * 6 + "q\n")
    assert result.exit_code == 0, result.output
    result = invoke("label", str(run), "--n", str(len(IDS)), input="f\n" * (len(IDS) - 6))
    assert result.exit_code == 0, result.output
    assert "resuming" in result.output
    labels = Audit(run).human_labels()
    assert sorted(labels) == sorted(IDS) and sum(v == "FAIL" for v in labels.values()) == 6
    path = tmp_path / "out.csv"  # exported and read back as the same ids
    assert invoke("label", str(run), "--n", str(len(IDS)), "--write", str(path)).exit_code == 0
    assert {c: v for c, v in read_labels(path, run).items()} == {c: v == "FAIL" for c, v in labels.items()}
