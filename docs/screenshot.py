"""Regenerate docs/report.png: a scripted court run on the example cases, its HTML report opened in
headless Chromium, filtered to wrong verdicts, with the first case open.

    python docs/screenshot.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from courtroom.door import ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.report.html import write_report
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.court_script import CourtScript

HERE = Path(__file__).resolve().parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        script = CourtScript(grounding={str(d): -0.4 for d in range(10)}, suspect={str(d): 0.8 for d in range(10)},
                             moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                             p_hallucinated=0.7)
        run = start_run(RunSpec.build("examples", judge="courtroom", court="default", window=4), Path(tmp) / "run")
        run.execute(runner=LocalRunner(ScriptedBackend(script)))
        report = write_report(Path(tmp) / "run", Path(tmp) / "report.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            page = browser.new_page(viewport={"width": 1200, "height": 1500})
            page.goto(report.as_uri())
            page.select_option("#filter-outcome", "wrong")
            page.locator(".case-row").first.click()
            page.screenshot(path=str(HERE / "report.png"), full_page=False)
            browser.close()
    print(HERE / "report.png")


if __name__ == "__main__":
    main()
