"""Which cases to label: those whose labels would teach a ruling most, uncertain and unlike each other.

Two standard steps. First the pool: the `POOL` x n cases nearest the threshold (uncertainty sampling's pre-filter, as
in Zhdanov 2019, "Diverse mini-batch active learning"), so the cases the ruling is surest of are never picked. Then
Brinker's greedy rule (2003, "Incorporating diversity in active learning with support vector machines") within it:
each next case maximises `(1 - DIVERSITY) * uncertainty - DIVERSITY * (its greatest similarity to a case already
picked)`, the uncertainty rescaled over the pool to run from 0 to 1 (a ruling sure of every case still ranks them).
Ties are broken by a seeded permutation, so a seed gives one order."""

from __future__ import annotations

import numpy as np

POOL = 3
"""The pool picked from: this many times the cases asked for, the nearest the threshold."""
DIVERSITY = 0.5
"""How much a case's likeness to those already picked counts against its uncertainty (0: the most uncertain first,
whatever their likeness; 1: the most unlike, whatever their uncertainty)."""


def uncertainty(p: np.ndarray, threshold: np.ndarray | float) -> np.ndarray:
    """1 at the threshold, falling linearly to 0 at the probability farthest from it (0 or 1)."""
    t = np.broadcast_to(np.asarray(threshold, dtype=np.float64), p.shape)
    return 1.0 - np.abs(p - t) / np.maximum(t, 1.0 - t)


BANDWIDTH_ROWS = 2000
"""The bandwidth is the median over at most this many rows (a seeded sample of a larger run)."""


def bandwidth(X: np.ndarray, seed: int = 0) -> float:
    """The median squared distance between distinct rows (of a seeded sample of `BANDWIDTH_ROWS`), 1 without any."""
    from scipy.spatial.distance import pdist

    if len(X) > BANDWIDTH_ROWS:
        X = X[np.random.default_rng(seed).choice(len(X), BANDWIDTH_ROWS, replace=False)]
    squared = pdist(X, "sqeuclidean") if len(X) > 1 and X.shape[1] else np.zeros(0)
    positive = squared[squared > 0]
    return float(np.median(positive)) if len(positive) else 1.0


def similarity(X: np.ndarray, row: int, width: float) -> np.ndarray:
    """Every row's Gaussian-kernel similarity to `row`: 1 for identical inputs, near 0 far apart."""
    return np.exp(-np.sum((X - X[row]) ** 2, axis=1) / width)


def pick(p: np.ndarray, threshold: np.ndarray | float, X: np.ndarray, n: int, seed: int = 0,
         diversity: float = DIVERSITY, pool: int | None = None) -> list[int]:
    """The indices of `n` cases (all the pool's, when fewer) in the order picked: P(hallucinated) `p`, the threshold
    it is judged against, and each case's standardised inputs as the rows of `X`; from a pool of `pool` cases (`POOL`
    x n by default: a larger n with the pool of a smaller one continues the smaller one's order)."""
    p = np.asarray(p, dtype=np.float64)
    if not len(p):
        return []
    X = np.asarray(X, dtype=np.float64).reshape(len(p), -1)
    order = np.random.default_rng(seed).permutation(len(p))  # ties go to the earlier in this order
    u = uncertainty(p, threshold)
    free = np.zeros(len(p), dtype=bool)
    free[order[np.argsort(-u[order], kind="stable")][:POOL * n if pool is None else pool]] = True
    span = u[free].max() - u[free].min()
    u = (u - u[free].min()) / span if span > 0 else np.ones(len(p))
    width = bandwidth(X[free], seed)
    closest = np.zeros(len(p))  # each case's greatest similarity to a case already picked
    picked: list[int] = []
    for _ in range(min(n, int(free.sum()))):
        score = (1.0 - diversity) * u - diversity * closest
        candidates = order[free[order]]
        best = int(candidates[np.argmax(score[candidates])])
        picked.append(best)
        free[best] = False
        closest = np.maximum(closest, similarity(X, best, width))
    return picked
