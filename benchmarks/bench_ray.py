"""The Ray runner against the local runner (issue 6), side by side in one run, default model.

1. local runner vs Ray with one worker on the same cases (model loading included in both; the Ray
   cluster is started before timing, as an existing cluster would be): overhead ratio;
2. Ray with two workers (one CPU thread each) vs one worker (as many threads as the local runner);
3. the driver's own cost per chunk, measured with the scripted backend (no model), which bounds
   how far the runner scales before the driver becomes the bottleneck.

Usage: python benchmarks/bench_ray.py [--cases 48] [--judge single]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import ray

from courtroom.door import ScriptedBackend
from courtroom.door.spec import BackendSpec
from courtroom.engine.registry import judge_class
from courtroom.evaluate.datasets import example_cases
from courtroom.runs.ray_runner import RayRunner
from courtroom.runs.runners import LocalRunner


def timed(runner, judge, cases) -> tuple[float, list]:  # noqa: ANN001
    start = time.perf_counter()
    outcomes = list(runner.run(judge, cases))
    return time.perf_counter() - start, outcomes


def verdicts(outcomes) -> dict:  # noqa: ANN001
    return {o.case.id: (o.verdict.label, round(o.verdict.score, 6)) if o.verdict else None for o in outcomes}


def scripted(device: str) -> ScriptedBackend:
    def answer(request):
        spec = request.spec
        if spec.kind == "choice":
            return spec.options[0]
        return {"reasons": ["scripted"], "score": 0.25}
    return ScriptedBackend(answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=48)
    parser.add_argument("--judge", default="single")
    parser.add_argument("--out", default="benchmarks/results/ray.json")
    args = parser.parse_args()
    cases = (example_cases() * 10)[: args.cases]
    cases = [c.model_copy(update={"id": f"{c.id}-{i}"}) for i, c in enumerate(cases)]
    backend = BackendSpec(device="cpu")
    judge = judge_class(args.judge)(backend, window=8)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _system_config={"worker_niceness": 0})
    report: dict = {"cases": len(cases), "judge": args.judge, "model": "default"}
    # the local runner's threads (torch's default is the core count); the one Ray worker gets as many.
    # torch is not imported here: the local runner pays its import inside the timing, as a worker does
    threads = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)
    local_s, local = timed(LocalRunner(), judge, cases)
    one_s, one = timed(RayRunner(backend, workers=1, cpus_per_worker=threads, chunk_size=8), judge, cases)
    two_s, two = timed(RayRunner(backend, workers=2, cpus_per_worker=1, chunk_size=8), judge, cases)
    report["threads"] = threads
    report["local_s"] = local_s
    report["ray_1_worker_s"] = one_s
    report["ray_2_workers_s"] = two_s
    report["ray_overhead"] = one_s / local_s - 1
    report["two_over_one_speedup"] = one_s / two_s
    report["same_verdicts_local_vs_ray1"] = verdicts(local) == verdicts(one)
    report["same_verdicts_local_vs_ray2"] = verdicts(local) == verdicts(two)
    many = [c.model_copy(update={"id": f"driver-{i}"}) for i, c in enumerate(example_cases() * 20)]
    chunk = 8
    driver_s, _ = timed(RayRunner(workers=2, cpus_per_worker=1, chunk_size=chunk, backend_factory=scripted),
                        judge, many)
    report["scripted_cases"] = len(many)
    report["scripted_s"] = driver_s
    report["driver_ms_per_chunk"] = 1000 * driver_s / (len(many) / chunk)
    ray.shutdown()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
