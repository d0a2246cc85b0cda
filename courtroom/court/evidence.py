"""The court's evidence: each statement's grounding measured with the model's own likelihoods (see
`grounding.py`), the lexical exhibits (`lexical.py`), and what a ruling weighs: the charge's grounding in the
whole context or in the sentences the defence cited, whichever accounts for it better."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.court import grounding as measure
from courtroom.court.bench import Bench
from courtroom.court.lexical import Vocabulary
from courtroom.court.prompts import Entry
from courtroom.door.requests import GenerationResponse
from courtroom.engine.lockstep import Call, Step


@dataclass(frozen=True)
class Measure:
    """A statement's measured grounding in the whole context, and what re-measuring it against other
    evidence needs: its likelihood without context (total and tokens; per token when measured by token),
    and, when it was read off the whole answer, where it lies in the answer."""

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


def suspicion(bench: Bench, grounding: float, measured: Measure) -> float:
    """P(suspect) of a statement measured at `grounding`, with the court's lexical evidence when it takes it."""
    g = bench.spec.grounding
    lexical = 0.0 if g.lexical is None or g.lexical.scale is None else \
        (measured.unsupported - g.lexical.center) / g.lexical.scale
    return measure.p_suspect(grounding, g.center, g.scale, lexical)


def with_lexical_evidence(bench: Bench, case: Case, statements: Sequence[str], measured: list[Measure]) -> list[Measure]:
    """The measures with the share of each statement's words that the context and question never use."""
    if bench.spec.grounding.lexical is None:
        return measured
    vocabulary = Vocabulary([*case.context, case.question])
    out = []
    for statement, m in zip(statements, measured):
        evidence = vocabulary.evidence(statement)
        out.append(replace(m, unsupported=evidence.unsupported, exhibits=evidence.words))
    return out


def measure_statements(bench: Bench, case: Case, statements: Sequence[str]) -> Step:
    """Measure each statement's grounding in the whole context, by the court's scoring mode (see
    `courtroom.bench.grounding`); returns one `Measure` per statement."""
    g = bench.spec.grounding
    answer = case.answer.strip()
    spans: list[tuple[int, int] | None] = [None] * len(statements)
    if g.scoring == "answer":
        for i, statement in enumerate(statements):
            start = answer.find(statement)
            spans[i] = (start, start + len(statement)) if start >= 0 else None
    measured: list[Measure | None] = [None] * len(statements)
    alone = [i for i, span in enumerate(spans) if span is None]
    calls = [Call(measure.scoring_request(case, answer, c, splitter=bench.spec.sentences), purpose="ground",
                  role=bench.spec.clerk)
             for c in ("full", "none")] if len(alone) < len(statements) else []
    calls += _measure_calls(bench, case, [statements[i] for i in alone])
    responses = yield calls
    if len(alone) < len(statements):
        full, bare = measure.TokenScores.of(responses[0]), measure.TokenScores.of(responses[1])
        for i, span in enumerate(spans):
            if span is not None:
                b, f = bare.within(*span), full.within(*span)
                weakest = measure.weakest_words(answer, full.spans_within(*span), [x - y for x, y in zip(f, b)])
                measured[i] = Measure(measure.token_grounding(f, b, g.clip), (math.fsum(b), len(b)), b, span, weakest)
        responses = responses[2:]
    for i, m in zip(alone, _measures([statements[i] for i in alone], responses, g.clip)):
        measured[i] = m
    return with_lexical_evidence(bench, case, statements, measured)


def _measure_calls(bench: Bench, case: Case, statements: Sequence[str]) -> list[Call]:
    role = bench.spec.clerk
    with_context = [measure.scoring_request(case, s, "full", splitter=bench.spec.sentences) for s in statements]
    without = [measure.scoring_request(case, s, "none", splitter=bench.spec.sentences) for s in statements]
    return [Call(r, purpose="ground", role=role) for r in with_context + without]


def _measures(statements: Sequence[str], responses: list[GenerationResponse], clip: float | None) -> list[Measure]:
    """Measures of statements scored alone: with `clip`, token by token; without, from total likelihoods
    (the original measure, which transcripts without per-token scores can replay)."""
    n = len(statements)
    out = []
    for s, full, bare in zip(statements, responses[:n], responses[n:]):
        lp_bare = measure.logprob(bare, s)
        if clip is None:
            out.append(Measure(measure.grounding(measure.logprob(full, s), lp_bare), lp_bare))
        else:
            b = measure.TokenScores.of(bare).logprobs
            out.append(Measure(measure.token_grounding(measure.TokenScores.of(full).logprobs, b, clip), lp_bare, b))
    return out


def grounding_in_cited(bench: Bench, case: Case, charge: Charge, measured: Measure,
                        cited: Sequence[tuple[int, str]]) -> Step:
    """The charge's grounding when only the cited context sentences are shown (measured the way the
    charge itself was: read off the whole answer, or the statement alone)."""
    clip = bench.spec.grounding.clip
    text = case.answer.strip() if measured.span is not None else charge.quote
    request = measure.scoring_request(case, text, "cited", cited)
    [response] = yield [Call(request, purpose="weigh", role="court", charge=charge.index)]
    if measured.span is not None:
        tokens = measure.TokenScores.of(response).within(*measured.span)
    elif measured.bare_tokens is not None:
        tokens = measure.TokenScores.of(response).logprobs
    else:
        return measure.grounding(measure.logprob(response, text), measured.bare)
    return measure.token_grounding(tokens, measured.bare_tokens or (), clip)


def weigh_evidence(bench: Bench, case: Case, charge: Charge, entries: list[Entry], measured: Measure | None) -> Step:
    """P(hallucinated) from the evidence: the charge's grounding in the whole context, or in the sentences
    the defence cited, whichever accounts for it better (the defence carries the burden of proof), with
    the court's lexical evidence when it takes it."""
    sentences = context_sentences(case, bench.spec.sentences)
    cited = sorted({e.payload["evidence"] for e in entries if e.role in bench.spec.ruling_evidence_roles
                    and isinstance(e.payload.get("evidence"), int) and 1 <= e.payload["evidence"] <= len(sentences)})
    if measured is None:
        [measured] = yield from measure_statements(bench, case, [charge.quote])
    best = measured.grounding
    cited_grounding = None
    if cited:
        cited_grounding = yield from grounding_in_cited(bench, case, charge, measured,
                                                         [(i, sentences[i - 1]) for i in cited])
        best = max(best, cited_grounding)
    return suspicion(bench, best, measured), evidence_note(measured.grounding, cited_grounding, cited), best


def evidence_note(full: float, cited: float | None, sentences: list[int]) -> str:
    text = f"the context accounts for it at {full:+.2f} nats/token"
    if cited is not None:
        which = ", ".join(f"[{i}]" for i in sentences)
        text += f", the cited {'sentence' if len(sentences) == 1 else 'sentences'} {which} at {cited:+.2f}"
    return text
