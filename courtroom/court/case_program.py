"""The procedure of one case (`run_case`): the indictment (and the judge's first reading of the whole answer,
when the court weighs it), then the verdict: by a fitted ruling over the witnesses' testimony, or by the
measurement and a trial of every charge side by side (`court.trial.try_charge`); for an answer found
hallucinated, its spans (by the witnesses, or by a span trial). A lockstep program (`courtroom.engine.lockstep`).
"""

from __future__ import annotations

from courtroom.case import Case, CaseVerdict, Charge, Ruling
from courtroom.court.bench import Bench
from courtroom.court.indictment import Indictment, indict
from courtroom.court.span_trial import span_trial
from courtroom.court.trial import try_charge
from courtroom.court.verdict import aggregate, escalated, measured_ruling, plural, share, testimony_ruling, weighed_verdict
from courtroom.engine.events import RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript, gather
from courtroom.engine.plain import p_hallucinated, rails_request


def read_first(case: Case, prompt_format: int) -> Step:
    """The judge's first reading of the whole answer: P(hallucinated) of the one-word question."""
    [response] = yield [Call(rails_request(case, prompt_format), purpose="first reading", role="judge")]
    return p_hallucinated(response)


def run_case(bench: Bench, case: Case, transcript: Transcript) -> Step:
    """Indict, try every charge side by side, and combine the rulings into the case verdict."""
    first_reading: float | None = None
    if bench.spec.ruling.first_reading_weight:
        found, first_reading = yield from gather([indict(bench, case, transcript), read_first(case, bench.prompt_format)])
    else:
        found = yield from indict(bench, case, transcript)
    if found.weighing is not None and found.examination is not None:  # a fitted ruling weighs the testimony
        assert bench.ruling is not None
        rulings = [testimony_ruling(c, found.examination.weigh(bench.ruling, _sentence(found, c)),
                                    found.examination.testimony, _start(found, c))
                   for c in found.charges]
        for r in rulings:
            transcript.add(RulingEvent, ruling=r)
        verdict = weighed_verdict(case.id, case.answer, found.charges, found.dropped, rulings, found.weighing,
                                  found.examination.testimony)
    else:
        verdict = yield from _decide(bench, case, transcript, found, first_reading)
        if found.examination is not None:  # witnesses heard, but no ruling for this model: the measurement decided
            verdict.testimony = found.examination.testimony
            verdict.reason = verdict.reason.rstrip(".") + ". " + NO_RULING
    if verdict.hallucinated:
        verdict.spans = found.spans
        witnesses = bench.spec.witnesses
        if witnesses is not None and witnesses.trial and found.examination is not None:
            charged = [_sentence(found, c) for c in found.charges]
            verdict.spans = yield from span_trial(bench, case, found.examination, found.spans, charged, transcript)
    return verdict


NO_RULING = ("No ruling is fitted for this model, so the grounding measure decided; the witnesses' testimony is "
             "recorded (courtroom calibrate --ruling fits a ruling on labelled runs).")


def _sentence(found: Indictment, charge: Charge) -> int:
    """The index, among the answer's sentences, of a charged sentence."""
    assert found.examination is not None
    reading = found.examination.reading
    quotes = [reading.answer[a:b] for a, b in reading.sentences]
    return quotes.index(charge.quote) if charge.quote in quotes else 0


def _start(found: Indictment, charge: Charge) -> int:
    """Where a charged sentence (or the whole answer) starts in the case's answer."""
    assert found.examination is not None
    reading = found.examination.reading
    quotes = [reading.answer[a:b] for a, b in reading.sentences]
    at = reading.sentences[quotes.index(charge.quote)][0] if charge.quote in quotes else reading.answer.find(charge.quote)
    return reading.offset + max(at, 0)


def _decide(bench: Bench, case: Case, transcript: Transcript, found: Indictment, first_reading: float | None) -> Step:
    """The verdict by the court's measurement and trials."""
    if not found.charges:
        dropped = found.dropped
        why = f" ({plural(len(dropped), 'statement')} measured, none suspect enough to charge)" if dropped else ""
        # the indictment's suspicion still ranks the case (AUROC), kept below the verdict threshold
        measured = [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None]
        suspicion = share(bench, measured) if bench.spec.aggregation.method == "share" and measured else found.suspicion
        score = min(suspicion, bench.threshold * 0.999)
        return CaseVerdict(case_id=case.id, label="PASS", score=score, charges=[], dropped=dropped,
                           reason=f"No charges were brought: every statement of the answer stands{why}.")
    decided: dict[int, Ruling] = {}
    for charge in found.charges:  # outside the escalation band: the measurement decides, no trial
        if escalated(charge, bench) is False:
            decided[charge.index] = measured_ruling(charge, bench, first_reading)
            transcript.add(RulingEvent, ruling=decided[charge.index])
    tried = [c for c in found.charges if c.index not in decided]
    tried_rulings = yield from gather([try_charge(bench, case, c, transcript, found.measures.get(c.index),
                                                  first_reading) for c in tried])
    decided |= {c.index: r for c, r in zip(tried, tried_rulings)}
    rulings: list[Ruling] = [decided[c.index] for c in found.charges]
    return aggregate(bench, case.id, found.charges, found.dropped, rulings)
