"""Refitting a ruling on a few labels of the user's own cases, with a fitted ruling as its prior: each
family's weights move from the prior's, in its standardised space, under an L2 penalty of `PRIOR_PRECISION` on
the move (the intercept nearly free), so the fewer the labels the more the prior holds; probes and span model
are kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

import numpy as np

from courtroom.calibrate.fit_ruling import Example
from courtroom.errors import ConfigError
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, word_values

PRIOR_PRECISION = 10.0
"""The L2 penalty on each standardised weight's move from the prior's: a Gaussian prior of standard deviation
1/sqrt(10), about 0.32, around it; against 30 labels it holds a weight about two thirds of the way to the
prior's."""
INTERCEPT_PRECISION = 0.01
"""The intercept's (nearly none: it moves to where the labels put it; enough to keep it finite)."""
WEIGHTS_MIN_PER_CLASS = 10
"""Labels of each kind a family needs for its weights to be refitted; with fewer, its intercept alone is."""
INTERCEPT_MIN_PER_CLASS = 2
"""Labels of each kind a family needs for anything of it to be refitted."""

Mode = Literal["weights", "intercept", "kept"]


@dataclass(frozen=True)
class PriorRefit:
    """The refitted ruling, what was refitted of each family, and what the user should know."""

    ruling: FittedRuling
    modes: dict[str, Mode]
    notes: list[str]


def refit_linear(prior: Linear, X: np.ndarray, y: np.ndarray, precision: float = PRIOR_PRECISION,
                 intercept_only: bool = False) -> Linear:
    """`prior` moved by the labels `y` of the rows of `X`, with an L2 penalty of `precision` on the weights'
    move."""
    from scipy.optimize import minimize

    Z = (X - np.array(prior.mean)) / np.array(prior.scale)
    w0, b0 = np.array(prior.weights, dtype=np.float64), prior.intercept
    counts = np.bincount(y, minlength=2)
    balanced = len(y) / (2.0 * counts[y])  # each class weighs half, as `fit_linear`'s class_weight="balanced"
    moving = np.zeros((len(Z), 0)) if intercept_only else Z  # the columns whose weights move
    penalty = np.concatenate([[INTERCEPT_PRECISION], np.full(moving.shape[1], precision)])
    fixed = b0 + Z @ w0  # the prior's log-odds of each label
    # each move measured in its prior's standard deviations (a penalty of 1/2 u**2): a strong prior (--shrink
    # 1e8, or inf: the weights held) is as well conditioned as a weak one; a step of the raw move stalled the
    # optimiser at 0
    step = np.where(penalty > 0, 1.0 / np.sqrt(np.where(penalty > 0, penalty, 1.0)), 1.0)
    design = np.column_stack([np.ones(len(Z)), moving]) * step
    held = (penalty > 0).astype(np.float64)

    def loss(u: np.ndarray) -> tuple[float, np.ndarray]:
        z = fixed + design @ u
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
        residual = balanced * (p - y)
        value = float(np.sum(balanced * (np.logaddexp(0.0, z) - y * z)) + 0.5 * np.sum(held * u ** 2))
        return value, design.T @ residual + held * u

    delta = step * minimize(loss, np.zeros(len(penalty)), jac=True, method="L-BFGS-B").x
    weights = w0 + (0.0 if intercept_only else delta[1:])
    return prior.model_copy(update={"weights": [float(f"{w:.6g}") for w in weights],
                                    "intercept": float(f"{b0 + delta[0]:.6g}")})


def inputs(prior: FittedRuling, linear: Linear, example: Example) -> np.ndarray:
    """The values `linear` reads for an example, each missing one at its mean (it then weighs nothing)."""
    values = prior.with_probes(example.values, example.vectors)
    if (scores := prior.word_scores(example.word_hidden)) is not None:
        values.update(word_values(scores))
    return np.array([values.get(name, mean) for name, mean in zip(linear.features, linear.mean)])


def p_hallucinated(ruling: FittedRuling, example: Example, prior: FittedRuling | None = None) -> float:
    """The ruling's P(hallucinated) of an example (its probes those of `prior`, by default its own)."""
    linear = ruling.family_for(example.family)[1].linear
    values = dict(zip(linear.features, inputs(prior or ruling, linear, example)))
    return ruling.weigh_values(values, example.family).p_hallucinated


