"""Replay: rebuild a case's debate and verdict from its transcript, serving the recorded calls back in order;
a request that differs from the recorded one (an edited, truncated or foreign transcript) is caught where it
diverges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from courtroom.case import CaseVerdict
from courtroom.door.recorded import ReplayBackend, recorded_exception
from courtroom.engine.events import Event, ModelCallEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import run_lockstep
from courtroom.errors import ReplayMismatch

DEBATE_EVENTS = ("charges", "move", "ruling", "verdict", "error")
NO_RULING_BEFORE = ("No ruling is fitted for this model, so the grounding measure decided; the witnesses' "
                    "testimony is recorded (courtroom calibrate --ruling fits a ruling on labelled runs).")
"""What the default court's verdicts said at their end, in runs recorded before courtroom 0.2 (now said once
per run, where a run is read): a recorded reason that differs from the replayed one by this alone is the same
reason."""


@dataclass
class ReplayResult:
    """What replaying a transcript produced, and how it compares with the record."""

    verdict: CaseVerdict | None
    events: list[Event]
    differences: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return not self.differences


def debate_view(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The events that make the debate and the verdict, without times and numbering."""
    return [e.model_dump(mode="json", exclude={"seq", "time", "traceback"}) for e in events
            if e.event in DEBATE_EVENTS]


def _said_before(recorded: str, replayed: str) -> bool:
    """Whether a recorded reason is the replayed one as courtroom 0.1 wrote it (`NO_RULING_BEFORE` after
    it)."""
    return recorded == f"{replayed.rstrip('.')}. {NO_RULING_BEFORE}"


def replay(events: Sequence[Event], judge: Judge, config_hash: str | None = None) -> ReplayResult:
    """Re-run the judge on a transcript's calls and compare the debate and verdict (`config_hash`: the one it
    names)."""
    start = next((e for e in events if e.event == "case_start"), None)
    if start is None:
        raise ReplayMismatch("the transcript has no case_start event")
    expected = config_hash or judge.config_hash()
    if start.config_hash != expected:
        raise ReplayMismatch(f"the transcript was made by judge configuration {start.config_hash}, not "
                             f"{expected}")
    failure = next((e for e in events if e.event == "error"), None)
    backend = ReplayBackend([e for e in events if isinstance(e, ModelCallEvent)],
                            recorded_exception(failure.error_type, failure.message) if failure else None)
    [outcome] = list(run_lockstep([start.case], judge.program, backend, judge_name=judge.name,
                                  config_hash=start.config_hash, window=1))
    recorded, rebuilt = debate_view(events), debate_view(outcome.events)
    for a, b in zip(recorded, rebuilt):
        if a.get("event") == b.get("event") == "verdict" and _said_before(a["verdict"]["reason"],
                                                                          b["verdict"]["reason"]):
            a["verdict"]["reason"] = b["verdict"]["reason"]
    differences = [f"debate event {i} ({a.get('event')}): {field}: recorded {_short(x)} but replay gives "
                   f"{_short(y)}"
                   for i, (a, b) in enumerate(zip(recorded, rebuilt))
                   for field, x, y in fields_that_differ(a, b)]
    if len(recorded) != len(rebuilt):
        differences.append(f"the record has {len(recorded)} debate events, the replay {len(rebuilt)}")
    if not backend.exhausted:
        differences.append("the transcript holds model calls the replay did not use")
    return ReplayResult(outcome.verdict, outcome.events, differences)


def fields_that_differ(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The fields (dotted paths) whose values differ between two JSON values, deepest first: a tampered score
    is one."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for key in dict.fromkeys([*a, *b])
                for d in fields_that_differ(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in fields_that_differ(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path or "<event>", a, b)]


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
