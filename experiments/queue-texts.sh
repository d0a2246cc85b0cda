#!/usr/bin/env bash
# The runs of #59 (a trial a person can check), one after another, each resumable (re-run the queue after a stop):
#   nohup bash experiments/queue-texts.sh > experiments/logs/queue-texts.log 2>&1 &
# Every statement of every case charged and tried (`--set indictment.threshold=0`) by the `full` court, on balanced
# seeded samples (200 HaluBench dev, 120 RAGTruth dev with its gold spans), at SmolLM2-135M and Qwen2.5-Coder-0.5B:
# - `-composed`: the court of this version (texts composed from pieces read off the case), run from a checkout of the
#   commit that started them ($NEW, default: this checkout) so that later commits cannot change what they ask;
# - `-795874c`: the same court as it was at 795874c (texts and citations generated), from a checkout of it ($OLD):
#   git worktree add --detach ../wt-base 795874c
# A pair is read on the cases both runs judged. `courtroom models fetch qwen2.5-coder-0.5b` first.
set -u
cd "$(dirname "$0")/.."
HERE=$PWD
NEW=${NEW:-$HERE}
OLD=${OLD:-$HERE/../wt-base}
PY=${PY:-$HERE/.venv/bin/python}
D=${D:-$HERE/../shared/data}
R=$HERE/experiments/results
run() { local tree=$1; shift; (cd "$tree" && PYTHONPATH="$tree" "$PY" -m courtroom.cli run "$@") || echo "run failed: $*"; }
every=(--court full --set indictment.threshold=0)
q=(--model qwen2.5-coder-0.5b --dtype float32)
hb=("$D/halubench-dev.jsonl" --limit 200 --balanced)
rt=("$D/ragtruth-spans-dev.jsonl" --limit 120 --balanced)
# the court of this version at both models on HaluBench and at 135M on RAGTruth, then the pairs of 795874c (each
# about twice the seconds), then the rest; a pair is read on however many cases both runs finished
run "$NEW" "${hb[@]}" "${every[@]}" --out "$R/default/halubench-full-composed"
run "$NEW" "${hb[@]}" "${every[@]}" "${q[@]}" --out "$R/qwen2.5-coder-0.5b/halubench-full-composed"
run "$NEW" "${rt[@]}" "${every[@]}" --out "$R/default/ragtruth-full-composed"
run "$OLD" "${hb[@]}" "${every[@]}" --out "$R/default/halubench-full-795874c"
run "$OLD" "${hb[@]}" "${every[@]}" "${q[@]}" --out "$R/qwen2.5-coder-0.5b/halubench-full-795874c"
run "$NEW" "${rt[@]}" "${every[@]}" "${q[@]}" --out "$R/qwen2.5-coder-0.5b/ragtruth-full-composed"
run "$OLD" "${rt[@]}" "${every[@]}" --out "$R/default/ragtruth-full-795874c"
run "$OLD" "${rt[@]}" "${every[@]}" "${q[@]}" --out "$R/qwen2.5-coder-0.5b/ragtruth-full-795874c"
