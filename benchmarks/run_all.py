"""Run every benchmark in turn, each in a fresh process, and write the performance tables of docs/performance.md.

Usage: python benchmarks/run_all.py [--only door court served ray audit report view refit sentences negation] [--tables-only]

`refit` needs a run of the embedded model's default court at benchmarks/results/emb160 (`courtroom run
../shared/data/halueval-dev.jsonl --limit 160 --balanced --out benchmarks/results/emb160`, git-ignored) and a checkout
of the code to compare with at benchmarks/results/before.

Raw numbers land in benchmarks/results/*.json; the tables are printed, written to
benchmarks/results/TABLES.md, and replace the tables of docs/performance.md (between its markers).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "docs" / "performance.md"
"""The page whose tables `main` rewrites, between START and END."""
START, END = "<!-- performance:start -->", "<!-- performance:end -->"
COMMANDS = {
    "door": ["bench_door.py"],
    "court": ["bench_court.py", "--model", "default", "--model", "qwen2.5-coder-0.5b", "--cases", "30"],
    "served": ["bench_served.py", "--model", "qwen2.5-coder-0.5b", "--cases", "10"],
    "ray": ["bench_ray.py", "--cases", "48"],
    "audit": ["bench_audit.py", "--cases", "10000"],
    "report": ["bench_report.py", "--sizes", "100", "1000", "10000"],
    "view": ["bench_view.py", "--cases", "10000"],
    "refit": ["bench_refit.py", "--run", "benchmarks/results/emb160", "--before", "benchmarks/results/before"],
    "sentences": ["bench_sentences.py"],
    "witnesses": ["bench_witnesses.py", "--model", "qwen2.5-coder-0.5b", "--cases", "30"],
    "long_answers": ["bench_long_answers.py"],
    "negation": ["bench_negation.py"],
    "trial_texts": ["bench_trial_texts.py", "--model", "qwen2.5-coder-0.5b", "--cases", "12", "--reps", "1"],
    "dtype": ["bench_dtype.py", "--model", "default", "--dev", "30", "--out", "benchmarks/results/dtype-default.json"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=sorted(COMMANDS), default=list(COMMANDS))
    parser.add_argument("--tables-only", action="store_true", help="only rebuild the tables from results/")
    args = parser.parse_args()
    if not args.tables_only:
        for name in args.only:
            script, *rest = COMMANDS[name]
            print(f"== {name}: {script} {' '.join(rest)}", flush=True)
            subprocess.run([sys.executable, str(HERE / script), *rest], check=True, cwd=HERE.parent)
    sys.path.insert(0, str(HERE))
    from tables import render_tables

    text = render_tables(HERE / "results")
    (HERE / "results" / "TABLES.md").write_text(text)
    content = PAGE.read_text()
    if START in content and END in content:
        before, rest = content.split(START, 1)
        PAGE.write_text(before + START + "\n" + text + END + rest.split(END, 1)[1])
    print(text)


if __name__ == "__main__":
    main()
