"""Attack (#58, low): the screenshots in docs/view.md showed the absolute paths of the machine that made them, since
`courtroom view` showed every path whole (the runs folder, the label file, the refit's files and its commands). The
page shows a path under the folder it was started in as one types it there (`runs/mine/judgements.jsonl`); the screenshots
are made from a folder named as a user's (docs/view_screenshot.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from courtroom.log.audit import Audit
from courtroom.view.app import HEADER, create_app
from tests.helpers.view import made, world  # noqa: F401 (fixtures)

TOKEN = "the-token-of-this-start"


def test_the_page_shows_paths_as_typed_where_it_was_started(world: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.chdir(world)
    c = TestClient(create_app("runs", TOKEN, prior="prior.yaml", n=6), base_url="http://127.0.0.1")
    c.headers[HEADER] = TOKEN
    shown = [c.get("/api/runs").json()]
    assert shown[0]["root"] == "runs"
    gold = {r.case_id: r.gold for r in Audit(world / "runs" / "mine").rows()}
    for case in c.get("/api/label?run=mine").json()["order"][:6]:
        shown.append(c.post("/api/label?run=mine", content=json.dumps({"case": case["id"], "key": "h" if gold[case["id"]]
                                                                                       == "FAIL" else "f"})).json())
    assert shown[-1]["record"] == "runs/mine/judgements.jsonl" and shown[-1]["prior"] == "prior.yaml", shown[-1]
    assert c.post("/api/refit?run=mine", content="{}").json()["state"] == "done"
    while (job := c.get("/api/refit?run=mine").json())["rejudged"] == "writing":
        time.sleep(0.2)
    assert job["rejudged"] == "written" and job["court"] == "runs/mine.refit-1/court.yaml", job
    assert job["commands"][1] == "courtroom rejudge runs/mine --court runs/mine.refit-1/court.yaml --out runs/mine.refit-1/run"
    assert str(world) not in json.dumps([*shown, job])
