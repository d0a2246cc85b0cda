"""The judges pinned by the golden transcripts, and how their events are written down."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from courtroom.baselines import (
    PerContextJudge,
    RailsJudge,
    SingleJudge,
    TwoStepJudge,
    UnstructuredJudge,
    VoteJudge,
)
from courtroom.court import Court, LexicalSpec
from courtroom.court.spec_sections import EscalationSpec, MovePriorsSpec
from courtroom.door import ScriptedBackend
from courtroom.door.pseudo import PseudoModel
from courtroom.evaluate.datasets import example_cases

CASES = 8
"""The first example cases (every variant judges the same ones)."""


def _court(name: str, **changes: dict[str, Any]) -> Callable[[ScriptedBackend], Any]:
    def build(backend: ScriptedBackend) -> Any:
        court = Court.load(name, backend)
        update = {section: getattr(court.spec, section).model_copy(update=fields) if isinstance(fields, dict) else fields
                  for section, fields in changes.items()}
        court.spec = court.spec.model_copy(update=update)
        return court
    return build


VARIANTS: dict[str, Callable[[ScriptedBackend], Any]] = {
    "court-default": _court("default"),
    "court-default-inside": _court("default"),
    "court-pointing": _court("pointing"),
    "court-pointing-named": _court("pointing", witnesses={"trial_charges": "named"}),
    "court-full": _court("full"),
    "court-jury": _court("jury"),
    "court-cross_examination": _court("cross_examination"),
    "court-full-score": _court("full", indictment={"mode": "score"}),
    "court-full-generate": _court("full", indictment={"mode": "generate"}, on_no_charges="try_whole_answer"),
    "court-full-sentence-lexical-reading": _court(
        "full", grounding={"scoring": "sentence", "clip": None, "lexical": LexicalSpec(scale=0.1)},
        ruling={"first_reading_weight": 0.2}, aggregation={"method": "any"}),
    "court-jury-majority": _court("jury", jury_rule="majority", aggregation={"method": "majority"}),
    "court-evidence": _court("evidence"),
    "court-escalated": _court("escalated"),
    "court-full-escalation-priors": _court(
        "full", escalation=EscalationSpec(low=0.55, high=0.75),
        move_priors=MovePriorsSpec(nodes={"prosecution": {"argue": 0.3, "withdraw": 0.7}})),
    "single": lambda b: SingleJudge(b),
    "two-step": lambda b: TwoStepJudge(b),
    "rails": lambda b: RailsJudge(b),
    "per-context": lambda b: PerContextJudge(b),
    "vote": lambda b: VoteJudge(b, votes=3),
    "unstructured": lambda b: UnstructuredJudge(b),
    "unstructured-lenient": lambda b: UnstructuredJudge(b, reading="lenient"),
}


INSIDE = {"court-default-inside": "pseudo"}
"""Variants judged by a pseudo-model that also reports attention and hidden states (its pseudo-observations), under
a model name no ruling is fitted for: the default court hears every witness and the measurement decides."""


def golden_lines(build: Callable[[ScriptedBackend], Any], name: str = "") -> list[str]:
    """The events of judging the example cases, one JSON line each, without numbers, times and tracebacks."""
    inside = name in INSIDE
    backend = ScriptedBackend(PseudoModel(), model=INSIDE.get(name, "default"),
                              looks_inside={"attention", "hidden_states"} if inside else ())
    judge = build(backend)
    lines = []
    for outcome in judge.run_many(example_cases()[:CASES]):
        for event in outcome.events:
            data = event.model_dump(mode="json", exclude={"seq", "time", "traceback"})
            lines.append(json.dumps(data, sort_keys=True, ensure_ascii=False))
    return lines
