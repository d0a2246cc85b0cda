#!/usr/bin/env bash
# The runs of #51 (the trial's testimony measured on enough cases to decide), one after another; each resumes where
# it stopped and a finished run costs nothing, so re-running the queue after an interruption continues it:
#   nohup bash experiments/queue-trials.sh > experiments/logs/queue-trials.log 2>&1 &
# Every run is of experiments/courts/trial-testimony.yaml (full, every witness heard, the three least grounded
# sentences of every case tried, both sides polled), decided again afterwards with no model call by rejudge and
# experiments/trial_testimony.py.
set -u
cd "$(dirname "$0")/.."
C=${C:-.venv/bin/courtroom}
COURT=experiments/courts/trial-testimony.yaml
D=../shared/data
run() { "$C" run "$@" || echo "run failed: $*"; }
run $D/ragtruth-dev.jsonl --court "$COURT" --out experiments/results/default/ragtruth-trial-testimony
# started before courts 12 and 14 (retired settings left out, trial.testify added): finished with the court it recorded
# (the analysis decides it again with trial.testify; the rows judged so far are the first 350 of 607)
H=experiments/results/default/halubench-trial-testimony
run $D/halubench-dev.jsonl --court "$H" --out "$H"
