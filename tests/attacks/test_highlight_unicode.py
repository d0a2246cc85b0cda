"""Attack (#50): the HTML report marks each charge's quote in the answer by a case-insensitive search; it searched
`text.toLowerCase()` and cut the original text at the indices found there, but some characters lower-case to more
code units (`İ`, U+0130, to `i̇`), so in an answer holding one the mark fell beside the quote. The search now folds
case character by character, keeping the text's length. In a real headless Chromium; fails on 0abab8c."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtroom.door import ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.report.html import build_report
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.court_script import CourtScript

ANSWER = "İstanbul's and İzmir's lights were lit in 1874. The lighthouse was AUTOMATED in 1926 by İlhan."
QUOTES = ["automated in 1926", "İZMIR's LIGHTS"]
"""Charged quotes, in another case than the answer's: each must be marked exactly where the answer says it."""


def _run(root: Path) -> Path:
    dataset = root / "cases.jsonl"
    dataset.write_text(json.dumps({"id": "turkish", "question": "When was the lighthouse automated?",
                                   "context": ["The lighthouse was first lit in 1874. It was automated in 1962."],
                                   "answer": ANSWER, "label": "FAIL"}) + "\n")
    script = CourtScript(charges=[{"quote": q, "reason": "the context says otherwise"} for q in QUOTES],
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    options = {"overrides": {"trial.charges": "drafted", "trial.personas.clerk": "clerk"}}
    run = start_run(RunSpec.build(str(dataset), judge="courtroom", court="full", judge_options=options), root / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(script)))
    run.close()
    return root / "run"


@pytest.mark.browser
def test_a_charged_quote_is_marked_where_it_stands_after_a_character_that_lower_cases_longer(tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    report = tmp_path / "report.html"
    report.write_text(build_report(_run(tmp_path)))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.locator(".case-row").first.click()
        marks = page.locator(".case-detail mark.charge").all_text_contents()
        browser.close()
    assert marks == ["İzmir's lights", "AUTOMATED in 1926"], marks
    assert not problems, problems
