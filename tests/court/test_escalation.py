"""Escalation (#21.4): only charges whose measured P(suspect) lies in the court's band go to trial; the others are
decided by the measurement alone, with no trial call. Exact through `rejudge` of a run recorded with full trials,
whose rows then count only the calls the escalated court used."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.engine.registry import JudgeSpec
from courtroom.errors import CourtError
from courtroom.evaluate.datasets import example_cases
from courtroom.evaluate.results import escalation
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.rejudge import rejudge_run
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.court_script import CourtScript
from tests.helpers.courts import court_file

BAND = {"low": 0.5, "high": 0.9}
"""With the script below, statements with `1926` are measured at P(suspect) 0.98 and those with `of` at 0.95 (above
the band, not tried), the other statements with an `e` at 0.73 (in it, tried)."""


class TimedBackend(ScriptedBackend):
    """Every call costs 0.1 s of model time (a batch of n calls takes 0.1 n s), so a row's seconds count its calls."""

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        responses = super().generate(requests)
        for response in responses:
            response.seconds = 0.1 * len(requests)
        return responses


def script() -> CourtScript:
    return CourtScript(grounding={"1926": -0.8, "of": -0.5, "e": 0.1}, p_hallucinated=0.2,
                       moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})


def run(tmp_path: Path, name: str, court: str = "full", **overrides: object) -> list:
    spec = RunSpec.build("examples", judge="courtroom", court=court, window=4, model=NO_RULING_MODEL,
                         judge_options={"overrides": overrides} if overrides else None)
    started = start_run(spec, tmp_path / name)
    rows = started.execute(runner=LocalRunner(TimedBackend(script(), model="pseudo")))
    started.close()
    return rows


def outcomes(**overrides: object) -> list:
    court = load_court("full", ScriptedBackend(script(), model="pseudo"), overrides=overrides or None)
    return list(court.run_many(example_cases()))


def test_the_measurement_decides_exactly_the_charges_outside_the_band() -> None:
    tried = outside = 0
    for outcome in outcomes(escalation=BAND):
        assert outcome.verdict is not None, outcome.error
        trial_calls = {e.charge for e in outcome.events if e.event == "model_call" and e.charge is not None}
        moved = {e.charge for e in outcome.events if e.event == "move"}
        for charge, ruling in zip(outcome.verdict.charges, outcome.verdict.rulings):
            inside = BAND["low"] <= charge.p_suspect <= BAND["high"]
            assert ruling.escalated is inside
            if inside:
                tried += 1
                assert ruling.source != "measurement" and charge.index in moved and charge.index in trial_calls
                assert ruling.reason.startswith(f"escalated to trial (P(suspect) = {charge.p_suspect:.2f} lies in the "
                                                "escalation band [0.5, 0.9])")
            else:
                outside += 1
                assert ruling.source == "measurement" and ruling.rounds == 0 and ruling.opinion is None
                assert ruling.p_hallucinated == charge.p_suspect
                assert charge.index not in moved and charge.index not in trial_calls  # no trial call at all
                assert "not escalated to trial, the measurement decided" in ruling.reason
                assert "is above the escalation band [0.5, 0.9]" in ruling.reason
    assert tried >= 10 and outside >= 5  # both kinds of charge were there to check


def test_without_a_band_every_charge_is_tried_as_before() -> None:
    court = load_court("full")
    assert court.spec.trial.escalation is None and court.config()["court"]["trial"]["escalation"] is None
    assert load_court("full", overrides={"trial.escalation": BAND}).config()["court"]["trial"]["escalation"] == BAND
    for outcome in outcomes():
        for ruling in outcome.verdict.rulings:
            assert ruling.source != "measurement" and ruling.escalated is None
            assert "escalation" not in ruling.model_dump_json()  # transcripts as before the setting existed


def test_a_band_that_tries_everything_changes_no_verdict() -> None:
    everything = [(o.verdict.label, o.verdict.score) for o in outcomes(escalation={"low": 0.0, "high": 1.0})]
    assert everything == [(o.verdict.label, o.verdict.score) for o in outcomes()]


def test_rejudging_a_full_trial_run_gives_the_escalated_court_and_counts_only_the_calls_it_used(tmp_path: Path) -> None:
    full = run(tmp_path, "full")
    live = run(tmp_path, "live", escalation=BAND)
    rejudged = rejudge_run(tmp_path / "full", tmp_path / "re",
                           judge=JudgeSpec(court="full", options={"overrides": {"escalation": BAND}}))
    by_case = {r.case_id: r for r in live}
    for row in rejudged:
        twin = by_case[row.case_id]
        assert (row.label, row.score, row.reason, row.escalated) == (twin.label, twin.score, twin.reason, twin.escalated)
        assert row.model_calls == twin.model_calls and row.seconds == pytest.approx(0.1 * row.model_calls)
        assert row.trial_seconds == pytest.approx(twin.trial_seconds)
    events = {r.case_id: RunStore(tmp_path / "re").events(r.case_id) for r in rejudged}
    for row in rejudged:  # the row's cost is the sum of the calls its transcript used, each as recorded
        used = [e for e in events[row.case_id] if e.event == "model_call"]
        assert row.seconds == pytest.approx(sum(e.seconds / e.batch_size for e in used))
    fewer = [(f.model_calls, r.model_calls) for f, r in zip(full, rejudged) if f.model_calls != r.model_calls]
    assert fewer and all(r < f for f, r in fewer)
    assert sum(r.seconds for r in rejudged) < sum(r.seconds for r in full)
    assert all(r.escalated is None and r.trial_seconds is None for r in full)
    assert '"escalated"' not in (tmp_path / "full" / "results.jsonl").read_text()  # rows as before the setting


