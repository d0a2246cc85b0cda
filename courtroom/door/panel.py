"""A panel of model doors: the run's model and the further models a court seats (`trial.models`), behind one
door. Each request goes to its seat's backend (`GenerationRequest.seat`; None: the run's model), a batch split
by seat and answered in order; a seat the panel has no door for is an error, never quietly answered by another
model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from courtroom.door.backend import Backend, ServerCapabilities
from courtroom.door.requests import Capability, GenerationRequest, GenerationResponse
from courtroom.errors import ConfigError


class Panel(Backend):
    """The run's backend (`main`) and one backend per further seat, keyed as requests name them."""

    name = "panel"

    def __init__(self, main: Backend, seats: Mapping[str, Backend]) -> None:
        if not seats:
            raise ConfigError("a panel needs at least one seat besides the run's model")
        self.main, self.seats, self.model = main, dict(seats), main.model
        self.light = main.light and all(b.light for b in self.seats.values())

    def _door(self, seat: str | None) -> Backend:
        if seat is None:
            return self.main
        if seat not in self.seats:
            raise ConfigError(f"a request names seat {seat!r}, which this panel has no model for (it seats "
                              f"{', '.join(map(repr, self.seats))})")
        return self.seats[seat]

    @property
    def doors(self) -> list[Backend]:
        """Every backend of the panel, the run's first."""
        return [self.main, *self.seats.values()]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        by_seat: dict[str | None, list[int]] = {}
        for index, request in enumerate(requests):
            self._door(request.seat)  # an unknown seat fails the batch before any model works
            by_seat.setdefault(request.seat, []).append(index)
        answers: list[GenerationResponse | None] = [None] * len(requests)
        for seat, indices in by_seat.items():
            door = self._door(seat)
            door.on_tick = self.on_tick
            # each door serves its one model
            asked = [requests[i].model_copy(update={"seat": None}) for i in indices]
            for index, response in zip(indices, door.generate(asked)):
                answers[index] = response
        return answers  # type: ignore[return-value]  # every index was answered

    def prepare(self) -> None:
        for door in self.doors:
            door.prepare()

    def release(self, cache_group: str) -> None:
        for door in self.doors:
            door.release(cache_group)

    def close(self) -> None:
        for door in self.doors:
            door.close()

    def check_fits(self, request: GenerationRequest, prompt_tokens: int, completion_tokens: int) -> None:
        self._door(request.seat).check_fits(request, prompt_tokens, completion_tokens)

    @property
    def looks_inside(self) -> frozenset[Capability]:
        return self.main.looks_inside

    @property
    def scores_texts(self) -> bool:
        return self.main.scores_texts

    def why_no_text_scoring(self) -> tuple[str, str]:
        return self.main.why_no_text_scoring()

    @property
    def server(self) -> ServerCapabilities | None:
        return self.main.server

    @property
    def context_window(self) -> int | None:
        return self.main.context_window

    def describe(self) -> dict[str, Any]:
        return {**self.main.describe(), "seats": {seat: {"model": door.model, **door.describe()}
                                                  for seat, door in self.seats.items()}}
