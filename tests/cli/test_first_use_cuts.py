"""Paper cuts a new user hit (issue 43): a typo in an option caught before any work and leaving nothing behind, unknown
names answered with the closest one, and `audit verify` naming the one field a tampered transcript changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize(("option", "says"), [
    (("--device", "cdua"), "BackendSpec.device: 'cdua' is not a device: auto, cpu, cuda, cuda:N, mps, xpu or xpu:N; "
                           "did you mean 'cuda'?"),
    (("--device", "cuda:1"), "--device cuda:1: torch sees no cuda device on this machine"),
    (("--judge", "singel"), "unknown judge 'singel'; choose one of ['courtroom', 'per-context', 'rails', 'single', "
                            "'two-step', 'unstructured', 'vote']; did you mean 'single'?"),
    (("--model", "qwen2.5-coder-0.5"), "Hugging Face id: not of the form 'org/name'; did you mean 'qwen2.5-coder-0.5b'?"),
    (("--model", "defualt"), "did you mean 'default'?")])
def test_an_option_typo_is_refused_before_anything_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           option: tuple[str, str], says: str) -> None:
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)  # a machine without a GPU, as CI is
    status, output = cli("run", "examples", "--out", str(tmp_path / "run"), *option)
    assert status == 2 and says in output
    assert not (tmp_path / "run").exists()  # no run folder, no manifest: nothing was started


def test_verify_names_the_one_field_a_tampered_transcript_changed(tmp_path: Path) -> None:
    run = start_run(RunSpec.build("examples", limit=2), tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    store = RunStore(tmp_path / "run")
    path = store.transcript_path(store.rows()[0].case_id)
    lines = path.read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if json.loads(line)["event"] == "verdict")
    event = json.loads(lines[number])
    score = event["verdict"]["score"]
    event["verdict"]["score"] = 0.123
    lines[number] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    status, output = cli("audit", "verify", str(tmp_path / "run"))
    assert status == 1
    assert f"(verdict): verdict.score: recorded 0.123 but replay gives {score!r}" in output
    assert "'rulings'" not in output and "'testimony'" not in output  # not the two events whole


def test_compare_names_each_runs_court_and_model(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    """`compare` showed `judge courtroom` for every court run: which court, and on which model, was not said."""
    for court in ("default", "full"):
        assert cli("run", "examples", "--limit", "4", "--court", court, "--out", str(tmp_path / court))[0] == 0
    assert cli("run", "examples", "--limit", "4", "--judge", "rails", "--out", str(tmp_path / "rails"))[0] == 0
    runs = [str(tmp_path / name) for name in ("default", "full", "rails")]
    status, output = cli("compare", *runs, "--json")
    result = json.loads(output[output.index("{"):])
    assert [(r["judge"], r["court"], r["model"]) for r in result["runs"]] == [
        ("courtroom", "default", "default"), ("courtroom", "full", "default"), ("rails", None, "default")]
    table = CliRunner().invoke(app, ["compare", *runs], env={"COLUMNS": "1000"}).output.split("paired against")[0]
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:5]] for line in table.splitlines()
            if line.count("│") > 5 and line.split("│")[1].strip() in ("default", "full", "rails")}
    assert rows == {"default": ["courtroom", "default", "default"], "full": ["courtroom", "full", "default"],
                    "rails": ["rails", "-", "default"]}
