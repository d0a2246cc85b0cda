"""Cost of the witnesses (#31.5), measured side by side in one run on the same balanced HaluBench dev cases:

1. the default court (every witness heard) against a rails judgment (one scored call a case): wall time per case and
   their ratio, the issue's budget being 1.5x;
2. the same court without the witnesses that look inside the model (lookback attention, hidden states): what the
   observed pass (eager attention on the answer's tokens, reduced in hooks) costs;
3. bfloat16 against float32 on this CPU (AVX-512 BF16, no AMX): wall time, and whether the verdicts and scores agree.

Each judge runs once over the cases after a warm-up case; the model is loaded once per dtype and shared.

Usage: python benchmarks/bench_witnesses.py --model qwen2.5-coder-0.5b --cases 30
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from courtroom.baselines import RailsJudge
from courtroom.courts import load_court
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.selection import select

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "halubench-dev.jsonl"
INSIDE = ("lookback", "hidden")


def timed(judge: Any, cases: list[Any], backend: TransformersBackend) -> tuple[float, list[Any]]:
    list(judge.run_many(cases[:1], backend))  # warm up: constraints compiled, weights touched
    start = time.perf_counter()
    outcomes = list(judge.run_many(cases, backend))
    return (time.perf_counter() - start) / len(cases), outcomes


def bench(model: str, n: int) -> dict[str, Any]:
    cases = select(load_file(DATA), limit=n, balanced=True, seed=0)
    report: dict[str, Any] = {"model": model, "cases": len(cases)}
    float32 = TransformersBackend(model, device="cpu", dtype="float32")
    court = load_court("default", window=8)
    heard = [w for w in court.spec.witnesses.heard if w not in INSIDE]
    outside = load_court("default", window=8, overrides={"witnesses.heard": heard})
    rails_s, _ = timed(RailsJudge(window=8), cases, TransformersBackend(loaded=float32.loaded))
    court_s, court_out = timed(court, cases, TransformersBackend(loaded=float32.loaded))
    outside_s, _ = timed(outside, cases, TransformersBackend(loaded=float32.loaded))
    bf16 = TransformersBackend(model, device="cpu", dtype="bfloat16")
    bf16_s, bf16_out = timed(load_court("default", window=8), cases, bf16)
    scores32 = np.array([o.verdict.score for o in court_out if o.verdict])
    scores16 = np.array([o.verdict.score for o in bf16_out if o.verdict])
    agree = sum(a.verdict.label == b.verdict.label for a, b in zip(court_out, bf16_out) if a.verdict and b.verdict)
    report["wall"] = {"rails_s_per_case": rails_s, "court_s_per_case": court_s, "court_over_rails": court_s / rails_s,
                      "court_without_inside_s_per_case": outside_s, "inside_witnesses_cost": court_s / outside_s,
                      "court_bf16_s_per_case": bf16_s, "bf16_over_float32": bf16_s / court_s}
    report["bf16"] = {"verdicts_agree": agree, "of": len(cases),
                      "score_correlation": float(np.corrcoef(scores32, scores16)[0, 1]) if len(scores32) > 2 else None,
                      "max_score_difference": float(np.abs(scores32 - scores16).max()) if len(scores32) else None}
    report["errors"] = sum(1 for o in court_out if not o.ok)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=None)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--out", default="benchmarks/results/witnesses.json")
    args = parser.parse_args()
    reports = [bench(model, args.cases) for model in (args.model or ["qwen2.5-coder-0.5b"])]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(reports, indent=2))
    print(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
