"""Attack 14: credentials in `--model-url` (`https://user:secret@host/v1`, `...?api_key=secret`) were written into
the run's `manifest.json` (the spec and the command line). A URL that carries credentials is now refused before
anything is written, without printing them back, pointing to `--api-key-env`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door.served import ServedBackend
from courtroom.door.spec import BackendSpec
from courtroom.errors import ConfigError
from courtroom.log.manifest import RunSpec
from tests.helpers.fake_openai import MODEL, FakeServer, fake_server

runner = CliRunner()
SECRET = "s3cr3t-Pa55"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        yield server


def with_credentials(url: str, where: str) -> str:
    scheme, rest = url.split("://")
    return {"userinfo": f"{scheme}://judge:{SECRET}@{rest}", "user": f"{scheme}://{SECRET}@{rest}",
            "query": f"{url}?api-version=2024-06-01&api_key={SECRET}", "token": f"{url}?access_token={SECRET}"}[where]


def files_holding_the_secret(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and SECRET in path.read_text(errors="replace")]


@pytest.mark.parametrize("where", ["userinfo", "user", "query", "token"])
def test_a_url_with_credentials_is_refused_before_anything_is_written(fake: FakeServer, tmp_path: Path,
                                                                      where: str) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "examples", "--judge", "rails", "--limit", "2", "--model", MODEL,
                                 "--model-url", with_credentials(fake.url, where), "--out", str(out)],
                           env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "--api-key-env" in output and "credentials" in output, output
    assert SECRET not in result.output  # not printed back (terminals and CI logs keep it)
    assert not out.exists() or files_holding_the_secret(out) == []


def test_the_library_refuses_them_too() -> None:
    with pytest.raises(ConfigError, match="--api-key-env") as caught:
        RunSpec.build("examples", model_url=f"https://judge:{SECRET}@api.example/v1")
    assert SECRET not in str(caught.value)
    with pytest.raises(ValidationError, match="api_key_env"):
        BackendSpec(kind="served", url=f"https://api.example/v1?key={SECRET}")
    with pytest.raises(ConfigError, match="--api-key-env") as caught:  # its errors would reach a run's results
        ServedBackend(f"http://judge:{SECRET}@127.0.0.1:9/v1", MODEL)
    assert SECRET not in str(caught.value)


def test_a_url_without_credentials_is_recorded_as_given(fake: FakeServer, tmp_path: Path) -> None:
    url = f"{fake.url}?api-version=2024-06-01"
    result = runner.invoke(app, ["run", "examples", "--judge", "rails", "--limit", "2", "--model", MODEL,
                                 "--model-url", url, "--out", str(tmp_path / "run")], env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output
    assert url in (tmp_path / "run" / "manifest.json").read_text()
