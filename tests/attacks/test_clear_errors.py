"""Attack 9: tracebacks where a clear error belongs. Invalid UTF-8 in a dataset (also with --skip-invalid),
`--out` naming a file, a corrupt line of `results.jsonl` (resume, `audit`, `audit list`, `audit report`) and a
corrupt `manifest.json` now end with exit code 2 and a message naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import DatasetError, RunError
from courtroom.evaluate.datasets import LoadReport, load_file
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

runner = CliRunner()
ROWS = [{"id": f"c{n}", "question": "Q?", "context": ["The sky is blue."], "answer": f"It is {colour}.",
         "label": label} for n, (colour, label) in enumerate([("blue", "PASS"), ("green", "FAIL"), ("blue", "PASS")])]


def invoke(*args: str):  # noqa: ANN201
    result = runner.invoke(app, list(args), env={"COLUMNS": "1000"})
    assert "Traceback" not in result.output
    return result, " ".join(result.output.split())


def lines(rows: list[dict]) -> list[bytes]:
    return [json.dumps(r).encode() + b"\n" for r in rows]


@pytest.fixture
def bad_utf8(tmp_path: Path) -> Path:
    rows = lines(ROWS)
    rows[1] = rows[1].replace(b"green", b"gr\xffen")
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"".join(rows))
    return path


def test_invalid_utf8_is_a_row_error(bad_utf8: Path) -> None:
    with pytest.raises(DatasetError, match=rf"{bad_utf8}:2: not valid UTF-8 \(byte 0xff at column \d+\)"):
        load_file(bad_utf8)
    report = LoadReport(str(bad_utf8))
    assert [c.id for c in load_file(bad_utf8, skip_invalid=True, report=report)] == ["c0", "c2"]
    assert len(report.skipped) == 1 and f"{bad_utf8}:2: not valid UTF-8" in report.skipped[0]


def test_invalid_utf8_through_the_cli(bad_utf8: Path, tmp_path: Path) -> None:
    result, output = invoke("run", str(bad_utf8), "--model", "no-such-model", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and f"{bad_utf8}:2: not valid UTF-8" in output
    # skipped and counted: the run gets past the dataset (to the model, which does not exist here)
    result, output = invoke("run", str(bad_utf8), "--skip-invalid", "--model", "no-such-model",
                            "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and "unknown model 'no-such-model'" in output


def test_invalid_utf8_in_csv_and_json_arrays(tmp_path: Path) -> None:
    csv = tmp_path / "cases.csv"
    csv.write_bytes(b"id,question,context,answer\na,Q?,The sky is blue.,It is blue.\nb,Q?,Sky \xfe,It is.\n")
    with pytest.raises(DatasetError, match=rf"{csv}:3: not valid UTF-8 \(byte 0xfe in column 'context'\)"):
        load_file(csv)
    report = LoadReport(str(csv))
    assert len(load_file(csv, skip_invalid=True, report=report)) == 1 and len(report.skipped) == 1
    array = tmp_path / "cases.json"
    array.write_bytes(b"[\n" + json.dumps(ROWS[0]).encode() + b",\n" + json.dumps(ROWS[1]).encode()
                      .replace(b"green", b"\xc3(") + b"\n]\n")
    with pytest.raises(DatasetError, match=rf"{array}:3: not valid UTF-8"):
        load_file(array)


def test_out_naming_a_file_is_refused(tmp_path: Path) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("mine")
    for out in (existing, existing / "run"):
        result, output = invoke("run", "examples", "--judge", "rails", "--out", str(out))
        assert result.exit_code == 2 and f"{existing} is a file, not a run directory" in output, output
    assert existing.read_text() == "mine"


@pytest.fixture
def run_dir(tmp_path: Path) -> tuple[Path, Path]:
    dataset = tmp_path / "cases.jsonl"
    dataset.write_bytes(b"".join(lines(ROWS)))
    out = tmp_path / "run"
    run = start_run(RunSpec.build(str(dataset), judge="rails"), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return dataset, out


COMMANDS = [("audit",), ("audit", "list"), ("audit", "report")]


def audit(command: tuple[str, ...], out: Path):  # noqa: ANN201
    extra = ["-o", str(out.parent / "report.html")] if command[-1] == "report" else []
    return invoke(*command, str(out), *extra)


@pytest.mark.parametrize("corruption, problem", [
    (b"{not json\n", "Invalid JSON"),
    (b'{"case_id": "c1"}\n', "Field required"),
    (b'{"case_id": "c1", "\xff": 1}\n', "not valid UTF-8"),
])
def test_a_corrupt_result_line_is_named(run_dir: tuple[Path, Path], corruption: bytes, problem: str) -> None:
    dataset, out = run_dir
    results = out / "results.jsonl"
    kept = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(kept[0] + corruption + b"".join(kept[2:]))
    with pytest.raises(RunError, match=rf"{results}:2: not a result row"):
        RunStore(out).rows()
    for command in COMMANDS:
        result, output = audit(command, out)
        assert result.exit_code == 2 and f"{results}:2: not a result row" in output and problem in output, output
    result, output = invoke("run", str(dataset), "--judge", "rails", "--out", str(out))  # resume
    assert result.exit_code == 2 and f"{results}:2: not a result row" in output, output


def test_a_torn_last_line_is_still_skipped(run_dir: tuple[Path, Path]) -> None:
    _, out = run_dir
    with (out / "results.jsonl").open("ab") as handle:
        handle.write(b'{"case_id": "c9", "lab')
    assert len(RunStore(out).rows()) == 3
    result, output = invoke("audit", str(out))
    assert result.exit_code == 0 and "3 cases" in output


@pytest.mark.parametrize("manifest", [b"{not json", b'{"name": "x"}', b"\xff\xfe"])
def test_a_corrupt_manifest_is_named(run_dir: tuple[Path, Path], manifest: bytes) -> None:
    dataset, out = run_dir
    (out / "manifest.json").write_bytes(manifest)
    with pytest.raises(RunError, match=rf"{out / 'manifest.json'}: not a valid run manifest"):
        RunStore(out).manifest()
    for command in [*COMMANDS, ("audit", "verify")]:
        result, output = audit(command, out)
        assert result.exit_code == 2 and f"{out / 'manifest.json'}: not a valid run manifest" in output, output
    result, output = invoke("run", str(dataset), "--judge", "rails", "--out", str(out))  # resume
    assert result.exit_code == 2 and f"{out / 'manifest.json'}: not a valid run manifest" in output, output
