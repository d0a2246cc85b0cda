"""Calibrated move choices: a small model's move probabilities carry a prior (it withdraws almost whatever the
charge), which the court divides out.

With priors q (per node, per move: `CourtSpec.move_priors`), the calibrated probability of a legal move m is
p(m) / q(m), renormalised over the legal moves; the move made is the most probable calibrated one (the first in
file order on a tie), so it is a function of the recorded option probabilities and a transcript replays. A prior is
estimated from a run's own transcripts by `move_priors`: the mean raw probability of each move at each node over
every turn that chose among moves (what the model says whatever the charge), normalised per node. The command
that turns a run into the YAML of its priors calls `move_priors` and `priors_yaml`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any


def calibrate(probs: Mapping[str, float], priors: Mapping[str, float]) -> dict[str, float]:
    """The calibrated probabilities of the moves in `probs` (the legal ones): p(m) / prior(m), renormalised.
    Moves without a prior keep a prior of 1 (the court's validation gives every move of a calibrated node one)."""
    ratios = {move: p / priors.get(move, 1.0) for move, p in probs.items()}
    total = math.fsum(ratios.values())
    if total <= 0.0:
        return dict(probs)
    return {move: r / total for move, r in ratios.items()}


def most_probable(probs: Mapping[str, float]) -> str:
    """The most probable option (the first, in the order given, on a tie)."""
    best = max(probs.values())
    return next(option for option, p in probs.items() if p == best)


def move_priors(source: Any, digits: int = 4) -> dict[str, dict[str, float]]:
    """Priors of a run's move choices: for each node, the mean raw probability of each move over the turns that
    chose among moves there (a move not legal at a turn is averaged over the turns it was), normalised to sum to 1.

    `source` is a run's events (any iterable of transcript events, `move` events among them, as objects or as
    their JSON dictionaries) or anything with `rows()` and `events(case_id)` (a `courtroom.log.audit.Audit`: every
    case with a transcript and no error)."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for event in _events(source):
        get = event.get if isinstance(event, Mapping) else lambda key, e=event: getattr(e, key, None)
        if get("event") != "move" or get("forced") or not get("move_probs"):
            continue
        for move, p in get("move_probs").items():
            sums[get("node")][move] += p
            counts[get("node")][move] += 1
    priors = {}
    for node, moves in sums.items():
        means = {move: total / counts[node][move] for move, total in moves.items()}
        norm = math.fsum(means.values())
        priors[node] = {move: max(round(mean / norm, digits), 10.0 ** -digits) for move, mean in means.items()}
    return priors


def turns(source: Any) -> dict[str, int]:
    """How many chosen (not forced) turns each node had in a run (what `move_priors` averaged over)."""
    counted: dict[str, int] = defaultdict(int)
    for event in _events(source):
        get = event.get if isinstance(event, Mapping) else lambda key, e=event: getattr(e, key, None)
        if get("event") == "move" and not get("forced") and get("move_probs"):
            counted[get("node")] += 1
    return dict(counted)


def _events(source: Any) -> Iterable[Any]:
    if hasattr(source, "rows") and hasattr(source, "events"):
        for row in source.rows():
            if row.error is None and row.transcript:
                yield from source.events(row.case_id)
    else:
        yield from source


def priors_yaml(priors: Mapping[str, Mapping[str, float]], model: str | None = None) -> str:
    """The `move_priors` section of a court file for these priors (under `by_model` for `model`)."""
    def mapping(moves: Mapping[str, float]) -> str:
        return "{" + ", ".join(f"{move}: {p:g}" for move, p in moves.items()) + "}"
    lines = ["move_priors:"]
    if model is None:
        lines.append("  nodes:")
        lines += [f"    {node}: {mapping(moves)}" for node, moves in priors.items()]
    else:
        lines += ["  by_model:", f"    {model}:"]
        lines += [f"      {node}: {mapping(moves)}" for node, moves in priors.items()]
    return "\n".join(lines) + "\n"
