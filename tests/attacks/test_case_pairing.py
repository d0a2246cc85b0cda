"""Attack 16 (issue 43): cases matched across runs by id alone. `calibrate --ruling A B` silently kept 24 of 48 cases
when both datasets used the ids `row-0..23`, and `compare` (and `audit diff`) paired unrelated cases. Each row records
its case's digest: a shared id naming other content is refused (calibrate, audit diff) or left out of the pairing
with a warning naming the ids (compare); the same case in two runs still counts once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import courtroom
from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.runs.runners import LocalRunner
from tests.helpers.cases import NO_RULING_MODEL

FIRST = ["Arden", "Brill", "Corve", "Dunmore", "Elsby", "Fenwick", "Garth", "Hollin", "Ivel", "Jessop", "Kelby", "Lorne"]
SECOND = ["Mabe", "Narth", "Orrin", "Pell", "Quarry", "Rusk", "Sedge", "Tarn", "Ulver", "Vale", "Wick", "Yarrow"]


def judged(root: Path, name: str, towns: list[str]) -> Path:
    """A run of one labelled file, ids `row-0..23`: every town's population, given right and (FAIL) invented."""
    rows = []
    for i, town in enumerate(towns):
        people = 1000 + 137 * (i + 3)
        context = [f"The town of {town} had a population of {people:,} in the last census. Its market is on Tuesdays."]
        for label, figure in (("PASS", people), ("FAIL", people + 4321)):
            rows.append({"id": f"row-{len(rows)}", "source": "towns", "question": f"What was the population of {town}?",
                         "context": context, "answer": f"The population of {town} was {figure:,}.", "label": label})
    (root / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    courtroom.run(str(root / f"{name}.jsonl"), out=root / name, model=NO_RULING_MODEL,
                  runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    return root / name


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pairing")
    return judged(root, "first", FIRST), judged(root, "second", SECOND)


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, " ".join(result.output.split())


def test_calibrate_refuses_runs_whose_shared_ids_name_other_cases(runs: tuple[Path, Path], tmp_path: Path) -> None:
    status, output = cli("calibrate", str(runs[0]), str(runs[1]), "--ruling", str(tmp_path / "ruling.yaml"))
    assert status == 2 and f"{runs[1]}: 24 case ids name other cases in {runs[0]} ('row-0', 'row-1', " in output
    assert "and 19 more)" in output and not (tmp_path / "ruling.yaml").exists()


def test_the_same_case_in_two_runs_counts_once(runs: tuple[Path, Path], tmp_path: Path) -> None:
    status, output = cli("calibrate", str(runs[0]), str(runs[0]), "--ruling", str(tmp_path / "ruling.yaml"))
    assert status == 0 and output.startswith("24 labelled cases")


def test_compare_leaves_other_cases_under_the_same_ids_out_of_the_pairing(runs: tuple[Path, Path]) -> None:
    status, output = cli("compare", str(runs[0]), str(runs[1]), "--json")
    assert status == 0
    result = json.loads(output[output.index("{"):])
    assert [p["shared"] for p in result["pairings"]] == [0]
    assert result["warnings"] == ["24 cases of second have the same id as a case of first but other content ('row-0', "
                                  "'row-1', 'row-2', 'row-3', 'row-4' and 19 more): they are other cases, left out of "
                                  "the pairing"]


def test_audit_diff_refuses_other_cases_under_the_same_ids(runs: tuple[Path, Path]) -> None:
    status, output = cli("audit", "diff", str(runs[0]), str(runs[1]))
    assert status == 2 and "24 cases of" in output and "but other content (their case digests differ: 'row-0'," in output
