"""`courtroom view` is safe by default: it answers only requests that carry the token made at its start (a change only
with the token in its header, never by a GET), serves no path outside the runs folder, listens on the loopback unless
told, and shows markup in a case id, a persona's name and an argument as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from courtroom.cli import app as cli
from courtroom.door import ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from courtroom.view.app import HEADER, create_app
from tests.helpers.court_script import CourtScript
from tests.helpers.view import browser, made, open_page, serving, world  # noqa: F401 (fixtures)

TOKEN = "the-token-of-this-start"
ID = "<img src=x onerror=document.title='pwned'>"
PERSONA = "<script>document.title='pwned'</script>Judge"
ARGUMENT = "</pre><img src=x onerror=document.title='pwned'> {{data}} &amp;"
NOTE = "<script>document.title='pwned'</script><b>checked</b> &lt;"


def client(root: Path, **options) -> TestClient:  # noqa: ANN003
    return TestClient(create_app(root, TOKEN, **options), base_url="http://127.0.0.1")


def test_no_path_outside_the_runs_folder_is_served(world: Path) -> None:  # noqa: F811
    (world / "secret.txt").write_text("TOP SECRET")
    (world / "runs" / "linked").symlink_to(world / "prior-run")  # a run outside the folder, linked into it
    c = client(world / "runs")
    c.headers[HEADER] = TOKEN
    assert [r["key"] for r in c.get("/api/runs").json()["runs"]] == ["lenient", "mine", "strict"]
    outside = str(world / "prior-run")
    for path in ("/api/run?run=../prior-run", f"/api/run?run={outside}", "/api/run?run=linked",
                 "/api/cases?run=..%2Fprior-run", "/api/label?run=linked", "/api/case?run=mine&id=../../secret.txt",
                 "/api/diff?a=mine&b=../prior-run", "/static/../secret.txt", "/static/..%2F..%2Fsecret.txt",
                 "/static/app.py", "/static/%2e%2e%2fapp.py", "/../secret.txt"):
        response = c.get(path)
        assert response.status_code == 404 and "TOP SECRET" not in response.text, (path, response.text)
        assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert c.get("/static/view.js").status_code == 200 and c.get("/api/run?run=mine").status_code == 200


def test_every_change_needs_the_token_in_its_header_and_a_get_changes_nothing(world: Path) -> None:  # noqa: F811
    labels = world / "runs" / "mine" / "judgements.jsonl"
    c = client(world / "runs", prior=str(world / "prior.yaml"), n=4)
    assert c.get("/api/runs").status_code == 403 and c.get("/").status_code == 403  # no token, nothing to read
    assert c.get("/?token=wrong").status_code == 403
    page = c.get(f"/?token={TOKEN}", follow_redirects=False)  # the URL's token opens the page, and sets no cookie
    assert page.status_code == 200 and TOKEN in page.text and "set-cookie" not in page.headers and not c.cookies
    assert c.get("/api/runs").status_code == 403 and c.get("/static/view.js").status_code == 403
    assert c.get(f"/static/view.js?token={TOKEN}").status_code == 200
    assert c.get(f"/static/{TOKEN}/page.js").status_code == 200  # a module's path carries the token to its imports
    assert c.get("/static/wrong/page.js").status_code == 403 and c.get(f"/static/{TOKEN}x/view.js").status_code == 403
    c.headers[HEADER] = TOKEN  # as the page's script sends it
    case = c.get("/api/label?run=mine").json()["order"][0]["id"]
    del c.headers[HEADER]
    body = json.dumps({"case": case, "key": "h"})
    for headers, query in (({}, ""), ({HEADER: "wrong"}, ""), ({}, f"&token={TOKEN}"), ({HEADER: TOKEN + "x"}, "")):
        for path in ("/api/label", "/api/refit"):  # no token, another token, the token in the query: refused
            response = c.post(f"{path}?run=mine{query}", content=body, headers=headers)
            assert response.status_code == 403 and "token" in response.json()["error"], (path, headers, query)
    assert c.get(f"/api/label?run=mine&case={case}&key=h&token={TOKEN}").status_code == 200 and not labels.exists()
    assert c.get(f"/api/refit?run=mine&token={TOKEN}").json() == {"state": "idle"}
    assert c.post("/api/label?run=mine", content=body, headers={HEADER: TOKEN}).json()["given"] == 1
    assert labels.is_file() and not list((world / "runs").glob("mine.refit-*"))


def test_it_listens_on_the_loopback_with_a_new_token_at_each_start(world: Path, monkeypatch) -> None:  # noqa: ANN001, F811
    started: list[tuple] = []
    monkeypatch.setattr("courtroom.view.app.serve", lambda sock, app: started.append(sock.getsockname()) or sock.close())
    runner = CliRunner()
    outputs = [runner.invoke(cli, ["view", str(world / "runs"), "--port", "0"], env={"COLUMNS": "300"}).output
               for _ in range(2)]
    tokens = [out.split("?token=")[1].split()[0] for out in outputs]
    assert [host for host, _ in started] == ["127.0.0.1", "127.0.0.1"] and tokens[0] != tokens[1], outputs
    assert all(len(t) >= 32 for t in tokens)
    told = runner.invoke(cli, ["view", str(world / "runs"), "--port", "0", "--host", "0.0.0.0"], env={"COLUMNS": "300"})
    assert started[-1][0] == "0.0.0.0" and "not only on this machine" in " ".join(told.output.split())
    assert "no such folder" in runner.invoke(cli, ["view", str(world / "nothing")]).output


@pytest.fixture
def hostile(world: Path) -> Path:  # noqa: F811
    """A run of the full court whose case id is markup, one of its moves forged: a persona and an argument of markup."""
    rows = [{"id": ID, "question": "When was it automated?", "context": ["It was automated in 1962."],
             "answer": "It was automated in 1926.", "label": "FAIL"}]
    (world / "hostile.jsonl").write_text(json.dumps(rows[0]) + "\n")
    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): -0.5 for d in range(10)},
                         word_grounding={str(d): -1.5 for d in range(10)}, p_hallucinated=0.7,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    out = world / "runs" / "<b>run"
    start_run(RunSpec.build(str(world / "hostile.jsonl"), judge="courtroom", court="full",
                            judge_options={"overrides": {"trial.exchange_rounds": 0}}), out).execute(
        runner=LocalRunner(ScriptedBackend(script)))
    path = Audit(out).store.transcript_path(ID)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    move = next(e for e in events if e["event"] == "move")
    move["persona"], move["payload"] = PERSONA, {**move["payload"], "argument": ARGUMENT}
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return out


@pytest.mark.browser
def test_markup_in_a_case_id_a_persona_an_argument_and_a_note_stays_text(hostile: Path, browser) -> None:  # noqa: ANN001, F811
    Audit(hostile).edit(ID, "hallucinated", NOTE, PERSONA)  # a person's note and name, someone's text
    with serving(hostile.parent) as url:
        page, problems = open_page(browser, url)
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        page.click("table.runs >> text=<b>run")
        page.wait_for_selector("#case-body tr.case-row")
        assert page.locator("#case-body td.id").first.text_content() == ID
        page.locator("#case-body tr.case-row").first.click()
        page.wait_for_selector(".case-detail .move")
        moves = page.locator(".case-detail .move").all_inner_texts()
        assert any(PERSONA in m and ARGUMENT in m for m in moves), moves
        assert page.text_content(".case-detail .edit") == f"Judged by {PERSONA}: case \u2192 hallucinated ({NOTE})"
        assert page.text_content("main h1") == "<b>run" and page.title() == "courtroom view"
        assert page.locator("main img, main script").count() == 0  # the page's own elements only
        assert not problems and not violations, (problems, violations)
