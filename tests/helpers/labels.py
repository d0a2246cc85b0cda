"""A labelling world: a prior ruling fitted on one run and the user's run of other cases (`world`), and the label
file `courtroom label` writes, filled and read."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.calibrate.label_session import LabelSession
from courtroom.calibrate.ruling_runs import calibrate_ruling, write_ruling
from courtroom.cli import app
from courtroom.log.audit import Audit
from tests.helpers.runs import judged, labelled

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
USER_TOWNS = [f"Town{a}{b}" for a in "ABCD" for b in "ABCDE"]
"""20 towns of the user's run: 40 cases, other than the 12 the prior was fitted on."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A prior ruling fitted on one run, and the user's run of other cases (the court's measure decided it)."""
    tmp = tmp_path_factory.mktemp("label")
    fitted_on = judged(labelled(tmp / "prior.jsonl"), tmp / "prior-run")
    fit, _ = calibrate_ruling([fitted_on])
    prior = write_ruling(fit, tmp / "prior.yaml", {})
    return judged(labelled(tmp / "mine.jsonl", USER_TOWNS), tmp / "mine"), prior, tmp


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def fill(path: Path, run: Path, keep: int | None = None, **changes: dict[str, str]) -> Path:
    """Fill a written label file's label column with the gold labels (the first `keep` rows; the others left empty),
    and change the cells named by case id."""
    gold = {r.case_id: r.gold for r in Audit(run).rows()}
    table = rows(path)
    for i, row in enumerate(table):
        if keep is None or i < keep:
            row["label"] = "hallucinated" if gold[row["case_id"]] == "FAIL" else "faithful"
        row.update(changes.get(row["case_id"], {}))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    return path


def invoke(*args: str, input: str | None = None):  # noqa: ANN201, A002
    return runner.invoke(app, [*args], env=WIDE, input=input)


def written(run: Path, prior_file: Path, path: Path, n: int = 24) -> Path:
    assert invoke("label", str(run), "--n", str(n), "--ruling", str(prior_file), "--write", str(path)).exit_code == 0
    return path


def drawn(run: Path, prior: Path | None = None, n: int = 5, seed: int = 0) -> LabelSession:
    return LabelSession(Audit(run), str(prior) if prior else None, n, seed, "tester", "terminal")
