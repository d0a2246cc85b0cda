"""The plain question about a whole answer, `factual` or `hallucinated` (Phoenix's template), scored by the
probability of `hallucinated`: asked by the baselines, and by a court as its judge's `first_reading` with the
same request, so the court can be served from a rails run (`courtroom rejudge --calls-from`)."""

from __future__ import annotations

from typing import Literal

from courtroom.case import Case
from courtroom.casefile import PROMPT_FORMAT, render_case_file
from courtroom.door.requests import ChatMessage, GenerationRequest, GenerationResponse, Sampling

JUDGE_SYSTEM = (
    "You are a careful fact-checker. You decide whether an ANSWER is faithful to its CONTEXT: every "
    "claim in the answer must be stated in, or follow directly from, the context. An answer that adds "
    "facts the context does not contain, or contradicts it, is hallucinated, even if the added facts "
    "sound plausible. The question is given for orientation only."
)

RAILS_TASK = ("Is the answer faithful to the context? Reply with one word: \"factual\" if every claim is "
              "supported by the context, \"hallucinated\" if any claim is not.")

RailsLabel = Literal["factual", "hallucinated"]


def plain_messages(case: Case, task: str, prompt_format: int = PROMPT_FORMAT) -> tuple[ChatMessage, ...]:
    """The fact-checker's system prompt, then the case file and the task."""
    case_file = render_case_file(case, prompt_format=prompt_format)
    return (ChatMessage(role="system", content=JUDGE_SYSTEM),
            ChatMessage(role="user", content=f"{case_file}\n\n{task}"))


def rails_request(case: Case, prompt_format: int = PROMPT_FORMAT) -> GenerationRequest:
    """The one-word question: is the answer `factual` or `hallucinated`?"""
    return GenerationRequest(messages=plain_messages(case, RAILS_TASK, prompt_format), output_type=RailsLabel,
                             sampling=Sampling(max_new_tokens=8), cache_group=case.id)


def p_hallucinated(response: GenerationResponse) -> float:
    """The model's probability of `hallucinated` in a response to `rails_request`."""
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))
