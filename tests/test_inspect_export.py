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
from courtroom.log.audit import Audit
from tests.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[1]
READER = """
import json, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1], resolve_attachments=True)
print(json.dumps({
    "status": log.status, "task": log.eval.task, "model": log.eval.model, "version": log.version,
    "metrics": {name: m.value for s in log.results.scores for name, m in s.metrics.items()},
    "samples": [{"id": s.id, "input": s.input, "target": s.target,
                 "scores": {k: {"value": v.value, "answer": v.answer, "explanation": v.explanation}
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
        assert score["explanation"] == row.reason
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
