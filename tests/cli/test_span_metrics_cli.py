"""Span metrics where the data has gold spans: printed at the end of `courtroom run` and by `audit summary`, in
`audit summary --json` and in `metrics.json` (under `spans`, checked by `audit verify`); none without gold spans."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.log.audit import Audit
from courtroom.log.span_metrics import run_span_scores, span_cases
from courtroom.log.verify import verify
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)
from tests.helpers.span_run import GOLD, UNANNOTATED, span_run, write_span_dataset

runner = CliRunner()
WIDE = {"COLUMNS": "220"}


def test_summary_run_and_metrics_json_give_the_span_metrics(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    data, out = write_span_dataset(tmp_path / "spans.jsonl"), tmp_path / "run"
    ran = runner.invoke(app, ["run", str(data), "--out", str(out)], env=WIDE)
    assert ran.exit_code == 0, ran.output
    assert "hallucinated spans against the gold spans: 7 answers, 3 hallucinated" in ran.output  # the unannotated one out
    assert re.search(r"tokens +│ hallucinated answers +│ +\d\.\d{3} │ +\d\.\d{3} │ +\d\.\d{3} \[", ran.output)
    assert "hit@1" in ran.output and "characters" in ran.output
    audit = Audit(out)
    stored = json.loads((out / "metrics.json").read_text())
    assert stored["spans"] == json.loads(json.dumps(run_span_scores(audit.store, audit.rows())))
    measured = {c.answer: c for c in span_cases(audit.store, audit.rows())}
    assert audit.store.case(UNANNOTATED).answer not in measured                    # hallucinated where, unknown
    assert sum(bool(c.gold) for c in measured.values()) == len(GOLD)
    summary = json.loads(runner.invoke(app, ["audit", "summary", str(out), "--json"]).stdout)
    assert summary["spans"] == stored["spans"] and 0.0 <= summary["spans"]["hit@1"] <= 1.0
    assert {k: v for k, v in stored.items() if k != "spans"} == summary["metrics"]
    shown = runner.invoke(app, ["audit", "summary", str(out)], env=WIDE)
    assert "hallucinated spans against the gold spans" in shown.output
    assert verify(audit) == []                                    # the span metrics recompute
    stored["spans"]["hit@1"] = 0.99
    (out / "metrics.json").write_text(json.dumps(stored))
    assert any("spans differ" in str(p) for p in verify(Audit(out)))
    gated = runner.invoke(app, ["audit", "summary", str(out), "--fail-under", "cases=99"])
    assert gated.exit_code == 3                                   # the gates read what they read before


def test_no_span_metrics_without_gold_spans(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "run"
    ran = runner.invoke(app, ["run", "examples", "--out", str(out), "--limit", "4"], env=WIDE)
    assert ran.exit_code == 0 and "hallucinated spans against" not in ran.output
    assert "spans" not in json.loads((out / "metrics.json").read_text())
    assert json.loads(runner.invoke(app, ["audit", "summary", str(out), "--json"]).stdout)["spans"] is None


def test_rejudge_gives_the_span_metrics_of_its_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "rejudged"
    result = runner.invoke(app, ["rejudge", str(span_run(tmp_path)), "--out", str(out), "--court", "default"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "hallucinated spans against the gold spans: 7 answers, 3 hallucinated" in result.output
    audit = Audit(out)
    assert json.loads((out / "metrics.json").read_text())["spans"] == json.loads(json.dumps(
        run_span_scores(audit.store, audit.rows())))
    assert verify(audit) == []
