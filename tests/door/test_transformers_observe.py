"""The transformers backend looks inside its scoring pass (`GenerationRequest.observe`) on the real SmolLM2-135M:
attention to the prompt per layer and head, per token, and hidden states, without changing the scores."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest

from courtroom.door.requests import ChatMessage, GenerationRequest, Observation
from courtroom.door.transformers import TransformersBackend

pytestmark = pytest.mark.model

PROMPT = ("CONTEXT: The Harrow Point lighthouse was first lit on 3 March 1874 and automated in 1962.\n"
          "QUESTION: When was the lighthouse automated?")
TEXT = "The lighthouse was automated in 1926. Its keeper retired."
SPANS = ((0, 37), (38, len(TEXT)), (0, len(TEXT)))
LAYERS, HEADS, WIDTH = 30, 9, 576  # SmolLM2-135M


def scoring(observe: Observation | None, group: str | None = None) -> GenerationRequest:
    return GenerationRequest(messages=(ChatMessage(role="user", content=PROMPT),), output_type=Literal[(TEXT,)],
                             cache_group=group, observe=observe)


def test_an_observed_pass_reports_attention_and_hidden_states_per_span_and_keeps_the_scores(
        float32_backend: TransformersBackend) -> None:
    assert [TEXT[a:b] for a, b in SPANS[:2]] == ["The lighthouse was automated in 1926.", "Its keeper retired."]
    backend = TransformersBackend(loaded=float32_backend.loaded, prefix_cache=False)
    model = backend.loaded.model
    implementation = model.config._attn_implementation
    plain = backend.generate_one(scoring(None))
    observed = backend.generate_one(scoring(Observation(spans=SPANS, lookback=True, hidden=(0.5, 1.0))))
    assert model.config._attn_implementation == implementation  # eager for the pass only

    assert plain.lookback is None and plain.hidden is None
    assert len(observed.token_logprobs) == len(plain.token_logprobs)
    assert np.allclose(observed.token_logprobs, plain.token_logprobs, atol=1e-3)
    assert observed.option_logprobs[TEXT] == pytest.approx(plain.option_logprobs[TEXT], abs=1e-2)

    lookback = np.array(observed.lookback)
    assert lookback.shape == (len(SPANS), LAYERS, HEADS)
    assert np.all((lookback >= 0) & (lookback <= 1))  # a head that attends only to the prompt's first token: ~1
    tokens = np.array(observed.token_lookback)
    assert tokens.shape == (len(plain.token_logprobs),) and np.all((tokens > 0) & (tokens < 1))
    hidden = np.array(observed.hidden)
    assert hidden.shape == (len(SPANS), 2, WIDTH)
    assert not np.allclose(hidden[:, 0], hidden[:, 1], atol=1e-2)  # two depths, two states

    # the whole answer's means are its sentences' means weighed by their tokens (the spans split the tokens)
    spans = observed.token_spans
    counts = [sum(1 for a, b in spans if b > start and a < end) for start, end in SPANS[:2]]
    assert sum(counts) == len(spans)
    weights = np.array(counts) / sum(counts)
    assert np.allclose(lookback[2], weights[0] * lookback[0] + weights[1] * lookback[1], atol=1e-3)
    assert np.allclose(hidden[2], weights[0] * hidden[0] + weights[1] * hidden[1], atol=1e-2)
    # per token, the mean over layers and heads; averaged over the tokens, the whole answer's mean
    assert tokens.mean() == pytest.approx(lookback[2].mean(), abs=1e-3)


def test_an_observed_pass_after_a_cached_prefix_scores_as_without_it(float32_backend: TransformersBackend) -> None:
    backend = TransformersBackend(loaded=float32_backend.loaded, prefix_cache=True)
    plain = backend.generate_one(scoring(None, group="case"))
    observed = backend.generate_one(scoring(Observation(spans=SPANS[2:], lookback=True), group="case"))
    assert observed.cached_prompt_tokens > 0
    assert np.allclose(observed.token_logprobs, plain.token_logprobs, atol=1e-3)
    assert np.array(observed.lookback).shape == (1, LAYERS, HEADS) and observed.hidden is None
    backend.release("case")


def test_a_pass_that_fails_inside_the_model_restores_its_attention_and_removes_its_hooks(
        real_backend: TransformersBackend) -> None:
    backend = TransformersBackend(loaded=real_backend.loaded, prefix_cache=False)
    model = backend.loaded.model
    implementation = model.config._attn_implementation
    attention = [m for name, m in model.named_modules() if name.endswith("self_attn")]
    hooks_before = [len(m._forward_hooks) for m in attention]
    calls = []

    def fail_on_the_text(module, args, kwargs):  # noqa: ANN001, ANN202, ARG001
        calls.append(1)
        if len(calls) > 1:  # the prompt's pass runs; the observed pass over the text fails
            raise RuntimeError("boom")

    handle = model.register_forward_pre_hook(fail_on_the_text, with_kwargs=True)
    try:
        with pytest.raises(RuntimeError, match="boom"):
            backend.generate_one(scoring(Observation(spans=SPANS, lookback=True)))
    finally:
        handle.remove()
    assert model.config._attn_implementation == implementation
    assert [len(m._forward_hooks) for m in attention] == hooks_before
    assert backend.looks_inside == {"attention", "hidden_states"}


def test_words_projected_onto_a_direction_are_their_states_dotted_with_it_and_a_wrong_width_is_refused(
        real_backend: TransformersBackend) -> None:
    from courtroom.door.observe import direction_key
    from courtroom.errors import BackendError

    backend = TransformersBackend(loaded=real_backend.loaded, prefix_cache=False)
    words = ((4, 14), (19, 28), (32, 36))  # lighthouse, automated, 1926
    assert [TEXT[a:b] for a, b in words] == ["lighthouse", "automated", "1926"]
    direction = tuple(float(v) for v in np.random.default_rng(0).normal(size=WIDTH))
    states = backend.generate_one(scoring(Observation(spans=SPANS[2:], hidden=(0.5,), hidden_only=words)))
    projected = backend.generate_one(scoring(Observation(spans=SPANS[2:], hidden=(0.5,), hidden_only=words,
                                                         project_words=direction)))
    assert states.projected_words is None and projected.projected_words == direction_key(direction)
    assert projected.hidden[0] == states.hidden[0]  # the spans' states as before
    dots = [float(np.dot(s[0], direction)) for s in states.hidden[1:]]  # the recorded states, rounded to 3 decimals
    assert [len(w[0]) for w in projected.hidden[1:]] == [1, 1, 1]
    assert [w[0][0] for w in projected.hidden[1:]] == pytest.approx(dots, abs=0.05 * np.sqrt(WIDTH) / 10)
    with pytest.raises(BackendError, match=f"direction of 3 values; the model's hidden state has {WIDTH}"):
        backend.generate_one(scoring(Observation(spans=SPANS[2:], hidden=(0.5,), hidden_only=words,
                                                 project_words=(1.0, 0.0, 0.0))))
