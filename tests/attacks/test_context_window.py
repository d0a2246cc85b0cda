"""Attack 11: a case longer than the model's context window is measured before its first turn and ends as a
clear per-case error; the other cases of the run are judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtroom.case import Case
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

SHORT = Case(id="short", question="When?", context=["The lighthouse was automated in 1962."], answer="In 1962.")
LONG = Case(id="long", question="When?", context=["The lighthouse was automated in 1962. " * 400], answer="In 1962.")


def test_the_long_case_fails_with_the_window_named_and_the_short_one_is_judged(tmp_path: Path) -> None:
    dataset = tmp_path / "cases.jsonl"
    dataset.write_text("".join(json.dumps(c.model_dump(exclude={"metadata", "label", "source"})) + "\n"
                               for c in (SHORT, LONG)))
    run = start_run(RunSpec.build(str(dataset), judge="courtroom"), tmp_path / "run")
    rows = {r.case_id: r for r in run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), context_window=1500)))}
    assert rows["short"].error is None and rows["short"].label is not None
    assert rows["long"].error_type == "ContextWindowError"
    assert "case 'long'" in rows["long"].error and "context window" in rows["long"].error and "1500 tokens" in rows["long"].error


@pytest.mark.model
def test_the_real_model_measures_the_case_before_computing_it(real_backend) -> None:
    window = real_backend.context_window
    assert window and window >= 2048
    huge = LONG.model_copy(update={"context": ["The lighthouse was automated in 1962. " * (window // 6)]})
    outcomes = {o.case.id: o for o in load_court("full", real_backend).run_many([huge, SHORT])}
    assert outcomes["long"].error_type == "ContextWindowError"
    assert outcomes["short"].ok
    assert f"({window} tokens)" in outcomes["long"].error
