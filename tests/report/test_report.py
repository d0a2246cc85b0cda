"""The HTML report in a real headless Chromium: open a case, expand a model call and read its prompt and raw
output, the measurement token by token, sort by score, filter wrong verdicts, page through, and the view of
two runs compared case by case; `courtroom audit diff`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import ScriptedBackend
from courtroom.engine.events import ModelCallEvent
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.report.diff import diff_runs
from courtroom.report.html import build_report
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.court_script import CourtScript
from tests.helpers.runs import court_run

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two court runs of the examples that differ: A's measurement finds the charged statements poorly
    grounded and its judge convicts; B's finds them grounded and its judge acquits."""
    root = tmp_path_factory.mktemp("report")
    return court_run(root / "strict", 0.7, -0.5), court_run(root / "lenient", 0.0, 0.8)


@pytest.fixture(scope="module")
def browser():
    playwright, chromium = chromium_or_skip()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


def _open(browser, html: str, tmp_path: Path):
    path = tmp_path / "report.html"
    path.write_text(html)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: problems.append(r.url) if not r.url.startswith(("file:", "data:", "about:")) else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return page, problems


def _scores(page) -> list[float]:
    cells = page.locator("#case-body tr.case-row td:nth-child(5)").all_text_contents()
    return [float(c) for c in cells if c != "-"]


@pytest.mark.browser
def test_a_case_its_calls_and_its_measurement(runs, browser, tmp_path: Path) -> None:
    run = runs[0]
    case_id = "example-lighthouse-automated"
    events = Audit(run).events(case_id)
    calls = [e for e in events if isinstance(e, ModelCallEvent)]
    page, problems = _open(browser, build_report(run), tmp_path)
    page.fill("#search", "lighthouse-automated")
    assert page.text_content("#count").startswith("showing 1 of 1")
    page.locator(".case-row").first.click()
    record = page.locator(".case-detail")
    # the measurement: every token of the answer shaded, the numbers on hover, the weakest words marked
    tokens = record.locator(".heat span.tok")
    assert tokens.count() == len(next(c for c in calls if c.purpose == "ground").token_logprobs)
    assert record.locator(".heat span.weak").count() >= 1
    assert "1926" in "".join(record.locator(".heat span.weak").all_text_contents())
    assert tokens.first.get_attribute("title").startswith("gain ")
    # the calls of a turn, collapsed until opened
    turn = record.locator("details.turn-calls").first
    assert not turn.locator("pre.prompt").first.is_visible()
    turn.locator("summary").first.click()
    call = turn.locator("details.call").first
    call.locator("summary").first.click()
    prompt = call.locator("pre.prompt").last.text_content()
    move_call = next(c for c in calls if c.purpose == "move")
    assert "CHARGE 1" in prompt and "It is your turn as prosecutor" in prompt
    assert call.locator("pre.raw").text_content() == move_call.raw
    assert "argue 0.900" in call.inner_text()
    shared = call.locator("details.shared")  # the opening every prompt shares, folded and one click away
    assert "characters shared by every prompt" in shared.locator("summary").text_content()
    shared.locator("summary").click()
    assert "QUESTION: When was the Harrow Point lighthouse automated?" in shared.locator("pre").text_content()
    others = record.locator("details.other-calls")
    rest = sum(c.purpose not in ("move", "payload", "verdict") for c in calls)  # measurement, weighing: no turn's
    assert others.locator("summary").first.text_content().startswith(f"{rest} other model calls")
    page.screenshot(path=str(tmp_path / "case.png"), full_page=True)
    assert not problems, problems


@pytest.mark.browser
def test_sort_filter_and_pages(runs, browser, tmp_path: Path) -> None:
    audit = Audit(runs[0])
    n_wrong = len(audit.select(wrong=True))
    page, problems = _open(browser, build_report(runs[0], page_size=8), tmp_path)
    assert page.text_content("#count") == "showing 1-8 of 20 matching cases (20 in all)"
    assert page.text_content("#page") == "page 1 of 3" and page.locator(".case-row").count() == 8
    page.click("#next")
    assert page.text_content("#count").startswith("showing 9-16 of 20")
    page.click("#case-head th[data-key='score']")  # highest score first, from the first page
    scores = _scores(page)
    assert page.text_content("#page") == "page 1 of 3" and scores == sorted(scores, reverse=True)
    assert scores[0] == round(max(r.score for r in audit.rows() if r.score is not None), 3)
    page.click("#case-head th[data-key='score']")
    scores = _scores(page)
    assert scores == sorted(scores) and scores[0] == round(min(r.score for r in audit.rows() if r.score is not None), 3)
    page.select_option("#filter-outcome", "wrong")
    assert page.text_content("#count").startswith(f"showing {min(n_wrong, 8) if n_wrong <= 8 else '1-8'} of {n_wrong}")
    wrong_ids = {r.case_id for r in audit.select(wrong=True)}
    assert {r.get_attribute("data-id") for r in page.locator(".case-row").all()} <= wrong_ids
    assert not problems, problems


