"""The default court's work grows with the answer, not with its square (#43, defect 3: every word was compared with
every point the witnesses made and every sentence start; 8,000 sentences took 70 s of CPU). Counted, not timed: the
Python calls made judging answers of 200 and 800 sentences (`benchmarks/bench_long_answers.py` times 500 to 8,000)."""

from __future__ import annotations

import sys

from courtroom.case import Case
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from tests.helpers.cases import long_case


def calls_to_judge(case: Case) -> int:
    """Python and C function calls made while the default court judges `case` on the pseudo-model."""
    court = load_court("default", ScriptedBackend(PseudoModel()))
    count = 0

    def counted(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1
    sys.setprofile(counted)
    try:
        court.judge(case)
    finally:
        sys.setprofile(None)
    return count


def test_judging_an_answer_four_times_as_long_takes_about_four_times_the_work() -> None:
    short, long = calls_to_judge(long_case(200)), calls_to_judge(long_case(800))
    assert long / short < 6, f"{short} calls for 200 sentences, {long} for 800: the work grows faster than the answer"
