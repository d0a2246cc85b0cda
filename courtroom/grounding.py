"""Grounding: measuring, with the model's own likelihoods, how well the context accounts for a statement.

grounding(statement) = [log P(statement | context, question) - log P(statement | question)] / tokens

Both terms come from scoring the statement as a fixed continuation (a one-option choice at the model
door), so no text is generated and nothing can fail to parse. Words that the context supplies become
much likelier once the context is shown; invented names, numbers and claims do not. Small models
that cannot *state* a reliable verdict still *measure* this well, which is why the court uses it as
evidence: to choose what to charge, and to weigh the sentences the defence cites.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from courtroom.case import Case
from courtroom.generation import ChatMessage, GenerationRequest, GenerationResponse, Sampling
from courtroom.prompts import OPENING_SYSTEM, render_opening

SYSTEM = ChatMessage(role="system", content=OPENING_SYSTEM)
"""The system message of every scoring prompt, shared with the court's turns."""


def scoring_request(case: Case, statement: str, context: Literal["full", "none", "cited"],
                    cited: Sequence[tuple[int, str]] = ()) -> GenerationRequest:
    """Score `statement` as the answer to the case's question: after the whole numbered context (`full`,
    the opening every prompt of the case shares), after no context (`none`), or after the numbered
    sentences a party cited (`cited`)."""
    if context == "full":
        user = render_opening(case)
    elif context == "cited":
        user = render_opening(case, "\n".join(f"[{i}] {text}" for i, text in cited))
    else:
        user = f"QUESTION: {case.question.strip()}"
    return GenerationRequest(messages=(SYSTEM, ChatMessage(role="user", content=user)),
                             output_type=Literal[(statement,)], sampling=Sampling(max_new_tokens=512),
                             cache_group=case.id)


def logprob(response: GenerationResponse, statement: str) -> tuple[float, int]:
    """The statement's total log-probability and its token count, from a scoring response."""
    response.unwrap()
    return float((response.option_logprobs or {})[statement]), max(response.completion_tokens, 1)


def grounding(with_context: tuple[float, int], without: tuple[float, int]) -> float:
    """Pointwise mutual information of the statement with the context, in nats per token."""
    return (with_context[0] - without[0]) / with_context[1]


def p_suspect(value: float, center: float, scale: float) -> float:
    """P(hallucinated) implied by a grounding value."""
    z = (center - value) / scale
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
