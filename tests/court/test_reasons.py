"""No shipped court writes a reason that contradicts its record: a withdrawn charge is not "found hallucinated"
without saying that the measurement overruled the withdrawal (and by how much), the verdict a reason names is the
ruling's, and counts agree with their nouns. With an escalation band, a charge decided by the measurement says it
was not escalated and why (the band), one tried says it was escalated."""

from __future__ import annotations

import re

import pytest

from courtroom.court import Court
from courtroom.courts import courts_dir, load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.evaluate.datasets import example_cases
from tests.helpers.courts import tuned

COURTS = sorted(p.stem for p in courts_dir().glob("*.yaml"))
WEIGHTS = (None, 0.0, 0.5, 1.0)
OVERRULED = {"withdrawn": "overruled the withdrawal", "conceded": "overruled the concession",
             "judge": "overruled the judge's verdict", "jury": "overruled the jury's verdict"}


def models(court_name: str) -> tuple[str, ...]:
    """`default` (SmolLM2, whose threshold a court may tune), and for a court with fitted rulings also a model none is
    fitted for: each path to a verdict (the ruling's, the measurement's) is checked."""
    witnesses = load_court(court_name).spec.witnesses
    return ("default", "pseudo") if witnesses is not None and witnesses.rulings else ("default",)


def verdicts(court_name: str, weight: float | None, seed: int, **overrides: object) -> list[tuple[object, float]]:
    """Each verdict with the threshold of the model that judged it."""
    judged = []
    for model in models(court_name):
        court = load_court(court_name, ScriptedBackend(PseudoModel(seed), model=model), overrides=overrides or None)
        if weight is not None and isinstance(court, Court):
            tuned(court, trial__judge_weight=weight)
        judged += [(verdict, court.threshold) for verdict in court.judge_many(example_cases())]
    return judged


@pytest.mark.parametrize("court_name", COURTS)
@pytest.mark.parametrize("weight", WEIGHTS)
def test_every_reason_agrees_with_its_record(court_name: str, weight: float | None) -> None:
    checked = 0
    for seed in range(3):
        for verdict, threshold in verdicts(court_name, weight, seed):
            for ruling in verdict.rulings:
                checked += 1
                if ruling.source == "testimony":  # a fitted ruling (SmolLM2's, for the model `default`) decided
                    assert_testimony_reason(ruling)
                    continue
                assert ruling.reason.endswith((f"P(hallucinated) = {ruling.p_hallucinated:.2f}: {ruling.verdict.value}",
                                               ")")), ruling.reason
                assert f"P(hallucinated) = {ruling.p_hallucinated:.2f}: {ruling.verdict.value}" in ruling.reason
                if ruling.opinion is None:  # decided by the measurement alone (an escalating court): no one to overrule
                    assert ruling.source == "measurement" and "overruled" not in ruling.reason, ruling.reason
                    continue
                side = "hallucinated" if ruling.opinion >= threshold else "supported"
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


def assert_testimony_reason(ruling) -> None:
    """A ruling by testimony says its P(hallucinated) and threshold, and names the verdict they give, last."""
    found = re.match(r"the ruling weighed its testimony at P\(hallucinated\) = (\d\.\d\d) \(threshold (\d\.\d\d);",
                     ruling.reason)
    assert found, ruling.reason
    assert found.group(1) == f"{ruling.p_hallucinated:.2f}"
    side = "hallucinated" if ruling.p_hallucinated >= float(found.group(2)) else "supported"
    assert side == ruling.verdict.value and ruling.reason.endswith(f": {ruling.verdict.value}"), ruling.reason
    assert "overruled" not in ruling.reason


BAND = {"low": 0.6, "high": 0.8}


@pytest.mark.parametrize("court_name", [c for c in COURTS if c not in ("generative", "default")])  # no P(suspect); no trial
def test_escalated_and_measured_rulings_say_what_decided_them(court_name: str) -> None:
    measured = tried = 0
    for seed in range(3):
        for verdict, threshold in verdicts(court_name, None, seed, **{"trial.escalation": BAND}):
            for ruling in verdict.rulings:
                charge = verdict.charges[ruling.charge]
                if ruling.source == "testimony":  # a fitted ruling decided: no band, no trial
                    assert_testimony_reason(ruling)
                    assert ruling.escalated is False and ruling.opinion is None
                    continue
                assert f"P(hallucinated) = {ruling.p_hallucinated:.2f}: {ruling.verdict.value}" in ruling.reason
                if ruling.source == "measurement":
                    assert ruling.reason.endswith(f"P(hallucinated) = {ruling.p_hallucinated:.2f}: "
                                                  f"{ruling.verdict.value}")
                    measured += 1
                    assert ruling.escalated is False and ruling.opinion is None and ruling.rounds == 0
                    assert not BAND["low"] <= charge.p_suspect <= BAND["high"]
                    side = "below" if charge.p_suspect < BAND["low"] else "above"
                    assert ruling.reason.startswith("not escalated to trial, the measurement decided (")
                    assert f"is {side} the escalation band [0.6, 0.8]" in ruling.reason
                    assert "overruled" not in ruling.reason and "withdr" not in ruling.reason
                    assert ruling.p_hallucinated == charge.p_suspect
                else:
                    tried += 1
                    assert ruling.escalated is True and BAND["low"] <= charge.p_suspect <= BAND["high"]
                    assert ruling.reason.startswith(f"escalated to trial (P(suspect) = {charge.p_suspect:.2f} lies in "
                                                    "the escalation band [0.6, 0.8]); ")
                    side = "hallucinated" if ruling.opinion >= threshold else "supported"
                    assert ("overruled" in ruling.reason) is (side != ruling.verdict.value), ruling.reason
            if verdict.label == "PASS":
                assert "found hallucinated" not in verdict.reason
    assert measured > 3 and tried > 3
