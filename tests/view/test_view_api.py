"""`courtroom view`'s API without a browser: the cases filtered, sorted and paged on the server; labelling draws what
`courtroom label` draws, writes its label file (resumed by the terminal, and the terminal's by the page), never over a
file of another run; the refit waits for enough labels and a prior; a run in a notebook shows its table."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from starlette.testclient import TestClient
from typer.testing import CliRunner

import courtroom
from courtroom.calibrate.label_pick import candidates, picked
from courtroom.cli import app as cli
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.runs.runners import LocalRunner
from courtroom.view.app import HEADER, create_app
from courtroom.witness.ruling import FittedRuling
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.labels import rows

TOKEN = "t"


def client(root: Path, **options) -> TestClient:  # noqa: ANN003
    c = TestClient(create_app(root, TOKEN, **options))
    c.headers[HEADER] = TOKEN
    return c


def test_cases_are_filtered_sorted_and_paged_on_the_server(world: Path) -> None:
    c = client(world / "runs")
    audit = Audit(world / "runs" / "mine")
    page = c.get("/api/cases?run=mine&limit=7&offset=35").json()
    assert (page["total"], page["matching"], len(page["lines"])) == (40, 40, 5)
    assert [line["id"] for line in page["lines"]] == [r.case_id for r in audit.rows()][35:]
    ranked = c.get("/api/cases?run=mine&sort=score&desc=true&pmin=0.2&pmax=0.9&verdict=PASS&limit=500").json()["lines"]
    expected = sorted((r for r in audit.rows() if 0.2 <= r.score <= 0.9 and r.label == "PASS"), key=lambda r: -r.score)
    assert [line["id"] for line in ranked] == [r.case_id for r in expected] and expected
    found = c.get("/api/cases?run=mine&q=towncb&source=towns").json()
    assert sorted(line["id"] for line in found["lines"]) == ["TownCB-fail", "TownCB-pass"]
    tried = c.get("/api/cases?run=strict&ended=judge").json()["matching"]
    untried = c.get("/api/cases?run=strict&ended=none").json()["matching"]
    assert tried + untried == 20 and tried == sum(bool(r.trial) for r in Audit(world / "runs" / "strict").rows())
    for bad, says in (("pmin=2", "pmin"), ("sort=bogus", "sort"), ("limit=100000", "limit"), ("colour=red", "colour")):
        response = c.get(f"/api/cases?run=mine&{bad}")
        assert response.status_code == 400 and says in response.json()["error"], response.text


def test_labelling_draws_as_label_and_writes_its_file_resumed_by_the_terminal(world: Path) -> None:
    run, prior = world / "runs" / "mine", world / "prior.yaml"
    c = client(world / "runs", prior=str(prior), n=3)
    state = c.get("/api/label?run=mine").json()
    found = candidates(run, FittedRuling.model_validate(yaml.safe_load(prior.read_text())))
    order = [x.case.id for x in picked(found, 3, 0, spare=6)]
    assert [x["id"] for x in state["order"]] == order and state["weighed_by"] == found.weighed_by
    assert state["refit"].startswith("label at least 2 cases of each kind")
    for case, key in zip(order, "hsf"):
        state = c.post("/api/label?run=mine", content=json.dumps({"case": case, "key": key})).json()
    assert (state["given"], state["hallucinated"], state["faithful"]) == (2, 1, 1)
    labels = world / "runs" / "mine.labels.csv"
    assert [(r["case_id"], r["label"]) for r in rows(labels)] == list(zip(order, ["hallucinated", "", "faithful"]))
    again = client(world / "runs", prior=str(prior), n=3).get("/api/label?run=mine").json()  # a new start resumes
    assert again["labels"] == {order[0]: "hallucinated", order[1]: "", order[2]: "faithful"}

    result = CliRunner().invoke(cli, ["label", str(run), "--n", "3", "--ruling", str(prior), "-o", str(labels)],
                                input="h\n", env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "resuming" in result.output, result.output  # the terminal resumes the page's file
    assert [r["case_id"] for r in rows(labels)] == order[:3] + [picked(found, 3, 0, spare=6)[3].case.id]
    state = c.post("/api/label?run=mine", content=json.dumps({"case": order[1], "key": "f"})).json()
    assert state["given"] == 4 and [r["label"] for r in rows(labels)][:2] == ["hallucinated", "faithful"]

    refused = c.post("/api/label?run=mine", content=json.dumps({"case": "TownAA-pass-x", "key": "h"}))
    assert refused.status_code == 400 and "not one of the cases drawn" in refused.json()["error"]
    assert c.post("/api/label?run=mine", content=json.dumps({"case": order[0], "key": "q"})).status_code == 400


def test_a_label_file_of_another_run_is_never_written_over(world: Path) -> None:
    theirs = world / "runs" / "mine.labels.csv"
    result = CliRunner().invoke(cli, ["label", str(world / "prior-run"), "--n", "3", "--write", str(theirs)])
    assert result.exit_code == 0, result.output
    before = theirs.read_text()
    c = client(world / "runs", prior=str(world / "prior.yaml"), n=3)
    state = c.get("/api/label?run=mine").json()
    assert "mine.labels.csv: 3 case ids not in the run" in state["note"]  # read against the run, refused
    response = c.post("/api/label?run=mine", content=json.dumps({"case": state["order"][0]["id"], "key": "h"}))
    assert response.status_code == 400 and response.json()["error"] == state["note"]
    assert theirs.read_text() == before


def test_the_refit_waits_for_a_prior_it_can_refit(world: Path) -> None:
    c = client(world / "runs", n=3)  # no --prior: no shipped ruling is fitted for the pseudo-model
    state = c.get("/api/label?run=mine").json()
    assert state["prior"] is None and "start courtroom view with --prior RULING" in state["refit"]
    response = c.post("/api/refit?run=mine", content="{}")
    assert response.status_code == 400 and "--prior" in response.json()["error"]
    assert not list((world / "runs").glob("mine.refit-*"))
    other = yaml.safe_load((world / "prior.yaml").read_text())
    other["witnesses"]["polarity"] = 99  # fitted on testimony this court does not give
    (world / "other.yaml").write_text(yaml.safe_dump(other))
    state = client(world / "runs", prior=str(world / "other.yaml"), n=3).get("/api/label?run=mine").json()
    assert state["prior"] is None and "cannot refit this run" in state["refit"] and "polarity" in state["refit"]
    assert [x["id"] for x in state["order"]] == [x.case.id for x in picked(candidates(world / "runs" / "mine"), 3, 0, spare=6)]


def test_a_run_in_a_notebook_shows_its_table_escaped_and_how_to_view_it(tmp_path: Path) -> None:
    rows_ = [{"id": f"c{i}", "source": "<script>alert(1)</script>" if i else "b", "question": "When?", "context": ["It was in 1962."],
              "answer": f"It was in {1962 + i}.", "label": "PASS" if i == 0 else "FAIL"} for i in range(3)]
    result = courtroom.run(rows_, out=tmp_path / "nb", model=NO_RULING_MODEL,
                           runner=LocalRunner(ScriptedBackend(PseudoModel())))
    shown = result._repr_html_()
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown  # a row by source, as text
    assert f"courtroom view {tmp_path / 'nb'}" in shown and "balanced accuracy [95% CI]" in shown
    assert str(result.metrics.balanced_accuracy) in shown and "3 cases" in shown
