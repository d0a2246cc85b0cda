"""Attack 15 (issue 43): forged derived rows. `audit verify` compared a row's verdict, score, gold label and case
with its transcript, and nothing else: rows whose spans were rewritten to the gold spans, with `metrics.json`
recomputed from them, claimed span F1 1.00 (true 0.80) and verified. Every field of a row derived from its transcript
is now recomputed from it (the spans, the gold spans, charges, variants, calls, tokens and times)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.span_metrics import run_span_scores
from courtroom.log.verify import verify
from tests.helpers.span_run import span_run


@pytest.fixture(scope="module")
def intact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = span_run(tmp_path_factory.mktemp("forged"))
    assert verify(Audit(run)) == []
    return run


def forged(intact: Path, tmp_path: Path, change: Callable[[dict], None]) -> Path:
    """A copy of the run whose every row `change` rewrote, and whose metrics.json is recomputed from the rows (the
    forgery is consistent: only the transcripts tell)."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copytree(intact / "transcripts", run / "transcripts")  # a run reads only its own files, never a link
    (run / "manifest.json").write_text((intact / "manifest.json").read_text())
    rows = [json.loads(line) for line in (intact / "results.jsonl").read_text().splitlines()]
    for row in rows:
        change(row)
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    audit = Audit(run)
    metrics = compute_metrics(audit.rows())
    spans = run_span_scores(audit.store, audit.rows())
    (run / "metrics.json").write_text(json.dumps({**metrics.model_dump(mode="json"), "spans": spans}, indent=2))
    return run


def spans_as_gold(row: dict) -> None:
    if row.get("gold_spans"):
        row["spans"] = [[g["start"], g["end"], 0.9] for g in row["gold_spans"]]


def test_rows_forged_to_claim_a_better_span_f1_do_not_verify(intact: Path, tmp_path: Path) -> None:
    run = forged(intact, tmp_path, spans_as_gold)
    true = run_span_scores(Audit(intact).store, Audit(intact).rows())
    claimed = json.loads((run / "metrics.json").read_text())["spans"]
    key = "token hallucinated answers"
    assert claimed[key]["f1"] == 1.0 > true[key]["f1"]  # the forgery claims better spans than the run found
    problems = [str(p) for p in verify(Audit(run))]
    assert problems and all("the results row's spans is [[" in p and "but its transcript gives" in p for p in problems)
    assert len(problems) == 3  # the three annotated cases, each naming the one field that differs
    result = CliRunner().invoke(app, ["audit", "verify", str(run)], env={"COLUMNS": "1000"})
    assert result.exit_code == 1 and "verified" not in result.output


@pytest.mark.parametrize(("field", "value"), [
    ("gold_spans", [{"start": 0, "end": 3}]), ("charges", 4), ("model_calls", 1), ("prompt_tokens", 12),
    ("seconds", 99.5), ("parse_failures", 2)])
def test_any_derived_field_forged_does_not_verify(intact: Path, tmp_path: Path, field: str, value: object) -> None:
    first = json.loads((intact / "results.jsonl").read_text().splitlines()[1])

    def change(row: dict) -> None:
        if row["case_id"] == first["case_id"]:
            row[field] = value

    problems = [str(p) for p in verify(Audit(forged(intact, tmp_path, change)))]
    [problem] = problems
    assert f"results.jsonl: case {first['case_id']}: the results row's {field} is " in problem
    assert problem.endswith(f" but its transcript gives {json.dumps(first[field])}" if field != "gold_spans" else
                            ' but its transcript gives [{"start": 20, "end": 24, "text": "1926", "type": "Evident '
                            'Conflict", "implicit_true": false, "due_to_null": false}]')
