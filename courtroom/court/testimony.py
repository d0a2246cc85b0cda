"""What a case's trials testify: the `trial` witness (version 1), read off the trial's events. Per tried
charge: the bench's log-odds of `hallucinated` (and its jurors' spread), each side's log-odds of holding its
side (by its chosen or polled move; both point to hallucinated), the cited sentences' gain in grounding,
whether the defence cited one, the rounds; per case, each value's max and mean, and whether any trial was
held. Recorded and shown, never weighed: trial weights were retired by their numbers (#51)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import fmean, pstdev

from courtroom.case import Charge, Ruling, Testimony
from courtroom.court.procedure import Procedure
from courtroom.engine.events import Event, ModelCallEvent, MoveEvent, RulingEvent

TRIAL, VERSION = "trial", 1
"""The witness's name and version (a ruling names the versions it was fitted on). Since #59 `cited` is whether
the defence's reading found a sentence, no longer a number the model wrote; the version stays, because every
run of the old meaning is retired (refused for replay) and no ruling weighs this witness."""
TRIED = ("judge", "jury", "withdrawn", "conceded")
"""How a tried charge's ruling ends (a ruling of the measurement or of the testimony tried nothing)."""
GIVES_UP = {"prosecutor": "acquit", "defender": "convict"}
"""Where each side's giving up leads."""
EDGE = 1e-6
"""Probabilities are kept this far from 0 and 1 before their log-odds are taken."""


def log_odds(p: float) -> float:
    p = min(max(p, EDGE), 1.0 - EDGE)
    return math.log(p / (1.0 - p))


def trial_testimony(events: Sequence[Event], charges: Sequence[Charge], procedure: Procedure) -> Testimony:
    """The `trial` testimony of a case from its events: each tried charge's values, then the case's."""
    rulings = {e.ruling.charge: e.ruling for e in events if isinstance(e, RulingEvent)
               and e.ruling.source in TRIED}
    tried = [charge_values(events, charge, rulings[charge.index], procedure) for charge in charges
             if charge.index in rulings]
    values: dict[str, float] = {"held": float(bool(tried))}
    for name in sorted({name for each in tried for name in each}):
        seen = [each[name] for each in tried if name in each]
        values |= {f"{name}_max": max(seen), f"{name}_mean": fmean(seen)}
    return Testimony(witness=TRIAL, version=VERSION, values={k: round(v, 6) for k, v in values.items()})


def charge_values(events: Sequence[Event], charge: Charge, ruling: Ruling,
                  procedure: Procedure) -> dict[str, float]:
    """One tried charge's values (those the trial gave: a side that never spoke gives none)."""
    calls = [e for e in events if isinstance(e, ModelCallEvent) and e.charge == charge.index
             and e.purpose == "verdict"]
    bench = [log_odds(c.option_probs.get("hallucinated", 0.0)) for c in calls if c.option_probs]
    values = {"rounds": float(ruling.rounds)}
    if bench:
        values["bench"] = fmean(bench)
        if len(bench) > 1:
            values["jury_spread"] = pstdev(bench)
    for side, exit in GIVES_UP.items():
        move = next((m for m in events if isinstance(m, MoveEvent) and m.charge == charge.index
                     and m.role == side
                     and (m.move_probs or m.polled_probs)), None)
        if move is not None:
            probs = move.move_probs or move.polled_probs or {}
            leaving = {e.move for e in procedure.moves(move.node) if e.to == exit}
            give_up = sum(p for name, p in probs.items() if name in leaving) / (sum(probs.values()) or 1.0)
            values["prosecution" if side == "prosecutor" else "defence"] = \
                log_odds(1.0 - give_up if side == "prosecutor" else give_up)
    cited = [m.grounds.found for m in events if isinstance(m, MoveEvent) and m.charge == charge.index
             and m.role == "defender" and m.grounds is not None and m.grounds.found is not None]
    if cited:
        values["cited"] = float(any(cited))
    if ruling.evidence is not None and charge.grounding is not None:
        values["cited_gain"] = ruling.evidence - charge.grounding
    return values
