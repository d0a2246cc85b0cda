#!/usr/bin/env bash
# The witness runs of #31 and #32, one after another (each resumes where it stopped; a finished run is skipped):
# the default court (every witness heard) on both dev files with each model, and the pointing court (span trial) on
# RAGTruth with Qwen2.5-Coder-0.5B and with the 1.5B model served. The 1.5B model is served by vLLM's CPU build (.venv-vllm, `make vllm`), which
# reports log-probabilities but not attention or hidden states: those witnesses are recorded as not heard.
#   nohup bash experiments/queue-witnesses.sh [qwen0.5b|smollm2|pointing|qwen1.5b ...] > experiments/logs/queue-witnesses.log 2>&1 &
set -u
cd "$(dirname "$0")/.."
COURTROOM=${COURTROOM:-.venv/bin/courtroom}
DATA=${DATA:-../shared/data}
LANES=${*:-qwen0.5b smollm2 smollm2-words pointing qwen1.5b pointing1.5b}
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
    pointing)
      R=experiments/results/qwen2.5-coder-0.5b
      # spans are scored on hallucinated answers only: the trial runs on the 124 FAIL rows (a copy outside the repo)
      FAILS=${TMPDIR:-/tmp}/ragtruth-spans-fail.jsonl
      .venv/bin/python -c "import json,sys; sys.stdout.writelines(l for l in open(sys.argv[1]) if json.loads(l)['label'] == 'FAIL')" \
          "$DATA/ragtruth-spans-dev.jsonl" > "$FAILS"
      run "$FAILS" --model qwen2.5-coder-0.5b --court pointing --dtype bfloat16 --out $R/ragtruth-pointing ;;
    qwen1.5b|pointing1.5b)
      R=experiments/results/qwen2.5-coder-1.5b
      PORT=8015
      setsid .venv/bin/python -m tests.served.vllm_server qwen2.5-coder-1.5b qwen2.5-coder-1.5b $PORT \
          > experiments/logs/vllm-1.5b.log 2>&1 &
      SERVER=$!
      for _ in $(seq 1 180); do grep -q "^serving" experiments/logs/vllm-1.5b.log && break; sleep 10; done
      URL=http://127.0.0.1:$PORT/v1
      if [ "$lane" = pointing1.5b ]; then
        # the span trial on the 124 FAIL rows (as the pointing lane), the 1.5B model served
        FAILS=${TMPDIR:-/tmp}/ragtruth-spans-fail.jsonl
        .venv/bin/python -c "import json,sys; sys.stdout.writelines(l for l in open(sys.argv[1]) if json.loads(l)['label'] == 'FAIL')" \
            "$DATA/ragtruth-spans-dev.jsonl" > "$FAILS"
        # ~1 min a case on 2 CPU cores: POINTING_LIMIT=30 tries the first 30 rows
        run "$FAILS" --model qwen2.5-coder-1.5b --model-url $URL --concurrency 8 --request-timeout 1200 \
            --court pointing ${POINTING_LIMIT:+--limit $POINTING_LIMIT} --out $R/ragtruth-pointing
        kill -- -"$SERVER" 2>/dev/null || kill "$SERVER"
        continue
      fi
      # balanced seeded samples of 200 per file (time: ~4 s a case on 2 CPU cores)
      run "$DATA/halubench-dev.jsonl" --model qwen2.5-coder-1.5b --model-url $URL --concurrency 8 \
          --request-timeout 1200 --limit 200 --balanced --out $R/halubench-witnesses
      run "$DATA/ragtruth-spans-dev.jsonl" --model qwen2.5-coder-1.5b --model-url $URL --concurrency 8 \
          --request-timeout 1200 --limit 200 --balanced --out $R/ragtruth-witnesses
      kill -- -"$SERVER" 2>/dev/null || kill "$SERVER" ;;
  esac
done
