"""The evidence court's moves and statement-first turns are retired (#53): a court file or a recorded court that uses
them is refused in one line naming the setting and the last version that replays it; a court written out whole before
(with `turns: move-first`, `exhibit_check: null`) still reads, and a recorded court holding them replays, migrated
(court 12), under its recorded identity."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.court import Court
from courtroom.courts import courts_dir, load_court
from courtroom.courts.migrations import LAST_BEFORE_EVIDENCE
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.registry import judge_from_config, upgrade_config
from courtroom.errors import CourtError
from courtroom.evaluate.datasets import example_cases
from courtroom.log.replay import replay
from tests.helpers.courts import court_file


def test_every_shipped_court_validates_from_the_command_line() -> None:
    for path in sorted(courts_dir().glob("*.yaml")):
        result = CliRunner().invoke(app, ["court", "validate", str(path)])
        assert result.exit_code == 0 and result.output.startswith(f"ok {path.stem}"), result.output
    assert not (courts_dir() / "evidence.yaml").exists()


def _citation(data: dict) -> None:
    data["trial"]["graph"]["edges"][2]["payload"] = "citation"


def _evidence_node(data: dict) -> None:
    data["trial"]["graph"]["nodes"]["bench"]["choice"] = "evidence"


@pytest.mark.parametrize("edit, name", [
    (_citation, "the evidence court's moves"), (_evidence_node, "the evidence court's moves"),
    (lambda data: data["trial"].update(exhibit_check={"absent": 1.0, "present": -1.0}), "the evidence court's moves"),
    (lambda data: data["trial"].update(turns="statement-first"), "trial.turns: statement-first"),
])
def test_a_court_file_of_a_retired_setting_is_refused_in_one_line(tmp_path: Path, edit, name: str) -> None:
    path = court_file(tmp_path, edit)
    with pytest.raises(CourtError) as raised:
        load_court(path)
    message = str(raised.value)
    assert str(path) in message and name in message and LAST_BEFORE_EVIDENCE in message and "\n" not in message


def test_a_court_written_out_whole_before_the_retirement_still_reads(tmp_path: Path) -> None:
    path = court_file(tmp_path, lambda data: data["trial"].update(turns="move-first", exhibit_check=None))
    assert load_court(path).config()["court"] == load_court("full").config()["court"]  # read as the court it copied


def _recorded(court: Court, **trial: object) -> dict:
    """`court`'s configuration as a run recorded it before court 12."""
    config = court.config()
    config["court"]["trial"] = {**config["court"]["trial"], **trial}
    return config


def test_a_recorded_court_of_move_first_turns_replays_under_its_recorded_identity() -> None:
    court = load_court("full", ScriptedBackend(PseudoModel()))
    recorded = _recorded(court, turns="move-first", exhibit_check=None)
    upgraded, applied = upgrade_config(recorded)
    assert upgraded == court.config() and any(name.startswith("court 12") for name in applied)
    [case] = example_cases()[:1]
    [outcome] = list(court.run_many([case]))
    rebuilt = judge_from_config(upgraded, ScriptedBackend(PseudoModel()))
    assert replay(outcome.events, rebuilt).matches


@pytest.mark.parametrize("trial, name", [
    ({"turns": "statement-first", "exhibit_check": None}, "trial.turns: statement-first"),
    ({"turns": "move-first", "exhibit_check": {"absent": 1.0, "present": -1.0}}, "the evidence court's moves"),
])
def test_a_recorded_court_of_a_retired_setting_is_refused_naming_it(trial: dict, name: str) -> None:
    upgraded, _ = upgrade_config(_recorded(load_court("full"), **trial))
    assert upgraded["retired"][0].startswith(name.split(":")[0])
    with pytest.raises(CourtError, match=LAST_BEFORE_EVIDENCE.replace("(", r"\(").replace(")", r"\)")):
        judge_from_config(upgraded, source="RUN/manifest.json")
