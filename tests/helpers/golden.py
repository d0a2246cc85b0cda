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
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.door.pseudo import PseudoModel
from courtroom.evaluate.datasets import example_cases

CASES = 8
"""The first example cases (every variant judges the same ones)."""


def _court(name: str, **overrides: Any) -> Callable[[ScriptedBackend], Any]:
    """A shipped court with some settings changed (`--set` paths, `.` written `__`)."""
    def build(backend: ScriptedBackend) -> Any:
        return load_court(name, backend, overrides={k.replace("__", "."): v for k, v in overrides.items()})
    return build


VARIANTS: dict[str, Callable[[ScriptedBackend], Any]] = {
    "court-default": _court("default"),
    "court-default-inside": _court("default"),
    "court-full": _court("full"),
    "court-jury": _court("jury"),
    "court-cross_examination": _court("cross_examination"),
    "court-full-generate": _court("full", trial__charges="drafted", trial__on_no_charges="try_whole_answer",
                                  trial__personas={"clerk": "clerk", "prosecutor": "prosecutor", "defender": "defender",
                                                   "judge": "judge"}),
    "court-full-sentence-lexical": _court("full", grounding__scoring="sentence", grounding__clip=None,
                                          grounding__lexical={"center": 0.35, "scale": 0.1}, aggregation__method="any"),
    "court-jury-majority": _court("jury", trial__jury_rule="majority", aggregation__method="majority"),
    "court-escalated": _court("escalated"),
    "court-full-escalation": _court("full", trial__escalation={"low": 0.55, "high": 0.75}),
    "court-full-blind-polled": _court("full", trial__blind_judge=True, trial__poll_moves=True),
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
