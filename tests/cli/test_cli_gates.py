"""CI gates: `courtroom run ... --fail-under METRIC=VALUE` and `courtroom audit summary RUN --fail-under ...`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from courtroom.cli import app
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def test_an_unknown_metric_is_refused_before_the_run_starts_listing_the_valid_ones(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "examples", "--out", str(out), "--fail-under", "balanced_acc=0.7"], env=WIDE)
    assert result.exit_code == 2, result.output
    assert "unknown metric 'balanced_acc'" in result.output and "balanced_accuracy" in result.output
    assert "auroc" in result.output and not out.exists() and not pseudo_runs
    result = runner.invoke(app, ["run", "examples", "--out", str(out), "--fail-under", "auroc=high"], env=WIDE)
    assert result.exit_code == 2 and "'high' is not a number" in result.output


def test_a_run_below_its_gate_exits_3_with_one_line_saying_why(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "run"
    args = ["run", "examples", "--judge", "rails", "--out", str(out), "--limit", "8"]
    passed = runner.invoke(app, [*args, "--fail-under", "balanced_accuracy=0", "--fail-under", "cases=8"], env=WIDE)
    assert passed.exit_code == 0, passed.output
    assert "passed: balanced_accuracy >= 0, cases >= 8" in passed.output
    metrics = json.loads((out / "metrics.json").read_text())
    bal = metrics["balanced_accuracy"]["value"]
    failed = runner.invoke(app, [*args, "--fail-under", f"balanced_accuracy={bal + 0.01:.2f}",
                                 "--fail-under", "accuracy=0"], env=WIDE)  # resumes: nothing left to judge
    assert failed.exit_code == 3, failed.output
    assert f"failed: balanced_accuracy {bal:.3f} < {bal + 0.01:.2f}" in failed.output
    assert "accuracy 0" not in failed.output.replace("balanced_accuracy", "")  # only the failed gate is named


def test_audit_summary_gates_a_finished_run(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "run"
    assert runner.invoke(app, ["run", "examples", "--judge", "rails", "--out", str(out), "--limit", "6"]).exit_code == 0
    metrics = json.loads((out / "metrics.json").read_text())
    ok = runner.invoke(app, ["audit", "summary", str(out), "--fail-under", "cases=6"], env=WIDE)
    assert ok.exit_code == 0 and "passed: cases >= 6" in ok.output
    low = runner.invoke(app, ["audit", str(out), "--fail-under", "cases=7", "--fail-under", "tokens_per_case=1e9"],
                        env=WIDE)
    assert low.exit_code == 3
    assert f"cases 6 < 7; tokens_per_case {metrics['tokens_per_case']:.3f} < 1e9" in low.output
    unknown = runner.invoke(app, ["audit", str(out), "--fail-under", "precision.middle=1"], env=WIDE)
    assert unknown.exit_code == 2 and "precision.low" in unknown.output


def test_gates_take_upper_bounds_as_metric_at_most_value(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    from courtroom.evaluate.gates import parse_gate

    assert (parse_gate("errors<=0").op, parse_gate("cases>=6").op, parse_gate("cases=6").op) == ("<=", ">=", ">=")
    assert parse_gate(" tokens_per_case <= 1e9 ").metric == "tokens_per_case"
    out = tmp_path / "run"
    args = ["run", "examples", "--judge", "rails", "--out", str(out), "--limit", "6"]
    passed = runner.invoke(app, [*args, "--fail-under", "errors<=0", "--fail-under", "cases>=6"], env=WIDE)
    assert passed.exit_code == 0, passed.output
    assert "passed: errors <= 0, cases >= 6" in passed.output
    failed = runner.invoke(app, ["audit", str(out), "--fail-under", "cases<=5", "--fail-under", "errors<=0"], env=WIDE)
    assert failed.exit_code == 3 and "failed: cases 6 > 5" in failed.output and "errors 0" not in failed.output
    gated = runner.invoke(app, ["audit", str(out), "--json", "--fail-under", "cases<=5", "--fail-under", "cases=6"])
    assert gated.exit_code == 3
    assert json.loads(gated.stdout)["gates"] == [{"metric": "cases", "maximum": 5.0, "value": 6.0, "passed": False},
                                                  {"metric": "cases", "minimum": 6.0, "value": 6.0, "passed": True}]
    for wrong in ("errors<0", "errors=>0", "errors<=", "errors==0"):
        refused = runner.invoke(app, ["audit", str(out), "--fail-under", wrong], env=WIDE)
        assert refused.exit_code == 2 and "METRIC<=VALUE" in refused.output, (wrong, refused.output)
