"""Attack (#58, medium): a run directory handed over whose files are not its own files. A `transcripts/X.jsonl` that
links to /dev/zero grew the memory to 2.4 GB in 8 s, a FIFO blocked for ever: `audit show` and `label` hung, and in
`courtroom view` each request for such a case held a worker thread, so after 40 the page answered nothing. A linked
`results.jsonl` or `transcripts/` was followed. Only a run's own regular files are read, and lines up to
`MAX_LINE_BYTES`: anything else ends the command with one line naming the file, and the page answers the rest."""

from __future__ import annotations

import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from courtroom.errors import TranscriptError
from courtroom.log.store import RunStore
from courtroom.view.app import HEADER
from tests.helpers.cli import invoke
from tests.helpers.runs import judged, labelled
from tests.helpers.view import serving


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("special")
    return judged(labelled(root / "towns.jsonl"), root / "made")


@pytest.fixture
def run(made: Path, tmp_path: Path) -> Path:
    """A copy of the run under `runs/`, whose first case's transcript links to /dev/zero, and whose second's is a FIFO."""
    out = tmp_path / "runs" / "handed"
    shutil.copytree(made, out)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for row, plant in zip(rows, (lambda p: p.symlink_to("/dev/zero"), os.mkfifo)):
        (out / row["transcript"]).unlink()
        plant(out / row["transcript"])
    return out


def cases(run: Path) -> list[str]:
    return [json.loads(line)["case_id"] for line in (run / "results.jsonl").read_text().splitlines()]


@pytest.mark.timeout(60)
def test_no_command_reads_a_device_or_a_fifo_as_a_transcript(run: Path, tmp_path: Path) -> None:
    zero, fifo, *_ = cases(run)
    for command, ends in ((["audit", "show", str(run), zero], 0), (["audit", "show", str(run), fifo], 0),
                          (["label", str(run), "--write", str(tmp_path / "labels.csv")], 2)):
        code, output = invoke(*command)  # `audit show` shows what the results row holds, with a note
        assert code == ends and "transcripts/" in output, (command, output)
        assert "symbolic link" in output or "not a regular file" in output, (command, output)
    code, output = invoke("audit", "verify", str(run))
    assert code == 1 and "symbolic link" in output and "not a regular file" in output, output


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["results.jsonl", "transcripts", "edits.jsonl", "judgements.jsonl"])
def test_a_linked_results_file_or_transcripts_folder_is_not_followed(made: Path, tmp_path: Path, name: str) -> None:
    out, elsewhere = tmp_path / "handed", tmp_path / "elsewhere"
    shutil.copytree(made, out)
    elsewhere.mkdir()
    if name.endswith("s.jsonl") and name != "results.jsonl":  # a FIFO where the record is read: refused, not waited on
        os.mkfifo(out / name)
    else:
        (out / name).rename(elsewhere / name)
        (out / name).symlink_to(elsewhere / name)
    code, output = invoke("audit", "show", str(out), cases(elsewhere if name == "results.jsonl" else out)[2])
    assert code == (0 if name == "transcripts" else 2) and str(out / name) in output, output  # 0: the row shown
    assert ("not a regular file" if name in ("edits.jsonl", "judgements.jsonl") else "symbolic link") in output, output


def test_a_line_longer_than_courtroom_writes_is_refused_naming_file_and_line(made: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("courtroom.log.files.MAX_LINE_BYTES", 2**20)
    store = RunStore(made)
    case = cases(made)[3]
    path = tmp_path / "transcripts" / store.transcript_path(case).name
    path.parent.mkdir()
    path.write_bytes(store.transcript_path(case).read_bytes().splitlines(keepends=True)[0] + b"x" * (2**20 + 1))
    with pytest.raises(TranscriptError, match=rf"{path}:2: a line of more than 1 MiB"):
        RunStore(tmp_path).events(case)


@pytest.mark.timeout(120)
def test_the_view_answers_every_other_request_while_such_cases_are_opened_fifty_times(run: Path) -> None:
    zero, fifo, good, *_ = cases(run)
    with serving(run.parent) as url:
        base, token = url.split("/?token=")
        headers = {HEADER: token}

        def get(path: str, timeout: float) -> httpx.Response:
            return httpx.get(base + path, headers=headers, timeout=timeout)

        others = ("/api/runs", "/api/run?run=handed", "/api/cases?run=handed", f"/api/case?run=handed&id={good}",
                  "/static/view.js")
        for path in others:  # the run's summary made once (its bootstrap takes a second on a busy machine)
            get(path, timeout=30)
        with ThreadPoolExecutor(50) as pool:
            opened = [pool.submit(get, f"/api/case?run=handed&id={case}", 30) for case in [zero, fifo] * 25]
            time.sleep(0.5)  # the fifty are in the server now
            for path in others:
                started = time.monotonic()
                response = get(path, timeout=10)
                assert response.status_code == 200 and time.monotonic() - started < 1.0, path
            notes = [future.result().json()["note"] for future in opened]
    assert all("transcripts/" in note and ("symbolic link" in note or "not a regular file" in note) for note in notes)
