"""Judges by name: the court and every baseline."""

from __future__ import annotations

from courtroom.engine.judge import Judge
from courtroom.errors import CourtroomError


def judge_names() -> list[str]:
    """Every judge `courtroom run --judge` accepts."""
    from courtroom.baselines import BASELINES

    return ["courtroom", *BASELINES]


def judge_class(name: str) -> type[Judge]:
    """The class of a judge, by name."""
    from courtroom.baselines import BASELINES
    from courtroom.court import Court

    if name == "courtroom":
        return Court
    if name in BASELINES:
        return BASELINES[name]
    raise CourtroomError(f"unknown judge {name!r}; choose one of {judge_names()}")
