"""A statement read against each context sentence alone: how well each sentence accounts for the whole
statement and for each of its content words, by the model (`likelihood`: how much likelier the sentence makes
each token than no context, on the clerk's own scoring of the statement) or by the words they share (`words`,
no model). What a trial's moves rest on is chosen from it (`courtroom.court.grounds`)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk import grounding as measure
from courtroom.clerk.measure import ROLE, Measure, measure_statements
from courtroom.clerk.spec import ClerkSpec
from courtroom.door.requests import GenerationResponse
from courtroom.engine.lockstep import Call, Step
from courtroom.text.words import Word, content_words

CANDIDATES = 6
"""Sentences the model reads a charge against: those sharing the most content words with it (every sentence
that shares one, for the `words` reading, which costs nothing)."""


@dataclass(frozen=True)
class Reading:
    """A charge read against the context: its content words (placed in the answer), each candidate sentence's
    support of each word and grounding of the whole statement, and the whole context's support of each
    word."""

    how: Literal["likelihood", "words"]
    answer: str
    statement: str
    """The charged statement (its quote), which the prosecution's quote must lie in."""
    words: tuple[Word, ...]
    support: dict[int, tuple[float, ...]]
    """Sentence number -> its support of each word (nats the sentence alone adds to the word, or 1 if it uses
    it)."""
    grounding: dict[int, float]
    """Sentence number -> its grounding of the whole statement (as the court measures the charge; a share of
    words)."""
    context: tuple[float, ...] | None
    """The whole context's support of each word (None for the words reading: no sentence's is then
    counted)."""
    sentences: tuple[str, ...]

    def accounted(self) -> list[float]:
        """How well the best source accounts for each word."""
        columns = [*self.support.values(), *([self.context] if self.context is not None else [])]
        return [max((c[i] for c in columns), default=-math.inf) for i in range(len(self.words))]


def candidates(sentences: Sequence[str], statement: str, limit: int | None) -> list[int]:
    """The sentences (from 1) to read `statement` against: every one when there are at most `limit`; else
    those sharing content words with it, the most first (then the denser), at most `limit` (None: all that
    share)."""
    if limit is not None and len(sentences) <= limit:
        return list(range(1, len(sentences) + 1))
    keys = {w.key for w in content_words(statement)}
    shared = []
    for number, sentence in enumerate(sentences, start=1):
        theirs = [w.key for w in content_words(sentence)]
        if held := len(keys.intersection(theirs)):
            shared.append((-held, -held / len(theirs), number))
    return [number for *_, number in sorted(shared)[:limit]]


def _placed(case: Case, charge: Charge, measured: Measure | None) -> tuple[int, list[Word]]:
    """Where the charged statement starts in the answer, and its content words placed in the answer."""
    answer = case.answer.strip()
    # a drafted quote's case may differ
    found = re.search(re.escape(charge.quote.strip()), answer, flags=re.IGNORECASE)
    start = (measured.span[0] if measured is not None and measured.span is not None else found.start()
             if found else 0)
    return start, [Word(w.text, w.start + start, w.end + start, w.key) for w in content_words(charge.quote)]


def read_statements(spec: ClerkSpec, case: Case, charges: Sequence[Charge], measures: dict[int, Measure],
                    how: Literal["likelihood", "words"]) -> Step:
    """Each charged statement's reading (by charge index), the model's calls for all of them in one batch."""
    sentences = context_sentences(case, spec.sentences)
    if how == "words":
        return {c.index: _words_reading(case, c, sentences) for c in charges}
    missing = [c for c in charges if c.index not in measures or measures[c.index].tokens is None]
    if missing:
        again = yield from measure_statements(spec, case, [c.quote for c in missing])
        measures = {**measures, **{c.index: m for c, m in zip(missing, again)}}
    wanted = {c.index: candidates(sentences, c.quote, CANDIDATES) for c in charges}
    answer = case.answer.strip()
    # scored within the answer: one call a sentence serves every charge
    whole = {c.index for c in charges if measures[c.index].span is not None}
    shared = sorted({n for index in whole for n in wanted[index]})
    calls = [Call(measure.scoring_request(case, answer, "cited", [(n, sentences[n - 1])]), purpose="read",
                  role=ROLE) for n in shared]
    alone = [(c, n) for c in charges if c.index not in whole for n in wanted[c.index]]
    calls += [Call(measure.scoring_request(case, c.quote, "cited", [(n, sentences[n - 1])]), purpose="read",
                   role=ROLE, charge=c.index) for c, n in alone]
    responses = (yield calls) if calls else []  # no sentence shares a word with any charge: nothing to read
    by_shared = dict(zip(shared, responses))
    by_alone = {(c.index, n): r for (c, n), r in zip(alone, responses[len(shared):])}
    readings = {}
    for charge in charges:
        measured = measures[charge.index]
        scored = {n: by_shared[n] if charge.index in whole else by_alone[(charge.index, n)]
                  for n in wanted[charge.index]}
        readings[charge.index] = _likelihood_reading(spec, case, charge, measured, scored, sentences)
    return readings


def _word_sums(words: Sequence[Word], spans: Sequence[tuple[int, int]], gains: Sequence[float],
               offset: int) -> tuple[float, ...]:
    """Each word's summed gain over the tokens that overlap it (token spans shifted by `offset` into the
    answer)."""
    return tuple(math.fsum(g for (a, b), g in zip(spans, gains)
                           if a + offset < w.end and b + offset > w.start) for w in words)


def _likelihood_reading(spec: ClerkSpec, case: Case, charge: Charge, measured: Measure,
                        scored: dict[int, GenerationResponse], sentences: tuple[str, ...]) -> Reading:
    tokens = measured.tokens
    assert tokens is not None
    start, words = _placed(case, charge, measured)
    offset = 0 if measured.span is not None else start
    clip = spec.grounding.clip
    support, grounding = {}, {}
    for number, response in scored.items():
        cited = measure.TokenScores.of(response)
        logprobs = cited.within(*measured.span) if measured.span is not None else cited.logprobs
        if len(logprobs) != len(tokens.bare):
            continue  # tokenized otherwise than the clerk's pass: not comparable, not read
        gains = [c - b for c, b in zip(logprobs, tokens.bare)]
        support[number] = _word_sums(words, tokens.spans, gains, offset)
        grounding[number] = measure.token_grounding(logprobs, tokens.bare, clip)
    context = _word_sums(words, tokens.spans, [c - b for c, b in zip(tokens.context, tokens.bare)], offset)
    return Reading("likelihood", case.answer.strip(), charge.quote, tuple(words), support, grounding, context,
                   sentences)


def _words_reading(case: Case, charge: Charge, sentences: tuple[str, ...]) -> Reading:
    _, words = _placed(case, charge, None)
    support, grounding = {}, {}
    for number in candidates(sentences, charge.quote, None):
        keys = {w.key for w in content_words(sentences[number - 1])}
        support[number] = tuple(float(w.key in keys) for w in words)
        grounding[number] = math.fsum(support[number]) / max(len(words), 1)
    return Reading("words", case.answer.strip(), charge.quote, tuple(words), support, grounding, None,
                   sentences)
