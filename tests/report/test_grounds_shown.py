"""What a trial's moves rest on, shown (#59): in the HTML report each side's quotes stand side by side, highlighted in
the answer and in the cited sentence, with the court's check; a quote whose recorded place does not hold it (a forged
or broken transcript) is shown as not found, never as verified."""

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

CASES = [{"id": "automated", "question": "When was the lighthouse automated?",
          "context": ["The lighthouse was first lit in 1874. It was automated in 1962 after a storm."],
          "answer": "It was automated in 1926.", "label": "FAIL"},
         {"id": "lit", "question": "When was the lighthouse first lit?",
          "context": ["The lighthouse was first lit in 1874. It was automated in 1962 after a storm."],
          "answer": "It was first lit in 1874.", "label": "PASS"}]


def _run(root: Path) -> Path:
    dataset = root / "cases.jsonl"
    dataset.write_text("".join(json.dumps(c) + "\n" for c in CASES))
    script = CourtScript(moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                         word_grounding={"1926": -2.0}, sentence_grounding={"1962": 1.5, "1874": -0.5})
    options = {"overrides": {"indictment.threshold": 0.0, "aggregation.by_model": {}}}
    run = start_run(RunSpec.build(str(dataset), judge="courtroom", court="full", judge_options=options), root / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(script)))
    run.close()
    return root / "run"


def _moved(transcript: Path) -> None:
    """The prosecutor's quote of the answer recorded at offsets that hold other words."""
    lines = transcript.read_text().splitlines()
    for i, line in enumerate(lines):
        event = json.loads(line)
        if event.get("event") == "move" and event["role"] == "prosecutor":
            event["grounds"]["answer"].update(start=0, end=4)
            lines[i] = json.dumps(event)
    transcript.write_text("\n".join(lines) + "\n")


@pytest.mark.browser
def test_each_sides_quotes_stand_side_by_side_with_the_check(tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    run = _run(tmp_path)
    _moved(next((run / "transcripts").glob("automated-*.jsonl")))
    report = tmp_path / "report.html"
    report.write_text(build_report(run))
    shown = {}
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#filter-outcome", "all")
        for case in ("automated", "lit"):
            page.fill("#search", case)
            page.locator(".case-row").first.click()
            detail = page.locator(".case-detail").first
            shown[case] = [(piece.locator("b").text_content(), piece.locator("mark").text_content(),
                            piece.locator(".check").text_content()) for piece in detail.locator(".grounds .piece").all()]
            page.locator(".case-row").first.click()  # closed again
        browser.close()
    assert not problems, problems
    # the prosecutor's answer quote was moved: shown, not placed, and flagged; its cited sentence still checks
    assert shown["automated"][0] == ("answer: ", "1926", " \u2717 not found where it is said to be")
    assert shown["automated"][1] == ("sentence 2: ", "It was automated in 1962 after a storm.", " \u2713 found here")
    assert ("sentence 2: ", "It was automated in 1962 after a storm.", " \u2713 found here") in shown["automated"][2:]
    assert all(check == " \u2713 found here" for _, _, check in shown["lit"]) and shown["lit"]
