"""A scripted fake backend for tests: queued or computed outputs, validated, with calls recorded."""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from courtroom.door.backend import Backend
from courtroom.door.outputs import OutputSpec, truncation_message
from courtroom.door.requests import Capability, GenerationRequest, GenerationResponse
from courtroom.door.token_spans import end_to_end
from courtroom.errors import BackendError, OutputParseError, ScriptExhaustedError


class Truncated:
    """A scripted output that simulates a generation cut off by its token limit."""

    def __init__(self, partial: str = '{"reason": "The answer') -> None:
        self.partial = partial


class Scored:
    """A scripted choice with explicit option log-probabilities (their softmax are the probabilities);
    `tokens` splits the chosen option into (text, log-probability) tokens that make it up, else it is one
    token."""

    def __init__(self, logprobs: dict[str, float], tokens: list[tuple[str, float]] | None = None,
                 observed: dict[str, Any] | None = None) -> None:
        self.logprobs = logprobs
        self.tokens = tokens
        self.observed = observed or {}
        """What the pass saw inside the model, for a request that asks (`lookback`, `token_lookback`,
        `hidden`, as `ModelResponse` holds them); given only to a backend that `looks_inside`."""


class Unparseable:
    """A scripted output that simulates free text that fails to parse (unconstrained mode only)."""

    def __init__(self, text: str = "Sure! Here is my verdict: it looks fine.") -> None:
        self.text = text


ScriptFunction = Callable[[GenerationRequest], Any]


class ScriptedBackend(Backend):
    """Answers requests from a script (`outputs`: consumed in call order, or a function of the request): a
    value of the requested type, raw JSON text, option probabilities for a choice, `Truncated()`,
    `Unparseable()`, or an exception to raise; one that does not fit the type raises `BackendError` (a bug in
    the test)."""

    name = "scripted"

    def __init__(self, outputs: Iterable[Any] | ScriptFunction, *, model: str = "scripted",
                 context_window: int | None = None, looks_inside: Iterable[Capability] = ()) -> None:
        self.model = model
        self._looks_inside = frozenset(looks_inside)
        self._context_window = context_window
        self._function: ScriptFunction | None = outputs if callable(outputs) else None
        self._queue: Iterator[Any] | None = None if callable(outputs) else iter(outputs)
        self.calls: list[GenerationRequest] = []
        self.batches: list[int] = []
        self.released: list[str] = []

    @property
    def context_window(self) -> int | None:  # tokens are the prompt's words
        return self._context_window

    @property
    def looks_inside(self) -> frozenset[Capability]:
        return self._looks_inside

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        self.check_requests(requests)
        for request in requests:
            completion = max(len(o.split())
                             for o in request.spec.options) if request.spec.kind == "choice" else \
                request.sampling.max_new_tokens
            self.check_fits(request, _words(request), completion)
        self.batches.append(len(requests))
        responses = []
        for request in requests:
            self.calls.append(request)
            responses.append(response := self._respond(request, self._next_output(request)))
            response.batch_size = len(requests)
            self.tick(requests=1, prompt_tokens=response.prompt_tokens,
                      completion_tokens=response.completion_tokens)
        return responses

    def release(self, cache_group: str) -> None:
        self.released.append(cache_group)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    def _next_output(self, request: GenerationRequest) -> Any:
        if self._function is not None:
            return self._function(request)
        assert self._queue is not None
        try:
            return next(self._queue)
        except StopIteration:
            raise ScriptExhaustedError(f"ScriptedBackend ran out of outputs at call {len(self.calls)} "
                                       f"({request.spec.name})") from None

    def _respond(self, request: GenerationRequest, output: Any) -> GenerationResponse:
        spec = request.spec
        prompt_tokens = _words(request)
        if isinstance(output, BaseException):
            raise output
        if isinstance(output, Truncated):
            return GenerationResponse(raw=output.partial, prompt_tokens=prompt_tokens, seconds=0.0,
                                      schema_key=spec.key,
                                      completion_tokens=request.sampling.max_new_tokens,
                                      finish_reason="length",
                                      error=truncation_message(spec, request.sampling.max_new_tokens))
        if isinstance(output, Unparseable):
            if request.constrained:
                raise BackendError("Unparseable() scripted for a constrained request: impossible by "
                                   "construction")
            return GenerationResponse(raw=output.text, prompt_tokens=prompt_tokens, seconds=0.0,
                                      schema_key=spec.key,
                                      completion_tokens=len(output.text.split()), finish_reason="parse_error",
                                      error=f"output is not valid JSON for {spec.name}")
        probs = logprobs = tokens = spans = None
        observed: dict[str, Any] = {}
        try:
            if spec.kind == "choice":
                if isinstance(output, Scored):
                    observed = self._observed(request, output)
                    logprobs = {o: float(output.logprobs[o]) for o in spec.options}
                    top = max(logprobs.values())
                    tokens = output.tokens
                    output = {o: math.exp(lp - top) for o, lp in logprobs.items()}
                probs = _choice_probs(spec, output)
                if logprobs is None:
                    logprobs = {o: math.log(p) if p > 0 else -1e9 for o, p in probs.items()}
                raw = max(probs, key=lambda o: probs[o])
                tokens, spans = _token_scores(raw, logprobs[raw], tokens)
            else:
                raw = output if isinstance(output, str) else _dump(output)
            value = spec.parse(raw)
        except OutputParseError as exc:
            raise BackendError(f"scripted output {output!r} does not fit the requested type: {exc}") from exc
        return GenerationResponse(value=value, raw=raw, prompt_tokens=prompt_tokens,
                                  completion_tokens=len(raw.split()),
                                  seconds=0.0, option_probs=probs, option_logprobs=logprobs,
                                  token_logprobs=tokens, token_spans=spans, schema_key=spec.key, **observed)

    def _observed(self, request: GenerationRequest, output: Scored) -> dict[str, Any]:
        """What a scored output saw inside the model, as far as the request asks and this backend looks
        inside."""
        observe = request.observe
        if observe is None:
            return {}
        wanted = ({"lookback", "token_lookback"} if observe.lookback
                  and "attention" in self._looks_inside else set())
        if observe.hidden and "hidden_states" in self._looks_inside:
            wanted |= {"hidden", "projected_words"} if observe.project_words else {"hidden"}
        if missing := wanted - set(output.observed):
            raise BackendError(f"the script gave no {sorted(missing)} for a request that asks to observe "
                               "them")
        return {k: v for k, v in output.observed.items() if k in wanted}


