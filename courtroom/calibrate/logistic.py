"""The one way rulings, probes and span models are fitted: a logistic regression (scikit-learn), classes
weighed equally, on standardised values, kept as a `Linear` of six significant digits (what a ruling file
keeps)."""

from __future__ import annotations

import numpy as np

from courtroom.witness.ruling import Linear


def fit_linear(X: np.ndarray, y: np.ndarray, names: list[str], C: float) -> Linear:
    """Weights of the features `names` (the columns of `X`) for the labels `y`, L2-regularised by `C`."""
    from sklearn.linear_model import LogisticRegression

    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit((X - mean) / scale, y)
    return Linear(features=names, mean=six_digits(mean), scale=six_digits(scale),
                  weights=six_digits(model.coef_[0]), intercept=float(f"{model.intercept_[0]:.6g}"))


def average_precision(y: np.ndarray, scores: np.ndarray) -> float:
    """How well `scores` rank the positive labels of `y` first (scikit-learn's average precision)."""
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(y, scores))


def six_digits(values: np.ndarray) -> list[float]:
    """Six significant digits: what a ruling file keeps (the fit is not more precise than that)."""
    return [float(f"{v:.6g}") for v in values]


def apply_linear(linear: Linear, X: np.ndarray) -> np.ndarray:
    """The log-odds `linear` gives every row of `X`."""
    return (linear.intercept + ((X - np.array(linear.mean)) / np.array(linear.scale))
            @ np.array(linear.weights))
