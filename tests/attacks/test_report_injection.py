"""Attack 3: stored XSS in `courtroom audit report`. Cases whose fields hold template syntax, markup, event
handlers or a comment opener must show as text, never change the page, and the page's policy forbids any
script or style but its own."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from courtroom.log.audit import Audit
from courtroom.report.html import build_report
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.runs import pseudo_run

PAYLOADS = ["{{data}}", "<input><img src=data:, onerror=document.title='pwned'>", "<!--<script>",
            "</script><script>document.title='pwned'</script>", "{{title}} & {% raw %}"]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    rows = [{"id": f"x{i}", "source": payload, "question": payload, "context": [f"The sky is blue. {payload}"],
             "answer": f"It is green. {payload}", "label": "FAIL" if i % 2 else "PASS"} for i, payload in enumerate(PAYLOADS)]
    out = pseudo_run(rows, root / "hostile.jsonl", root / "{{data}}<b>run")
    Audit(out).edit("x1", "supported", "<!--<script>alert(1)</script>", "<img src=x onerror=alert(2)>")
    return out


def test_no_field_reaches_the_page_as_markup(hostile_run: Path) -> None:
    page = build_report(hostile_run)
    head, _, body = page.partition('<script type="application/json" id="data">')
    body = '<script type="application/json" id="data">' + body
    blocks = re.findall(r'<script type="application/json" id="([a-z0-9]+)">(.*?)</script>', body, flags=re.S)
    assert [key for key, _ in blocks] == ["data"] + [f"a{i}" for i in range(len(PAYLOADS))]  # the list, one record a case
    assert "<input><img" not in head and "<img src=data:" not in head and "<!--<script>" not in head
    assert '"id":"x0"' not in head  # the case data went only where it belongs
    assert "&lt;b&gt;run" in head and "<b>run" not in head  # the run's name, as text
    for _, data in blocks:
        assert not re.search(r"[<>&]", data)  # no embedded JSON can close its script or open a comment
        assert json.loads(data.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&"))
    outside = re.sub(r'<script type="application/json" id="[a-z0-9]+">.*?</script>', "", body, flags=re.S)
    assert outside.count("<script") == 1 and "onerror" not in outside  # the page's own script, and nothing else


def test_the_policy_allows_only_the_reports_own_script_and_style(hostile_run: Path) -> None:
    page = build_report(hostile_run)
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "unsafe-inline" not in policy and "'sha256-" in policy and "default-src 'none'" in policy


@pytest.mark.browser
def test_a_hostile_run_renders_as_text_in_a_real_browser(hostile_run: Path, tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    report = tmp_path / "report.html"
    report.write_text(build_report(hostile_run))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page()
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(report.as_uri())
        assert "5 in all" in page.text_content("#count")  # the page's own script ran
        for row in page.locator(".case-row").all():
            row.click()
        text = page.inner_text("body")
        assert "{{data}}" in text and "<img src=data:, onerror=" in text and "<!--<script>" in text
        assert page.title() != "pwned" and page.locator("#cases img, #cases input").count() == 0
        browser.close()
    assert not violations, violations


HOSTILE_NOTE = "</script><script>document.title='pwned'</script>"
HOSTILE_WITNESS = "<img src=x onerror=document.title='pwned'>[bold red]rich[/]"


@pytest.fixture
def hostile_testimony(hostile_run: Path, tmp_path: Path) -> Path:
    """The hostile run with a verdict whose pointer notes, witness name, span and ruling are markup."""
    run = tmp_path / "testimony"
    shutil.copytree(hostile_run, run)
    path = Audit(run).store.transcript_path("x1")
    lines = path.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if json.loads(line)["event"] == "verdict")
    event = json.loads(lines[i])
    verdict = event["verdict"]
    answer = json.loads(lines[0])["case"]["answer"]
    verdict["testimony"] = [{"witness": HOSTILE_WITNESS, "version": 1, "values": {"<b>v</b>": 1.0},
                             "points": [{"start": 0, "end": 5, "note": HOSTILE_NOTE, "context_sentence": 1}]},
                            {"witness": "hidden", "version": 1, "heard": False, "why_not": HOSTILE_NOTE}]
    verdict["spans"] = [{"start": 0, "end": len(answer), "text": answer, "score": 0.9, "named_by": [HOSTILE_WITNESS],
                         "context_sentence": 1}]
    verdict["weighing"] = {"ruling": HOSTILE_NOTE, "family": "<i>qa</i>", "log_odds": 1.0, "p_hallucinated": 0.7,
                           "threshold": 0.5, "contributions": {f"{HOSTILE_WITNESS}.<b>v</b>": 0.4}}
    lines[i] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    return run


def test_hostile_testimony_and_spans_stay_text(hostile_testimony: Path, tmp_path: Path) -> None:
    page = build_report(hostile_testimony)
    outside = re.sub(r'<script type="application/json" id="[a-z0-9]+">.*?</script>', "", page, flags=re.S)
    assert outside.count("<script") == 1 and "<img src=x" not in outside and "<i>qa" not in outside
    for data in re.findall(r'<script type="application/json" id="[a-z0-9]+">(.*?)</script>', page, flags=re.S):
        assert not re.search(r"[<>&]", data)
    from rich.console import Console

    from courtroom.report.record import court_record

    console = Console(record=True, width=240)
    console.print(court_record(Audit(hostile_testimony).record("x1")))
    text = console.export_text()
    assert "[bold red]rich[/]" in text and HOSTILE_NOTE in text  # rich markup in a witness's name, shown as written
    chromium = next((c for c in ("/usr/bin/chromium", shutil.which("chromium") or "") if c and os.path.exists(c)), None)
    playwright = pytest.importorskip("playwright.sync_api")
    if chromium is None:
        pytest.skip("no Chromium on this machine")
    report = tmp_path / "report.html"
    report.write_text(page)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        view = browser.new_page()
        view.goto(report.as_uri())
        view.fill("#search", "x1")
        view.locator(".case-row").first.click()
        shown = view.inner_text(".case-detail")
        assert HOSTILE_NOTE in shown and "<img src=x onerror=" in shown
        assert view.title() != "pwned" and view.locator(".case-detail img, .case-detail script").count() == 0
        browser.close()
