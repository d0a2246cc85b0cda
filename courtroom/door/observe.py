"""Reading an observed pass by spans of the scored text: which tokens lie in a character span, and the mean of
per-token observations (attention ratios, hidden states) over each span. Pure numpy; backends and witnesses
share it."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from courtroom.digest import content_hash
from courtroom.errors import BackendError


class TokenIndex:
    """The character spans of a text's tokens, sorted, so a binary search over their running ends finds the
    tokens that overlap a range (an answer's sentences cost its tokens once, not sentences x tokens)."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = spans
        # the running maximum: merged bytes may nest
        self.ends = list(itertools.accumulate((b for _, b in spans), max))

    def within(self, start: int, end: int) -> list[int]:
        """Indices of the tokens whose character span overlaps [start, end), in order."""
        found = []
        for i in range(bisect.bisect_right(self.ends, start), len(self.spans)):
            a, b = self.spans[i]
            if a >= end:
                break
            if b > start:
                found.append(i)
        return found


def span_means(per_token: Any, members: Sequence[Sequence[int]], digits: int = 4) -> list[Any]:
    """For each span (its token indices), the mean of `per_token` (tokens first) over its tokens, as nested
    lists rounded to `digits` decimals (a span without tokens takes the first token's values)."""
    values = np.asarray(per_token, dtype=np.float64)
    return [np.round(values[list(m) or [0]].mean(axis=0), digits).tolist() for m in members]


def projected_means(per_token: Any, members: Sequence[Sequence[int]], direction: Sequence[float],
                    digits: int = 4) -> list[list[float]]:
    """For each span (its token indices), the mean of `per_token` (tokens first, a hidden state each)
    projected onto `direction`: one number, in a list (what `ModelResponse.hidden` holds for a word whose
    state was projected)."""
    values = np.asarray(per_token, dtype=np.float64)
    if values.shape[-1] != len(direction):
        raise BackendError(f"the words' states were to be projected onto a direction of {len(direction)} "
                           f"values; the model's hidden state has {values.shape[-1]}: the word probe was "
                           "fitted for another model")
    towards = np.asarray(direction, dtype=np.float64)
    return [[round(float(values[list(m) or [0]].mean(axis=0) @ towards), digits)] for m in members]


def direction_key(direction: Sequence[float]) -> str:
    """A short fingerprint of a projection direction (`Observation.project_words`): a response names the one
    it used."""
    return content_hash(repr(tuple(float(v) for v in direction)))[:12]
