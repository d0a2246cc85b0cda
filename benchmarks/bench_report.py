"""The HTML report at scale (issue 22): reports of 100, 1,000 and 10,000 cases (a court run on the scripted
backend, as in bench_audit.py), each written by `courtroom audit report` in a fresh process and opened in
headless Chromium: file size, time to write, time to interactive (navigation start to the case list drawn,
from the page's own clock), and the time of what a reviewer does (filter to wrong verdicts, search, sort by
score, open a case), each the median of repeats, measured in the page around the synchronous redraw plus
a forced layout.

Usage: python benchmarks/bench_report.py [--sizes 100 1000 10000] [--dir /tmp/courtroom-report-bench]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_audit import build  # noqa: E402

from courtroom.log.store import RunStore  # noqa: E402

ACTIONS = {
    "filter_wrong_ms": "() => { const s = document.getElementById('filter-outcome'); const t = performance.now();"
                       " s.value = s.value === 'wrong' ? 'all' : 'wrong'; s.dispatchEvent(new Event('input'));"
                       " document.body.offsetHeight; return performance.now() - t; }",
    "search_ms": "() => { const s = document.getElementById('search'); const t = performance.now();"
                 " s.value = s.value ? '' : 'synthetic-0012'; s.dispatchEvent(new Event('input'));"
                 " document.body.offsetHeight; return performance.now() - t; }",
    "sort_by_score_ms": "() => { const t = performance.now(); document.querySelector(\"th[data-key='score']\").click();"
                        " document.body.offsetHeight; return performance.now() - t; }",
    "open_case_ms": "() => { const row = document.querySelector('.case-row'); const t = performance.now(); row.click();"
                    " document.body.offsetHeight; const ms = performance.now() - t; row.click(); return ms; }",
}


def run_dir(root: Path, cases: int) -> Path:
    path = root / f"run-{cases}"
    if not (path / "results.jsonl").is_file() or len(RunStore(path).rows()) != cases:
        shutil.rmtree(path, ignore_errors=True)
        build(path, cases)
    return path


def write(path: Path, out: Path, *flags: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "courtroom.cli", "audit", "report", str(path), "-o", str(out), *flags],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def measure(browser, report: Path, repeats: int) -> dict[str, float]:
    ready = []
    timings: dict[str, list[float]] = {name: [] for name in ACTIONS}
    for _ in range(repeats):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(report.as_uri(), wait_until="commit")
        page.wait_for_selector("body[data-ready='1']", timeout=120_000)
        ready.append(float(page.get_attribute("body", "data-ready-ms")))
        for name, action in ACTIONS.items():
            for _ in range(2):  # both ways (on, off), each timed
                timings[name].append(page.evaluate(action))
        page.close()
    return {"time_to_interactive_ms": statistics.median(ready),
            **{name: statistics.median(values) for name, values in timings.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument("--dir", default="/tmp/courtroom-report-bench")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/report.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        for cases in args.sizes:
            path = run_dir(root, cases)
            report = root / f"report-{cases}.html"
            seconds = write(path, report)
            entry = {"cases": cases, "calls_included": cases <= 1000, "file_mb": report.stat().st_size / 1e6,
                     "write_s": seconds, **measure(browser, report, args.repeats)}
            print(json.dumps(entry), flush=True)
            results.append(entry)
        browser.close()
    small, large = results[0], results[-1]
    summary = {"sizes": results, "tti_ratio_largest_to_smallest": large["time_to_interactive_ms"] / small["time_to_interactive_ms"],
               "targets": {"time_to_interactive_ms": 2000, "filter_ms": 100}}
    Path(args.out).write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
