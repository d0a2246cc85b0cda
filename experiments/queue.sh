#!/usr/bin/env bash
# The whole experiment matrix, one run after another, in two lanes that can run side by side (one per
# core): `qwen` (Qwen2.5-Coder-0.5B, the model of the issue's target) and `default` (SmolLM2-135M). Every
# run resumes where it stopped and a finished run is skipped, so re-running a lane after an interruption
# continues it; a run that another process is writing is refused by its lock and skipped.
#   OMP_NUM_THREADS=1 nohup bash experiments/queue.sh qwen > experiments/logs/queue-qwen.log 2>&1 &
#   OMP_NUM_THREADS=1 nohup bash experiments/queue.sh default > experiments/logs/queue-default.log 2>&1 &
# The vote is token-matched: as many voters as the court's tokens per case buy single judgments (Qwen: 5 on
# HaluBench, 3,616 vs 4,313 tokens; 7 on RAGTruth, 7,510 vs 7 x 1,049).
set -u
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
LANE=${1:-all}
run() { "$PY" experiments/run_matrix.py --limit 200 "$@" || echo "run failed: $*"; }

if [ "$LANE" = qwen ] || [ "$LANE" = all ]; then
  M=qwen2.5-coder-0.5b
  run --model $M --judges courtroom two-step --datasets halubench ragtruth
  run --model $M --judges rails single per-context --datasets halubench ragtruth
  run --model $M --judges vote --votes 5 --datasets halubench
  run --model $M --judges vote --votes 7 --datasets ragtruth   # the court spends ~7 single judgments' tokens there
  run --model $M --judges unstructured --datasets halubench ragtruth
fi
if [ "$LANE" = default ] || [ "$LANE" = all ]; then
  M=default
  run --model $M --judges courtroom single two-step rails --datasets halubench ragtruth
  run --model $M --judges unstructured per-context --datasets halubench ragtruth
  run --model $M --judges vote --votes 5 --datasets halubench   # 5 x 896 tokens vs the court's 3,796
  run --model $M --judges vote --votes 7 --datasets ragtruth    # 7 x 1,097 vs 7,422
fi
# The tuning runs behind the shipped court (cases disjoint from the evaluation samples: 200 HaluBench and
# the 38 RAGTruth cases a balanced sample leaves) were made with
#   run --model M --judges courtroom --datasets ragtruth halubench --tag tune-v2 --exclude \
#       'experiments/results/qwen2.5-coder-0.5b/{dataset}-courtroom'
# and are read by experiments/dev/tune_court.py.
