"""The clerk's measure of each statement: its grounding in the whole context, its lexical evidence, and
P(suspect)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from courtroom.case import Case
from courtroom.clerk import grounding as measure
from courtroom.clerk.spec import ClerkSpec
from courtroom.door.requests import GenerationResponse
from courtroom.engine.lockstep import Call, Step
from courtroom.text.words import Vocabulary
from courtroom.witness.grounding import p_suspect

ROLE = "clerk"
"""The role the clerk's calls are recorded under."""


@dataclass(frozen=True)
class StatementTokens:
    """A statement's tokens as the clerk scored them: each one's character span (in the text scored: the
    answer, or the statement alone) and log-probability with the whole context and with none."""

    spans: tuple[tuple[int, int], ...]
    context: tuple[float, ...]
    bare: tuple[float, ...]


@dataclass(frozen=True)
class Measure:
    """A statement's grounding in the whole context, and what re-measuring it needs (bare likelihood,
    span)."""

    grounding: float
    bare: tuple[float, int]
    bare_tokens: tuple[float, ...] | None = None
    span: tuple[int, int] | None = None
    weakest: tuple[str, ...] = ()
    """The words the context accounts for least, when measured token by token in the answer."""
    unsupported: float = 0.0
    """The share of the statement's content words that the sources never use (with lexical evidence)."""
    exhibits: tuple[str, ...] = ()
    """Those words, in the statement's order (with lexical evidence)."""
    tokens: StatementTokens | None = None
    """The statement's tokens, for a reading of which words the context accounts for (when scored token by
    token)."""


def suspicion(spec: ClerkSpec, grounding: float, measured: Measure) -> float:
    """P(suspect) of a statement measured at `grounding`, with the clerk's lexical evidence when it takes
    it."""
    g = spec.grounding
    lexical = 0.0 if g.lexical is None or g.lexical.scale is None else \
        (measured.unsupported - g.lexical.center) / g.lexical.scale
    return p_suspect(grounding, g.center, g.scale, lexical)


def with_lexical_evidence(spec: ClerkSpec, case: Case, statements: Sequence[str],
                          measured: list[Measure]) -> list[Measure]:
    """The measures with the share of each statement's words that the context and question never use."""
    if spec.grounding.lexical is None:
        return measured
    vocabulary = Vocabulary([*case.context, case.question])
    return [replace(m, unsupported=(evidence := vocabulary.evidence(statement)).unsupported,
                    exhibits=evidence.words)
            for statement, m in zip(statements, measured)]


def measure_statements(spec: ClerkSpec, case: Case, statements: Sequence[str],
                       spans: Sequence[tuple[int, int] | None] | None = None) -> Step:
    """One `Measure` per statement, by the clerk's scoring mode (`spans`: where each lies in the answer, if
    known)."""
    g = spec.grounding
    answer = case.answer.strip()
    if g.scoring != "answer":
        spans = [None] * len(statements)
    elif spans is None:
        spans = [_found(answer, s) for s in statements]
    measured: list[Measure | None] = [None] * len(statements)
    alone = [i for i, span in enumerate(spans) if span is None]
    calls = [Call(measure.scoring_request(case, answer, c, splitter=spec.sentences), purpose="ground",
                  role=ROLE)
             for c in ("full", "none")] if len(alone) < len(statements) else []
    calls += _measure_calls(spec, case, [statements[i] for i in alone])
    responses = yield calls
    if len(alone) < len(statements):
        full, bare = measure.TokenScores.of(responses[0]), measure.TokenScores.of(responses[1])
        for i, m in enumerate(answer_measures(spec, answer, spans, full, bare)):
            if m is not None:
                measured[i] = m
        responses = responses[2:]
    for i, m in zip(alone, _measures([statements[i] for i in alone], responses, g.clip)):
        measured[i] = m
    return with_lexical_evidence(spec, case, statements, measured)


def _found(answer: str, statement: str) -> tuple[int, int] | None:
    start = answer.find(statement)
    return (start, start + len(statement)) if start >= 0 else None


def answer_measures(spec: ClerkSpec, answer: str, spans: Sequence[tuple[int, int] | None],
                    full: measure.TokenScores, bare: measure.TokenScores) -> list[Measure | None]:
    """The measure of each statement at `spans` of the answer, read off its `full` and `bare` scoring."""
    clip = spec.grounding.clip
    out: list[Measure | None] = []
    for span in spans:
        if span is None:
            out.append(None)
            continue
        b, f, spans = bare.within(*span), full.within(*span), full.spans_within(*span)
        weakest = measure.weakest_words(answer, spans, [x - y for x, y in zip(f, b)])
        out.append(Measure(measure.token_grounding(f, b, clip), (math.fsum(b), len(b)), b, span, weakest,
                           tokens=StatementTokens(spans, f, b)))
    return out


def _measure_calls(spec: ClerkSpec, case: Case, statements: Sequence[str]) -> list[Call]:
    with_context = [measure.scoring_request(case, s, "full", splitter=spec.sentences) for s in statements]
    without = [measure.scoring_request(case, s, "none", splitter=spec.sentences) for s in statements]
    return [Call(r, purpose="ground", role=ROLE) for r in with_context + without]


def _tokens(full: GenerationResponse, bare: GenerationResponse) -> StatementTokens | None:
    """A statement's tokens scored alone, when both passes gave them token by token, aligned."""
    if None in (full.token_logprobs, full.token_spans, bare.token_logprobs) or \
            len(full.token_logprobs or ()) != len(bare.token_logprobs or ()):
        return None
    f, b = measure.TokenScores.of(full), measure.TokenScores.of(bare)
    return StatementTokens(f.spans, f.logprobs, b.logprobs)


def _measures(statements: Sequence[str], responses: list[GenerationResponse], clip: float
              | None) -> list[Measure]:
    """Measures of statements scored alone: with `clip`, token by token; without, from total likelihoods."""
    n = len(statements)
    out = []
    for s, full, bare in zip(statements, responses[:n], responses[n:]):
        lp_bare = measure.logprob(bare, s)
        tokens = _tokens(full, bare)
        if clip is None:
            out.append(Measure(measure.grounding(measure.logprob(full, s), lp_bare), lp_bare, tokens=tokens))
        else:
            b = measure.TokenScores.of(bare).logprobs
            out.append(Measure(measure.token_grounding(measure.TokenScores.of(full).logprobs, b, clip),
                               lp_bare, b, tokens=tokens))
    return out
