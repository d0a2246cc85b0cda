"""Where a ruling applies: the region of the cases a family's weights were fitted on, in the values they read.

A ruling file keeps, per family, the mean and the shrunk covariance (Ledoit-Wolf) of its fitting cases' standardised
inputs, and the fitting cases' own Mahalanobis distances from that mean at every percentile. A case's distance,
placed among them, says how unlike the fitting data it is; beyond `limit` (the 99th percentile by default) the court
decides it by its measure instead (`courtroom.clerk.indictment`). A value a case lacks (a witness not heard) is left
out of its distance: the distance is over the values it has (the marginal of the others)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

PERCENTILES = 101
"""The fitting cases' distances are kept at the percentiles 0, 1, ..., 100."""


class Place(NamedTuple):
    """Where a case lies against a region."""

    distance: float
    """Its Mahalanobis distance from the fitting cases' mean."""
    percentile: float
    """The percentage of the fitting cases that lie nearer."""
    outside: bool
    """Beyond the region's limit."""


class Region(BaseModel):
    """The region of a family's fitting cases, in the standardised values its weights read (in their order)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    mean: list[float]
    covariance: list[list[float]]
    """Ledoit-Wolf-shrunk: well conditioned even with more values than cases."""
    distances: list[float]
    """The fitting cases' own distances at the percentiles 0, 1, ..., 100."""
    limit: float = Field(99.0, gt=0.0, le=100.0)
    """The percentile of the fitting cases' distances beyond which a case is outside the region."""
    _inverses: dict[tuple[int, ...], np.ndarray] = PrivateAttr(default_factory=dict)

    @field_validator("covariance")
    @classmethod
    def _a_covariance(cls, covariance: list[list[float]]) -> list[list[float]]:
        """Symmetric and positive definite, its inverse within the floats and its every direction kept by `place`
        (negative variances would put every case inside, a vanishing one every case at an infinite distance)."""
        if not covariance or any(len(row) != len(covariance) for row in covariance):
            return covariance  # not square: refused against the mean's size
        c = np.array(covariance, dtype=np.float64)
        if not np.allclose(c, c.T):
            raise ValueError("the covariance must be symmetric")
        eigenvalues = np.linalg.eigvalsh(c)
        if not eigenvalues[0] > max(eigenvalues[-1] * 1e-12, 1 / np.finfo(np.float64).max):
            raise ValueError(f"the covariance must be positive definite and well conditioned: its eigenvalues run from "
                             f"{eigenvalues[0]:g} to {eigenvalues[-1]:g}, the smallest must be positive and at least "
                             "1e-12 of the largest")
        return covariance

    @model_validator(mode="after")
    def _shapes(self) -> Region:
        size = len(self.mean)
        if len(self.covariance) != size or any(len(row) != size for row in self.covariance):
            raise ValueError(f"the covariance must be {size} x {size}, as the mean has {size} values")
        if len(self.distances) != PERCENTILES or any(b < a for a, b in zip(self.distances, self.distances[1:])) \
                or self.distances[0] < 0:
            raise ValueError(f"distances must be {PERCENTILES} distances (percentiles 0 to 100), not negative and "
                             "never decreasing")
        return self

    def place(self, z: Sequence[float | None]) -> Place:
        """Where standardised values lie (None: a value the case lacks, left out)."""
        present = tuple(i for i, v in enumerate(z) if v is not None)
        if not present:
            return Place(0.0, 0.0, False)
        if present not in self._inverses:
            covariance = np.array(self.covariance)[np.ix_(present, present)]
            self._inverses[present] = np.linalg.pinv(covariance, hermitian=True)
        gap = np.array([z[i] for i in present], dtype=np.float64) - np.array(self.mean)[list(present)]
        size = float(np.max(np.abs(gap)))  # the gap scaled to at most 1 first: a large finite value's square overflows
        with np.errstate(all="ignore"):  # a value beyond the floats, or not a number, gives none: outside, never inside
            unit = gap / size if size > 0 else gap
            distance = size * float(np.sqrt(max(unit @ self._inverses[present] @ unit, 0.0)))
        if not np.isfinite(distance):
            return Place(float(np.finfo(np.float64).max), 100.0, True)
        grid = np.arange(PERCENTILES, dtype=np.float64)
        percentile = float(np.interp(distance, self.distances, grid)) if distance <= self.distances[-1] else 100.0
        return Place(distance, percentile, distance > float(np.interp(self.limit, grid, self.distances)))
