"""`courtroom view` at scale (issue 52): a run of 10,000 cases (the full court on the scripted backend, as in
bench_audit.py, its arguments written as the court's pattern wants them), served by `courtroom view` in a fresh
process and opened in headless Chromium: the first paint of the run's case list on the server's first request (it reads
the run then), and of the runs list and the case list afterwards (navigation start to the list drawn, by the page's
own clock), then what a reviewer does
(filter to wrong verdicts, to a P(hallucinated) range, search, sort by P(hallucinated), the next page, open a case),
each timed in the page from the input to the list redrawn with the server's answer, the median of repeats.

Usage: python benchmarks/bench_view.py [--cases 10000] [--dir /tmp/courtroom-view-bench] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_audit  # noqa: E402

from courtroom.log.store import RunStore  # noqa: E402

ACTIONS = {  # each changes the list, timed until the list is drawn again with the server's answer
    "filter_wrong_ms": "s = document.getElementById('filter-outcome'); s.value = s.value === 'wrong' ? 'all' : 'wrong';",
    "p_range_ms": "s = document.getElementById('pmin'); s.value = s.value ? '' : '0.5';",
    "search_ms": "s = document.getElementById('search'); s.value = s.value ? '' : 'synthetic-0012';",
    "sort_by_p_ms": "s = document.querySelector('#case-head th.sortable:nth-child(5)'); s.click(); s = null;",
    "next_page_ms": "s = [...document.querySelectorAll('.controls button')].find(b => !b.disabled && "
                    "/next|previous/.test(b.textContent)); s.click(); s = null;",
}
TIMED = ("async () => { const body = document.getElementById('case-body'), before = body.dataset.drawn; "
         "const t = performance.now(); let s; {action} if (s) s.dispatchEvent(new Event('input')); "
         "while (body.dataset.drawn === before) await new Promise(r => setTimeout(r, 1)); "
         "document.body.offsetHeight; return performance.now() - t; }")
OPEN_CASE = ("async () => { const row = document.querySelector('.case-row'); const t = performance.now(); row.click(); "
             "while (!document.querySelector('.case-detail')) await new Promise(r => setTimeout(r, 1)); "
             "document.body.offsetHeight; const ms = performance.now() - t; row.click(); return ms; }")


ORIGINAL = bench_audit.script


def script(request):  # bench_audit's stand-in, its arguments capitalised and ended as the court's pattern asks
    out = ORIGINAL(request)
    return {k: "It is a synthetic argument." if v == "synthetic argument" else v for k, v in out.items()} \
        if isinstance(out, dict) else out


def run_dir(root: Path, cases: int) -> Path:
    path = root / f"run-{cases}"
    if not (path / "results.jsonl").is_file() or len(RunStore(path).rows()) != cases:
        shutil.rmtree(path, ignore_errors=True)
        bench_audit.script = script
        try:
            bench_audit.build(path, cases)
        finally:
            bench_audit.script = ORIGINAL
    return path


def ready_ms(page, url: str) -> float:  # noqa: ANN001
    page.goto(url, wait_until="commit")
    page.wait_for_selector("body[data-ready='1']", timeout=120_000)
    return float(page.get_attribute("body", "data-ready-ms"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--dir", default="/tmp/courtroom-view-bench")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/view.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    path = run_dir(root, args.cases)
    rows = RunStore(path).rows()
    server = subprocess.Popen([sys.executable, "-m", "courtroom.cli", "view", str(root), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", server.stdout.readline()).group(0)
        timings: dict[str, list[float]] = {"runs_list_first_paint_ms": [], "case_list_first_paint_ms": [],
                                          **{name: [] for name in ACTIONS}, "open_case_ms": []}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            cold = ready_ms(page, url + f"#/run?run={path.name}")  # the server reads the run on this first request
            for i in range(args.repeats):
                timings["runs_list_first_paint_ms"].append(ready_ms(page, url + f"&list={i}#/"))
                timings["case_list_first_paint_ms"].append(ready_ms(page, url + f"&run={i}#/run?run={path.name}"))
                for name, action in ACTIONS.items():
                    for _ in range(2):  # both ways (on, off), each timed
                        timings[name].append(page.evaluate(TIMED.replace("{action}", action)))
                timings["open_case_ms"].append(page.evaluate(OPEN_CASE))
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    result = {"cases": len(rows), "errors": sum(r.error is not None for r in rows), "repeats": args.repeats,
              "cpu": platform.processor() or cpu_name(), "cores": os.cpu_count(), "load_average": os.getloadavg()[0],
              "case_list_first_paint_cold_server_ms": cold, **{k: statistics.median(v) for k, v in timings.items()},
              "targets": {"first_paint_ms": 2000, "filter_ms": 300}, "when": time.strftime("%Y-%m-%d")}
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


def cpu_name() -> str:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").is_file() else ""
    return next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "?")


if __name__ == "__main__":
    main()