@pytest.mark.browser
def test_two_runs_case_by_case(runs, browser, tmp_path: Path) -> None:
    a, b = runs
    diff = diff_runs(Audit(a), Audit(b))
    assert diff.changed and diff.count("fixed") + diff.count("broken") + diff.count("changed") == len(diff.changed)
    page, problems = _open(browser, build_report(a, against=b), tmp_path)
    assert page.locator("#diff-summary").is_visible() and page.locator("#roc-b").count() == 1
    page.select_option("#filter-change", "any")
    assert page.text_content("#count").startswith(f"showing {len(diff.changed)} of {len(diff.changed)}")
    row = page.locator(".case-row").first
    case = next(c for c in diff.changed if c.case_id == row.get_attribute("data-id"))
    assert row.locator("td.fixed, td.broken, td.changed").text_content() == case.change
    row.click()
    sides = page.locator(".pair > div")
    assert sides.count() == 2
    assert sides.nth(0).locator(".run-name").text_content() == f"A: {a.name}"
    assert f"Verdict: {case.a.label}" in sides.nth(0).inner_text() and f"Verdict: {case.b.label}" in sides.nth(1).inner_text()
    page.screenshot(path=str(tmp_path / "diff.png"), full_page=True)
    assert not problems, problems


def test_diff_on_the_command_line(runs) -> None:
    a, b = runs
    diff = diff_runs(Audit(a), Audit(b))
    result = runner.invoke(app, ["audit", "diff", str(a), str(b)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"verdict changed on {len(diff.changed)}: {diff.count('fixed')} fixed" in result.output
    assert f"McNemar p = {diff.pairing.p_value:.3g}" in result.output
    assert all(c.case_id in result.output for c in diff.changed)
    result = runner.invoke(app, ["audit", "diff", str(a), str(b), "--only", "broken"], env={"COLUMNS": "200"})
    assert f"{diff.count('broken')} changed cases" in result.output
    result = runner.invoke(app, ["audit", "diff", str(a), str(b), "--only", "worse"])
    assert result.exit_code != 0 and "--only must be fixed, broken or changed" in result.output


def test_diff_refuses_runs_of_other_cases(runs, tmp_path: Path) -> None:
    dataset = tmp_path / "other.jsonl"
    dataset.write_text('{"id": "elsewhere", "question": "q", "context": ["c."], "answer": "a.", "label": "PASS"}\n')
    other = tmp_path / "other"
    start_run(RunSpec.build(str(dataset), judge="rails"), other).execute(
        runner=LocalRunner(ScriptedBackend(CourtScript())))
    result = runner.invoke(app, ["audit", "diff", str(runs[0]), str(other)], env={"COLUMNS": "300"})
    assert result.exit_code != 0 and "share no case id" in " ".join(result.output.split())


def test_many_cases_leave_the_calls_out_unless_asked(runs) -> None:
    from courtroom.report import html

    with_calls = build_report(runs[0])
    assert '"calls":[{' in with_calls
    limit = html.CALLS_UP_TO
    try:
        html.CALLS_UP_TO = 10  # 20 cases: more than the limit
        without = build_report(runs[0])
        assert '"calls":[{' not in without and "write it with --calls" in without
        assert '"calls":[{' in build_report(runs[0], calls=True)
    finally:
        html.CALLS_UP_TO = limit
    assert len(without) < len(with_calls) / 2


def test_the_report_numbers_sentences_as_the_runs_court_did() -> None:
    """A run recorded before the structured splitter (regex): the report's numbered context is the one its
    prompts cited, not today's default."""
    import json
    import re

    from courtroom.casefile import context_sentences

    run = Path(__file__).parents[1] / "golden" / "before_sentences" / "run"
    audit = Audit(run)
    page = build_report(run)
    differ = 0
    for i, row in enumerate(audit.rows()):
        block = re.search(rf'<script type="application/json" id="a{i}">(.*?)</script>', page, flags=re.S).group(1)
        record = json.loads(block.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&"))
        case = next(e.case for e in audit.events(row.case_id) if e.event == "case_start")
        assert record["sentences"] == list(context_sentences(case, "regex"))
        differ += record["sentences"] != list(context_sentences(case, "structured"))
    assert differ  # the fixture holds contexts the two splitters cut differently
