"""Fitting a ruling family's region (`courtroom.witness.region.Region`): the mean and Ledoit-Wolf-shrunk covariance of
its fitting cases' standardised values, and their own Mahalanobis distances at every percentile."""

from __future__ import annotations

import numpy as np

from courtroom.calibrate.logistic import six_digits
from courtroom.witness.region import PERCENTILES, Region
from courtroom.witness.ruling import Linear


def fit_region(X: np.ndarray, linear: Linear) -> Region | None:
    """The region of the rows of `X` (standardised as `linear` does); None with fewer than two distinct rows (no
    spread to measure a distance by)."""
    from sklearn.covariance import LedoitWolf

    if len(np.unique(X, axis=0)) < 2:
        return None
    Z = (X - np.array(linear.mean)) / np.array(linear.scale)
    shrunk = LedoitWolf().fit(Z)
    mean, covariance = six_digits(shrunk.location_), [six_digits(row) for row in shrunk.covariance_]
    region = Region(mean=mean, covariance=covariance, distances=[0.0] * PERCENTILES)
    own = np.array([region.place(z.tolist()).distance for z in Z])
    return region.model_copy(update={"distances": six_digits(np.percentile(own, np.arange(PERCENTILES)))})
