"""No shipped court writes a reason that contradicts its record: a withdrawn charge is not "found hallucinated"
without saying that the measurement overruled the withdrawal (and by how much), the verdict a reason names is the
ruling's, and counts agree with their nouns."""

from __future__ import annotations

import re

import pytest

from courtroom.court import Court, courts_dir
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.evaluate.datasets import example_cases

COURTS = sorted(p.stem for p in courts_dir().glob("*.yaml"))
WEIGHTS = (None, 0.0, 0.5, 1.0)
OVERRULED = {"withdrawn": "overruled the withdrawal", "conceded": "overruled the concession",
             "judge": "overruled the judge's verdict", "jury": "overruled the jury's verdict"}


def verdicts(court_name: str, weight: float | None, seed: int) -> list:
    court = Court.load(court_name, ScriptedBackend(PseudoModel(seed), model="default"))
    if weight is not None:
        court.spec = court.spec.model_copy(update={"ruling": court.spec.ruling.model_copy(update={"judge_weight": weight})})
    return court.judge_many(example_cases())


@pytest.mark.parametrize("court_name", COURTS)
@pytest.mark.parametrize("weight", WEIGHTS)
def test_every_reason_agrees_with_its_record(court_name: str, weight: float | None) -> None:
    checked = 0
    for seed in range(3):
        for verdict in verdicts(court_name, weight, seed):
            for ruling in verdict.rulings:
                checked += 1
                assert ruling.reason.endswith((f"P(hallucinated) = {ruling.p_hallucinated:.2f}: {ruling.verdict.value}",
                                               ")")), ruling.reason
                assert f"P(hallucinated) = {ruling.p_hallucinated:.2f}: {ruling.verdict.value}" in ruling.reason
                side = "hallucinated" if ruling.opinion >= court_threshold(court_name) else "supported"
                if side != ruling.verdict.value:
                    assert OVERRULED[ruling.source] in ruling.reason, ruling.reason
                else:
                    assert "overruled" not in ruling.reason, ruling.reason
            found = re.search(r"^Charge (\d+) .* is found hallucinated", verdict.reason)
            if found:
                assert verdict.label == "FAIL"
                assert verdict.rulings[int(found.group(1)) - 1].verdict.value == "hallucinated"
            if verdict.label == "PASS":
                assert "found hallucinated" not in verdict.reason
            texts = [verdict.reason, *(r.reason for r in verdict.rulings)]
            assert not any(re.search(r"\b1 (charges|statements|jurors)\b", t) for t in texts), texts
    assert checked > 5  # the courts tried charges, so their reasons were checked


def court_threshold(court_name: str) -> float:
    return Court.load(court_name, ScriptedBackend(PseudoModel(), model="default")).threshold
