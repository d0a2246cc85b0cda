"""The real model door, end to end on the embedded default model (SmolLM2-135M on CPU)."""

from __future__ import annotations

import enum
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from courtroom.door.requests import ChatMessage, GenerationRequest, Sampling
from courtroom.door.transformers import TransformersBackend
from courtroom.errors import OutputTypeError, TruncatedGenerationError

pytestmark = pytest.mark.model

CONTEXT = ChatMessage(role="system", content=(
    "You check answers against a context. CONTEXT: The Harrow Point lighthouse was first lit on 3 March 1874 "
    "and automated in 1962. ANSWER: The lighthouse was automated in 1926."))


class Finding(BaseModel):
    reason: str = Field(max_length=120)
    verdict: Literal["supported", "hallucinated"]


class Verdict(str, enum.Enum):
    SUPPORTED = "supported"
    HALLUCINATED = "hallucinated"


def ask(text: str, output_type, group: str | None = None, **sampling) -> GenerationRequest:
    return GenerationRequest(messages=(CONTEXT, ChatMessage(role="user", content=text)), output_type=output_type,
                             sampling=Sampling(**{"max_new_tokens": 120, **sampling}), cache_group=group)


def test_returns_a_valid_model_and_an_enum_with_probabilities(real_backend: TransformersBackend) -> None:
    finding, verdict = real_backend.generate([ask("Give a reason and a verdict as JSON.", Finding),
                                              ask("Is the answer supported or hallucinated?", Verdict)])
    assert finding.ok and isinstance(finding.value, Finding)
    assert finding.completion_tokens > 0 and finding.prompt_tokens > 20
    assert isinstance(verdict.value, Verdict)
    assert set(verdict.option_probs) == {"supported", "hallucinated"}
    assert sum(verdict.option_probs.values()) == pytest.approx(1.0)
    assert verdict.value.value == max(verdict.option_probs, key=verdict.option_probs.get)


def test_a_scored_text_comes_with_the_log_probability_of_each_token(real_backend: TransformersBackend) -> None:
    text = "The lighthouse was automated in 1926."
    response = real_backend.generate_one(ask("Repeat the answer.", Literal[(text,)]))
    tokens = real_backend.loaded.tokenizer(text, add_special_tokens=False)["input_ids"]
    assert len(response.token_logprobs) == len(tokens) == response.completion_tokens
    assert all(lp <= 0.0 for lp in response.token_logprobs)
    assert sum(response.token_logprobs) == pytest.approx(response.option_logprobs[text], abs=1e-3)
    assert "".join(text[a:b] for a, b in response.token_spans) == text


def test_a_batch_gives_what_sequential_calls_give(float32_backend: TransformersBackend) -> None:
    requests = [ask(q, t) for q, t in [("Explain briefly, as JSON.", Finding), ("One word verdict?", Verdict),
                                        ("Is 1926 right? JSON please.", Finding), ("Verdict?", Literal["yes", "no"])]]
    batched = float32_backend.generate(requests)
    alone = [float32_backend.generate_one(r) for r in requests]
    assert [b.raw for b in batched] == [a.raw for a in alone]
    for b, a in zip(batched, alone):
        if a.option_probs:
            assert b.option_probs == pytest.approx(a.option_probs, abs=1e-4)


def test_prefix_reuse_changes_nothing_but_the_work(float32_backend: TransformersBackend) -> None:
    fresh = TransformersBackend(loaded=float32_backend.loaded, prefix_cache=False)
    reuse = TransformersBackend(loaded=float32_backend.loaded, prefix_cache=True)
    turns = [ask("Prosecutor: argue, as JSON.", Finding, "case-1"), ask("Judge: verdict?", Verdict, "case-1"),
             ask("Defender: answer, as JSON.", Finding, "case-1")]
    expected = [fresh.generate_one(t) for t in turns]
    got = [reuse.generate_one(t) for t in turns]
    assert [g.raw for g in got] == [e.raw for e in expected]
    assert got[0].cached_prompt_tokens == 0
    assert all(g.cached_prompt_tokens > 0.5 * g.prompt_tokens for g in got[1:])
    assert reuse.stats.computed_prompt_tokens < fresh.stats.computed_prompt_tokens
    reuse.release("case-1")
    assert "case-1" not in reuse.prefix_cache


def test_truncation_names_the_limit(real_backend: TransformersBackend) -> None:
    response = real_backend.generate_one(ask("Explain at length, as JSON.", Finding, max_new_tokens=5))
    assert response.finish_reason == "length" and response.value is None
    with pytest.raises(TruncatedGenerationError, match="max_new_tokens=5"):
        response.unwrap()


def test_an_output_that_closes_on_the_last_allowed_token_is_complete(real_backend: TransformersBackend) -> None:
    full = real_backend.generate_one(ask("Give a reason and a verdict as JSON.", Finding))
    assert full.ok and full.finish_reason == "stop"
    exact = real_backend.generate_one(ask("Give a reason and a verdict as JSON.", Finding,
                                          max_new_tokens=full.completion_tokens))
    assert exact.ok and exact.value == full.value and exact.finish_reason == "stop"


def test_bad_output_type_fails_before_the_model_loads() -> None:
    class NotSerialisable:
        pass

    backend = TransformersBackend("default")
    with pytest.raises(OutputTypeError, match="NotSerialisable"):
        backend.generate([ask("hi", NotSerialisable)])
    assert backend._loaded is None


@pytest.mark.parametrize("engine", ["xgrammar", "llguidance", "outlines_core"])
def test_every_constraint_engine_produces_valid_output(real_backend: TransformersBackend, engine: str) -> None:
    backend = TransformersBackend(loaded=real_backend.loaded, engine=engine)
    response = backend.generate_one(ask("Give a reason and a verdict as JSON.", Finding))
    assert isinstance(response.value, Finding)
    assert backend.compiler.is_cached(response.schema_key)
    compiled = backend.compiler.compilations
    assert compiled <= 1
    backend.generate_one(ask("Again, as JSON.", Finding))
    assert backend.compiler.compilations == compiled  # the compiled constraint was reused


def test_unconstrained_mode_reports_parse_failures(real_backend: TransformersBackend) -> None:
    response = real_backend.generate_one(ask("Reply with JSON.", Finding, max_new_tokens=30).model_copy(
        update={"constrained": False}))
    assert response.value is None and response.error
    assert response.finish_reason in ("length", "parse_error")


def test_the_model_is_called_without_deprecated_keywords(real_backend: TransformersBackend) -> None:
    """transformers 5 renamed `past_key_values` to `cache` (the old name warns until 5.40 and then goes): every
    forward pass (prefill, decoding, choice tails, the observed pass) uses the name the installed version takes."""
    import logging
    import warnings

    from courtroom.door.requests import Observation

    text = "The lighthouse was automated in 1926."
    observed = GenerationRequest(messages=(CONTEXT, ChatMessage(role="user", content="Repeat the answer.")),
                                 output_type=Literal[(text,)],
                                 observe=Observation(spans=((0, len(text)),), lookback=True, hidden=(0.5,)))
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("transformers").addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            responses = real_backend.generate([ask("Give a reason and a verdict as JSON.", Finding, group="w"),
                                               ask("Verdict?", Literal["supported", "hallucinated"], group="w"),
                                               observed])
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    assert all(r.ok for r in responses)
    said = [str(w.message) for w in caught] + logged
    assert not [m for m in said if "past_key_values" in m or "cache_params" in m], said