def _counts(y: np.ndarray) -> str:
    return f"{int(y.sum())} hallucinated and {int(len(y) - y.sum())} faithful"


def refit_families(prior: FittedRuling, examples: Sequence[Example],
                   precision: float = PRIOR_PRECISION) -> tuple[dict[str, FamilyRuling], dict[str, Mode],
                                                                list[str]]:
    """Each family of the prior moved by the labelled examples it decides (families that decide none are
    kept)."""
    decided: dict[str, list[Example]] = {}
    for e in examples:
        decided.setdefault(prior.family_for(e.family)[0], []).append(e)
    families = dict(prior.families)
    modes: dict[str, Mode] = {name: "kept" for name in families}
    notes: list[str] = []
    for name, mine in sorted(decided.items()):
        family = families[name]  # type: ignore[index]
        y = np.array([e.hallucinated for e in mine], dtype=int)
        fewest = int(min(y.sum(), len(y) - y.sum()))
        if fewest < INTERCEPT_MIN_PER_CLASS:
            notes.append(f"the {name} family is kept as the prior's: its {len(y)} labels are {_counts(y)}, "
                         f"and refitting it needs at least {INTERCEPT_MIN_PER_CLASS} of each kind")
            continue
        X = np.array([inputs(prior, family.linear, e) for e in mine])
        modes[name] = "weights" if fewest >= WEIGHTS_MIN_PER_CLASS else "intercept"
        if modes[name] == "intercept":
            notes.append(f"the {name} family's labels are {_counts(y)}: its intercept is refitted, its "
                         f"weights kept (refitting them needs {WEIGHTS_MIN_PER_CLASS} of each kind: label "
                         f"{WEIGHTS_MIN_PER_CLASS - fewest} more of the fewer kind)")
        families[name] = family.model_copy(update={  # type: ignore[index]
            "linear": refit_linear(family.linear, X, y, precision, intercept_only=modes[name] == "intercept"),
            "cases": len(y)})

    if all(mode == "kept" for mode in modes.values()):
        y = np.array([e.hallucinated for e in examples], dtype=int)
        raise ConfigError(f"{len(y)} labels ({_counts(y)}) cannot refit the ruling: each family needs at "
                          f"least {INTERCEPT_MIN_PER_CLASS} labels of each kind to refit its intercept, and "
                          f"{WEIGHTS_MIN_PER_CLASS} of each to refit its weights; label more cases "
                          "(courtroom label RUN --n 30)")
    return families, modes, notes


def refit_with_prior(prior: FittedRuling, examples: Sequence[Example], *, prior_path: str, prior_digest: str,
                     precision: float = PRIOR_PRECISION, command: str = "") -> PriorRefit:
    """The prior ruling refitted on the labelled examples, recording its prior (path and digest) and the
    labels."""
    families, modes, notes = refit_families(prior, examples, precision)
    refitted = {name: mode for name, mode in modes.items() if mode != "kept"}
    ruling = prior.model_copy(update={
        "families": families, "evaluation": {},
        "fitted": {"prior": {"path": prior_path, "digest": prior_digest, "cases": prior.fitted.get("cases")},
                   "labels": len(examples), "hallucinated": int(sum(e.hallucinated for e in examples)),
                   "precision": precision, "refitted": refitted, "command": command,
                   "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")}})
    return PriorRefit(FittedRuling.model_validate(ruling.model_dump()), modes, notes)


def out_of_fold(prior: FittedRuling, examples: Sequence[Example], folds: np.ndarray,
                precision: float = PRIOR_PRECISION) -> np.ndarray:
    """Each example's P(hallucinated) by the prior refitted on the other folds (else the prior's own)."""
    out = np.zeros(len(examples))
    for k in sorted(set(folds.tolist())):
        train = [e for e, f in zip(examples, folds) if f != k]
        try:
            families, _, _ = refit_families(prior, train, precision)
            ruling = prior.model_copy(update={"families": families})
        except ConfigError:
            ruling = prior
        for i in np.flatnonzero(folds == k):
            out[i] = p_hallucinated(ruling, examples[i], prior)
    return out
