"""What the audit shows of a trial: every model call (prompt, constraint, raw output, probabilities, cost) and
the court's measurement token by token."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import ScriptedBackend
from courtroom.engine.events import ModelCallEvent
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.report.calls import call_views, folded
from courtroom.report.measurement import answer_gains, weakest
from courtroom.report.record import measurement_record
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.court_script import CourtScript

runner = CliRunner()
CASE = "example-lighthouse-automated"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A court run on the examples whose scripted grounding differs token by token: digits are poorly
    accounted for by the context, the rest of their sentence a little better."""
    out = tmp_path_factory.mktemp("runs") / "court"
    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): -0.5 for d in range(10)},
                         word_grounding={str(d): -1.5 for d in range(10)},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}, p_hallucinated=0.7)
    options = {"overrides": {"trial.exchange_rounds": 0, "trial.max_rounds": 3}}  # every move chosen: calls to show
    start_run(RunSpec.build("examples", judge="courtroom", court="full", window=4, judge_options=options), out).execute(
        runner=LocalRunner(ScriptedBackend(script)))
    return out


def test_every_call_is_shown_with_its_prompt_and_output(run_dir: Path) -> None:
    audit = Audit(run_dir)
    events = audit.events(CASE)
    views = call_views(events)
    recorded = [e for e in events if isinstance(e, ModelCallEvent)]
    assert len(views) == len(recorded) == audit.row(CASE).model_calls
    assert [v.raw for v in views] == [e.raw for e in recorded]
    moves = [v for v in views if v.purpose == "move"]
    assert moves and all(v.where.startswith("charge 1, round ") for v in moves)
    assert all(v.option_probs for v in moves)
    # the context and question every prompt repeats are folded after the first call, never lost
    first, move = views[0].messages[-1], moves[0].messages[-1]
    assert first[2] == 0 and "QUESTION:" in first[1]
    assert move[2] > 200 and move[1][:move[2]] == first[1][:move[2]] and "CHARGE 1" in move[1][move[2]:]
    assert "shared by every prompt" in folded(move[1], move[2]) and "QUESTION:" not in folded(move[1], move[2])

    result = runner.invoke(app, ["audit", "show", str(run_dir), CASE, "--calls"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"call {len(views)} · " in result.output and f"call {len(views) + 1} · " not in result.output
    assert "scoring (the text's likelihood" in result.output and "rule 0.900, next_round 0.100" in result.output
    without = runner.invoke(app, ["audit", "show", str(run_dir), CASE], env={"COLUMNS": "200"})
    assert "call 1 · " not in without.output and "the measurement, token by token" in without.output


def test_the_measurement_token_by_token(run_dir: Path) -> None:
    audit = Audit(run_dir)
    events = audit.events(CASE)
    case = next(e.case for e in events if e.event == "case_start")
    clip = audit.grounding_clip()
    gains = answer_gains(case, events, clip)
    answer = case.answer.strip()
    assert "".join(answer[g.start:g.end] for g in gains).strip() == answer  # the spans tile the answer
    low = {answer[g.start:g.end].strip() for g in gains if g.gain < -1}
    assert low and all(any(ch.isdigit() for ch in token) for token in low)  # the scripted model's weak tokens
    assert all(g.gain <= clip for g in gains)
    words = [answer[s:e] for s, e in weakest(gains, answer, k=1)]
    assert words == ["1926,"]

    console = Console(record=True, width=160)
    console.print(measurement_record(case, events, clip))
    text = console.export_text()
    assert answer in text and f"capped at {clip:g}" in text and "underlined" in text


def test_no_heatmap_without_a_whole_answer_measurement(run_dir: Path) -> None:
    audit = Audit(run_dir)
    events = [e for e in audit.events(CASE) if not (isinstance(e, ModelCallEvent) and e.purpose == "ground")]
    case = next(e.case for e in events if e.event == "case_start")
    assert answer_gains(case, events) == [] and measurement_record(case, events, None) is None
