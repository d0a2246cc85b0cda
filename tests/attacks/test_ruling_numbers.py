"""Rulings that cannot decide are refused, never turned into verdicts (#43: non-finite numbers, device files,
values no witness gives). Each test fails on 5150ee0."""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from courtroom.case import Testimony
from courtroom.courts import load_court
from courtroom.errors import ConfigError, CourtError
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear
from tests.helpers.rulings import court_with, shipped_ruling


@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf"])
def test_a_ruling_file_with_a_non_finite_weight_is_refused_when_the_court_loads(tmp_path: Path, text: str) -> None:
    ruling = shipped_ruling()
    ruling["families"]["any"]["linear"]["weights"][0] = "PLACEHOLDER"
    path = court_with(tmp_path, ruling)
    ruling_file = tmp_path / "ruling.yaml"
    ruling_file.write_text(ruling_file.read_text().replace("PLACEHOLDER", text))
    with pytest.raises(CourtError, match=r"ruling\.yaml.*finite"):
        load_court(path, model="smollm2-135m")


def test_a_non_finite_scale_intercept_or_threshold_is_refused_too() -> None:
    for field, value in (("scale", [math.inf]), ("mean", [math.nan])):
        with pytest.raises(ValueError, match="finite"):
            Linear(**{"features": ["x"], "mean": [0.0], "scale": [1.0], "weights": [1.0], "intercept": 0.0,
                      field: value})
    with pytest.raises(ValueError, match="finite"):
        Linear(features=["x"], mean=[0.0], scale=[1.0], weights=[1.0], intercept=math.nan)


def test_a_testimony_value_the_ruling_cannot_weigh_is_an_error_not_a_verdict_at_certainty() -> None:
    ruling = FittedRuling(model="smollm2-135m", court="default", witnesses={"grounding": 1},
                          families={"any": FamilyRuling(linear=Linear(features=["grounding.mean"], mean=[0.0],
                                                                      scale=[1e-10], weights=[1.0], intercept=0.0))})
    testimony = [Testimony(witness="grounding", version=1, values={"mean": 1e308})]  # finite, but weighs infinity
    with pytest.raises(ConfigError, match="cannot weigh.*grounding.mean = 1e\\+308"):
        ruling.weigh(testimony, {}, "qa")
    testimony = [Testimony(witness="grounding", version=1, values={"mean": 1e200})]
    assert ruling.weigh(testimony, {}, "qa").p_hallucinated == 1.0  # large, but finite: weighed


def _refused_in_time(path: Path) -> str:
    """Load the court in a child process held to 1 GB and 60 s, so that a loader that opens what it must not (reads
    /dev/zero to the end, or waits on a FIFO) fails the test instead of the machine; the child's error message."""
    code = ("import sys; from courtroom.courts import load_court\n"
            "try:\n    load_court(sys.argv[1], model='smollm2-135m')\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)")
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
    try:
        done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60,
                              preexec_fn=limited)
    except subprocess.TimeoutExpired:
        pytest.fail("the court loader opened the ruling path and hung")
    assert done.stdout.startswith("CourtError"), done.stdout + done.stderr[-2000:]
    return done.stdout


def test_a_ruling_path_that_is_a_device_is_refused_without_reading_it(tmp_path: Path) -> None:
    assert "not a regular file" in _refused_in_time(court_with(tmp_path, "/dev/zero"))


def test_a_ruling_path_that_is_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "ruling.fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused_in_time(court_with(tmp_path, str(fifo)))


def test_a_ruling_whose_values_no_witness_gives_is_refused_naming_them(tmp_path: Path) -> None:
    ruling = shipped_ruling()
    for family in ruling["families"].values():
        family["linear"]["features"] = [f.replace("grounding.", "grounding.typo_") for f in family["linear"]["features"]]
    with pytest.raises(CourtError, match=r"grounding\.typo_mean"):
        load_court(court_with(tmp_path, ruling), model="smollm2-135m")


def test_a_span_model_whose_values_are_out_of_order_is_refused(tmp_path: Path) -> None:
    ruling = shipped_ruling()
    features = ruling["spans"]["linear"]["features"]
    features[0], features[1] = features[1], features[0]
    with pytest.raises(CourtError, match=r"spans: gain_min, sentence_p"):
        load_court(court_with(tmp_path, ruling), model="smollm2-135m")
