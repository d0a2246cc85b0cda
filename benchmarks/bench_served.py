"""Served vs in-process, side by side in one run (issue 20): the same GGUF model, the same HaluBench dev cases.

For each judge (the default court and rails): cases per minute through the in-process transformers backend
(float32 on CPU) and through a vLLM server on this machine (its CPU build, bfloat16, continuous batching,
prefix caching, serving courtroom's dequantized copy of the GGUF), and how often the two agree on the
verdict. The server is started and stopped here; its start-up time is reported, not counted.

Usage: python benchmarks/bench_served.py --model qwen2.5-coder-0.5b --cases 10 [--in-process-cases 10]
       python benchmarks/bench_served.py --model qwen2.5-coder-1.5b --cases 10 --in-process-cases 0
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from courtroom.baselines import RailsJudge  # noqa: E402
from courtroom.courts import load_court  # noqa: E402
from courtroom.door.served import ServedBackend  # noqa: E402
from courtroom.door.transformers import TransformersBackend  # noqa: E402
from courtroom.evaluate.datasets import load_file  # noqa: E402
from courtroom.evaluate.selection import select  # noqa: E402
from tests.helpers import vllm_server  # noqa: E402

DATA = HERE.parents[1] / "shared" / "data" / "halubench-dev.jsonl"
JUDGES = {"court": lambda backend: load_court("full", backend), "rails": lambda backend: RailsJudge(backend)}


def timed(judge, cases) -> tuple[float, list]:  # noqa: ANN001
    start = time.perf_counter()
    outcomes = list(judge.run_many(cases))
    return time.perf_counter() - start, outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--in-process-cases", type=int, default=None, help="cases for the in-process path "
                                                                           "(default: --cases; 0 skips it)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--port", type=int, default=8031)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    cases = select(load_file(DATA), limit=args.cases, balanced=True, seed=1)
    local_cases = cases[: args.cases if args.in_process_cases is None else args.in_process_cases]
    report: dict = {"model": args.model, "cases": len(cases), "in_process_cases": len(local_cases)}
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = vllm_server.servable_copy(args.model, Path(tmp))
        python = vllm_server.vllm_python()
        assert python, "no vLLM environment (make vllm)"
        start = time.perf_counter()
        server = vllm_server.start(python, model_dir, args.model, args.port, Path(tmp) / "vllm.log")
        report["server_start_s"] = time.perf_counter() - start
        try:
            served = ServedBackend(f"http://127.0.0.1:{args.port}/v1", args.model, concurrency=args.concurrency)
            served.prepare()
            served_runs = {name: timed(make(served), cases) for name, make in JUDGES.items()}
        finally:
            vllm_server.stop(server)
    local = TransformersBackend(args.model, device="cpu")
    local.prepare()
    local_runs = {name: timed(make(local), local_cases) for name, make in JUDGES.items()} if local_cases else {}
    for name in JUDGES:
        served_s, served_out = served_runs[name]
        row = {"served_cases_per_min": 60 * len(cases) / served_s, "served_s_per_case": served_s / len(cases),
               "served_errors": sum(o.verdict is None for o in served_out),
               "served_parse_failures": sum(o.verdict.parse_failures for o in served_out if o.verdict)}
        if name in local_runs:
            local_s, local_out = local_runs[name]
            verdicts = {o.case.id: o.verdict for o in served_out}
            pairs = [(verdicts[o.case.id], o.verdict) for o in local_out if o.verdict and verdicts.get(o.case.id)]
            row |= {"in_process_cases_per_min": 60 * len(local_cases) / local_s,
                    "in_process_s_per_case": local_s / len(local_cases),
                    "speedup": (60 * len(cases) / served_s) / (60 * len(local_cases) / local_s),
                    "verdict_agreement": sum(a.label == b.label for a, b in pairs) / len(pairs)}
        report[name] = row
    out = Path(args.out or HERE / "results" / f"served-{args.model}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
