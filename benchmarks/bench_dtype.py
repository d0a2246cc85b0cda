"""bfloat16 against float32 for the default court on this CPU (issue #43): the same cases judged in both, side by side
in one run, each dtype's model loaded once. Reports seconds per case in each and their ratio, and whether the verdicts
agree (labels, and how far the scores move).

The cases: the 20 shipped examples, and a balanced sample of HaluBench dev rows when `../shared/data` is beside the
repository (`--dev N`; the rows are read, never written). Cases are judged in chunks, each chunk in both dtypes, the
order swapped from chunk to chunk, so that a machine that gets busier during the run slows both alike.

Usage: python benchmarks/bench_dtype.py [--model default] [--dev 30] [--chunk 5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from courtroom.courts import load_court
from courtroom.door.devices import cpu_computes_bf16
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import example_cases, load_file
from courtroom.evaluate.selection import select

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "halubench-dev.jsonl"
DTYPES = ("float32", "bfloat16")


def side_by_side(cases: list[Any], backends: dict[str, TransformersBackend], chunk: int) -> dict[str, Any]:
    """Each chunk of cases judged by the default court in both dtypes (order swapped every chunk): seconds and
    outcomes per dtype."""
    seconds = dict.fromkeys(DTYPES, 0.0)
    outcomes: dict[str, list[Any]] = {dtype: [] for dtype in DTYPES}
    for k in range(0, len(cases), chunk):
        for dtype in DTYPES if (k // chunk) % 2 == 0 else DTYPES[::-1]:
            court = load_court("default", window=chunk)
            start = time.perf_counter()
            outcomes[dtype] += list(court.run_many(cases[k:k + chunk], backends[dtype]))
            seconds[dtype] += time.perf_counter() - start
    scores = {dtype: np.array([o.verdict.score if o.verdict else np.nan for o in outcomes[dtype]]) for dtype in DTYPES}
    labels = {dtype: [o.verdict.label if o.verdict else None for o in outcomes[dtype]] for dtype in DTYPES}
    both = ~np.isnan(scores["float32"]) & ~np.isnan(scores["bfloat16"])
    gold = [c.label for c in cases]
    return {
        "cases": len(cases),
        "s_per_case": {dtype: seconds[dtype] / len(cases) for dtype in DTYPES},
        "bf16_over_float32": seconds["bfloat16"] / seconds["float32"],
        "verdicts_agree": sum(a == b and a is not None for a, b in zip(labels["float32"], labels["bfloat16"])),
        "errors": {dtype: int(sum(o.verdict is None for o in outcomes[dtype])) for dtype in DTYPES},
        "max_score_difference": float(np.abs(scores["float32"] - scores["bfloat16"])[both].max()) if both.any() else None,
        "score_correlation": float(np.corrcoef(scores["float32"][both], scores["bfloat16"][both])[0, 1])
        if both.sum() > 2 else None,
        "correct": {dtype: sum(label == g for label, g in zip(labels[dtype], gold) if g is not None) for dtype in DTYPES},
    }


def bench(model: str, dev: int, chunk: int) -> dict[str, Any]:
    backends = {dtype: TransformersBackend(model, device="cpu", dtype=dtype) for dtype in DTYPES}
    loaded = {}
    for dtype, backend in backends.items():
        start = time.perf_counter()
        _ = backend.loaded
        loaded[dtype] = time.perf_counter() - start
    warm = example_cases()[:1]
    for backend in backends.values():  # constraints compiled, weights touched
        list(load_court("default").run_many(warm, backend))
    report: dict[str, Any] = {"model": model, "cpu_computes_bf16": cpu_computes_bf16(), "load_s": loaded,
                              "examples": side_by_side(example_cases(), backends, chunk)}
    if dev and DEV.is_file():
        report["halubench_dev"] = side_by_side(select(load_file(DEV), limit=dev, balanced=True, seed=0), backends, chunk)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="default")
    parser.add_argument("--dev", type=int, default=30, help="HaluBench dev cases (balanced), when the data is there")
    parser.add_argument("--chunk", type=int, default=5, help="Cases judged in one dtype before the other")
    parser.add_argument("--out", default="benchmarks/results/dtype.json")
    args = parser.parse_args()
    report = bench(args.model, args.dev, args.chunk)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
