"""`courtroom view` in a real headless Chromium: open a run, filter and sort its cases, open a case's record and its
model calls, label 12 cases with the keyboard into the run's record (each followed by what a refit would do), refit
and read the before/after table within a second of the click, then the run decided again; a run written while the
page is open shows its new cases; two runs side by side."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from courtroom.calibrate.label_session import LabelSession
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.report.diff import diff_runs
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.runs import labelled
from tests.helpers.view import open_page, serving


def _wait_text(page, selector: str, pattern: str, seconds: float = 10) -> str:  # noqa: ANN001
    page.wait_for_function("([s, p]) => new RegExp(p).test((document.querySelector(s) || {}).textContent || '')",
                           arg=[selector, pattern], timeout=seconds * 1000)
    return page.text_content(selector)


@pytest.mark.browser
def test_open_filter_label_twelve_with_the_keyboard_and_refit(world: Path, browser) -> None:  # noqa: ANN001
    run, prior = world / "runs" / "mine", world / "prior.yaml"
    audit = Audit(run)
    gold = {r.case_id: r.gold for r in audit.rows()}
    with serving(world / "runs", prior=str(prior), n=12) as url:
        page, problems = open_page(browser, url)
        assert not page.context.cookies()  # the token stays in the page's URL (a reload opens it again), no cookie
        assert [t.strip() for t in page.locator("table.runs tr td:first-child").all_text_contents()] == \
            ["lenient", "mine", "strict"]

        page.click("table.runs >> text=mine")
        _wait_text(page, "#count", "of 40 matching")
        wrong = [r.case_id for r in audit.rows() if r.correct is False]
        page.select_option("#filter-outcome", "wrong")
        _wait_text(page, "#count", f"of {len(wrong)} matching cases \\(40 in all\\)")
        assert sorted(page.locator("#case-body tr.case-row").evaluate_all("rs => rs.map(r => r.dataset.id)")) == sorted(wrong)
        page.select_option("#filter-outcome", "all")
        page.fill("#pmin", "0.5")
        high = [r for r in audit.rows() if r.score is not None and r.score >= 0.5]
        _wait_text(page, "#count", f"of {len(high)} matching")
        page.click("#case-head th:has-text('P(hallucinated)')")  # sorted by P(hallucinated), highest first
        page.wait_for_selector("#case-head th[aria-sort=descending]")
        scores = [float(s) for s in page.locator("#case-body tr.case-row td:nth-child(5)").all_text_contents()]
        assert scores == sorted(scores, reverse=True) and min(scores) >= 0.5

        page.locator("#case-body tr.case-row").first.click()  # a case's whole record, then its model calls
        record = page.locator(".case-detail").first
        record.wait_for()
        first = page.locator("#case-body tr.case-row").first.get_attribute("data-id")
        case = audit.store.case(first)
        text = record.inner_text()
        assert case.question in text and all(s in text for s in audit.context_sentences(case))  # whole, numbered
        page.click("button.calls")
        page.click(".case-detail details.other-calls > summary")  # the prompts and raw outputs, on demand
        page.click(".case-detail details.call > summary >> nth=0")
        assert page.locator(".case-detail details.call pre.prompt").first.is_visible()

        page.click("text=label its cases and refit")
        _wait_text(page, "#progress", "^0 of 12 labelled")
        order = LabelSession(Audit(run), str(prior), 12).order()
        assert page.get_attribute("[data-case]", "data-case") == order[0]  # the draw of `courtroom label`, its order
        for case_id in order[:12]:  # pressed at once: each key is taken in turn, on the case it was meant for
            page.keyboard.press("h" if gold[case_id] == "FAIL" else "f")
        _wait_text(page, "#progress", "^12 of 12 labelled")
        page.keyboard.press("ArrowLeft")
        _wait_text(page, "#progress", f"case 12 of the draw: {re.escape(order[11])}")
        page.keyboard.press("ArrowRight")
        _wait_text(page, "#progress", f"case 13 of the draw: {re.escape(order[12])}")

        assert [(j.case_id, j.label, j.source) for j in Audit(run).judgements()] == [
            (c, "hallucinated" if gold[c] == "FAIL" else "faithful", "view") for c in order[:12]]
        page.wait_for_selector("#estimate[data-labelled='12']")  # after every label, what a refit would do
        assert re.search(r"out of fold \d\.\d{3} .* it would flip \d+ verdicts", page.text_content("#estimate"))

        took = page.evaluate("""async () => { const t = performance.now(); document.getElementById('refit-button').click();
            while (document.getElementById('refit').dataset.state !== 'done') await new Promise(r => setTimeout(r, 5));
            document.body.offsetHeight; return performance.now() - t; }""")
        assert took <= 1000, f"the refit's table came {took:.0f} ms after the click"
        page.wait_for_selector("#refit[data-rejudged=written]", timeout=60_000)
        table = page.locator("table.before-after tr").evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        kinds = sum(gold[c] == "FAIL" for c in order[:12])
        assert table[1][0].startswith("the labelled cases, out of fold") and table[1][1] == f"12 ({kinds} hallucinated, " \
            f"{12 - kinds} faithful)"
        assert re.fullmatch(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", table[1][3])  # the estimate, with its interval
        refit_run = world / "runs" / "mine.refit-1" / "run"
        before = {r.case_id: r for r in audit.rows() if r.case_id not in order[:12]}
        after = {r.case_id: r for r in Audit(refit_run).rows()}
        flipped = sorted(c for c in before if before[c].label != after[c].label)
        assert table[2][0].startswith("the cases not labelled, by their gold labels") and table[2][1] == "28"
        assert table[2][2].startswith(f"{_balanced(before, before):.3f}") and table[2][3].startswith(
            f"{_balanced(after, before):.3f}"), table
        assert table[3][3] == str(len(flipped)) and flipped, "the labels must flip some verdicts for the test to show them"
        assert sorted(page.locator("ul.flipped li").evaluate_all("ls => ls.map(l => l.textContent.split(':')[0])")) == flipped
        court = world / "runs" / "mine.refit-1" / "court.yaml"
        text = page.inner_text("#refit")
        assert str(court) in text and f"courtroom rejudge {run} --court {court}" in text and court.is_file()
        assert not problems, problems


def _balanced(rows_: dict, gold: dict) -> float:
    """Balanced accuracy of `rows_` against the gold labels of `gold`'s rows."""
    fails = [c for c in gold if gold[c].gold == "FAIL"]
    passes = [c for c in gold if gold[c].gold == "PASS"]
    return (sum(rows_[c].label == "FAIL" for c in fails) / len(fails) + sum(rows_[c].label == "PASS" for c in passes)
            / len(passes)) / 2


