"""What crosses the one door to the model: requests (chat messages, an output type, sampling), responses and
output types. A *choice* (an `Enum` or `Literal` of strings) is answered with every option's probability,
anything pydantic turns into a JSON schema with a parsed value (`door.outputs`). Nothing here imports
torch."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from courtroom.digest import content_hash
from courtroom.door.outputs import OutputSpec, output_spec, truncation_message
from courtroom.errors import OutputParseError, TruncatedGenerationError


class ChatMessage(BaseModel):
    """One message of a chat prompt."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    role: Literal["system", "user", "assistant"]
    """Who speaks."""
    content: str
    """What is said."""


class Sampling(BaseModel):
    """Sampling settings of one generation."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    temperature: float = Field(0.0, ge=0.0, le=5.0)
    """0 decodes greedily (deterministic); above 0 samples from the constrained distribution."""
    max_new_tokens: int = Field(256, ge=1, le=32768)
    """Hard limit on generated tokens; a JSON output cut off here is reported as truncated."""
    seed: int | None = None
    """Seed of this request's own random generator, so sampling does not depend on the batch."""


Capability = Literal["attention", "hidden_states"]
"""What a backend may report from inside the model's pass besides log-probabilities
(`Backend.looks_inside`)."""


class Observation(BaseModel):
    """What the pass that scores a text (a one-option choice) should also report from inside the model, each
    averaged over the tokens of given character spans of the text: the evidence a small model's forward pass
    carries beyond its likelihoods (the court's `lookback` and `hidden` witnesses)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    spans: tuple[tuple[int, int], ...] = Field(min_length=1)
    """Character spans (start, end) of the scored text to average over (the answer's sentences, the whole)."""
    lookback: bool = False
    """Per layer and head, the share of attention the text's tokens pay to the prompt against the text so far
    (Lookback Lens' ratio, averaged over the heads' attention to each part): needs `attention`."""
    hidden: tuple[Annotated[float, Field(gt=0.0, le=1.0)], ...] = ()
    """Depths of the residual stream to report (mean hidden state): 0.5 is the middle layer, 1.0 the last;
    needs `hidden_states`."""
    hidden_only: tuple[tuple[int, int], ...] = Field((), exclude_if=lambda v: not v)
    """Further character spans (the answer's words) whose mean hidden states alone are reported, after those
    of `spans`: what a span model's word probe reads (`witnesses.word_states`)."""
    project_words: tuple[float, ...] = Field((), exclude_if=lambda v: not v)
    """With `hidden_only`: a direction in the hidden state (a fitted word probe's, `Probe.direction`), onto
    which each word's mean state is projected: the door then reports one number per word and depth instead of
    the state, a few bytes of record a word instead of kilobytes (the response names it:
    `ModelResponse.projected_words`)."""

    @model_validator(mode="after")
    def _projects_words(self) -> Observation:
        if self.project_words and not (self.hidden_only and len(self.hidden) == 1):
            raise ValueError("project_words needs the words' spans (hidden_only) and exactly one hidden "
                             "depth")
        return self

    @property
    def needs(self) -> frozenset[Capability]:
        """The capabilities a backend must have to answer this."""
        return frozenset(name for name, wanted in (("attention", self.lookback),
                                                   ("hidden_states", self.hidden))
                         if wanted)


class GenerationRequest(BaseModel):
    """One call at the door: messages, an output type and sampling settings."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    messages: tuple[ChatMessage, ...]
    """The chat prompt. Put what is shared by many requests first: backends reuse its KV cache."""
    output_type: Any
    """A pydantic model (or any JSON-schema type), or an Enum/Literal of strings."""
    sampling: Sampling = Sampling()
    """Temperature, token limit and seed."""
    constrained: bool = True
    """False generates free text and parses it afterwards (the unstructured baseline)."""
    cache_group: str | None = None
    """Requests of one group (a case) share cached prompt prefixes; `Backend.release` frees them."""
    tag: str | None = None
    """Free label carried into transcripts (for example the persona and move)."""
    observe: Observation | None = None
    """For a scored text (a one-option choice): what else to report from inside the model's pass; a backend
    that cannot look inside (`Backend.looks_inside`) answers without it."""
    seat: str | None = None
    """Which model answers: None for the run's, else a further model a court seats (`trial.models`), by its
    key (`courtroom.door.panel`)."""

    @property
    def spec(self) -> OutputSpec:
        """The output type as the door sees it."""
        return output_spec(self.output_type)


class ModelResponse(BaseModel):
    """The fields of what a model call returns, declared once: a live response (`GenerationResponse`) and a
    recorded one (`courtroom.door.recorded.RecordedCall`, and the transcript's `model_call` event) share
    them."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, use_attribute_docstrings=True)

    value: Any = None
    """The parsed value (a model instance, an enum member or option string; as JSON once recorded), None on
    error."""
    raw: str
    """The text the model produced."""
    prompt_tokens: int
    """Tokens in the prompt."""
    cached_prompt_tokens: int = 0
    """Prompt tokens whose KV cache was reused rather than computed."""
    completion_tokens: int
    """Tokens generated (for a choice: the tokens of the chosen option)."""
    seconds: float
    """Wall time of the backend call that served this request."""
    batch_size: int = 1
    """How many requests that call served together."""
    option_probs: dict[str, float] | None = None
    """For a choice: the model's probability of every option (sums to 1)."""
    option_logprobs: dict[str, float] | None = None
    """For a choice: the unnormalised log-probability of every option's tokens given the prompt (a
    one-option choice measures how likely the model finds a given text, e.g. for grounding scores)."""
    token_logprobs: list[float] | None = None
    """For a choice: the log-probability of each token of the chosen option, in order (they sum to its
    `option_logprobs` entry); where in a text the model is surprised, e.g. by one invented number."""
    token_spans: list[tuple[int, int]] | None = None
    """For a choice: each token's character span (start, end) in the chosen option, beside
    `token_logprobs`."""
    lookback: list[list[list[float]]] | None = Field(None, exclude_if=lambda v: v is None)
    """With `Observation.lookback`: per observed span, per layer, per head, the share of attention paid to the
    prompt (against the text so far), averaged over the span's tokens."""
    token_lookback: list[float] | None = Field(None, exclude_if=lambda v: v is None)
    """With `Observation.lookback`: per token of the scored text, that share averaged over every layer and
    head."""
    hidden: list[list[list[float]]] | None = Field(None, exclude_if=lambda v: v is None)
    """With `Observation.hidden`: per observed span (`spans`, then `hidden_only`), per depth asked for, the
    mean hidden state of the span's tokens (of a word's, with `Observation.project_words`, its projection: one
    number)."""
    projected_words: str | None = Field(None, exclude_if=lambda v: v is None)
    """With `Observation.project_words`: the fingerprint of the direction the words' states were projected
    onto (`observe.direction_key`); None when `hidden` holds the words' states themselves."""
    finish_reason: Literal["stop", "length", "parse_error"] = "stop"
    """Why generation ended; `length` means the token limit cut the output."""
    error: str | None = None
    """What went wrong, when `value` is None."""
    schema_key: str = ""
    """Hash of the constraint (JSON schema or option list) that shaped this output."""


class GenerationResponse(ModelResponse):
    """What came back for one request."""

    @classmethod
    def of_text(cls, request: GenerationRequest, raw: str, *, truncated: bool,
                **fields: Any) -> GenerationResponse:
        """The response of a generated text: its parsed value, else why it does not parse (a constrained
        output cut off by the token limit is truncated), recorded as a failed generation, never raised."""
        try:
            value = request.spec.parse(raw)
        except Exception as exc:
            error = truncation_message(request.spec, request.sampling.max_new_tokens) \
                if truncated and request.constrained else str(exc)
            return cls(raw=raw, error=error, finish_reason="length" if truncated else "parse_error", **fields)
        return cls(value=value, raw=raw, **fields)

    @property
    def ok(self) -> bool:
        """True when a value was produced."""
        return self.error is None

    def unwrap(self) -> Any:
        """Return the value, or raise the error this response carries."""
        if self.error is None:
            return self.value
        if self.finish_reason == "length":
            raise TruncatedGenerationError(self.error)
        raise OutputParseError(self.error)


def message_hash(message: ChatMessage) -> str:
    """The name a transcript gives a prompt message (its role and text, hashed)."""
    return content_hash(message.role + "\x00" + message.content)
