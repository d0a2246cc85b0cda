"""Attack: `calibrate --prior --shrink S` (#45) with a strong prior. The weights are held the harder the larger S;
the intercept moves almost freely whatever S is. With S of 1e8 or more (or inf) the optimiser stalled where it
began: the 'refit' written and scored was the prior itself, its intercept unmoved, with nothing said."""

from __future__ import annotations

import numpy as np
import pytest

from courtroom.calibrate.prior_refit import refit_linear
from courtroom.witness.ruling import Linear

PRIOR = Linear(features=["a", "b"], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, -1.0], intercept=0.2)


def labels() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(30, 2)), (rng.random(30) < 0.5).astype(int)


@pytest.mark.parametrize("strength", [1e6, 1e8, 1e12, 1e300, float("inf")])
def test_a_strong_prior_holds_the_weights_and_still_moves_the_intercept(strength: float) -> None:
    X, y = labels()
    alone = refit_linear(PRIOR, X, y, intercept_only=True)
    assert alone.intercept != pytest.approx(PRIOR.intercept, abs=0.05)  # the labels do move it
    held = refit_linear(PRIOR, X, y, strength)
    assert held.weights == pytest.approx(PRIOR.weights, abs=1e-3)
    assert held.intercept == pytest.approx(alone.intercept, abs=1e-3)


def test_a_weak_prior_still_refits_the_weights() -> None:
    X, y = labels()
    assert refit_linear(PRIOR, X, y, 0.0).weights != pytest.approx(PRIOR.weights, abs=0.1)
    assert refit_linear(PRIOR, X, y, 10.0).weights != pytest.approx(PRIOR.weights, abs=0.05)