def _token_scores(option: str, logprob: float, tokens: list[tuple[str, float]] | None
                  ) -> tuple[list[float], list[tuple[int, int]]]:
    """Per-token log-probabilities and character spans of a scored option (one token when not given)."""
    if tokens is None:
        return [logprob], [(0, len(option))]
    if "".join(text for text, _ in tokens) != option:
        raise OutputParseError(f"token texts {[t for t, _ in tokens]} do not make up {option!r}")
    if not math.isclose(math.fsum(lp for _, lp in tokens), logprob, abs_tol=1e-6):
        raise OutputParseError(f"token log-probabilities {[lp for _, lp in tokens]} do not sum to {logprob}")
    return [lp for _, lp in tokens], end_to_end([text for text, _ in tokens])


def _words(request: GenerationRequest) -> int:
    """The prompt's tokens, as a script counts them: its words."""
    return sum(len(m.content.split()) for m in request.messages)


def _dump(output: Any) -> str:
    return output.model_dump_json() if isinstance(output, BaseModel) else json.dumps(output)


def _choice_probs(spec: OutputSpec, output: Any) -> dict[str, float]:
    if isinstance(output, dict):
        unknown = set(output) - set(spec.options)
        if unknown or not output:
            raise OutputParseError(f"probabilities {output} must name options of {list(spec.options)}")
        total = float(sum(output.values()))
        if total <= 0:
            raise OutputParseError(f"probabilities {output} sum to {total}")
        return {o: float(output.get(o, 0.0)) / total for o in spec.options}
    option = output.value if isinstance(output, enum.Enum) else str(output)
    if option not in spec.options:
        raise OutputParseError(f"{option!r} is not one of {list(spec.options)}")
    return {o: 1.0 if o == option else 0.0 for o in spec.options}
