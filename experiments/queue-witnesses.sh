#!/usr/bin/env bash
# The witness runs of #31 and #32, one after another (each resumes where it stopped; a finished run is skipped):
# the default court (every witness heard) on both dev files with each model. The 1.5B model is served by vLLM's CPU
# build (.venv-vllm, `make vllm`), which reports log-probabilities but not attention or hidden states: those witnesses
# are recorded as not heard.
#   nohup bash experiments/queue-witnesses.sh [qwen0.5b|smollm2|smollm2-words|qwen1.5b ...] > experiments/logs/queue-witnesses.log 2>&1 &
set -u
cd "$(dirname "$0")/.."
COURTROOM=${COURTROOM:-.venv/bin/courtroom}
DATA=${DATA:-../shared/data}
LANES=${*:-qwen0.5b smollm2 smollm2-words qwen1.5b}
run() { "$COURTROOM" run "$@" || echo "run failed: $*"; }

for lane in $LANES; do
  case $lane in
    qwen0.5b)
      R=experiments/results/qwen2.5-coder-0.5b
      run "$DATA/halubench-dev.jsonl" --model qwen2.5-coder-0.5b --out $R/halubench-witnesses
      run "$DATA/ragtruth-spans-dev.jsonl" --model qwen2.5-coder-0.5b --out $R/ragtruth-witnesses
      # every word's hidden state recorded, for the span model's word probe
      run "$DATA/ragtruth-spans-dev.jsonl" --model qwen2.5-coder-0.5b --set witnesses.word_states=true \
          --out $R/ragtruth-word-states ;;
    smollm2)
      R=experiments/results/default
      run "$DATA/halubench-dev.jsonl" --model default --out $R/halubench-witnesses
      run "$DATA/ragtruth-spans-dev.jsonl" --model default --out $R/ragtruth-witnesses ;;
    smollm2-words)
      # every word's hidden state recorded, for the word probe of SmolLM2's ruling
      R=experiments/results/default
      run "$DATA/ragtruth-spans-dev.jsonl" --model default --set witnesses.word_states=true --out $R/ragtruth-word-states
      run "$DATA/halubench-dev.jsonl" --model default --set witnesses.word_states=true --out $R/halubench-word-states ;;
    qwen1.5b)
      R=experiments/results/qwen2.5-coder-1.5b
      PORT=8015
      setsid .venv/bin/python -m tests.helpers.vllm_server qwen2.5-coder-1.5b qwen2.5-coder-1.5b $PORT \
          > experiments/logs/vllm-1.5b.log 2>&1 &
      SERVER=$!
      for _ in $(seq 1 180); do grep -q "^serving" experiments/logs/vllm-1.5b.log && break; sleep 10; done
      URL=http://127.0.0.1:$PORT/v1
      # balanced seeded samples of 200 per file (time: ~4 s a case on 2 CPU cores)
      run "$DATA/halubench-dev.jsonl" --model qwen2.5-coder-1.5b --model-url $URL --concurrency 8 \
          --request-timeout 1200 --limit 200 --balanced --out $R/halubench-witnesses
      run "$DATA/ragtruth-spans-dev.jsonl" --model qwen2.5-coder-1.5b --model-url $URL --concurrency 8 \
          --request-timeout 1200 --limit 200 --balanced --out $R/ragtruth-witnesses
      kill -- -"$SERVER" 2>/dev/null || kill "$SERVER" ;;
  esac
done
