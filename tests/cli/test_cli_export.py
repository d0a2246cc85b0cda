"""Data out: `courtroom export` (csv, parquet, jsonl; with the spans and gold spans) and `--json` on audit summary,
audit list and compare."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.log.audit import Audit
from courtroom.log.export import CHARGE_FIELDS, COLUMNS, SPAN_FIELDS
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)
from tests.helpers.span_run import span_run

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
CASE = "example-lighthouse-automated"


@pytest.fixture
def court_run(tmp_path: Path, pseudo_runs) -> Path:  # noqa: F811
    out = tmp_path / "court"
    result = runner.invoke(app, ["run", "examples", "--court", "full", "--out", str(out), "--limit", "8"], env=WIDE)
    assert result.exit_code == 0, result.output
    return out


def test_export_writes_one_row_per_case_with_charges_and_evidence(court_run: Path, tmp_path: Path) -> None:
    audit = Audit(court_run)
    rows = {r.case_id: r for r in audit.rows()}
    exported = {}
    for fmt in ("csv", "parquet", "jsonl"):
        result = runner.invoke(app, ["export", str(court_run), "--format", fmt, "-o", str(tmp_path / f"x.{fmt}")])
        assert result.exit_code == 0, result.output
        path = tmp_path / f"x.{fmt}"
        if fmt == "csv":
            with path.open(newline="") as handle:
                reader = csv.DictReader(handle)
                assert tuple(reader.fieldnames) == COLUMNS
                records = [{**r, "charges": json.loads(r["charges"])} for r in reader]  # a JSON string column
        elif fmt == "parquet":
            table = pq.read_table(path)
            assert tuple(table.column_names) == COLUMNS
            records = table.to_pylist()
        else:
            records = [json.loads(line) for line in path.read_text().splitlines()]
        assert [r["case_id"] for r in records] == list(rows)
        exported[fmt] = records
    charged = 0
    for fmt, records in exported.items():
        for record in records:
            row = rows[record["case_id"]]
            assert record["verdict"] == row.label and record["gold"] == row.gold
            assert str(record["correct"]) == str(row.correct) and float(record["score"]) == pytest.approx(row.score)
            assert len(record["charges"]) == row.charges == int(record["n_charges"])
            verdict = [e.verdict for e in audit.events(row.case_id) if e.event == "verdict"][-1]
            sentences = audit.context_sentences(audit.events(row.case_id)[0].case)
            for charge, original, ruling in zip(record["charges"], verdict.charges, verdict.rulings):
                assert tuple(charge) == CHARGE_FIELDS
                assert charge["number"] == original.index + 1  # numbered from 1, as the court record numbers them
                assert charge["quote"] == original.quote and charge["verdict"] == ruling.verdict.value
                assert charge["p_hallucinated"] == pytest.approx(ruling.p_hallucinated)
                for cited in charge["cited"]:
                    assert cited["text"] == sentences[cited["sentence"] - 1]
                charged += fmt == "jsonl"
    assert charged, "the pseudo-model's court run brought no charge: the test would prove nothing"
    assert any(c["cited"] for r in exported["jsonl"] for c in r["charges"])
    assert exported["csv"][0]["charges"] == exported["jsonl"][0]["charges"] == exported["parquet"][0]["charges"]


def test_export_default_path_and_bad_format(court_run: Path) -> None:
    result = runner.invoke(app, ["export", str(court_run), "--format", "jsonl"])
    assert result.exit_code == 0 and court_run.with_suffix(".jsonl").is_file()
    bad = runner.invoke(app, ["export", str(court_run), "--format", "xlsx"])
    assert bad.exit_code == 2 and "csv, parquet, jsonl, inspect" in bad.output
    missing = runner.invoke(app, ["export", str(court_run.parent / "nope"), "--format", "csv"])
    assert missing.exit_code == 2 and "not a run directory" in missing.output


def test_json_summaries_for_scripts(court_run: Path, tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    metrics = json.loads((court_run / "metrics.json").read_text())
    summary = runner.invoke(app, ["audit", "summary", str(court_run), "--json"])
    assert summary.exit_code == 0, summary.output
    data = json.loads(summary.stdout)
    assert data["judge"] == "courtroom" and data["cases"] == 8 and data["metrics"] == metrics
    assert set(data) >= {"run", "model", "by_source", "errors", "edits", "corrected_metrics", "debate_gain", "gates"}
    gated = runner.invoke(app, ["audit", str(court_run), "--json", "--fail-under", "cases=9"])
    assert gated.exit_code == 3
    assert json.loads(gated.stdout)["gates"] == [{"metric": "cases", "minimum": 9.0, "value": 8.0, "passed": False}]

    listed = json.loads(runner.invoke(app, ["audit", "list", str(court_run), "--json"]).stdout)
    assert listed["matching"] == 8 and len(listed["cases"]) == 8
    assert set(listed["cases"][0]) == {"case_id", "source", "gold", "verdict", "score", "correct", "charges", "reason",
                                       "error"}
    wrong = json.loads(runner.invoke(app, ["audit", "list", str(court_run), "--json", "--wrong", "--limit", "1"]).stdout)
    assert wrong["matching"] == sum(c["correct"] is False for c in listed["cases"]) and len(wrong["cases"]) <= 1

    rails = tmp_path / "rails"
    assert runner.invoke(app, ["run", "examples", "--judge", "rails", "--out", str(rails), "--limit", "8"]).exit_code == 0
    compared = runner.invoke(app, ["compare", str(court_run), str(rails), "--json"])
    assert compared.exit_code == 0, compared.output
    data = json.loads(compared.stdout)
    assert [r["name"] for r in data["runs"]] == ["court", "rails"] and data["difference"] == "reference - run"
    [pairing] = data["pairings"]
    court_bal, rails_bal = (r["metrics"]["balanced_accuracy"]["value"] for r in data["runs"])
    assert pairing["shared"] == 8 and pairing["difference"] == pytest.approx(court_bal - rails_bal)
    assert 0 <= pairing["p_value"] <= 1


def test_export_has_the_spans_and_the_gold_spans(tmp_path: Path) -> None:
    run = span_run(tmp_path)
    rows = {r.case_id: r for r in Audit(run).rows()}
    exported = {}
    for fmt in ("csv", "parquet", "jsonl"):
        path = tmp_path / f"x.{fmt}"
        assert runner.invoke(app, ["export", str(run), "--format", fmt, "-o", str(path)]).exit_code == 0
        if fmt == "csv":
            with path.open(newline="") as handle:
                records = [{**r, **{k: json.loads(r[k]) if r[k] else None for k in ("spans", "gold_spans")}}
                           for r in csv.DictReader(handle)]
        elif fmt == "parquet":
            records = pq.read_table(path).to_pylist()
        else:
            records = [json.loads(line) for line in path.read_text().splitlines()]
        exported[fmt] = {r["case_id"]: (r["spans"], r["gold_spans"]) for r in records}
    assert exported["csv"] == exported["parquet"] == exported["jsonl"]
    answer = Audit(run).events(CASE)[0].case.answer
    spans, gold = exported["jsonl"][CASE]
    assert spans == [{"start": a, "end": b, "text": answer[a:b], "score": score} for a, b, score in rows[CASE].spans]
    assert tuple(spans[0]) == SPAN_FIELDS and spans[0]["text"] in ("last keeper retired", "1926")
    assert gold == [{"start": 20, "end": 24, "text": "1926", "type": "Evident Conflict", "implicit_true": False,
                     "due_to_null": False}]
    assert exported["jsonl"]["example-lighthouse-year"] == ([], None)   # found faithful, and no gold span

    Audit(run).store.transcript_path(CASE).unlink()                     # the transcript gone: no text, the rest kept
    path = tmp_path / "gone.jsonl"
    assert runner.invoke(app, ["export", str(run), "--format", "jsonl", "-o", str(path)]).exit_code == 0
    spans = next(r["spans"] for r in map(json.loads, path.read_text().splitlines()) if r["case_id"] == CASE)
    assert [(s["start"], s["end"], s["text"]) for s in spans] == [(a, b, None) for a, b, _ in rows[CASE].spans]


def test_every_format_holds_the_question_the_answer_and_the_context(court_run: Path, tmp_path: Path) -> None:
    audit = Audit(court_run)
    cases = {r.case_id: audit.store.case(r.case_id) for r in audit.rows()}
    for fmt in ("csv", "parquet", "jsonl"):
        path = tmp_path / f"x.{fmt}"
        assert runner.invoke(app, ["export", str(court_run), "--format", fmt, "-o", str(path)]).exit_code == 0
        if fmt == "csv":
            with path.open(newline="") as handle:
                records = [{**r, "context": json.loads(r["context"])} for r in csv.DictReader(handle)]
        elif fmt == "parquet":
            records = pq.read_table(path).to_pylist()
        else:
            records = [json.loads(line) for line in path.read_text().splitlines()]
        assert {r["case_id"]: (r["question"], r["answer"], r["context"]) for r in records} == {
            case_id: (case.question, case.answer, list(case.context)) for case_id, case in cases.items()}
