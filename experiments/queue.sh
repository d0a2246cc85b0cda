#!/usr/bin/env bash
# The whole experiment matrix, in the order that matters most, one run after another. Every run resumes
# where it stopped (a finished run is skipped), so re-running this script after an interruption continues
# the matrix. The vote has 5 voters, about the courtroom's tokens per case.
#   OMP_NUM_THREADS=1 nohup bash experiments/queue.sh > experiments/logs/queue.log 2>&1 &
set -u
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
run() { "$PY" experiments/run_matrix.py --limit 200 "$@" || echo "run failed: $*"; }
EVAL='experiments/results/qwen2.5-coder-0.5b/{dataset}-courtroom'   # the evaluation sample (seed 0), both models
# tuning runs of the default court, on dev cases disjoint from the evaluation samples (200 HaluBench, the 38
# RAGTruth cases a balanced sample leaves); experiments/dev/tune_court.py reads them. They were run live with
# the candidate court (-candidate) and re-decided under the shipped one with `courtroom rejudge`.
for model in qwen2.5-coder-0.5b default; do
  run --model $model --judges courtroom --datasets ragtruth halubench --tag tune-v2 --exclude "$EVAL"
done
run --model qwen2.5-coder-0.5b --judges rails --datasets halubench ragtruth --tag tune --exclude "$EVAL"
# the evaluations
run --model qwen2.5-coder-0.5b --judges courtroom rails single two-step per-context --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges vote --votes 5 --datasets halubench ragtruth
run --model default --judges courtroom rails single two-step per-context --datasets halubench ragtruth
run --model default --judges vote --votes 5 --datasets halubench ragtruth
run --model qwen2.5-coder-0.5b --judges unstructured --datasets halubench ragtruth
run --model default --judges unstructured --datasets halubench ragtruth
