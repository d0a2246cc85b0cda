"""Attack (#58, low): a label `courtroom view` could not write (the label path a folder or a FIFO, a full disk)
answered a bare 500, and the page showed a JSON parse error instead of why. Labels are now judgements of the run's
record (`judgements.jsonl`): one that cannot be recorded (the record a folder or a FIFO, a full disk) is answered in
JSON naming the record and the cause, the record stays as it was, and the next label is recorded once the cause is
gone."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from courtroom.log.audit import Audit
from courtroom.view.app import HEADER, create_app
from tests.helpers.view import made, world  # noqa: F401 (fixtures)

TOKEN = "the-token-of-this-start"


def full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("cause", ["folder", "fifo", "full disk"])
def test_a_label_that_cannot_be_recorded_answers_why_in_json(world: Path, cause: str,  # noqa: F811
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    record = world / "runs" / "mine" / "judgements.jsonl"
    c = TestClient(create_app(world / "runs", TOKEN, prior=str(world / "prior.yaml"), n=4), base_url="http://127.0.0.1",
                   raise_server_exceptions=False)
    c.headers[HEADER] = TOKEN
    case = c.get("/api/label?run=mine").json()["order"][0]["id"]
    if cause == "folder":
        record.mkdir()
    elif cause == "fifo":
        os.mkfifo(record)
    else:
        monkeypatch.setattr("courtroom.log.judgements.append_line", full_disk)
    response = c.post("/api/label?run=mine", content=json.dumps({"case": case, "key": "h"}))
    assert response.status_code == 400 and response.headers["content-type"] == "application/json", response.text
    error = response.json()["error"]
    assert str(record) in error, error
    assert {"folder": "not a regular file", "fifo": "not a regular file", "full disk": "No space left"}[cause] in error
    if cause != "full disk":
        assert not record.is_file()
        (record.rmdir if cause == "folder" else record.unlink)()
    else:
        assert not record.exists()
        monkeypatch.undo()
    assert c.post("/api/label?run=mine", content=json.dumps({"case": case, "key": "h"})).json()["given"] == 1
    assert [j.label for j in Audit(world / "runs" / "mine").judgements()] == ["hallucinated"]
