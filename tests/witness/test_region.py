"""Where a ruling applies: the region of its fitting cases, a case's distance from it, and old ruling files without
one."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from courtroom.calibrate.fit_ruling import Example, fit_ruling
from courtroom.calibrate.region import fit_region
from courtroom.witness.region import PERCENTILES, Region
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear

SHIPPED = Path(__file__).resolve().parents[2] / "personas" / "courts" / "rulings"


def linear(n: int = 2) -> Linear:
    return Linear(features=[f"w.v{i}" for i in range(n)], mean=[0.0] * n, scale=[1.0] * n, weights=[1.0] * n,
                  intercept=0.0)


def fitted(rows: int = 400, seed: int = 0) -> tuple[Region, np.ndarray]:
    """The region of rows of two correlated values (and the rows)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=rows)
    X = np.column_stack([a, a + 0.3 * rng.normal(size=rows)])
    region = fit_region(X, linear())
    assert region is not None
    return region, X


def test_a_case_like_the_fitting_cases_is_inside_and_one_unlike_them_outside() -> None:
    region, X = fitted()
    assert len(region.distances) == PERCENTILES and region.limit == 99.0
    own = [region.place(x.tolist()) for x in X]
    assert sum(p.outside for p in own) <= 0.02 * len(X)  # about 1% of the fitting cases lie beyond the 99th
    centre = region.place([0.0, 0.0])
    assert not centre.outside and centre.percentile < 5
    # far along the values' common direction is less unusual than a little across it: the covariance, not each value
    along, across = region.place([2.0, 2.0]), region.place([1.0, -1.0])
    assert not along.outside and across.outside and across.distance > along.distance
    assert across.percentile == 100.0


def test_a_value_the_case_lacks_is_left_out_of_its_distance() -> None:
    region, _ = fitted()
    alone = region.place([None, 1.0])
    assert alone.distance == pytest.approx((1.0 - region.mean[1]) / math.sqrt(region.covariance[1][1]), rel=1e-3)
    assert region.place([None, None]) == (0.0, 0.0, False)


def test_non_finite_numbers_and_wrong_shapes_are_refused() -> None:
    region, _ = fitted()
    good = region.model_dump()
    for field, value in (("mean", [math.nan, 0.0]), ("covariance", [[1.0, math.inf], [0.0, 1.0]]),
                         ("distances", [math.nan] * PERCENTILES), ("limit", math.inf)):
        with pytest.raises(ValidationError):
            Region.model_validate({**good, field: value})
    with pytest.raises(ValidationError, match="covariance must be 2 x 2"):
        Region.model_validate({**good, "covariance": [[1.0]]})
    with pytest.raises(ValidationError, match="never decreasing"):
        Region.model_validate({**good, "distances": list(reversed(good["distances"]))})
    with pytest.raises(ValidationError, match="the region has 2 values, the weights 3"):
        FamilyRuling(linear=linear(3), region=region)
    # read from YAML as a ruling file writes it (`.nan`, `.inf`)
    with pytest.raises(ValidationError):
        Region.model_validate(yaml.safe_load(yaml.safe_dump({**good, "limit": float("inf")})))


OLD_FORMAT = [p for p in sorted(SHIPPED.glob("*.yaml")) if "region:" not in p.read_text()]
"""The shipped rulings fitted before rulings recorded their region (0.5B and 1.5B; SmolLM2's was refitted with one)."""


def test_the_refitted_shipped_ruling_records_the_region_of_every_family() -> None:
    ruling = FittedRuling.model_validate(yaml.safe_load((SHIPPED / "default.smollm2-135m.yaml").read_text()))
    assert ruling.families and all(f.region is not None for f in ruling.families.values())
    assert OLD_FORMAT, "no shipped ruling of the old format is left to test reading as before"


@pytest.mark.parametrize("path", OLD_FORMAT, ids=lambda p: p.name)
def test_an_old_ruling_file_without_a_region_weighs_exactly_as_before(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    ruling = FittedRuling.model_validate(data)
    assert all(f.region is None for f in ruling.families.values())
    assert ruling.model_dump(mode="json")["families"] == data["families"]  # nothing added when written back
    family = next(iter(ruling.families.values()))
    values = dict(zip(family.linear.features, family.linear.mean))
    weighing = ruling.weigh_values({k: v + 5.0 for k, v in values.items()}, "qa")
    assert weighing.distance is None and weighing.percentile is None and not weighing.outside
    assert set(weighing.model_dump()) == {"ruling", "family", "log_odds", "p_hallucinated", "threshold",
                                          "contributions", "missing"}  # a verdict records what it recorded before


def test_a_fitted_ruling_records_each_familys_region_and_weighs_with_the_distance() -> None:
    rng = np.random.default_rng(4)
    cases = [Example(case_id=f"c{i}", source="s", family="qa", hallucinated=i % 2 == 0,
                     values={"real.x": 2.0 * (i % 2 == 0) + float(rng.normal()), "noise.x": float(rng.normal())})
             for i in range(80)]
    ruling = fit_ruling(cases, model="smollm2-135m", court="default", witnesses={"real": 1, "noise": 1}).ruling
    region = ruling.families["any"].region
    assert region is not None and len(region.mean) == len(ruling.families["any"].linear.features)
    inside = ruling.weigh_values(cases[0].values, "qa")
    assert inside.distance is not None and not inside.outside and 0 <= inside.percentile <= 100
    far = ruling.weigh_values({"real.x": 40.0, "noise.x": -40.0}, "qa")
    assert far.outside and far.percentile == 100.0
    # a sentence's weighing is not placed: the region is of whole answers
    assert ruling.weigh_values({"real.x": 40.0, "noise.x": -40.0}, "qa", place=False).distance is None
    again = FittedRuling.model_validate(yaml.safe_load(yaml.safe_dump(ruling.model_dump(mode="json"))))
    assert again.families["any"].region.model_dump() == region.model_dump()