@pytest.mark.browser
def test_a_run_written_while_the_page_is_open_shows_its_new_cases(world: Path, browser) -> None:  # noqa: ANN001
    opened = threading.Event()
    pseudo, calls = PseudoModel(), []

    def slow(request):  # noqa: ANN001, ANN202 - two cases at once, then waits for the page; then a case every ~0.3 s
        calls.append(1)
        if len(calls) > 4:
            opened.wait(30)
            time.sleep(0.15)
        return pseudo(request)

    data = labelled(world / "live.jsonl", ["Arden", "Brill", "Corve", "Dunmore", "Elsby"])
    started = start_run(RunSpec.build(str(data), judge="courtroom", window=1, model=NO_RULING_MODEL),
                        world / "runs" / "live")
    writer = threading.Thread(target=lambda: (started.execute(runner=LocalRunner(ScriptedBackend(slow))), started.close()))
    writer.start()
    try:
        while not (world / "runs" / "live" / "results.jsonl").is_file():
            time.sleep(0.05)
        with serving(world / "runs") as url:
            page, problems = open_page(browser, url)
            page.goto(url + "#/run?run=live")
            shown = int(_wait_text(page, "#count", r"\(\d+ in all\)").split("(")[1].split()[0])
            assert shown < 10 and "being written" in page.text_content(".muted:has-text('cases judged')")
            opened.set()
            start = time.monotonic()
            _wait_text(page, "#count", r"of 10 matching cases \(10 in all\)", seconds=15)
            writer.join(30)
            assert time.monotonic() - start < 10
            assert page.locator("#case-body tr.case-row").count() == 10 and not problems, problems
    finally:
        opened.set()
        writer.join(30)


@pytest.mark.browser
def test_two_runs_side_by_side(world: Path, browser) -> None:  # noqa: ANN001
    a, b = world / "runs" / "strict", world / "runs" / "lenient"
    d = diff_runs(Audit(a), Audit(b))
    fixed = [c.case_id for c in d.cases if c.change == "fixed"]
    path = Audit(a).store.transcript_path(fixed[0])  # a forced move whose side was polled (trial.poll_moves)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    forced = next(e for e in events if e["event"] == "move" and e["forced"])
    forced["polled_probs"] = {forced["move"]: 0.75, "other": 0.25}
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    with serving(world / "runs") as url:
        page, problems = open_page(browser, url)
        page.select_option("main .controls select >> nth=0", "strict")
        page.select_option("main .controls select >> nth=1", "lenient")
        page.click("#compare")
        page.wait_for_selector("#diff-table tr.case-row")
        cells = page.locator("table.diff tr").nth(1).locator("td").all_text_contents()
        assert cells[:4] == [str(len(d.cases)), str(len(d.changed)), str(d.count("fixed")), str(d.count("broken"))]
        page.select_option("#filter-change", "fixed")
        assert page.locator("#diff-table tr.case-row").evaluate_all("rs => rs.map(r => r.dataset.id)") == fixed
        page.locator("#diff-table tr.case-row").first.click()
        page.wait_for_function("() => document.querySelectorAll('.pair .case-detail').length === 2")
        sides = page.locator(".pair > div").all_inner_texts()
        assert sides[0].startswith("A: strict") and sides[1].startswith("B: lenient")
        assert "Verdict: FAIL" in sides[0] and "Verdict: PASS" in sides[1]
        assert f"{forced['move']} [forced] [polled: {forced['move']} 0.75, other 0.25]" in sides[0]
        assert not problems, problems
