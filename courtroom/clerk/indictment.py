"""The indictment: the clerk charges the answer's least grounded sentences or, with a ruling fitted for its
model, those the ruling weighs as hallucinated."""

from __future__ import annotations

from dataclasses import dataclass, field

from courtroom.case import Case, Charge, DroppedCharge, HallucinatedSpan, Testimony, Weighing
from courtroom.clerk.examine import Examination, examine, locate
from courtroom.clerk.measure import Measure, measure_statements, suspicion
from courtroom.clerk.spec import ClerkSpec
from courtroom.engine.lockstep import Step
from courtroom.text.sentences import sentence_spans
from courtroom.witness.ruling import FittedRuling


@dataclass
class Indictment:
    """What the indictment found: the charges, the statements not charged, and each charge's measure and
    sentence."""

    charges: list[Charge]
    dropped: list[DroppedCharge]
    suspicion: float = 0.0
    """The highest P(suspect) of any statement."""
    measures: dict[int, Measure] = field(default_factory=dict)
    sentences: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Each charge's sentence, by charge index: its index among the answer's, and where it starts in the
    answer."""
    examination: Examination | None = None
    """What the clerk's witnesses found (clerks that hear witnesses)."""
    weighing: Weighing | None = None
    """How the clerk's ruling weighed the whole answer (with a ruling fitted for its model), when it
    decides."""
    spans: list[HallucinatedSpan] = field(default_factory=list)
    """The words the witnesses find hallucinated, as spans (clerks that hear witnesses)."""
    heard: list[Testimony] = field(default_factory=list)
    """Testimony heard after the indictment, beside the witnesses' (a court's trials)."""


def indict(spec: ClerkSpec, ruling: FittedRuling | None, case: Case) -> Step:
    """Measure every sentence; charge the least grounded (with a ruling: those it weighs most likely
    false)."""
    answer = case.answer.strip()
    spans = sentence_spans(answer, spec.sentences) or ((0, len(answer)),)
    sentences = tuple(answer[a:b] for a, b in spans)
    examination = weighing = None
    if spec.witnesses is not None:
        examination = yield from examine(spec, ruling, case, spans)
        measured = examination.measures
    else:
        measured = yield from measure_statements(spec, case, sentences)
    threshold = spec.indictment.threshold
    if examination is not None and ruling is not None:
        weighing = examination.weigh(ruling)
    if weighing is not None:
        assert examination is not None and ruling is not None
        ps = [examination.weigh(ruling, i).p_hallucinated for i in range(len(sentences))]
        threshold = weighing.threshold
        charged = [] if weighing.p_hallucinated < threshold else \
            sorted([i for i in range(len(sentences)) if ps[i] >= threshold]
                   or [max(range(len(ps)), key=ps.__getitem__)])
    else:
        ps = [suspicion(spec, m.grounding, m) for m in measured]
        charged = [i for i in range(len(sentences)) if ps[i] >= threshold]
    charged = sorted(sorted(charged, key=lambda i: -ps[i])[: spec.max_charges])
    found = Indictment([], [], max(ps), examination=examination, weighing=weighing)
    offset = case.answer.find(answer)
    for i, sentence in enumerate(sentences):
        note = _note(spec, measured[i], ps[i], weighing is not None)
        if i in charged:
            index = len(found.charges)
            found.measures[index], found.sentences[index] = measured[i], (i, offset + spans[i][0])
            found.charges.append(Charge(index=index, quote=sentence, grounding=measured[i].grounding,
                                        p_suspect=ps[i],
                                        reason=f"the context accounts poorly for it ({note})"))
        else:
            why = (f"P(suspect) = {ps[i]:.2f} is below the threshold {threshold}" if ps[i] < threshold
                   else "the ruling finds the answer as a whole faithful" if weighing is not None
                   and weighing.p_hallucinated < threshold else f"over the limit of {spec.max_charges} "
                                                                "charges")
            found.dropped.append(DroppedCharge(quote=sentence, reason=note, why_dropped=why,
                                               grounding=measured[i].grounding, p_suspect=ps[i]))
    found.spans = locate(examination, ps, ruling) if examination is not None else []
    return found


def _note(spec: ClerkSpec, measured: Measure, p: float, weighed: bool) -> str:
    """What the clerk measured of a statement, as its charge or its dropping says it."""
    note = (f"the ruling weighs it at P(hallucinated) = {p:.2f}; grounding {measured.grounding:+.2f} "
            "nats/token"
            if weighed else f"grounding {measured.grounding:+.2f} nats/token, P(suspect) = {p:.2f}")
    if measured.weakest:
        note += "; least accounted for: " + ", ".join(f"'{w}'" for w in measured.weakest)
    if spec.grounding.lexical is not None:
        note += (f"; words the context never uses: {', '.join(repr(w) for w in measured.exhibits)}"
                 if measured.exhibits else "; the context uses all of its words")
    return note
