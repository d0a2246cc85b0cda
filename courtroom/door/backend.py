"""The Backend protocol: one batched door to a model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from courtroom.door.outputs import output_spec
from courtroom.door.requests import Capability, GenerationRequest, GenerationResponse
from courtroom.errors import BackendError, ConfigError, ContextWindowError, CourtroomError


@dataclass(frozen=True)
class Tick:
    """Work a backend has just done inside a batch, for progress displays (reported as it happens, from any
    thread)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ServerCapabilities(BaseModel):
    """What a model server was found to support when probed (recorded in the run's manifest)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    tokenize: bool
    """`POST /tokenize` with chat messages: the server renders and tokenizes prompts (vLLM, SGLang)."""
    prompt_logprobs: bool
    """`/completions` with `echo` returns log-probabilities of prompt tokens: choices and texts are scored
    exactly."""
    token_scoring: bool = False
    """`/completions` takes `allowed_token_ids` and returns the raw log-probability of the token it was made
    to write (vLLM): texts are scored token by token with the prefix cache, exactly and much faster."""
    max_model_len: int | None = None
    """The model's context window, when the server says."""

    @property
    def scores_texts(self) -> bool:
        """Whether texts can be scored (grounding) and choices scored exactly."""
        return self.tokenize and self.prompt_logprobs


class Backend(ABC):
    """Turns a batch of generation requests into responses, one per request, in order. Implementations
    validate every output type before any expensive work, and never raise for one bad generation: a truncated
    or unparseable output is a response with `error` set, so one failing case never sinks a batch."""

    name: str = "backend"
    model: str = "unknown"
    """The model this backend serves (or stands in for), as the user named it."""
    light: ClassVar[bool] = False
    """A client of a model computed elsewhere: cheap to build (a run probes it before the first case, see
    `check_model`), and it computes nothing with torch (a Ray worker sets no torch threads for it)."""
    on_tick: Callable[[Tick], None] | None = None
    """Told of work as it happens inside `generate` (set by whoever shows progress; None: nobody listens)."""

    def tick(self, requests: int = 0, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        if self.on_tick is not None:
            self.on_tick(Tick(requests, prompt_tokens, completion_tokens))

    @abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        """Serve a batch of requests."""

    def generate_one(self, request: GenerationRequest) -> GenerationResponse:
        """Serve a single request."""
        return self.generate([request])[0]

    def prepare(self) -> None:  # noqa: B027 (optional: a backend with nothing to load does nothing)
        """Load what the first call needs now (weights, constraints): a bad model fails once, not once per
        case."""

    def release(self, cache_group: str) -> None:  # noqa: B027 (optional: a backend without a cache keeps nothing)
        """Free whatever is cached for a group of requests (a case that has ended)."""

    @property
    def looks_inside(self) -> frozenset[Capability]:
        """What this backend reports from inside the model's pass (`GenerationRequest.observe`); none by
        default."""
        return frozenset()

    @property
    def scores_texts(self) -> bool:
        """Whether this backend can score a given text (a one-option choice), as a court measuring grounding
        needs."""
        return True

    def why_no_text_scoring(self) -> tuple[str, str]:
        """When `scores_texts` is False: why (completing "which needs prompt log-probabilities, and ..."), and
        what would score them."""
        return f"the {self.name} backend returns none", "use another backend"

    @property
    def server(self) -> ServerCapabilities | None:
        """What a run's manifest records about the model's server (None: no server, the model runs here)."""
        return None

    @classmethod  # noqa: B027 (optional: a backend that finds its model late)
    def check_model(cls, model: str) -> None:
        """Fail now, before anything loads, for a model this backend cannot find (a light backend's:
        `prepare`)."""

    @property
    def context_window(self) -> int | None:
        """The most tokens a prompt and its completion may hold together, when known."""
        return None

    def check_fits(self, request: GenerationRequest, prompt_tokens: int, completion_tokens: int) -> None:
        """Refuse, before any work, a request whose prompt and completion would overflow the context
        window."""
        window = self.context_window
        if window is not None and prompt_tokens + completion_tokens > window:
            where = f"case {request.cache_group!r}: " if request.cache_group else ""
            raise ContextWindowError(f"{where}the prompt holds {prompt_tokens} tokens and "
                                     f"{completion_tokens} more may be generated, over the context window of "
                                     f"{self.model!r} ({window} tokens); shorten the case's context or use a "
                                     "model with a longer window")

    def close(self) -> None:  # noqa: B027 (optional: a backend that holds no connection or thread)
        """Release connections and threads."""

    def describe(self) -> dict[str, Any]:
        """What a run manifest records about this backend."""
        return {"backend": self.name}

    @staticmethod
    def check_requests(requests: Sequence[GenerationRequest]) -> None:
        """Fail early, naming the type, when an output type cannot become a constraint, or when a request is
        for a further model (`GenerationRequest.seat`): a door of one model never answers for another."""
        for request in requests:
            output_spec(request.output_type)
            if request.seat is not None:
                raise ConfigError(f"a request for seat {request.seat!r} reached the door of one model: a "
                                  "court that seats further models speaks through a panel of doors "
                                  "(`Judge.seated`)")


def prepare_backend(backend: Backend) -> None:
    """Load a backend's model before the first case: one clear error, not a failure in every case."""
    try:
        backend.prepare()
    except CourtroomError:
        raise
    except Exception as exc:
        raise BackendError(f"model {backend.model!r} could not be loaded: {type(exc).__name__}: "
                           f"{exc}") from exc
