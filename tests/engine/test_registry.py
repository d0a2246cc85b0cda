"""Judges register themselves from the layers that define them: the registry names no module, and whatever makes or
reads a run finds every judge."""

from __future__ import annotations

import subprocess
import sys

from courtroom.baselines import BASELINES
from courtroom.engine.judge import Judge
from courtroom.engine.registry import JUDGES

EVERY = ["courtroom", "per-context", "rails", "single", "two-step", "unstructured", "vote"]


def test_a_process_that_reads_runs_finds_every_judge() -> None:
    code = "import courtroom.log.manifest\nfrom courtroom.engine.registry import JUDGES\nprint(sorted(JUDGES))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(EVERY)


def test_every_baseline_judge_is_registered_under_its_name() -> None:
    import courtroom.baselines as baselines

    judges = {c for c in vars(baselines).values() if isinstance(c, type) and issubclass(c, Judge) and
              c.name != Judge.name}
    assert {c.name: c for c in judges} == {name: JUDGES[name] for name in BASELINES}
    assert sorted([*BASELINES, "courtroom"]) == EVERY
