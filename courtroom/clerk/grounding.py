"""Grounding: how well the context accounts for a statement, by the model's own likelihoods (text scored as a
fixed continuation, nothing generated): the mean over its tokens of min(clip, log P(t | context, ...) - log
P(t | ...))."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from courtroom.case import Case
from courtroom.casefile import OPENING_SYSTEM, render_opening
from courtroom.door.observe import TokenIndex
from courtroom.door.requests import ChatMessage, GenerationRequest, GenerationResponse, Observation, Sampling
from courtroom.errors import BackendError
from courtroom.text.sentences import SPLITTER, SentenceSplitter

SYSTEM = ChatMessage(role="system", content=OPENING_SYSTEM)
"""The system message of every scoring prompt, shared with the court's turns."""


def scoring_request(case: Case, statement: str, context: Literal["full", "none", "cited"],
                    cited: Sequence[tuple[int, str]] = (), splitter: SentenceSplitter = SPLITTER,
                    observe: Observation | None = None) -> GenerationRequest:
    """Score `statement` as the answer to the case's question after the whole context (`full`), none, or the
    `cited`."""
    if context == "full":
        user = render_opening(case, splitter=splitter)
    elif context == "cited":
        user = render_opening(case, "\n".join(f"[{i}] {text}" for i, text in cited))
    else:
        user = f"QUESTION: {case.question.strip()}"
    return GenerationRequest(messages=(SYSTEM, ChatMessage(role="user", content=user)),
                             output_type=Literal[(statement,)], sampling=Sampling(max_new_tokens=512),
                             cache_group=case.id, observe=observe)


def logprob(response: GenerationResponse, statement: str) -> tuple[float, int]:
    """The statement's total log-probability and its token count, from a scoring response."""
    response.unwrap()
    return float((response.option_logprobs or {})[statement]), max(response.completion_tokens, 1)


def grounding(with_context: tuple[float, int], without: tuple[float, int]) -> float:
    """Pointwise mutual information of the statement with the context, in nats per token."""
    return (with_context[0] - without[0]) / with_context[1]


@dataclass(frozen=True)
class TokenScores:
    """Per-token log-probabilities of a piece of text, with each token's character span in it."""

    logprobs: tuple[float, ...]
    spans: tuple[tuple[int, int], ...]

    @cached_property
    def index(self) -> TokenIndex:
        """The spans, ready for range queries (built once)."""
        return TokenIndex(self.spans)

    @classmethod
    def of(cls, response: GenerationResponse) -> TokenScores:
        response.unwrap()
        if response.token_logprobs is None or response.token_spans is None:
            raise BackendError("the backend returned no per-token log-probabilities for a scored text")
        return cls(tuple(response.token_logprobs), tuple(tuple(s) for s in response.token_spans))

    def within(self, start: int, end: int) -> tuple[float, ...]:
        """The log-probabilities of the tokens that overlap characters [start, end) (by binary search)."""
        return tuple(self.logprobs[i] for i in self.index.within(start, end))

    def spans_within(self, start: int, end: int) -> tuple[tuple[int, int], ...]:
        """The character spans of the tokens that overlap characters [start, end), as `within` orders them."""
        return tuple(self.spans[i] for i in self.index.within(start, end))


def weakest_words(text: str, spans: Sequence[tuple[int, int]], gains: Sequence[float],
                  k: int = 3) -> tuple[str, ...]:
    """The words of `text` holding the `k` tokens the context accounts for least (lowest gain), in text
    order."""
    def word_at(a: int, b: int) -> tuple[int, int]:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        while a > 0 and not text[a - 1].isspace():
            a -= 1
        while b < len(text) and not text[b].isspace():
            b += 1
        return a, b
    chosen: list[tuple[int, int]] = []
    for i in sorted(range(len(gains)), key=lambda i: gains[i]):
        word = word_at(*spans[i])
        if text[word[0]:word[1]].strip() and word not in chosen:
            chosen.append(word)
        if len(chosen) == k:
            break
    return tuple(text[a:b].strip(" \"'.,;:!?()") or text[a:b] for a, b in sorted(chosen))


def token_grounding(with_context: Sequence[float], without: Sequence[float], clip: float | None) -> float:
    """Mean per-token PMI of a span, each token's credit capped at `clip`."""
    if not with_context:
        return 0.0
    gains = [c - b for c, b in zip(with_context, without)]
    if clip is not None:
        gains = [min(g, clip) for g in gains]
    return math.fsum(gains) / len(gains)