def test_the_share_escalated_and_the_cost_are_shown(tmp_path: Path) -> None:
    rows = run(tmp_path, "live", escalation=BAND)
    summary = escalation(rows)
    assert summary is not None and summary.charges == sum(r.charges for r in rows)
    assert 0 < summary.tried < summary.charges and summary.share == summary.tried / summary.charges
    trials = sum(r.trial_seconds for r in rows) / len(rows)
    assert summary.trial_seconds_per_case == pytest.approx(trials) and trials > 0
    assert summary.measurement_seconds_per_case == pytest.approx(sum(r.seconds for r in rows) / len(rows) - trials)
    run(tmp_path, "full")
    shown = CliRunner().invoke(app, ["audit", str(tmp_path / "live")], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    assert f"escalation: {summary.tried} of {summary.charges} charges tried ({summary.share:.1%})" in shown.output
    compared = CliRunner().invoke(app, ["compare", str(tmp_path / "live"), str(tmp_path / "full")],
                                  env={"COLUMNS": "250"})
    assert compared.exit_code == 0, compared.output
    assert "escalation: charges tried" in compared.output and f"{summary.share:.1%}" in compared.output
    assert escalation(RunStore(tmp_path / "full").rows()) is None


def test_rejudge_takes_a_band_from_the_command_line(tmp_path: Path) -> None:
    run(tmp_path, "full")
    result = CliRunner().invoke(app, ["rejudge", str(tmp_path / "full"), "--set", "escalation={low: 0.5, high: 0.9}",
                                      "--out", str(tmp_path / "re")])
    assert result.exit_code == 0, result.output
    rows = RunStore(tmp_path / "re").rows()
    assert escalation(rows).tried < escalation(rows).charges


@pytest.mark.parametrize("band, message", [
    ({"low": 0.8, "high": 0.2},
     r"field trial.escalation: Value error, low \(0.8\) is above high \(0.2\): the band is empty"),
    ({"low": 0.2, "high": 1.5}, "field trial.escalation.high: Input should be less than or equal to 1"),
    ({"low": 0.2}, r"field trial.escalation.high: Field required"),
    ({"low": 0.2, "high": 0.5, "wide": True}, "field trial.escalation.wide: Extra inputs are not permitted"),
])
def test_a_malformed_band_is_refused_naming_the_file_and_field(tmp_path: Path, band: dict, message: str) -> None:
    path = court_file(tmp_path, lambda data: data["trial"].update(escalation=band))
    with pytest.raises(CourtError, match=rf"{path}:\d+: {message}"):
        load_court(path)


def test_the_default_court_tries_nothing_and_decides_as_a_full_trial_run_rejudged_without_its_trials(
        tmp_path: Path) -> None:
    """The default court is the full court's clerk without the trial: a live run of it without its witnesses decides
    every case as a full-trial run decided again by `rejudge --court default --set witnesses=null` does, with none of
    the trial's calls; and with its witnesses, for a model no ruling is fitted for, it decides every case the same
    (their testimony is recorded, the measurement decides). (The full court's "measurement only" column is not it:
    there the defence's citations still weigh in the evidence.)"""
    assert not hasattr(load_court("default").spec, "trial")  # the clerk alone
    full = run(tmp_path, "full")
    default = run(tmp_path, "default", court="default", witnesses=None)
    rejudged = rejudge_run(tmp_path / "full", tmp_path / "re",
                           judge=JudgeSpec(court="default", options={"overrides": {"witnesses": None}}))
    assert {r.case_id: (r.label, r.score, r.reason) for r in default} == \
        {r.case_id: (r.label, r.score, r.reason) for r in rejudged}
    assert [r.model_calls for r in default] == [r.model_calls for r in rejudged]
    heard = run(tmp_path, "heard", court="default")
    assert {r.case_id: (r.label, r.score) for r in heard} == {r.case_id: (r.label, r.score) for r in default}
    assert all("calibrate" not in r.reason for r in heard)  # no ruling: said once per run, not in every reason
    note = Audit(tmp_path / "heard").ruling_note()
    assert note is not None and f"No ruling is fitted for {NO_RULING_MODEL}" in note and "calibrate --ruling" in note
    assert Audit(tmp_path / "full").ruling_note() is None  # no witnesses heard: nothing to say
    assert sum(r.charges for r in default) >= 10 and escalation(default).tried == 0
    assert sum(r.model_calls for r in default) < sum(r.model_calls for r in full)
    assert all(not r.variants for r in default)  # no agents: no debate gain to report
    assert escalation(default).describe().startswith(f"escalation: no charge tried, the measurement decided all "
                                                     f"{sum(r.charges for r in default)};")
    for case_id in (r.case_id for r in default if r.charges):
        events = RunStore(tmp_path / "default").events(case_id)
        assert not [e for e in events if e.event == "move" or (e.event == "model_call" and e.charge is not None)]
        rulings = [e.ruling for e in events if e.event == "ruling"]
        assert rulings and all(r.source == "measurement" and r.escalated is False for r in rulings)
        assert all(r.reason.startswith("decided by the measurement (") and "this court tries no charge" in r.reason
                   for r in rulings)


def test_a_court_that_tries_nothing_has_no_trial_setting_to_change() -> None:
    with pytest.raises(CourtError, match="--set trial.on_no_charges: the court has no section 'trial'"):  # (its path now)
        load_court("default", overrides={"on_no_charges": "try_whole_answer"})


def test_a_band_needs_charges_whose_suspicion_is_measured() -> None:
    with pytest.raises(CourtError, match=r"field trial.escalation: drafted charges \(trial.charges: drafted\) have no "
                                         "measured P"):
        load_court("generative", overrides={"escalation": BAND})
