"""`courtroom export RUN --format inspect`: the run as an inspect_ai eval log, read back by inspect_ai's own reader.

inspect_ai lives in its own environment (its dependencies would change fsspec and python-dateutil in ours):
`make test` builds `.venv-inspect` and points `COURTROOM_INSPECT_PYTHON` at it. The export is written in this
environment (without inspect_ai); the reader runs in that one (`inspect_ai.log.read_eval_log`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.engine.metric import reason_with_spans
from courtroom.log.audit import Audit
from courtroom.log.inspect_log import inspect_log
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)
from tests.helpers.span_run import span_run

ROOT = Path(__file__).resolve().parents[2]
READER = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1], resolve_attachments=True)
print(json.dumps({
    "status": log.status, "task": log.eval.task, "model": log.eval.model, "version": log.version,
    "metrics": {name: m.value for s in log.results.scores for name, m in s.metrics.items()},
    "samples": [{"id": s.id, "input": s.input, "target": s.target,
                 "scores": {k: {"value": v.value, "answer": v.answer, "explanation": v.explanation,
                                "metadata": v.metadata}
                            for k, v in (s.scores or {}).items()},
                 "messages": [{"role": m.role, "text": m.text, "metadata": m.metadata} for m in s.messages],
                 "model_events": len([e for e in s.events if e.event == "model"]),
                 "usage": {k: u.total_tokens for k, u in s.model_usage.items()},
                 "error": s.error.message if s.error else None} for s in log.samples]}))
"""


def inspect_python() -> str:
    """The Python of the environment with inspect_ai (`make test` sets COURTROOM_INSPECT_PYTHON; a set variable
    that does not work fails the test, it never skips it)."""
    given = os.environ.get("COURTROOM_INSPECT_PYTHON")
    if given:
        return given
    local = ROOT / ".venv-inspect" / "bin" / "python"
    if not local.exists():
        pytest.skip("inspect_ai's environment is missing: `make inspect` builds .venv-inspect")
    return str(local)


def test_an_exported_run_reads_back_with_inspect_ai(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    run = tmp_path / "court"
    result = CliRunner().invoke(app, ["run", "examples", "--out", str(run), "--limit", "6"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    log_path = tmp_path / "court.json"
    exported = CliRunner().invoke(app, ["export", str(run), "--format", "inspect", "-o", str(log_path)])
    assert exported.exit_code == 0, exported.output
    read = subprocess.run([inspect_python(), "-c", READER, str(log_path)], capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr[-3000:]
    log = json.loads(read.stdout)

    audit = Audit(run)
    rows = audit.rows()
    metrics = json.loads((run / "metrics.json").read_text())
    assert log["status"] == "success" and log["task"] == "courtroom/court" and log["model"] == "courtroom/default"
    assert log["metrics"]["balanced_accuracy"] == pytest.approx(metrics["balanced_accuracy"]["value"])
    assert [s["id"] for s in log["samples"]] == [r.case_id for r in rows]
    for sample, row in zip(log["samples"], rows):
        events = audit.events(row.case_id)
        case = events[0].case
        assert case.question in sample["input"] and case.answer in sample["input"]
        assert sample["target"] == row.gold
        score = sample["scores"]["courtroom"]
        assert score["value"] == pytest.approx(row.score) and score["answer"] == row.label
        verdict = next(e.verdict for e in events if e.event == "verdict")
        assert score["explanation"] == reason_with_spans(row.reason, verdict.spans)  # the spans, after the reason
        assert [s["text"] for s in score["metadata"]["spans"]] == [s.text for s in verdict.spans]
        assert sample["scores"]["correct"]["value"] == ("C" if row.correct else "I")
        calls = [e for e in events if e.event == "model_call"]
        replies = [m for m in sample["messages"] if m["role"] == "assistant"]
        assert [m["text"] for m in replies] == [c.raw for c in calls] and sample["model_events"] == len(calls)
        prompts = {e.hash: e.content for e in events if e.event == "prompt"}
        asked = [m["text"] for m in sample["messages"] if m["role"] != "assistant"]
        assert asked == [prompts[h] for c in calls for h in c.messages]  # attachments resolved to the prompts
        for reply, call in zip(replies, calls):
            assert reply["metadata"]["purpose"] == call.purpose
            if call.charge is not None:
                assert reply["metadata"]["charge"] == call.charge + 1
        assert sample["usage"] == {"default": row.prompt_tokens + row.completion_tokens}


def test_a_samples_score_carries_the_spans_and_the_testimony(tmp_path: Path) -> None:
    """Written without inspect_ai: the score's explanation names the spans, its metadata holds them (with who named
    them), the gold spans, and what each witness said and pointed at."""
    run = span_run(tmp_path)
    audit = Audit(run)
    samples = {s["id"]: s for s in inspect_log(audit)["samples"]}
    case_id = "example-lighthouse-automated"
    events = audit.events(case_id)
    verdict, answer = next(e.verdict for e in events if e.event == "verdict"), events[0].case.answer
    score = samples[case_id]["scores"]["courtroom"]
    assert verdict.spans and score["explanation"].endswith(
        "\nhallucinated: " + ", ".join(f"'{s.text}' ({s.score:.2f})" for s in verdict.spans))
    metadata = score["metadata"]
    assert metadata["spans"] == [s.model_dump() for s in verdict.spans] and metadata["spans"][0]["named_by"]
    assert metadata["gold_spans"] == [{"start": 20, "end": 24, "text": "1926", "type": "Evident Conflict",
                                       "implicit_true": False, "due_to_null": False}]
    assert [t["witness"] for t in metadata["testimony"]] == [t.witness for t in verdict.testimony]
    pointed = next(t for t in metadata["testimony"] if t["points"])
    assert all(p["words"] == answer[p["start"]:p["end"]] and p["note"] for p in pointed["points"])
    assert any(not t["heard"] and t["why_not"] for t in metadata["testimony"]) and metadata["weighing"] is None
    faithful = samples["example-lighthouse-year"]["scores"]["courtroom"]
    assert faithful["metadata"]["spans"] == [] and faithful["metadata"]["gold_spans"] is None
    assert "\nhallucinated:" not in faithful["explanation"]
    json.dumps(samples)  # plain JSON
