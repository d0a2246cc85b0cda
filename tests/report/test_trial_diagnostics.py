"""The trial's diagnostics wherever a run is read (#44): how each trial ended and at which round, whether both sides
spoke, the texts written, the bench against the clerk; in the result
rows (checked by `audit verify`), `audit summary` (and its JSON), `compare` and the HTML report with the debate's
gain."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.case import Charge, Ruling, Verdict
from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.events import ChargesEvent, MoveEvent, RulingEvent
from courtroom.evaluate.results import trials
from courtroom.evaluate.trial_stats import trial_stats
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.verify import verify
from courtroom.report.html import build_report
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A run of the full court of up to three rounds on the pseudo model (every trial path, seeded)."""
    out = tmp_path_factory.mktemp("runs") / "trials"
    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4,
                         judge_options={"overrides": {"trial.max_rounds": 3}})
    start_run(spec, out).execute(runner=LocalRunner(ScriptedBackend(PseudoModel(3), model="default")))
    return out


def _move(charge: int, round: int, role: str, payload: dict, **fields) -> MoveEvent:  # noqa: ANN003
    return MoveEvent(seq=0, charge=charge, round=round, node=role, role=role, persona=role, move="m",
                     payload=payload, **fields)


def test_a_cases_trials_are_counted_from_its_moves_and_rulings() -> None:
    charges = ChargesEvent(seq=0, charges=[Charge(index=0, quote="a", reason="r", p_suspect=0.9),
                                           Charge(index=1, quote="b", reason="r", p_suspect=0.2)])
    events = [charges,
              _move(0, 1, "prosecutor", {"evidence": 1, "argument": "It is wrong."}),
              _move(0, 1, "defender", {"argument": "It is right because"}),
              _move(0, 1, "judge", {"reason": ""}),
              RulingEvent(seq=0, ruling=Ruling(charge=0, verdict=Verdict.SUPPORTED, reason="r", confidence=0.7,
                                               p_hallucinated=0.3, source="judge", rounds=1, opinion=0.3)),
              _move(1, 1, "prosecutor", {"reason": "Nothing to charge."}),
              RulingEvent(seq=0, ruling=Ruling(charge=1, verdict=Verdict.SUPPORTED, reason="r", confidence=1.0,
                                               p_hallucinated=0.1, source="withdrawn", rounds=1))]
    stats = trial_stats(events)
    assert stats.tried == 2 and stats.endings == {"judge@1": 1, "withdrawn@1": 1} and stats.exchanged == 1
    assert (stats.texts, stats.empty, stats.unfinished) == (4, 1, 1)
    assert "quotes" not in stats.model_dump()  # the retired statements' counts: read from old rows, never written
    assert (stats.rulings, stats.measured, stats.with_clerk) == (1, 1, 0)  # the judge cleared a charge measured suspect
    assert trial_stats([charges]) is None


def test_rows_hold_their_trials_and_verify_recomputes_them(run_dir: Path) -> None:
    audit = Audit(run_dir)
    rows = audit.rows()
    held = [r for r in rows if r.trial is not None]
    assert held and all(sum(r.trial.endings.values()) == r.trial.tried for r in held)
    assert verify(audit) == []
    tampered = held[0].model_copy(update={"trial": held[0].trial.model_copy(update={"tried": 99})})
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["case_id"] == tampered.case_id)
    lines[index] = tampered.model_dump_json()
    copy = run_dir.parent / "tampered"
    shutil.copytree(run_dir, copy)
    (copy / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert any("trial" in p.message for p in verify(Audit(copy)))


def test_audit_summary_and_its_json_show_how_the_trials_went(run_dir: Path) -> None:
    summary = trials(Audit(run_dir).rows())
    shown = runner.invoke(app, ["audit", "summary", str(run_dir)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert f"how {summary.total.tried} trials ended" in shown.output and "round 1" in shown.output
    assert "texts written" in shown.output and "the debate's gain" in shown.output
    data = json.loads(runner.invoke(app, ["audit", "summary", str(run_dir), "--json"]).output)
    assert data["trials"]["total"]["tried"] == summary.total.tried and data["trials"]["lines"] == summary.lines()


def test_compare_and_the_html_report_show_the_trials_and_the_debates_gain(run_dir: Path) -> None:
    compared = runner.invoke(app, ["compare", str(run_dir), str(run_dir)], env={"COLUMNS": "250"})
    assert compared.exit_code == 0, compared.output
    assert "trials: how they ended" in compared.output and "bench with clerk" in compared.output
    page = build_report(run_dir)
    summary = trials(Audit(run_dir).rows())
    assert 'id="trials"' in page and f"{summary.total.tried} trials in {summary.cases} cases" in page
    assert 'id="gain"' in page and "measurement" in page and "agents" in page


def test_a_run_without_trials_shows_none(tmp_path: Path) -> None:
    out = tmp_path / "clerk"
    start_run(RunSpec.build("examples", judge="courtroom", court="default"), out).execute(
        runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    assert all(r.trial is None for r in Audit(out).rows())
    page = build_report(out)
    assert 'id="trials"' not in page and 'id="gain"' not in page
    assert "trials ended" not in runner.invoke(app, ["audit", "summary", str(out)], env={"COLUMNS": "200"}).output
