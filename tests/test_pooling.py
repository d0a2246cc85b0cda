"""Pooled runs: one judge's runs on several datasets compared as one (`courtroom compare A+B C+D`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.errors import CourtroomError
from courtroom.metrics import calibrated_rows, compute_metrics
from courtroom.pooling import PooledRun, open_pooled_run, split_argument
from courtroom.runs import RunSpec, start_run
from courtroom.transcripts.store import ResultRow, RunStore
from tests.test_runs import scripted_runner


def finished_run(out: Path, judge: str, **options: object) -> Path:
    run = start_run(RunSpec(dataset="examples", judge=judge, **options), out)
    run.execute(runner=scripted_runner())
    run.close()
    return out


def table_rows(output: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines()
            if line.startswith("│") and line.count("│") > 3]


def test_compare_pools_one_judges_runs_on_disjoint_cases(tmp_path: Path) -> None:
    first = finished_run(tmp_path / "first", "courtroom", limit=8, balanced=True)
    rest = finished_run(tmp_path / "rest", "courtroom", exclude=[str(first)])
    rails_first = finished_run(tmp_path / "rails-first", "rails", limit=8, balanced=True)
    rails_rest = finished_run(tmp_path / "rails-rest", "rails", exclude=[str(rails_first)])
    court, rails = f"{first}+{rest}", f"{rails_first}+{rails_rest}"
    result = CliRunner().invoke(app, ["compare", court, rails, "--length-baseline"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    rows = table_rows(result.output)
    summary, paired = rows[:3], rows[3:]
    assert [r[0] for r in summary] == ["first+rest", "rails-first+rails-rest", "length-only"]
    assert [r[3] for r in summary] == ["20", "20", "20"]  # every example case, once
    pooled_rows = open_pooled_run(court).rows()
    assert summary[0][5].startswith(f"{compute_metrics(pooled_rows).balanced_accuracy.value:.3f}")
    assert [r[:2] for r in paired] == [["rails-first+rails-rest", "20"], ["length-only", "20"]]


def test_pooling_refuses_overlapping_cases_other_judges_and_missing_runs(tmp_path: Path) -> None:
    court = finished_run(tmp_path / "court", "courtroom", limit=6, balanced=True)
    rails = finished_run(tmp_path / "rails", "rails", exclude=[str(court)])
    with pytest.raises(CourtroomError, match=r"case '.+' is in both .*court and .*court; pooled runs must judge"):
        open_pooled_run(f"{court}+{court}")
    with pytest.raises(CourtroomError, match=r"judges differ: .*court \(courtroom\), .*rails \(rails\)"):
        open_pooled_run(f"{court}+{rails}")
    result = CliRunner().invoke(app, ["compare", f"{court}+{tmp_path / 'nope'}"], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "nope is not a run directory" in result.output


def test_a_directory_named_with_a_plus_is_one_run(tmp_path: Path) -> None:
    plus = tmp_path / "a+b"
    plus.mkdir()
    assert split_argument(str(plus)) == [str(plus)]
    assert split_argument(f"{tmp_path / 'a'}+{tmp_path / 'b'}") == [str(tmp_path / "a"), str(tmp_path / "b")]


def rows_scored(prefix: str, fail_score: float, pass_score: float, n: int = 20) -> tuple[ResultRow, ...]:
    return tuple(ResultRow(case_id=f"{prefix}-{gold}-{i}", source=prefix, gold=gold, label="PASS", score=score)
                 for i in range(n) for gold, score in (("FAIL", fail_score + i / 1000), ("PASS", pass_score + i / 1000)))


def test_calibration_is_fitted_on_each_pooled_run_alone() -> None:
    # a judge whose scores sit at other heights on two datasets: each alone is separated perfectly,
    # but one threshold over both is not
    high, low = rows_scored("hb", 0.8, 0.6), rows_scored("rt", 0.3, 0.1)
    pooled = PooledRun(name="hb+rt", stores=(), members=(high, low), judge="courtroom", model="m")
    assert compute_metrics(pooled.rows(calibrated_rows)).balanced_accuracy.value == 1.0
    assert compute_metrics(calibrated_rows([*high, *low])).balanced_accuracy.value < 0.9
    assert {r.case_id for r in pooled.rows()} == {r.case_id for r in (*high, *low)}


def test_a_single_run_opens_as_itself(tmp_path: Path) -> None:
    court = finished_run(tmp_path / "court", "rails", limit=4, balanced=True)
    run = open_pooled_run(str(court))
    assert run.name == "court" and run.judge == "rails" and run.rows() == RunStore(court).rows()
