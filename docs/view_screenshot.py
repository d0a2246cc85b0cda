"""Regenerate the screenshots of docs/view.md: `courtroom view` serving real runs, opened in headless Chromium.

    python docs/view_screenshot.py RUNS_DIR --run RUN --trial-run RUN [--case CASE_ID] [--prior RULING] [--n 30]

Writes docs/view-runs.png (the runs under RUNS_DIR), docs/view-case.png (a case of --trial-run opened, its record with
the trial: default, the first wrong verdict with a trial), and docs/view-refit.png (RUN's drawn cases labelled with the
keyboard by the data's gold labels, the gold as the oracle, then the refit and its before/after table). Labelling
records the labels in RUN's record (RUN/judgements.jsonl) and the refit writes RUN.refit-1/ into RUNS_DIR. Run it from a folder named as a user's, with RUNS_DIR
under it (the page shows paths under the folder it was started in as typed there, others whole). The committed ones
were made in ~/projects/rag-eval, as `python docs/view_screenshot.py runs --run halueval-qa-smollm2 --trial-run
halubench-full --case halubench-x-b7c78a49697a --prior rulings/default.smollm2-135m.yaml`: runs/ held a run of the
default court with the embedded model (SmolLM2-135M) on 80 HaluEval QA cases of the dev data copied into data/
(`courtroom run data/halueval-dev.jsonl --limit 80 --balanced --out runs/halueval-qa-smollm2`), labelled 30 and
refit with the shipped ruling copied into rulings/ (fitted on dev data that holds these cases: the refit's numbers
here show the page, not what labels buy), and a copy of the run of the composed full court on 200 HaluBench dev
cases (#59, `experiments/results/default/halubench-full-composed`, transcripts kept).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from courtroom.log.audit import Audit

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs_dir")
    parser.add_argument("--run", help="the run to label and refit (its name under RUNS_DIR); left out: view-case.png "
                                      "alone")
    parser.add_argument("--trial-run", required=True, help="the run of a court that tries its charges")
    parser.add_argument("--case", help="the case of view-case.png")
    parser.add_argument("--prior", help="the ruling the labels refit (default: the shipped one for the run's model)")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--out", default=str(HERE))
    args = parser.parse_args()
    out = Path(args.out)
    gold = {r.case_id: r.gold for r in Audit(Path(args.runs_dir) / args.run).rows()} if args.run else {}
    trial = Audit(Path(args.runs_dir) / args.trial_run).rows()
    case = args.case or next(r.case_id for r in trial if r.correct is False and r.trial)
    command = [sys.executable, "-m", "courtroom.cli", "view", args.runs_dir, "--port", "0", "--n", str(args.n)]
    server = subprocess.Popen(command + (["--prior", args.prior] if args.prior else []), stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", server.stdout.readline()).group(0)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1300, "height": 700})
            page.goto(url)
            page.wait_for_selector("body[data-ready='1'] table.runs")
            if args.run:
                page.screenshot(path=str(out / "view-runs.png"))
            page.goto(url + f"#/run?run={args.trial_run}")
            page.wait_for_selector("body[data-ready='1'] #case-body tr")
            page.fill("#search", case)
            while page.locator("#case-body tr.case-row").count() != 1:  # the search's answer drawn
                page.wait_for_timeout(200)
            page.wait_for_timeout(1000)  # and nothing left to draw it again
            page.locator(f"#case-body tr.case-row[data-id='{case}']").click()
            record = page.locator("#case-body .case-detail").first
            record.wait_for()
            page.evaluate("() => { document.querySelector('.controls').style.display = 'none'; }")  # it is sticky
            record.screenshot(path=str(out / "view-case.png"))
            if not args.run:
                browser.close()
                return
            page.goto(url + f"#/label?run={args.run}")
            page.wait_for_selector("body[data-ready='1'] [data-case]")
            for _ in range(args.n):  # each case by its gold label, as it comes up
                case_id = page.get_attribute("[data-case]", "data-case")
                page.keyboard.press("h" if gold[case_id] == "FAIL" else "f")
                page.wait_for_function("id => document.querySelector('[data-case]').dataset.case !== id", arg=case_id)
            page.click("#refit-button")
            page.wait_for_selector("#refit[data-rejudged=written]", timeout=600_000)
            page.locator("#refit").screenshot(path=str(out / "view-refit.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    for name in ("view-runs.png", "view-case.png", "view-refit.png"):
        print(out / name)


if __name__ == "__main__":
    main()
