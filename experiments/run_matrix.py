"""Run a matrix of judges x datasets with one model, each into its own resumable run directory.

    python experiments/run_matrix.py --model qwen2.5-coder-0.5b --judges rails single two-step \\
        --datasets halubench ragtruth --limit 200

A tuning run on cases disjoint from the evaluation sample (`{dataset}`, `{judge}`, `{model}` expand):

    python experiments/run_matrix.py --model qwen2.5-coder-0.5b --judges courtroom --datasets halubench \\
        --limit 120 --exclude 'experiments/results/{model}/{dataset}-courtroom' --tag tune

Interrupt at any time; the same command resumes every run where it stopped. Runs land in
experiments/results/<model>/<dataset>-<judge>[-<tag>]/ (results.jsonl and manifest.json are
committed; transcripts, which hold the datasets' text, are not).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from courtroom.errors import CourtroomError
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.manifest import RunSpec
from courtroom.runs.start import start_run

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DATASETS = {"halubench": DATA / "halubench-dev.jsonl", "ragtruth": DATA / "ragtruth-dev.jsonl",
            "halueval": DATA / "halueval-dev.jsonl"}
RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="default")
    parser.add_argument("--judges", nargs="+", default=["rails", "single", "two-step"])
    parser.add_argument("--datasets", nargs="+", default=["halubench", "ragtruth"])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--court", default="full")
    parser.add_argument("--votes", type=int, default=None)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--exclude", nargs="*", default=[],
                        help="leave out the cases of these runs (e.g. tune on cases disjoint from the evaluation run)")
    parser.add_argument("--tag", default="", help="suffix of the run directory names (e.g. a court variant)")
    args = parser.parse_args()
    for dataset in args.datasets:
        for judge in args.judges:
            options = {"votes": args.votes} if judge == "vote" and args.votes else {}
            spec = RunSpec.build(str(DATASETS[dataset]), limit=args.limit, balanced=True, seed=args.seed,
                           judge=judge, court=args.court, model=args.model, window=args.window,
                           exclude=[e.format(dataset=dataset, judge=judge, model=args.model) for e in args.exclude],
                           judge_options=options)
            name = f"{dataset}-{judge}" + (f"-{args.tag}" if args.tag else "")
            out = RESULTS / args.model / name
            try:
                run = start_run(spec, out)
            except CourtroomError as exc:  # e.g. a finished run of an older configuration: go on with the rest
                print(f"[{time.strftime('%H:%M:%S')}] {name}: skipped: {exc}", flush=True)
                continue
            remaining = len(run.remaining)
            print(f"[{time.strftime('%H:%M:%S')}] {name}: {remaining} of {len(run.cases)} cases to judge", flush=True)
            start = time.time()
            rows = run.execute(lambda row: print(f"  {row.case_id} {row.gold} -> {row.label} "
                                                 f"({row.score if row.score is None else round(row.score, 3)}) "
                                                 f"{row.seconds:.1f}s {row.error or ''}", flush=True))
            m = compute_metrics(rows)
            print(f"[{time.strftime('%H:%M:%S')}] {name}: done in {time.time() - start:.0f}s; balanced accuracy "
                  f"{m.balanced_accuracy}, AUROC {m.auroc}", flush=True)
            (out / "metrics.json").write_text(json.dumps(m.model_dump(), indent=2))


if __name__ == "__main__":
    main()
