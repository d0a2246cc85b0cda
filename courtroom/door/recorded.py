"""Recorded model calls (`RecordedCall`: what was asked and the `ModelResponse` fields), and the two backends
that serve them back instead of a model: `ReplayBackend` in order, checking every request against the record
(`audit verify`), `RecordedCalls` by what was asked, in any order (`courtroom rejudge`)."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from courtroom.door.backend import Backend
from courtroom.door.outputs import jsonable
from courtroom.door.requests import (
    GenerationRequest,
    GenerationResponse,
    ModelResponse,
    Observation,
    Sampling,
    message_hash,
)
from courtroom.errors import RecordedFailure, ReplayMismatch


class RecordedCall(ModelResponse):
    """One call at the door as a transcript records it: what was asked, and the response (value as JSON)."""

    messages: list[str]
    """Hashes of the prompt's messages (the texts are stored once per case, as `prompt` events)."""
    output_type: str
    """Name of the requested output type."""
    schema_key: str
    """Hash of the constraint (JSON schema or options)."""
    constrained: bool = True
    """False when the model wrote free text, parsed afterwards."""
    sampling: Sampling
    """Temperature, token limit and seed of the call."""
    observe: Observation | None = Field(None, exclude_if=lambda v: v is None)
    """What the call asked to see inside the model's pass (`GenerationRequest.observe`), when it asked."""
    seat: str | None = Field(None, exclude_if=lambda v: v is None)
    """The further model that answered (`GenerationRequest.seat`); None: the run's model."""


def recorded_fields(request: GenerationRequest, response: GenerationResponse) -> dict[str, Any]:
    """The fields of the `RecordedCall` of a request and its response (the value as JSON)."""
    spec = request.spec
    fields = {name: getattr(response, name) for name in ModelResponse.model_fields}
    return {**fields, "value": jsonable(response.value),
            "messages": [message_hash(m) for m in request.messages],
            "output_type": spec.name, "schema_key": spec.key, "constrained": request.constrained,
            "sampling": request.sampling, "observe": request.observe, "seat": request.seat}


def recorded_response(call: RecordedCall, request: GenerationRequest) -> GenerationResponse:
    """The response a call recorded, its value validated back into the request's output type."""
    fields = {name: getattr(call, name) for name in ModelResponse.model_fields}
    value = None if call.error is not None else request.spec.validate(call.value)
    return GenerationResponse(**{**fields, "value": value})


def recorded_exception(error_type: str, message: str) -> Exception:
    """The exception a case's `error` event recorded: same type name, same message."""
    return type(error_type, (RecordedFailure,), {})(message)


class ReplayBackend(Backend):
    """Serves a transcript's recorded calls back in order, checking each request against the record."""

    name = "replay"

    def __init__(self, calls: Sequence[RecordedCall], failure: Exception | None = None) -> None:
        self._calls, self._position, self._failure = list(calls), 0, failure

    @property
    def exhausted(self) -> bool:
        return self._position >= len(self._calls)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        return [self._serve(request) for request in requests]

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        if self.exhausted:
            if self._failure is not None:  # the model door itself raised here (no call was recorded): again
                raise self._failure
            raise ReplayMismatch("the judge made a call the transcript does not have (call "
                                 f"{self._position + 1})")
        call = self._calls[self._position]
        self._position += 1
        where = f"event {call.seq}" if hasattr(call, "seq") else f"call {self._position}"
        if [message_hash(m) for m in request.messages] != call.messages:
            raise ReplayMismatch(f"{where}: the prompt differs from the recorded one")
        if request.spec.key != call.schema_key:
            raise ReplayMismatch(f"{where}: output schema {request.spec.key} differs from recorded "
                                 f"{call.schema_key}")
        if request.observe != call.observe:
            raise ReplayMismatch(f"{where}: what the call asked to observe inside the model differs from the "
                                 "record")
        if request.seat != call.seat:
            raise ReplayMismatch(f"{where}: the call goes to {_seat(request.seat)}, the record's went to "
                                 f"{_seat(call.seat)}")
        return recorded_response(call, request)


def _seat(seat: str | None) -> str:
    return "the run's model" if seat is None else f"seat {seat!r}"


def _call_key(messages: Sequence[str], schema_key: str, constrained: bool, sampling: Sampling,
              seat: str | None) -> str:
    return repr((tuple(messages), schema_key, constrained, sorted(sampling.model_dump().items()), seat))


class RecordedCalls(Backend):
    """Serves recorded calls by what was asked (prompt, schema, sampling), in any order. What a call asked to
    observe is not matched: witnesses whose observations the run did not record say so."""

    name = "recorded"

    def __init__(self, calls: Sequence[RecordedCall]) -> None:
        self._calls: dict[str, deque[RecordedCall]] = defaultdict(deque)
        for call in calls:
            self._calls[_call_key(call.messages, call.schema_key, call.constrained, call.sampling,
                                  call.seat)].append(call)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        return [self._serve(request) for request in requests]

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        key = _call_key([message_hash(m) for m in request.messages], request.spec.key, request.constrained,
                        request.sampling, request.seat)
        if not self._calls[key]:
            raise ReplayMismatch(f"the court asks for a {request.spec.name} the run never asked the model "
                                 "for (a changed prompt, persona, sampling or model, or a charge the run did "
                                 "not try)")
        return recorded_response(self._calls[key].popleft(), request)
