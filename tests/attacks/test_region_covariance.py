"""Attack (#50): a ruling's region with a covariance that is no covariance. Negative variances silently switched the
region off (every distance 0: inside), a tiny one failed every case with a raw pydantic error on the weighing, and a
distance that is not a number counted as inside. A region is refused when its ruling is read unless its covariance
is symmetric and positive definite, naming the file and the field; a distance beyond the floats is outside, never
inside. Each test fails on 0abab8c."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from courtroom.case import Testimony
from courtroom.court import load_court
from courtroom.errors import CourtError
from courtroom.witness.region import PERCENTILES, Region
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear
from tests.attacks.test_ruling_numbers import _court_with, _ruling

DISTANCES = [i / 25 for i in range(PERCENTILES)]


@pytest.mark.parametrize(("change", "why"), [
    (lambda c: [[-v if i == j else v for j, v in enumerate(row)] for i, row in enumerate(c)], "positive definite"),
    (lambda c: [[1e-320 if i == j else 0.0 for j in range(len(row))] for i, row in enumerate(c)], "positive definite"),
    (lambda c: [[v + (0.5 if (i, j) == (0, 1) else 0.0) for j, v in enumerate(row)] for i, row in enumerate(c)],
     "symmetric"),
])
def test_a_region_whose_covariance_is_no_covariance_is_refused_when_the_court_reads_it(tmp_path: Path, change,
                                                                                        why: str) -> None:
    ruling = _ruling()
    region = ruling["families"]["summary"]["region"]
    region["covariance"] = change(region["covariance"])
    with pytest.raises(CourtError, match=rf"ruling\.yaml:\d+: field families\.summary\.region\.covariance: .*{why}"):
        load_court(_court_with(tmp_path, ruling), model="smollm2-135m")


def test_the_shipped_regions_are_read(tmp_path: Path) -> None:
    court = load_court(_court_with(tmp_path, _ruling()), model="smollm2-135m")
    assert any(f.region is not None for f in court.spec.witnesses.rulings["smollm2-135m"].families.values())


def test_a_distance_that_is_not_a_number_is_outside_never_inside() -> None:
    region = Region(mean=[0.0, 0.0], covariance=[[1.0, 0.0], [0.0, 1.0]], distances=DISTANCES)
    for z in ([math.inf, 0.0], [math.nan, 0.0], [-math.inf, math.inf]):
        place = region.place(z)
        assert place.outside and place.percentile == 100.0 and math.isfinite(place.distance), (z, place)
    assert not region.place([0.5, 0.5]).outside


def test_a_small_region_puts_a_far_case_outside_with_a_finite_distance() -> None:
    linear = Linear(features=["grounding.mean"], mean=[0.0], scale=[1.0], weights=[1.0], intercept=0.0)
    region = Region(mean=[0.0], covariance=[[1e-300]], distances=DISTANCES)
    ruling = FittedRuling(model="smollm2-135m", court="default", witnesses={"grounding": 1},
                          families={"any": FamilyRuling(linear=linear, region=region)})
    weighing = ruling.weigh([Testimony(witness="grounding", version=1, values={"mean": 1e200})], {}, "qa")
    assert weighing.outside and weighing.percentile == 100.0 and math.isfinite(weighing.distance)
