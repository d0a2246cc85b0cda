#!/usr/bin/env bash
# The whole experiment matrix, in the order that matters most, one run after another. Every run resumes
# where it stopped, so re-running this script after an interruption continues the matrix. The vote has
# 5 voters: the courtroom reads ~3,960 prompt+completion tokens per HaluBench case, a single judge ~810.
#   OMP_NUM_THREADS=1 nohup bash experiments/queue.sh > experiments/logs/queue.log 2>&1 &
set -u
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
run() { "$PY" experiments/run_matrix.py --limit 200 "$@" || echo "run failed: $*"; }
run --model qwen2.5-coder-0.5b --judges courtroom --datasets halubench ragtruth
# the tuning run on which the default court's verdict threshold was chosen: HaluBench dev cases disjoint
# from the evaluation sample (experiments/dev/tune_court.py reads it)
run --model qwen2.5-coder-0.5b --judges courtroom --datasets halubench --tag tune \
    --exclude 'experiments/results/{model}/{dataset}-courtroom'
run --model qwen2.5-coder-0.5b --judges rails --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges vote --votes 5 --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges single two-step --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges unstructured --datasets halubench ragtruth
run --model default --judges courtroom rails single two-step unstructured --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges per-context --datasets halubench ragtruth
