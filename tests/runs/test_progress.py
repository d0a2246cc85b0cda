"""Progress you can trust (#23.5): a run's progress moves inside a lockstep window (calls answered, tokens per
second, an ETA), not only when a case ends; transformers' own progress bars stay out of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.backend import Tick
from courtroom.evaluate.datasets import example_cases
from courtroom.evaluate.results import summarize
from courtroom.runs.progress import COURT_CALLS_PER_CASE, MEASUREMENT_CALLS_PER_CASE, RunProgress, usual_calls
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_moves_inside_the_first_lockstep_window() -> None:
    cases = example_cases()[:8]
    clock = Clock()
    seen = []

    def watch(monitor: RunProgress) -> None:
        clock.now += 1.0  # every event takes a second
        seen.append(monitor.snapshot())

    monitor = RunProgress(len(cases), calls_per_case=usual_calls(load_court("full")), on_change=watch, clock=clock)
    court = load_court("full", ScriptedBackend(PseudoModel(), model="default"), window=8)
    first_done = None
    for outcome in court.run_many(cases, observer=monitor):
        if first_done is None:
            first_done = len(seen)
        monitor.case_finished(summarize(outcome, ""))
    before = seen[:first_done]  # everything seen before the first case of the window ended
    assert before and all(s.done == 0 for s in before)
    assert before[-1].fraction > 0.5 and before[-1].eta is not None  # the bar moved and there is an estimate
    assert [s.fraction for s in before] == sorted(s.fraction for s in before)
    assert all(s.fraction <= 8 * 0.9 + 1e-9 for s in before)
    assert max(s.batch for s in before) == 16 and any(0 < s.in_flight < s.batch for s in before)  # calls as answered
    assert max(s.running for s in before) == 8 and before[-1].tokens_per_second > 0
    end = monitor.snapshot()
    assert end.done == 8 and end.fraction == 8 and end.eta == 0
    assert monitor.calls_per_case() == pytest.approx((2 * COURT_CALLS_PER_CASE + end.calls) / (2 + 8))  # prior as 2 cases


def test_the_eta_counts_the_running_cases_share_of_their_calls_from_the_first_work_on() -> None:
    """Loading the model (600 s here, the first time) comes before the first answer: counted in the pace, the ETA
    read 30 minutes for a run of a minute."""
    clock = Clock()
    monitor = RunProgress(10, done=2, calls_per_case=4, clock=clock)
    assert monitor.snapshot().eta is None  # no pace yet (the two cases were done before a resume)
    monitor.batch_started(0, cases=8, calls=8)
    clock.now = 600.0  # the model loaded, the first calls answered
    monitor.tick(Tick(requests=4, prompt_tokens=5000, completion_tokens=1000))
    s = monitor.snapshot()
    assert s.fraction == pytest.approx(3.0) and s.in_flight == 4  # 4 calls at 4 calls a case: one case
    assert s.eta is None and s.tokens_per_second == pytest.approx(10.0)  # the pace starts here
    clock.now = 610.0
    monitor.tick(Tick(requests=4, prompt_tokens=900, completion_tokens=100))
    s = monitor.snapshot()
    assert s.fraction == pytest.approx(4.0) and s.in_flight == 0
    assert s.eta == pytest.approx(60.0)  # 6 cases at 10 s a case (with the load in the pace: 1830 s)
    monitor.batch_finished(0)
    monitor.batch_started(1, cases=4, calls=4)  # a backend that does not tick: the batch counts when it ends
    monitor.batch_finished(1)
    assert monitor.snapshot().calls == 12
    assert usual_calls(load_court("full")) == COURT_CALLS_PER_CASE
    assert usual_calls(load_court("default")) == MEASUREMENT_CALLS_PER_CASE < COURT_CALLS_PER_CASE  # no trial


def test_run_shows_calls_in_flight_tokens_per_second_and_an_eta(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    result = CliRunner().invoke(app, ["run", "examples", "--limit", "4", "--out", str(tmp_path / "r")],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    line = [line for line in result.output.splitlines() if "judging" in line and "tok/s" in line][-1]  # the bar's end
    assert "4/4" in line and "calls in flight" in line and "ETA 0:00:00" in line


def test_a_piped_run_prints_its_progress_as_plain_lines(tmp_path: Path, pseudo_runs, monkeypatch) -> None:  # noqa: F811
    """Piped (a CI log, `| tee`), the live bar cannot be drawn: a 7-minute run printed nothing between its header and
    its end. It prints the line every `PLAIN_EVERY` seconds (here every change, and never more than asked)."""
    monkeypatch.setattr("courtroom.report.progress.PLAIN_EVERY", 0.0)
    result = CliRunner().invoke(app, ["run", "examples", "--limit", "6", "--window", "2", "--out", str(tmp_path / "r")],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("judging ") and " · ETA " in line]
    assert [line.split()[1] for line in lines][:1] == ["0/6"] and "6/6" in lines[-1]
    assert len({line.split()[1] for line in lines}) == 7  # 0/6 ... 6/6, each case as it ended
    assert all("\x1b" not in line for line in lines)  # plain text, no terminal codes
    monkeypatch.setattr("courtroom.report.progress.PLAIN_EVERY", 3600.0)
    again = CliRunner().invoke(app, ["run", "examples", "--limit", "6", "--out", str(tmp_path / "s")])
    assert len([line for line in again.output.splitlines() if line.startswith("judging ")]) <= 2  # the first, the end


def test_loading_a_model_shows_no_progress_bars_of_its_own(tmp_path: Path, monkeypatch) -> None:
    import transformers
    from huggingface_hub.utils import are_progress_bars_disabled
    from transformers.utils import logging as transformers_logging

    from courtroom.door.models import ModelSource, load_model

    transformers_logging.enable_progress_bar()

    class Loaded(Exception):
        pass

    def from_pretrained(*args, **kwargs):  # noqa: ANN002, ANN003
        assert not transformers_logging.is_progress_bar_enabled() and are_progress_bars_disabled()
        raise Loaded

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", from_pretrained)
    with pytest.raises(Loaded):
        load_model(ModelSource(name="x", kind="hf_dir", location=str(tmp_path)), device="cpu")
