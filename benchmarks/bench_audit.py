"""Audit at scale (issue 7): a run directory of 10,000 synthetic cases, judged by the real court
engine on the scripted backend, then `courtroom audit RUN_DIR` and `courtroom audit show` timed as
whole commands (a fresh process each, as a user runs them).

Usage: python benchmarks/bench_audit.py [--cases 10000] [--dir /tmp/courtroom-audit-bench]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from courtroom.case import Case
from courtroom.courts import load_court
from courtroom.door import Scored, ScriptedBackend
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.manifest import Manifest, RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner

WORDS = ("lighthouse harbour keeper lamp granite estuary museum cottage signal storm tide beacon ship coast rock "
         "winter summer island channel north south").split()


def synthetic_cases(n: int, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        year = rng.randint(1800, 2000)
        context = [" ".join(rng.choices(WORDS, k=12)).capitalize() + f" in {year}." for _ in range(rng.randint(3, 8))]
        answer = f"It happened in {year if rng.random() < 0.5 else year + 7}. " + " ".join(rng.choices(WORDS, k=8)) + "."
        label = "PASS" if str(year) in answer else "FAIL"
        cases.append(Case(id=f"synthetic-{i:05d}", question="When did it happen?", context=context, answer=answer,
                          label=label, source=f"synthetic/{['a', 'b', 'c'][i % 3]}"))
    return cases


def script(request):  # a deterministic stand-in for the model
    spec = request.spec
    prompt = request.messages[-1].content
    h = sum(map(ord, prompt[-200:])) % 100 / 100
    if spec.kind == "choice" and len(spec.options) == 1:  # a grounding measurement of an answer sentence
        [sentence] = spec.options
        years = [w.strip(".") for w in sentence.split() if w.strip(".").isdigit()]
        grounded = "CONTEXT:" in prompt and all(y in prompt.split("QUESTION:")[0] for y in years)
        if sum(map(ord, sentence)) % 10 == 0:  # the stand-in errs on a tenth of the sentences
            grounded = not grounded
        return Scored({sentence: (-1.0 if grounded else -3.0) * len(sentence.split())})
    if spec.kind == "choice":
        first, second = spec.options[0], spec.options[1]
        if "ANSWER SENTENCE" in prompt:
            return {"yes": 0.9 if "happened" in prompt else 0.1, "no": 0.1 if "happened" in prompt else 0.9}
        return {first: 0.3 + 0.4 * h, second: 0.7 - 0.4 * h}
    fields = {name: "synthetic argument" for name in spec.output_type.model_fields}
    if "evidence" in fields:
        fields["evidence"] = 1
    return fields


def build(root: Path, n: int) -> None:
    spec = RunSpec.build("synthetic", judge="courtroom", window=16)
    judge = load_court("full", window=16)
    store = RunStore(root)
    store.write_manifest(Manifest(name=root.name, spec=spec, judge=judge.config(), config_hash=judge.config_hash()))
    start = time.perf_counter()
    for outcome in LocalRunner(ScriptedBackend(script)).run(judge, synthetic_cases(n)):
        store.write(outcome)
    rows = store.rows()
    (root / "metrics.json").write_text(compute_metrics(rows).model_dump_json(indent=2))
    print(f"built {len(rows)} cases in {time.perf_counter() - start:.0f} s", flush=True)


def timed_command(args: list[str], repeats: int) -> dict[str, float]:
    """Wall and CPU seconds of a whole command in a fresh process (CPU time is what the command itself
    costs; wall time also holds whatever else the machine is doing)."""
    times, cpu = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "courtroom.cli", *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"min_s": min(times), "median_s": statistics.median(times), "max_s": max(times),
            "median_cpu_s": statistics.median(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--dir", default="/tmp/courtroom-audit-bench")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="benchmarks/results/audit.json")
    args = parser.parse_args()
    root = Path(args.dir)
    if not (root / "results.jsonl").is_file() or len(RunStore(root).rows()) != args.cases:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        build(root, args.cases)
    report = {
        "cases": args.cases,
        "summary": timed_command(["audit", str(root)], args.repeats),
        "show": timed_command(["audit", "show", str(root), f"synthetic-{args.cases // 2:05d}"], args.repeats),
        "list_wrong": timed_command(["audit", "list", str(root), "--wrong"], args.repeats),
        "targets": {"summary_s": 2.0, "show_s": 0.5},
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
