"""Regenerate the screenshots of the README and docs/auditing.md from a real run: its HTML report opened in headless Chromium.

    python docs/screenshot.py RUN_DIR [--case CASE_ID] [--against RUN_B] [--spans-case CASE_ID] [--spans-only]

Writes docs/report.png (the summary and the case list, filtered to wrong verdicts, sorted by score),
docs/report-case.png (one case opened: the measurement token by token, the trial, the verdict),
docs/report-calls.png (the same case with a turn's model calls expanded: prompt and raw output), with
--against, docs/report-diff.png (the two runs case by case, a changed case opened side by side), and, when the
run's data has gold spans, docs/report-spans.png (a case whose predicted spans meet its gold spans: the answer with
both, each predicted span's evidence, the witnesses' testimony), and with --trials-only, docs/report-trials.png alone (the
trials section of a run of a court that tries its charges: `python docs/screenshot.py RUN --trials-only`, the committed
one of experiments/results/debate/ruling-135m). `--spans-only` writes report-spans.png alone; the committed
one is of a run of the default court with the embedded model on RAGTruth cases with gold spans:

    courtroom run RAGTRUTH.jsonl --out runs/rt --limit 30
    python docs/screenshot.py runs/rt --spans-only [--spans-case ragtruth-7215]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from courtroom.log.audit import Audit
from courtroom.report.html import write_report

HERE = Path(__file__).resolve().parent
SPANS_HEIGHT = 950
"""The most of a case's record the spans screenshot shows (pixels from its top)."""


def spans_case(run_dir: str) -> str | None:
    """The case of the spans screenshot: of those whose predicted spans meet a gold span, the shortest answer."""
    audit = Audit(run_dir)
    met = [(len(audit.store.case(r.case_id).answer), r.case_id) for r in audit.rows()
           if r.spans and r.gold_spans and any(g.start < b and g.end > a for a, b, _ in r.spans for g in r.gold_spans)]
    return min(met)[1] if met else None


def spans_screenshot(page, case_id: str, path: Path) -> None:  # noqa: ANN001 (a playwright page)
    """The case opened, from the top of its record: the answer with its predicted and gold spans, each predicted
    span's evidence, the testimony (the sticky controls hidden, so they cover nothing)."""
    page.select_option("#filter-outcome", "all")
    page.fill("#search", case_id)
    page.locator(".case-row").first.click()
    page.evaluate("document.querySelector('.controls').style.display = 'none'")
    record = page.locator(".case-detail").first
    box = record.bounding_box()  # in the viewport: the page's scroll added, for a clip of the full page
    top = box["y"] + page.evaluate("window.scrollY")
    page.screenshot(path=str(path), full_page=True, clip={"x": box["x"], "y": top, "width": box["width"],
                                                          "height": min(box["height"], SPANS_HEIGHT)})
    page.evaluate("document.querySelector('.controls').style.display = ''")


def trials_screenshot(page, path: Path) -> None:  # noqa: ANN001 (a playwright page)
    """The run's trials section: how the trials ended round by round, what was written, the bench against the clerk,
    and the debate's gain."""
    section = page.locator("section.trials").first
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--case", help="the case to open (default: the first wrong verdict with a trial)")
    parser.add_argument("--against", help="a second run of the same cases, for the diff screenshot")
    parser.add_argument("--out", default=str(HERE), help="the directory the screenshots go to (default: docs/)")
    parser.add_argument("--spans-case", help="the case of report-spans.png (default: of the cases whose predicted "
                                             "spans meet a gold span, the one with the shortest answer)")
    parser.add_argument("--spans-only", action="store_true", help="write report-spans.png alone")
    parser.add_argument("--trials-only", action="store_true", help="write report-trials.png alone (a run of a court "
                                                                    "that tries its charges)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1300, "height": 1100})
        page.goto(write_report(args.run_dir, Path(tmp) / "report.html").as_uri())
        page.wait_for_selector("body[data-ready='1']")
        if args.trials_only:
            trials_screenshot(page, out / "report-trials.png")
            print(out / "report-trials.png")
            browser.close()
            return
        if (case := args.spans_case or spans_case(args.run_dir)) is not None:
            spans_screenshot(page, case, out / "report-spans.png")
            print(out / "report-spans.png", f"({case})")
            page.goto(write_report(args.run_dir, Path(tmp) / "report.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
        if args.spans_only:
            browser.close()
            return
        page.select_option("#filter-outcome", "wrong")
        page.click("#case-head th[data-key='score']")
        page.screenshot(path=str(out / "report.png"))
        print(out / "report.png")
        if args.case:
            page.select_option("#filter-outcome", "all")
            page.fill("#search", args.case)
        row = page.locator(".case-row").first
        row.click()
        record = page.locator(".case-detail").first
        record.scroll_into_view_if_needed()
        record.screenshot(path=str(out / "report-case.png"))
        print(out / "report-case.png")
        turn = record.locator("details.turn-calls").first
        if turn.count():
            turn.locator("summary").first.click()
            turn.locator("details.call > summary").first.click()
            turn.scroll_into_view_if_needed()
            turn.screenshot(path=str(out / "report-calls.png"))
            print(out / "report-calls.png")
        if args.against:
            page.goto(write_report(args.run_dir, Path(tmp) / "diff.html", against=args.against).as_uri())
            page.wait_for_selector("body[data-ready='1']")
            page.select_option("#filter-change", "any")
            page.locator(".case-row").first.click()
            page.screenshot(path=str(out / "report-diff.png"), full_page=False)
            print(out / "report-diff.png")
        browser.close()


if __name__ == "__main__":
    main()
