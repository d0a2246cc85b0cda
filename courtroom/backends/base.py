"""The Backend protocol: one batched door to a model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from courtroom.generation import GenerationRequest, GenerationResponse, output_spec


class Backend(ABC):
    """Turns a batch of generation requests into responses, one per request, in order.

    Implementations must validate every request's output type before doing any expensive work,
    and must never raise for a single bad generation: a truncated or unparseable output comes
    back as a response with `error` set, so one failing case never sinks a batch.
    """

    name: str = "backend"

    @abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        """Serve a batch of requests."""

    def generate_one(self, request: GenerationRequest) -> GenerationResponse:
        """Serve a single request."""
        return self.generate([request])[0]

    def release(self, cache_group: str) -> None:  # noqa: B027 (optional: a backend without a cache keeps nothing)
        """Free whatever is cached for a group of requests (a case that has ended)."""

    def describe(self) -> dict[str, Any]:
        """What a run manifest records about this backend."""
        return {"backend": self.name}

    @staticmethod
    def check_requests(requests: Sequence[GenerationRequest]) -> None:
        """Fail early, naming the type, when an output type cannot become a constraint."""
        for request in requests:
            output_spec(request.output_type)
