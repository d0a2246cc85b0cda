#!/usr/bin/env bash
# The runs of #45, one after another (each resumes where it stopped; a finished run is skipped): the default court
# with every witness and every word's hidden state (as the `*-word-states` runs were made) on both dev files, with
# Qwen2.5-Coder-0.5B in process (float32), then SmolLM2-135M; then the default court on the HaluEval dialogue and
# summarization parts (`experiments/halueval_parts.py` writes them to $EXTRA), 0.5B first. Run directories go outside
# the repository ($RUNS), since fitting a ruling needs their transcripts.
#   OMP_NUM_THREADS=2 nohup nice -n 19 bash experiments/queue-estimate.sh [lane ...] > /work/logs/queue-estimate.log 2>&1 &
set -u
cd "$(dirname "$0")/.."
COURTROOM=${COURTROOM:-.venv/bin/courtroom}
DATA=${DATA:-../shared/data}
RUNS=${RUNS:-/work/runs}
EXTRA=${EXTRA:-/work/data-extra}
LANES=${*:-qwen0.5b smollm2 halueval-qwen0.5b halueval-smollm2}
run() { echo "$(date -u +%FT%TZ) start: $*"; "$COURTROOM" run "$@" || echo "run failed: $*"; echo "$(date -u +%FT%TZ) end"; }
words() { run "$@" --set witnesses.word_states=true; }

for lane in $LANES; do
  case $lane in
    qwen0.5b)
      words "$DATA/halubench-dev.jsonl" --model qwen2.5-coder-0.5b --dtype float32 --out $RUNS/qwen2.5-coder-0.5b/halubench-word-states
      words "$DATA/ragtruth-spans-dev.jsonl" --model qwen2.5-coder-0.5b --dtype float32 --out $RUNS/qwen2.5-coder-0.5b/ragtruth-word-states ;;
    smollm2)
      words "$DATA/halubench-dev.jsonl" --model default --out $RUNS/default/halubench-word-states
      words "$DATA/ragtruth-spans-dev.jsonl" --model default --out $RUNS/default/ragtruth-word-states ;;
    halueval-qwen0.5b|halueval-smollm2)
      [ "$lane" = halueval-qwen0.5b ] && M="qwen2.5-coder-0.5b --dtype float32" D=qwen2.5-coder-0.5b || M=default D=default
      for part in dialogue summarization; do
        if [ -f "$EXTRA/halueval-$part.jsonl" ]; then
          run "$EXTRA/halueval-$part.jsonl" --model $M --out $RUNS/$D/halueval-$part
        else echo "missing $EXTRA/halueval-$part.jsonl (experiments/halueval_parts.py writes it)"; fi
      done ;;
  esac
done
