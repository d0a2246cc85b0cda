"""What a trial costs when its texts are composed from pieces read off the case (#59), side by side in one run on the
same HaluBench dev cases (balanced, seed 0), every statement charged and tried (`full`, `indictment.threshold: 0`):

1. `trial.texts: composed` (the default: the pieces read by the model's likelihoods, nothing decoded);
2. `trial.texts: generated` (the same pieces, then one decoded sentence a move);
3. with `--before PATH`, the `full` court of an earlier checkout (795874c: texts and citations decoded), run as its
   own `courtroom run` on the same cases (its model load not counted: the rows' seconds are the model's).

Per court: model seconds a case (the rows' own), wall seconds a case (in process), model calls and generated tokens a
case, and each ratio to the first. The two in process share one loaded model and alternate, A B A B.

Usage: python benchmarks/bench_trial_texts.py --model qwen2.5-coder-0.5b --cases 20 [--before ../wt-base] [--reps 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from courtroom.courts import load_court
from courtroom.door.spec import BackendSpec
from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.results import summarize
from courtroom.evaluate.selection import select
from courtroom.log.audit import Audit

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "halubench-dev.jsonl"
EVERY = {"indictment.threshold": 0.0}


def in_process(court: Any, cases: list[Any]) -> dict[str, float]:
    start = time.perf_counter()
    rows = [summarize(o, "") for o in court.run_many(cases)]
    wall = time.perf_counter() - start
    return {"wall": wall / len(cases), "model": sum(r.seconds for r in rows) / len(cases),
            "calls": sum(r.model_calls for r in rows) / len(cases),
            "generated": sum(r.completion_tokens for r in rows) / len(cases),
            "errors": sum(r.error is not None for r in rows)}


def before(checkout: Path, model: str, dtype: str, cases: int) -> dict[str, float]:
    """The earlier checkout's `full` court, every statement charged, as a `courtroom run` of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "courtroom.cli", "run", str(DATA), "--court", "full", "--set",
                   "indictment.threshold=0", "--model", model, "--dtype", dtype, "--limit", str(cases), "--balanced",
                   "--out", str(Path(tmp) / "run")]
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        subprocess.run(command, cwd=checkout, env=env, check=True, stdout=subprocess.DEVNULL)
        rows = Audit(Path(tmp) / "run").rows()
    return {"model": sum(r.seconds for r in rows) / len(rows), "calls": sum(r.model_calls for r in rows) / len(rows),
            "generated": sum(r.completion_tokens for r in rows) / len(rows), "errors": sum(bool(r.error) for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--before", help="a checkout of an earlier commit whose `full` court is timed beside")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "trial_texts.json"))
    args = parser.parse_args()
    cases = select(load_file(DATA), limit=args.cases, balanced=True, seed=0)
    backend = BackendSpec(model=args.model, dtype=args.dtype).build()
    backend.prepare()
    courts = {texts: load_court("full", backend, overrides={**EVERY, "trial.texts": texts})
              for texts in ("composed", "generated")}
    seen: dict[str, list[dict[str, float]]] = {name: [] for name in courts}
    for _ in range(args.reps):
        for name, court in courts.items():
            seen[name].append(in_process(court, cases))
    result: dict[str, Any] = {"model": args.model, "dtype": args.dtype, "cases": len(cases), "reps": args.reps,
                              "cpu": next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text()
                                           .splitlines() if line.startswith("model name")), "unknown")}
    for name, runs in seen.items():
        result[name] = {key: sorted(run[key] for run in runs)[len(runs) // 2] for key in runs[0]}
    if args.before:
        result["before"] = before(Path(args.before), args.model, args.dtype, args.cases)
    base = result["composed"]
    for name in ("generated", "before"):
        if name in result:
            result[f"composed/{name}"] = {key: base[key] / result[name][key] for key in ("model", "calls")
                                          if result[name].get(key)}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
