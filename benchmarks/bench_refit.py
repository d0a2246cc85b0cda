"""The refit of `courtroom view` at scale (issue 60): a run of the embedded model's default court (its testimony and the
vectors of its pass, as a real run records them) labelled by 30 of its cases' gold in the page's API, then the refit,
timed from the click to the table drawn, in headless Chromium, at 160 cases and at 10,000 (the 160 cases copied under
new ids); beside it the refit of the code before (`--before DIR`: a checkout of it, its refit function called on the
same labels, at 160 cases: at 10,000 it decides the whole run again, for minutes). Then one open page on a run being
written (10,000 cases listed, a case appended every 50 ms): the CPU the view's server takes, by its own clock, over a
minute, now and before.

Usage: python benchmarks/bench_refit.py --run RUN_DIR [--before DIR] [--dir /tmp/courtroom-refit-bench]
RUN_DIR: a run of the default court with the embedded model, e.g. `courtroom run data/halueval-dev.jsonl --limit 160
--balanced --out RUN_DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_view import cpu_name  # noqa: E402

from courtroom.case import Case
from courtroom.log.audit import Audit
from courtroom.log.manifest import CaseDigests
from courtroom.log.store import transcript_name

PRIOR = "rulings/default.smollm2-135m.yaml"
LABELS = 30
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
        "--disable-component-update", "--disable-sync"]
CLICK = ("async () => { const t = performance.now(); document.getElementById('refit-button').click(); "
         "while (document.getElementById('refit').dataset.state !== 'done') await new Promise(r => setTimeout(r, 5)); "
         "document.body.offsetHeight; return performance.now() - t; }")
BEFORE = """
import sys, time
from pathlib import Path
import courtroom
print(courtroom.__file__)
from courtroom.view.refit import refit
t = time.perf_counter()
refit(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
print(time.perf_counter() - t)
"""


def copied(source: Path, out: Path, cases: int, rows: int | None = None) -> Path:
    """A run of `cases` cases: the source's, each copied under new ids (`ID~k`), its manifest listing all of them;
    with `rows`, only the first `rows` judged (the run then goes on being written: `appended`)."""
    if (out / "manifest.json").is_file() and rows is None and len(Audit(out).rows()) == cases:
        return out
    shutil.rmtree(out, ignore_errors=True)
    (out / "transcripts").mkdir(parents=True)
    audit = Audit(source)
    made, lines = [], []
    for k in range(-(-cases // len(audit.rows()))):
        for row in audit.rows():
            if len(made) == cases:
                break
            new = f"{row.case_id}~{k}" if k else row.case_id
            text = audit.store.transcript_path(row.case_id).read_text().replace(f'"{row.case_id}"', json.dumps(new))
            (out / "transcripts" / transcript_name(new)).write_text(text)
            case = Case.model_validate_json(json.dumps(json.loads(text.partition("\n")[0])["case"]))
            made.append(case)
            lines.append(row.model_copy(update={"case_id": new, "transcript": f"transcripts/{transcript_name(new)}",
                                                "case_digest": case.digest()}).model_dump_json() + "\n")
    manifest = audit.manifest.model_copy(update={"name": out.name, "cases": CaseDigests.of(made)})
    (out / "manifest.json").write_text(manifest.model_dump_json(indent=2))
    (out / "results.jsonl").write_text("".join(lines[:rows]))
    (out / "all-rows.jsonl").write_text("".join(lines))
    return out


def appended(run: Path, every: float, stop: threading.Event) -> None:
    """The rest of the run's rows appended, one every `every` seconds, as a run writes them."""
    rest = (run / "all-rows.jsonl").read_text().splitlines(keepends=True)[len(Audit(run).rows()):]
    with (run / "results.jsonl").open("a") as handle:
        for line in rest:
            if stop.wait(every):
                return
            handle.write(line)
            handle.flush()


def serve(root: Path, python: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([python, "-m", "courtroom.cli", "view", str(root), "--port", "0", "--prior", PRIOR,
                               "--n", str(LABELS)], stdout=subprocess.PIPE, text=True, env=env, cwd=root)  # not here:
    # `-m` puts the working directory first on the path
    return server, re.search(r"http://\S+", server.stdout.readline()).group(0)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def refit_now(root: Path, run: Path, browser) -> dict[str, float]:  # noqa: ANN001
    """Label 30 cases by their gold through the page's API, open the label screen, click refit: ms to the table."""
    server, url = serve(root, sys.executable, dict(os.environ))
    try:
        token = url.split("token=")[1]
        api = httpx.Client(base_url=url.split("/?")[0], headers={"x-courtroom-token": token}, timeout=600)
        start = time.perf_counter()
        order = api.get("/api/label", params={"run": run.name}).json()["order"]
        opened = time.perf_counter() - start
        gold = {r.case_id: r.gold for r in Audit(run).rows()}
        for c in order[:LABELS]:
            api.post("/api/label", params={"run": run.name}, json={"case": c["id"], "key": "h" if gold[c["id"]] == "FAIL" else "f"})
            start = time.perf_counter()
            estimate = api.get("/api/estimate", params={"run": run.name}).json()
        estimate_ms = (time.perf_counter() - start) * 1000  # the live estimate after the 30th label
        page = browser.new_page()
        page.goto(url + f"#/label?run={run.name}")
        page.wait_for_selector("body[data-ready='1']", timeout=600_000)
        took = page.evaluate(CLICK)
        flips = page.locator("ul.flipped li").count()
        page.close()  # the run decided again is written in the background: not waited for
        return {"click_to_table_ms": round(took), "estimate_after_a_label_ms": round(estimate_ms),
                "label_screen_opened_s": round(opened, 2), "flipped": flips, "estimate_flipped": estimate["flipped"]}
    finally:
        server.terminate()
        server.wait(30)


def before_env(before: str) -> dict[str, str]:
    """The environment that runs the code of the checkout `before` (its personas too)."""
    return {**os.environ, "PYTHONPATH": f"{before}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "COURTROOM_WORKTREE": before}


def refit_before(before: str, run: Path) -> float:
    """The refit of the code before on the same labels (exported to the label file it read), in seconds."""
    csv = run.parent / f"{run.name}.labels.csv"
    subprocess.run([sys.executable, "-m", "courtroom.cli", "label", str(run), "--n", str(LABELS), "--ruling", PRIOR,
                    "--write", str(csv)], check=True, capture_output=True)
    out = subprocess.run([sys.executable, "-c", BEFORE, str(run), str(csv), PRIOR], capture_output=True, text=True,
                         env=before_env(before), check=True, cwd=run.parent)
    where, *_, seconds = out.stdout.strip().splitlines()
    assert where.startswith(str(Path(before).resolve())), where  # the code before ran, not this
    return float(seconds)


def page_cpu(root: Path, run: Path, python: str, env: dict[str, str], browser, seconds: float) -> float:  # noqa: ANN001
    """The share of a core the view's server takes while one page shows the run being written."""
    server, url = serve(root, python, env)
    stop = threading.Event()
    try:
        page = browser.new_page()
        page.goto(url + f"#/run?run={run.name}")
        page.wait_for_selector("body[data-ready='1']", timeout=600_000)
        time.sleep(3)
        writer = threading.Thread(target=appended, args=(run, 0.05, stop))
        writer.start()
        used, start = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        share = (cpu_seconds(server.pid) - used) / (time.monotonic() - start)
        stop.set()
        writer.join()
        page.close()
        return round(share, 4)
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", required=True)
    parser.add_argument("--before", help="a checkout of the code before, for the same measures side by side")
    parser.add_argument("--dir", default="/tmp/courtroom-refit-bench")
    parser.add_argument("--cases", type=int, nargs="+", default=[160, 10_000])
    parser.add_argument("--before-cases", type=int, default=160, help="the code before refits this size alone: its "
                        "refit decides the whole run again (minutes at 10,000)")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--out", default="benchmarks/results/refit.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(args.dir)
    result: dict[str, object] = {"cpu": platform.processor() or cpu_name(), "cores": os.cpu_count(),
                                 "load_average_before": os.getloadavg()[0], "when": time.strftime("%Y-%m-%d")}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
        for cases in args.cases:
            run = copied(Path(args.run), root / f"refit-{cases}" / f"run-{cases}", cases)
            for path in [run / "judgements.jsonl", *run.parent.glob(f"{run.name}.*")]:
                shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
            now = refit_now(run.parent, run, browser)
            if args.before and cases <= args.before_cases:
                now["before_refit_s"] = round(refit_before(args.before, run), 2)
            result[f"refit_{cases}"] = now
        live = root / "live"
        for name, env in [("now", dict(os.environ))] + ([("before", before_env(args.before))] if args.before else []):
            run = copied(Path(args.run), live / "run-live", 10_000, rows=5_000)
            result[f"page_cpu_core_share_{name}"] = page_cpu(live, run, sys.executable, env, browser, args.seconds)
        browser.close()
    result["load_average_after"] = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
