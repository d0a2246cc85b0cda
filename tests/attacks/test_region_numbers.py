"""Attack: the ruling's region (#45) with numbers at its edges. A large but finite value that a ruling weighs (as
`test_ruling_numbers` holds) must be weighed with a region too, and found outside it, not fail the case because its
squared distance overflowed; fitting cases that are all alike draw no region (every case would lie at distance 0,
inside however unlike them)."""

from __future__ import annotations

import math

import numpy as np

from courtroom.calibrate.region import fit_region
from courtroom.case import Testimony
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear


def test_a_large_finite_value_is_weighed_and_outside_the_region() -> None:
    linear = Linear(features=["grounding.mean"], mean=[0.0], scale=[1.0], weights=[1.0], intercept=0.0)
    region = fit_region(np.random.default_rng(0).normal(size=(50, 1)), linear)
    ruling = FittedRuling(model="smollm2-135m", court="default", witnesses={"grounding": 1},
                          families={"any": FamilyRuling(linear=linear, region=region)})
    weighing = ruling.weigh([Testimony(witness="grounding", version=1, values={"mean": 1e200})], {}, "qa")
    assert weighing.p_hallucinated == 1.0 and weighing.outside and math.isfinite(weighing.distance)
    assert weighing.percentile == 100.0
    inside = ruling.weigh([Testimony(witness="grounding", version=1, values={"mean": 0.1})], {}, "qa")
    assert not inside.outside and inside.distance < 1


def test_fitting_cases_all_alike_draw_no_region() -> None:
    linear = Linear(features=["a", "b"], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, 1.0], intercept=0.0)
    assert fit_region(np.array([[1.0, 2.0]] * 30), linear) is None
    assert fit_region(np.array([[1.0, 2.0]] * 29 + [[1.0, 2.5]]), linear) is not None
