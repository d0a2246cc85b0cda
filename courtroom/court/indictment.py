"""The indictment: which statements of the answer are charged, by the court's mode: measured grounding
(`grounding`), the clerk's scored yes/no per sentence (`score`), or the clerk's drafted charges (`generate`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from courtroom.case import WHOLE_ANSWER_REASON, Case, Charge, DroppedCharge, HallucinatedSpan, Weighing
from courtroom.casefile import split_sentences
from courtroom.court.bench import Bench
from courtroom.court.evidence import Measure, measure_statements, suspicion
from courtroom.court.moves import ChargeDraft, indictment_model
from courtroom.court.prompts import NO_CHARGE, case_messages, clerk_sentence_task, indictment_task, turn_messages
from courtroom.court.witnesses import Examination, examine, locate
from courtroom.door.requests import GenerationRequest
from courtroom.engine.events import ChargesEvent
from courtroom.engine.lockstep import Call, Step, Transcript
from courtroom.text.quotes import normalize, quoted_in


@dataclass
class Indictment:
    """What the indictment found: the charges brought, those proposed but dropped, how suspect the most
    suspect statement is, and the measured evidence of each charge (by charge index, in grounding mode)."""

    charges: list[Charge]
    dropped: list[DroppedCharge]
    suspicion: float = 0.0
    """The highest P(suspect) of any statement (0 when the mode gives none)."""
    measures: dict[int, Measure] = field(default_factory=dict)
    examination: Examination | None = None
    """What the court's witnesses found (courts that hear witnesses)."""
    weighing: Weighing | None = None
    """How the court's ruling weighed the whole answer (with a ruling fitted for the court's model)."""
    spans: list[HallucinatedSpan] = field(default_factory=list)
    """The words the witnesses find hallucinated, as spans (courts that hear witnesses)."""


def indict(bench: Bench, case: Case, transcript: Transcript) -> Step:
    """Draw up the charges, by the court's indictment mode; returns the `Indictment`."""
    if bench.spec.indictment.mode == "grounding":
        found = yield from _indict_by_grounding(bench, case)
    elif bench.spec.indictment.mode == "score":
        found = yield from _indict_by_score(bench, case)
    else:
        found = yield from _indict_by_generation(bench, case)
    if not found.charges and bench.spec.on_no_charges == "try_whole_answer":
        found.charges.append(Charge(index=0, quote=case.answer.strip(), reason=WHOLE_ANSWER_REASON, whole_answer=True))
    transcript.add(ChargesEvent, charges=found.charges, dropped=found.dropped)
    return found


def _indict_by_grounding(bench: Bench, case: Case) -> Step:
    """The court measures how well the context accounts for each answer sentence; the least grounded
    (P(suspect) at or above the threshold) are charged."""
    spec, g = bench.spec.indictment, bench.spec.grounding
    sentences = split_sentences(case.answer, bench.spec.sentences) or (case.answer.strip(),)
    examination = weighing = None
    if bench.spec.witnesses is not None:
        examination = yield from examine(bench, case, sentences)
        measured = examination.measures
    else:
        measured = yield from measure_statements(bench, case, sentences)
    threshold = spec.threshold
    if examination is not None and bench.ruling is not None:
        weighing = examination.weigh(bench.ruling)
        ps = [examination.weigh(bench.ruling, i).p_hallucinated for i in range(len(sentences))]
        threshold = weighing.threshold
        charged = [] if weighing.p_hallucinated < threshold else \
            sorted([i for i in range(len(sentences)) if ps[i] >= threshold] or [max(range(len(ps)), key=ps.__getitem__)])
    else:
        ps = [suspicion(bench, m.grounding, m) for m in measured]
        charged = [i for i in range(len(sentences)) if ps[i] >= threshold]
    charged = sorted(sorted(charged, key=lambda i: -ps[i])[: bench.spec.max_charges])
    charges, measures, dropped = [], {}, []
    for i in range(len(sentences)):
        note = f"grounding {measured[i].grounding:+.2f} nats/token, P(suspect) = {ps[i]:.2f}"
        if weighing is not None:
            note = f"the ruling weighs it at P(hallucinated) = {ps[i]:.2f}; grounding {measured[i].grounding:+.2f} nats/token"
        if measured[i].weakest:
            note += "; least accounted for: " + ", ".join(f"'{w}'" for w in measured[i].weakest)
        if g.lexical is not None:
            note += (f"; words the context never uses: {', '.join(repr(w) for w in measured[i].exhibits)}"
                     if measured[i].exhibits else "; the context uses all of its words")
        if i in charged:
            measures[len(charges)] = measured[i]
            charges.append(Charge(index=len(charges), quote=sentences[i], grounding=measured[i].grounding,
                                  p_suspect=ps[i], reason=f"the context accounts poorly for it ({note})"))
        else:
            why = (f"P(suspect) = {ps[i]:.2f} is below the threshold {threshold}" if ps[i] < threshold
                   else "the ruling finds the answer as a whole faithful" if weighing is not None and i not in charged
                   and weighing.p_hallucinated < threshold else f"over the limit of {bench.spec.max_charges} charges")
            dropped.append(DroppedCharge(quote=sentences[i], reason=note, why_dropped=why,
                                         grounding=measured[i].grounding, p_suspect=ps[i]))
    spans = locate(examination, ps, bench.ruling) if examination is not None else []
    return Indictment(charges, dropped, max(ps), measures, examination, weighing, spans)


