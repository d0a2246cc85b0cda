"""`courtroom view`'s API without a browser: the cases filtered, sorted and paged on the server; labelling draws what
`courtroom label` draws and records each label in the run's record (resumed by the terminal, and the terminal's by the
page); the label file an earlier page kept beside the run is imported once, one of another run refused and never
written over; the refit waits for enough labels and a prior; the same labels given in the terminal and in the page
refit alike and flip the same verdicts; a run in a notebook shows its table."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import yaml
from starlette.testclient import TestClient
from typer.testing import CliRunner

import courtroom
from courtroom.calibrate.label_session import LabelSession
from courtroom.cli import app as cli
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.runs.runners import LocalRunner
from courtroom.view.app import HEADER, create_app
from courtroom.witness.ruling import FittedRuling
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.labels import fill

TOKEN = "t"


def client(root: Path, **options) -> TestClient:  # noqa: ANN003
    c = TestClient(create_app(root, TOKEN, **options))
    c.headers[HEADER] = TOKEN
    return c


def test_cases_are_filtered_sorted_and_paged_on_the_server(world: Path) -> None:
    """Also by a search of the question and answer, as the report searches."""
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
    figure = audit.store.case("TownCB-fail").answer.split()[-1].rstrip(".")  # a figure only its answer gives
    assert [line["id"] for line in c.get(f"/api/cases?run=mine&q={figure}").json()["lines"]] == ["TownCB-fail"]
    tried = c.get("/api/cases?run=strict&ended=judge").json()["matching"]
    untried = c.get("/api/cases?run=strict&ended=none").json()["matching"]
    assert tried + untried == 20 and tried == sum(bool(r.trial) for r in Audit(world / "runs" / "strict").rows())
    for bad, says in (("pmin=2", "pmin"), ("sort=bogus", "sort"), ("limit=100000", "limit"), ("colour=red", "colour")):
        response = c.get(f"/api/cases?run=mine&{bad}")
        assert response.status_code == 400 and says in response.json()["error"], response.text


def order(run: Path, prior: Path | None, n: int) -> list[str]:
    return LabelSession(Audit(run), str(prior) if prior else None, n, 0).order()


def label(c: TestClient, case: str, key: str, note: str = "") -> dict:
    return c.post("/api/label?run=mine", content=json.dumps({"case": case, "key": key, "note": note})).json()


def test_labelling_draws_as_label_and_records_in_the_run_resumed_by_the_terminal(world: Path) -> None:
    run, prior = world / "runs" / "mine", world / "prior.yaml"
    c = client(world / "runs", prior=str(prior), n=3, author="ann")
    state = c.get("/api/label?run=mine").json()
    drawn = order(run, prior, 3)
    assert [x["id"] for x in state["order"]] == drawn and state["weighed_by"].startswith("the ruling default/")
    assert state["refit"].startswith("label at least 2 cases of each kind") and state["record"].endswith("judgements.jsonl")
    for case, key in zip(drawn, "hsf"):
        state = label(c, case, key, "checked" if key == "h" else "")
    assert (state["given"], state["hallucinated"], state["faithful"]) == (2, 1, 1)
    listed = c.get("/api/cases?run=mine&labelled=yes").json()["lines"]  # the case list reads the same record
    assert {(x["id"], x["labelled"], x["corrected"]) for x in listed} == {(drawn[0], "FAIL", "FAIL"), (drawn[2], "PASS", "PASS")}
    assert [(j.case_id, j.label, j.author, j.note, j.source) for j in Audit(run).judgements()] == [
        (drawn[0], "hallucinated", "ann", "checked", "view"), (drawn[1], "skip", "ann", "", "view"),
        (drawn[2], "faithful", "ann", "", "view")]
    again = client(world / "runs", prior=str(prior), n=3).get("/api/label?run=mine").json()  # a new start resumes
    assert again["labels"] == {drawn[0]: "hallucinated", drawn[1]: "skip", drawn[2]: "faithful"}
    assert not list((world / "runs").glob("*.csv"))  # nothing beside the run: the record is in it

    result = CliRunner().invoke(cli, ["label", str(run), "--n", "3", "--ruling", str(prior)], input="h\n",
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "resuming" in result.output, result.output  # the terminal resumes the page's
    assert Audit(run).human_labels()[drawn[3]] == "FAIL"  # the skipped case's spare
    assert label(c, drawn[1], "f")["given"] == 4  # the page sees the terminal's label, and relabels the skipped
    assert label(c, drawn[1], "u")["given"] == 3 and drawn[1] not in c.get("/api/label?run=mine").json()["labels"]

    for body, says in (({"case": "TownAA-pass-x", "key": "h"}, "not one of the cases drawn"),
                       ({"case": drawn[0], "key": "q"}, "h (hallucinated), f (faithful) or s (skip)"),
                       ({"case": drawn[1], "key": "u"}, "no label to take back")):
        refused = c.post("/api/label?run=mine", content=json.dumps(body))
        assert refused.status_code == 400 and says in refused.json()["error"], refused.text


def test_an_old_label_file_beside_the_run_is_imported_once_and_one_of_another_run_never(world: Path) -> None:
    run, prior = world / "runs" / "mine", world / "prior.yaml"
    shutil.copytree(run, world / "runs" / "copy")  # a run of the same cases, no label in its record yet
    old = world / "runs" / "mine.labels.csv"  # where the page of #52 kept the labels
    CliRunner().invoke(cli, ["label", str(run), "--n", "4", "--ruling", str(prior), "--write", str(old)])
    fill(old, run, keep=3)
    state = client(world / "runs", prior=str(prior), n=4).get("/api/label?run=mine").json()
    assert state["given"] == 3 and state["note"] is None and {j.source for j in Audit(run).judgements()} == {"csv"}
    client(world / "runs", prior=str(prior), n=4).get("/api/label?run=mine")
    assert len(Audit(run).judgements()) == 3  # once

    theirs = world / "runs" / "copy.labels.csv"  # a file of another run beside a run: refused, said, kept as it was
    CliRunner().invoke(cli, ["label", str(world / "prior-run"), "--n", "3", "--write", str(theirs)])
    fill(theirs, world / "prior-run")
    before = theirs.read_text()
    state = client(world / "runs", prior=str(prior), n=3).get("/api/label?run=copy").json()
    assert "copy.labels.csv" in state["note"] and "not in the run" in state["note"] and state["given"] == 0
    assert theirs.read_text() == before


def test_the_refit_waits_for_a_prior_it_can_refit(world: Path) -> None:
    c = client(world / "runs", n=3)  # no --prior: no shipped ruling is fitted for the pseudo-model
    state = c.get("/api/label?run=mine").json()
    assert state["prior"] is None and "courtroom view --prior RULING" in state["refit"]
    response = c.post("/api/refit?run=mine", content="{}")
    assert response.status_code == 400 and "--prior" in response.json()["error"]
    assert not list((world / "runs").glob("mine.refit-*"))
    other = yaml.safe_load((world / "prior.yaml").read_text())
    other["witnesses"]["polarity"] = 99  # fitted on testimony this court does not give
    (world / "other.yaml").write_text(yaml.safe_dump(other))
    state = client(world / "runs", prior=str(world / "other.yaml"), n=3).get("/api/label?run=mine").json()
    assert state["prior"] is None and "cannot refit this run" in state["refit"] and "polarity" in state["refit"]
    assert [x["id"] for x in state["order"]] == order(world / "runs" / "mine", None, 3)


def test_the_same_labels_refit_alike_in_the_terminal_and_the_page(world: Path, tmp_path: Path) -> None:
    """30 labels given in the page and the same 30 in the terminal: the same refit, the same verdicts flipped, and
    the page's flips (from the recorded testimony, at once) are those `rejudge` writes (in the background)."""
    run, prior = world / "runs" / "mine", world / "prior.yaml"
    terminal = tmp_path / "terminal"
    shutil.copytree(run, terminal)
    gold = {r.case_id: r.gold for r in Audit(run).rows()}
    drawn = order(run, prior, 30)[:30]
    c = client(world / "runs", prior=str(prior), n=30)
    for i, case in enumerate(drawn):
        estimate = c.get("/api/estimate?run=mine").json()
        assert ("why" in estimate) == (i < 4 or "refit" not in estimate), estimate  # an estimate after every label
        label(c, case, "h" if gold[case] == "FAIL" else "f")
    estimate = c.get("/api/estimate?run=mine").json()
    assert estimate["labelled"] == 30 and estimate["refit"] and isinstance(estimate["stable"], bool)
    job = c.post("/api/refit?run=mine", content="{}").json()
    assert job["state"] == "done" and job["labelled"]["labelled"] == 30 and len(job["unlabelled"]["flipped"]) == estimate["flipped"]
    page_flips = sorted(f["id"] for f in job["unlabelled"]["flipped"])

    keys = "".join(("h" if gold[case] == "FAIL" else "f") + "\n" for case in drawn)
    result = CliRunner().invoke(cli, ["label", str(terminal), "--n", "30", "--ruling", str(prior)], input=keys,
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0 and f"it would flip {len(page_flips)} verdicts" in " ".join(result.output.split())
    for args in (["calibrate", str(terminal), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(prior), "-o",
                  str(tmp_path / "court.yaml")], ["rejudge", str(terminal), "--court", str(tmp_path / "court.yaml"),
                                                  "--out", str(tmp_path / "rejudged")]):
        assert (result := CliRunner().invoke(cli, args)).exit_code == 0, result.output
    refits = [FittedRuling.model_validate(yaml.safe_load(p.read_text())) for p in
              (tmp_path / "r.yaml", world / "runs" / "mine.refit-1" / "ruling.yaml")]
    assert refits[0].families == refits[1].families  # the same refit
    before = {r.case_id: r.label for r in Audit(run).rows()}
    flips = sorted(r.case_id for r in Audit(tmp_path / "rejudged").rows() if r.case_id not in drawn
                   and r.label != before[r.case_id])
    assert flips == page_flips and flips, "the labels must flip some verdicts for the test to show them"
    while (job := c.get("/api/refit?run=mine").json())["rejudged"] == "writing":
        time.sleep(0.1)
    assert job["rejudged"] == "written"
    assert sorted(r.case_id for r in Audit(world / "runs" / "mine.refit-1" / "run").rows() if r.case_id not in drawn
                  and r.label != before[r.case_id]) == page_flips


def test_a_run_in_a_notebook_shows_its_table_escaped_and_how_to_view_it(tmp_path: Path) -> None:
    rows_ = [{"id": f"c{i}", "source": "<script>alert(1)</script>" if i else "b", "question": "When?", "context": ["It was in 1962."],
              "answer": f"It was in {1962 + i}.", "label": "PASS" if i == 0 else "FAIL"} for i in range(3)]
    result = courtroom.run(rows_, out=tmp_path / "nb", model=NO_RULING_MODEL,
                           runner=LocalRunner(ScriptedBackend(PseudoModel())))
    shown = result._repr_html_()
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown  # a row by source, as text
    assert f"courtroom view {tmp_path / 'nb'}" in shown and "balanced accuracy [95% CI]" in shown
    assert str(result.metrics.balanced_accuracy) in shown and "3 cases" in shown


def test_the_runs_are_looked_for_again_only_when_a_folder_changes(world: Path, monkeypatch) -> None:  # noqa: ANN001
    from courtroom.view import runs as view_runs

    walks = []
    real = view_runs.os.walk
    monkeypatch.setattr(view_runs.os, "walk", lambda *a, **k: walks.append(1) or real(*a, **k))
    find = view_runs.Finder(world / "runs")
    assert sorted(find()) == ["lenient", "mine", "strict"] and len(walks) == 1
    assert sorted(find()) == ["lenient", "mine", "strict"] and len(walks) == 1  # nothing changed: not walked
    time.sleep(0.01)
    shutil.copytree(world / "runs" / "mine", world / "runs" / "later" / "mine")  # a run appears, deeper
    assert sorted(find()) == ["later/mine", "lenient", "mine", "strict"] and len(walks) == 2
