"""A trial's evidence: the charge's grounding in the whole context or in the sentences the defence cited."""

from __future__ import annotations

from collections.abc import Sequence

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk import grounding as measure
from courtroom.clerk.measure import Measure, measure_statements, suspicion
from courtroom.clerk.reading import Reading
from courtroom.court.bench import Bench
from courtroom.court.prompts import Entry
from courtroom.engine.lockstep import Call, Step


def grounding_in_cited(bench: Bench, case: Case, charge: Charge, measured: Measure,
                       cited: Sequence[tuple[int, str]]) -> Step:
    """The charge's grounding when only the cited context sentences are shown (measured as the charge was)."""
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


def weigh_evidence(bench: Bench, case: Case, charge: Charge, entries: list[Entry], measured: Measure | None,
                   reading: Reading | None = None) -> Step:
    """P(hallucinated) from the charge's grounding in the whole context or the cited sentences, whichever
    accounts for it better (the defence carries the burden of proof); the note that says so, and the grounding
    weighed. A single sentence the model read the charge against (`reading`) is not scored again."""
    sentences = context_sentences(case, bench.spec.sentences)
    cited = sorted({e.grounds.sentence for e in entries if e.role in bench.trial.evidence_roles and e.grounds
                    and e.grounds.sentence is not None and 1 <= e.grounds.sentence <= len(sentences)})
    if measured is None:
        [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
    best = measured.grounding
    cited_grounding = None
    if (len(cited) == 1 and reading is not None and reading.how == "likelihood"
        and cited[0] in reading.grounding):
        cited_grounding = reading.grounding[cited[0]]
    elif cited:
        cited_grounding = yield from grounding_in_cited(bench, case, charge, measured,
                                                        [(i, sentences[i - 1]) for i in cited])
    if cited_grounding is not None:
        best = max(best, cited_grounding)
    return (suspicion(bench.spec, best, measured), evidence_note(measured.grounding, cited_grounding, cited),
            best)


def evidence_note(full: float, cited: float | None, sentences: list[int]) -> str:
    text = f"the context accounts for it at {full:+.2f} nats/token"
    if cited is not None:
        which = ", ".join(f"[{i}]" for i in sentences)
        text += f", the cited {'sentence' if len(sentences) == 1 else 'sentences'} {which} at {cited:+.2f}"
    return text