def _indict_by_score(bench: Bench, case: Case) -> Step:
    """The clerk rates every answer sentence (scored yes/no); the most suspect are charged."""
    clerk = bench.persona(bench.spec.clerk)
    spec = bench.spec.indictment
    sentences = split_sentences(case.answer, bench.spec.sentences) or (case.answer.strip(),)
    template = {"charge": NO_CHARGE, "round": 0, "max_rounds": bench.spec.max_rounds}
    instructions = clerk.render(case={"question": case.question, "answer": case.answer, "context": case.context},
                                **template)
    calls = []
    for i, sentence in enumerate(sentences, start=1):
        user = f"INDICTMENT\n{instructions}\n\n{clerk_sentence_task(i, len(sentences), sentence)}"
        request = GenerationRequest(messages=case_messages(bench, case, user),
                                    output_type=Literal["yes", "no"], sampling=clerk.sampling, cache_group=case.id)
        calls.append(Call(request, purpose="indict", role=bench.spec.clerk, persona=clerk.name))
    responses = yield calls
    suspicion = []
    for sentence, response in zip(sentences, responses):
        response.unwrap()
        suspicion.append((float((response.option_probs or {}).get("yes", 0.0)), sentence))
    ranked = sorted(range(len(sentences)), key=lambda i: -suspicion[i][0])
    charged = [i for i in ranked if suspicion[i][0] >= spec.threshold][: bench.spec.max_charges]
    charges = [Charge(index=n, quote=suspicion[i][1], p_suspect=suspicion[i][0],
                      reason=f"the clerk finds it suspect (P = {suspicion[i][0]:.2f})")
               for n, i in enumerate(sorted(charged))]
    dropped = []
    for i in range(len(sentences)):
        if i in charged:
            continue
        p = suspicion[i][0]
        why = (f"P(suspect) = {p:.2f} is below the threshold {spec.threshold}" if p < spec.threshold
               else f"over the limit of {bench.spec.max_charges} charges")
        dropped.append(DroppedCharge(quote=suspicion[i][1], reason=f"P(suspect) = {p:.2f}", why_dropped=why,
                                     p_suspect=p))
    return Indictment(charges, dropped, max(p for p, _ in suspicion))


def _indict_by_generation(bench: Bench, case: Case) -> Step:
    """The clerk drafts charges; quotes not found in the answer, duplicates and extras are dropped."""
    clerk = bench.persona(bench.spec.clerk)
    k = bench.spec.max_charges
    template = {"charge": NO_CHARGE, "round": 0, "max_rounds": bench.spec.max_rounds}
    request = GenerationRequest(
        messages=turn_messages(bench, case, clerk, "INDICTMENT", indictment_task(k), template),
        output_type=indictment_model(k), sampling=clerk.sampling, cache_group=case.id)
    [response] = yield [Call(request, purpose="indict", role=bench.spec.clerk, persona=clerk.name)]
    drafts: list[ChargeDraft] = response.unwrap().charges
    charges: list[Charge] = []
    dropped: list[DroppedCharge] = []
    seen: dict[str, int] = {}
    for draft in drafts:
        key = normalize(draft.quote)
        if not quoted_in(draft.quote, case.answer):
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped="the quote is not in the answer"))
        elif key in seen:
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped=f"duplicate of charge {seen[key] + 1}"))
        elif len(charges) >= k:
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped=f"over the limit of {k} charges"))
        else:
            seen[key] = len(charges)
            charges.append(Charge(index=len(charges), quote=draft.quote, reason=draft.reason))
    return Indictment(charges, dropped)
