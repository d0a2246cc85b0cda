"""Benchmarks of the model door (issue 2), measured side by side in one run on the default model.

1. constrained vs unconstrained decoding of the same prompts and the same number of tokens:
   seconds per generated token, per constraint engine (compilation excluded);
2. constraint compilation, cold (fresh engine) vs cached, per engine;
3. a lockstep batch of 8 cases vs the same 8 cases one at a time: cases per second;
4. loading the default model: first load (GGUF dequantization) vs cached safetensors.

Usage: python benchmarks/bench_door.py [--model default] [--out benchmarks/results/door.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from courtroom.baselines import SingleJudge, SingleJudgment
from courtroom.door.constraints import ENGINES, ConstraintCompiler
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import example_cases


def decode_cost(backend: TransformersBackend, requests: list) -> tuple[float, int]:
    """Decode seconds and generated tokens for a set of requests served one at a time."""
    before_s, before_t = backend.stats.decode_seconds, backend.stats.generated_tokens
    for request in requests:
        backend.generate([request])
    return backend.stats.decode_seconds - before_s, backend.stats.generated_tokens - before_t


def bench_constraint_overhead(base: TransformersBackend, cases: list, repeats: int) -> dict:
    judge = SingleJudge(base)
    results = {}
    for engine in ENGINES:
        backend = TransformersBackend(loaded=base.loaded, engine=engine, prefix_cache=False)
        constrained = [judge.request(c) for c in cases]
        backend.generate(constrained[:1])  # compile outside the measurement
        lengths = [backend.generate_one(r).completion_tokens for r in constrained]
        free = [r.model_copy(update={"constrained": False,
                                     "sampling": r.sampling.model_copy(update={"max_new_tokens": n})})
                for r, n in zip(constrained, lengths)]
        per_token_c, per_token_u = [], []
        for _ in range(repeats):
            s, t = decode_cost(backend, constrained)
            per_token_c.append(s / t)
            s, t = decode_cost(backend, free)
            per_token_u.append(s / t)
        c, u = statistics.median(per_token_c), statistics.median(per_token_u)
        results[engine] = {"constrained_ms_per_token": 1000 * c, "unconstrained_ms_per_token": 1000 * u,
                           "ratio": c / u, "tokens_per_case": statistics.mean(lengths)}
    return results


def bench_compilation(base: TransformersBackend) -> dict:
    from courtroom.door import constraints

    spec = SingleJudge(base).request(example_cases()[0]).spec
    results = {}
    for engine in ENGINES:
        constraints.clear_compiled()
        start = time.perf_counter()
        compiler = ConstraintCompiler(base.loaded.model, base.loaded.tokenizer, engine, fingerprint="bench")
        compiler.processor(spec.key, spec.schema)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(100):
            compiler.processor(spec.key, spec.schema)
        cached = (time.perf_counter() - start) / 100
        results[engine] = {"cold_s": cold, "cached_s": cached, "cached_over_cold": cached / cold}
    constraints.clear_compiled()
    return results


def bench_batching(base: TransformersBackend, cases: list) -> dict:
    """The same 8 cases as one lockstep batch and one at a time (greedy, so verdicts must agree)."""
    batched_backend, single_backend = (TransformersBackend(loaded=base.loaded) for _ in range(2))
    judge_batched = SingleJudge(batched_backend, window=len(cases))
    judge_single = SingleJudge(single_backend, window=1)
    list(judge_batched.run_many(cases[:1]))  # warm up (compile)
    batched_backend.stats.__init__()
    start = time.perf_counter()
    batched = [o.verdict for o in judge_batched.run_many(cases)]
    t_batched = time.perf_counter() - start
    start = time.perf_counter()
    single = [o.verdict for o in judge_single.run_many(cases)]
    t_single = time.perf_counter() - start
    same = [b.model_dump() == s.model_dump() for b, s in zip(batched, single)]
    b, s = batched_backend.stats, single_backend.stats
    return {"cases": len(cases), "batched_s": t_batched, "sequential_s": t_single,
            "throughput_ratio": t_single / t_batched, "identical_verdicts": sum(same),
            "prefill_s": {"batched": b.prefill_seconds, "sequential": s.prefill_seconds},
            "decode_s": {"batched": b.decode_seconds, "sequential": s.decode_seconds},
            "decode_throughput_ratio": s.decode_seconds / b.decode_seconds,
            "decode_steps": {"batched": b.decode_steps, "sequential": s.decode_steps},
            "generated_tokens": b.generated_tokens, "prompt_tokens": b.prompt_tokens}


LOAD_PROBE = """
import time
start = time.perf_counter()
import torch, transformers
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM, LlamaTokenizerFast
import transformers.modeling_utils, transformers.core_model_loading
imports = time.perf_counter() - start
from courtroom.door.models import load_model
start = time.perf_counter()
lm = load_model("default", device="cpu")
print(imports, time.perf_counter() - start)
"""


def bench_load() -> dict:
    """Load the default model in fresh processes with an empty cache: the first load dequantizes the GGUF,
    the later ones read the cached safetensors. The library imports every process pays once (torch,
    transformers and the modules transformers imports lazily) are timed apart from the load itself."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "COURTROOM_CACHE_DIR": cache}

        def run() -> tuple[float, float]:
            out = subprocess.run([sys.executable, "-c", LOAD_PROBE], env=env, capture_output=True, text=True,
                                 check=True).stdout.strip().splitlines()[-1]
            imports, load = map(float, out.split())
            return imports, load

        first = run()
        later = [run() for _ in range(3)]
    return {"first_load_s": first[1], "cached_load_s": statistics.median(t[1] for t in later),
            "library_imports_s": statistics.median(t[0] for t in later),
            "note": "load_model() in a fresh process after importing torch and transformers' model-loading modules"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="default")
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--out", default="benchmarks/results/door.json")
    args = parser.parse_args()
    base = TransformersBackend(args.model, device="cpu")
    cases = example_cases()[: args.cases]
    report = {"model": args.model, "torch_threads": __import__("torch").get_num_threads(),
              "schema": SingleJudgment.__name__}
    report["constraint_overhead"] = bench_constraint_overhead(base, cases[:4], args.repeats)
    report["compilation"] = bench_compilation(base)
    report["batching"] = bench_batching(base, cases)
    if not args.skip_load:
        report["load"] = bench_load()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
