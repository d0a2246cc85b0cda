"""The court's measurement token by token: each answer token's grounding gain, from the case's two scoring
calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.case import Case
from courtroom.engine.events import Event, ModelCallEvent, PromptEvent

GAIN_BANDS = (-0.5, 0.0, 0.5, 1.5)
"""Upper bounds (nats) of the shading bands of a token's gain; band 4 is everything from 1.5 up."""
BAND_LABELS = ("< -0.5", "-0.5 to 0", "0 to 0.5", "0.5 to 1.5", ">= 1.5")


def band(gain: float) -> int:
    """The shading band of a gain: 0 (the context makes the token less likely) to 4 (far more likely)."""
    return next((i for i, bound in enumerate(GAIN_BANDS) if gain < bound), len(GAIN_BANDS))


@dataclass(frozen=True)
class TokenGain:
    """One token of the answer and what the context did to it."""

    start: int
    end: int
    gain: float
    """log P(token | context, ...) - log P(token | question, ...), in nats, capped at the court's clip."""
    uncapped: float


def answer_gains(case: Case, events: Sequence[Event], clip: float | None = None) -> list[TokenGain]:
    """The answer's tokens with their grounding gains; empty when the court did not measure the answer
    whole."""
    answer = case.answer.strip()
    prompts = {e.hash: e.content for e in events if isinstance(e, PromptEvent)}
    scored = [e for e in events if isinstance(e, ModelCallEvent) and e.purpose == "ground" and e.raw == answer
              and e.token_logprobs and e.token_spans]
    with_context = (next((e for e in scored if any("CONTEXT:" in prompts.get(h, "") for h in e.messages)),
                         None))
    without = next((e for e in scored if e is not with_context), None)
    if (with_context is None or without is None
        or len(with_context.token_logprobs) != len(without.token_logprobs)):
        return []
    return [TokenGain(start, end, min(full - bare, clip) if clip is not None else full - bare, full - bare)
            for (start, end), full, bare in zip(with_context.token_spans, with_context.token_logprobs,
                                                without.token_logprobs)]


def weakest(gains: Sequence[TokenGain], answer: str, k: int = 3) -> list[tuple[int, int]]:
    """The spans of the `k` words the context accounts for least (lowest gain), in text order."""
    chosen: list[tuple[int, int]] = []
    for token in sorted(gains, key=lambda t: t.gain):
        start, end = token.start, token.end
        while start < end and answer[start].isspace():  # a token may carry the space before its word
            start += 1
        while start > 0 and not answer[start - 1].isspace():
            start -= 1
        while end < len(answer) and not answer[end].isspace():
            end += 1
        if answer[start:end].strip() and (start, end) not in chosen:
            chosen.append((start, end))
        if len(chosen) == k:
            break
    return sorted(chosen)
