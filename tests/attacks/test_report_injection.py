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
from tests.attacks import pseudo_run

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


def test_a_hostile_run_renders_as_text_in_a_real_browser(hostile_run: Path, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = next((c for c in ("/usr/bin/chromium", shutil.which("chromium") or "") if c and os.path.exists(c)), None)
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed; .ci/run installs Debian's chromium package")
        pytest.skip("no Chromium on this machine")
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
