"""Replay: rebuild a case's debate and verdict from its transcript alone.

The recorded model calls are served back, in order, by a `ReplayBackend`, through the same judge
procedure rebuilt from the run manifest. Each request must match the recorded one (same prompt
messages, same output schema), so a transcript that was edited, truncated or produced by another
court or prompt version is caught at the call where it diverges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from courtroom.case import CaseVerdict
from courtroom.door.backend import Backend
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.engine.events import content_hash
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import run_lockstep
from courtroom.errors import CourtroomError

DEBATE_EVENTS = ("charges", "move", "ruling", "verdict", "error")


class ReplayMismatch(CourtroomError):
    """The judge asked for something the transcript did not record."""


class ReplayBackend(Backend):
    """Serves a transcript's recorded model calls back, checking each request against the record."""

    name = "replay"

    def __init__(self, events: Sequence[Any]) -> None:
        self._calls = [e for e in events if e.event == "model_call"]
        self._position = 0
        self._failure = next((e for e in events if e.event == "error"), None)

    @property
    def exhausted(self) -> bool:
        return self._position >= len(self._calls)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        return [self._serve(request) for request in requests]

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        if self.exhausted:
            if self._failure is not None:  # the model door itself raised here (no call was recorded): again
                raise recorded_exception(self._failure)
            raise ReplayMismatch(f"the judge made a call the transcript does not have (call {self._position + 1})")
        event = self._calls[self._position]
        self._position += 1
        hashes = message_hashes(request)
        spec = request.spec
        if hashes != event.messages:
            raise ReplayMismatch(f"event {event.seq}: the prompt differs from the recorded one")
        if spec.key != event.schema_key:
            raise ReplayMismatch(f"event {event.seq}: output schema {spec.key} differs from recorded {event.schema_key}")
        return recorded_response(event, request)


def recorded_exception(event: Any) -> Exception:
    """The exception an `error` event recorded: same type name, same message."""
    return type(event.error_type, (Exception,), {})(event.message)


def message_hashes(request: GenerationRequest) -> list[str]:
    """The hashes a transcript records for a request's prompt messages."""
    return [content_hash(m.role + "\x00" + m.content) for m in request.messages]


def recorded_response(event: Any, request: GenerationRequest) -> GenerationResponse:
    """The response a `model_call` event recorded, validated against the request's output type."""
    spec = request.spec
    value = None if event.error is not None else spec.validate(event.value)
    return GenerationResponse(
        value=value, raw=event.raw, prompt_tokens=event.prompt_tokens,
        cached_prompt_tokens=event.cached_prompt_tokens, completion_tokens=event.completion_tokens,
        seconds=event.seconds, batch_size=event.batch_size, option_probs=event.option_probs,
        option_logprobs=event.option_logprobs, token_logprobs=event.token_logprobs,
        token_spans=event.token_spans,
        finish_reason=event.finish_reason, error=event.error, schema_key=event.schema_key,
    )


@dataclass
class ReplayResult:
    """What replaying a transcript produced, and how it compares with the record."""

    verdict: CaseVerdict | None
    events: list[Any]
    differences: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return not self.differences


def debate_view(events: Sequence[Any]) -> list[dict[str, Any]]:
    """The events that make the debate and the verdict, without times and numbering."""
    return [e.model_dump(mode="json", exclude={"seq", "time", "traceback"}) for e in events
            if e.event in DEBATE_EVENTS]


def replay(events: Sequence[Any], judge: Judge) -> ReplayResult:
    """Re-run the judge on a transcript's recorded calls and compare the debate and verdict."""
    start = next((e for e in events if e.event == "case_start"), None)
    if start is None:
        raise ReplayMismatch("the transcript has no case_start event")
    if start.config_hash != judge.config_hash():
        raise ReplayMismatch(f"the transcript was made by judge configuration {start.config_hash}, "
                             f"not {judge.config_hash()}")
    backend = ReplayBackend(events)
    [outcome] = list(run_lockstep([start.case], judge.program, backend, judge_name=judge.name,
                                  config_hash=judge.config_hash(), window=1))
    differences = []
    recorded, rebuilt = debate_view(events), debate_view(outcome.events)
    for i, (a, b) in enumerate(zip(recorded, rebuilt)):
        if a != b:
            differences.append(f"debate event {i} ({a.get('event')}): recorded {a} but replay gives {b}")
    if len(recorded) != len(rebuilt):
        differences.append(f"the record has {len(recorded)} debate events, the replay {len(rebuilt)}")
    if not backend.exhausted:
        differences.append("the transcript holds model calls the replay did not use")
    return ReplayResult(outcome.verdict, outcome.events, differences)


def judge_from_config(config: dict[str, Any], backend: Backend | None = None) -> Judge:
    """Rebuild the judge a manifest describes."""
    from courtroom.engine.registry import judge_class

    return judge_class(config["judge"]).from_config(config, backend)
