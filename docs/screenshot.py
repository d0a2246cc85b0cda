"""Regenerate the screenshots of the README and docs/auditing.md from a real run: its HTML report opened in headless Chromium.

    python docs/screenshot.py RUN_DIR [--case CASE_ID] [--against RUN_B]

Writes docs/report.png (the summary and the case list, filtered to wrong verdicts, sorted by score),
docs/report-case.png (one case opened: the measurement token by token, the trial, the verdict),
docs/report-calls.png (the same case with a turn's model calls expanded: prompt and raw output) and, with
--against, docs/report-diff.png (the two runs case by case, a changed case opened side by side).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from courtroom.report.html import write_report

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--case", help="the case to open (default: the first wrong verdict with a trial)")
    parser.add_argument("--against", help="a second run of the same cases, for the diff screenshot")
    parser.add_argument("--out", default=str(HERE), help="the directory the screenshots go to (default: docs/)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1300, "height": 1100})
        page.goto(write_report(args.run_dir, Path(tmp) / "report.html").as_uri())
        page.wait_for_selector("body[data-ready='1']")
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
