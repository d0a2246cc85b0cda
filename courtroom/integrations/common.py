"""What every adapter shares: the court it judges with, the arguments it picks out of what its tool passes,
and the verdict as metadata a tool can store beside the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from courtroom.courts.load import load_court
from courtroom.engine.judge import Judge
from courtroom.engine.metric import ARGUMENTS, Score, reason_with_spans

NAMES = frozenset(alias for aliases in ARGUMENTS.values() for alias in aliases)
"""Every name a part of a case goes by (`courtroom.engine.metric.ARGUMENTS`)."""


def court_or_default(court: Judge | None) -> Judge:
    """The court given, or the default court on the default model (the model loads on the first score)."""
    return court if court is not None else load_court()


def case_arguments(arguments: Mapping[str, Any], own: tuple[str, ...] = ()) -> dict[str, Any]:
    """The arguments that name a part of the case, out of everything a tool passes a metric. A part given
    under the tool's `own` name is taken from it alone; a part given only under other names is passed on as
    given."""
    given = {name: value for name, value in arguments.items() if name in NAMES and value is not None}
    for aliases in ARGUMENTS.values():
        if ours := [name for name in own if name in aliases and name in given]:
            given = {name: value for name, value in given.items() if name not in aliases or name in ours}
    return given


def reason(result: Score) -> str:
    """The reason a tool shows: the court's, then the spans it finds hallucinated (`hallucinated: 'X' (0.83),
    ...`)."""
    return reason_with_spans(result.reason, result.spans)


def metadata(result: Score) -> dict[str, Any]:
    """The verdict behind a score, as plain JSON: label, threshold, success, each charge with its ruling and
    the spans found hallucinated (characters of the answer, text, score, the witnesses that named them)."""
    verdict = result.verdict
    rulings = {r.charge: r for r in verdict.rulings}
    charges = []
    for charge in verdict.charges:
        entry: dict[str, Any] = {"charge": charge.index + 1, "quote": charge.quote,
                                 "why_charged": charge.reason}
        if (ruling := rulings.get(charge.index)) is not None:
            entry.update(verdict=ruling.verdict.value, p_hallucinated=ruling.p_hallucinated,
                         ruling=ruling.reason)
        charges.append(entry)
    spans = [{"start": s.start, "end": s.end, "text": s.text, "score": s.score, "named_by": s.named_by}
             for s in result.spans]
    return {"label": verdict.label, "p_hallucinated": result.value, "threshold": result.threshold,
            "success": result.success, "charges": charges, "spans": spans}
