"""The clerk's decisions: a charge's ruling by its measurement (or the fitted ruling), and the case verdict,
with the reason that names what decided it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from courtroom.case import CaseVerdict, Charge, DroppedCharge, Pointer, Ruling, Testimony, Verdict, Weighing
from courtroom.clerk.spec import AggregationSpec


def plural(count: int, noun: str) -> str:
    """`1 charge`, `2 charges`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def measured_ruling(charge: Charge, threshold: float, lead: str = "decided by the measurement",
                    note: str = "this court tries no charge") -> Ruling:
    """The ruling on a charge by its measurement alone, P(hallucinated) = P(suspect) (`lead` and `note` say
    why)."""
    assert charge.p_suspect is not None
    p = charge.p_suspect
    verdict = Verdict.HALLUCINATED if p >= threshold else Verdict.SUPPORTED
    measured = f"grounding {charge.grounding:+.2f} nats/token, " if charge.grounding is not None else ""
    reason = f"{lead} ({measured}{note}); P(hallucinated) = {p:.2f}: {verdict.value}"
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence,
                  p_hallucinated=p,
                  source="measurement", rounds=0, evidence=charge.grounding, escalated=False)


def share(aggregation: AggregationSpec, statements: Sequence[tuple[str, float]]) -> float:
    """The expected hallucinated share of the answer: its statements' mean P, each counted once or by its
    length."""
    weights = [len(q) if aggregation.share_by == "characters" else 1 for q, _ in statements]
    return math.fsum(w * p for w, (_, p) in zip(weights, statements)) / max(sum(weights), 1)


def acquittal(case_id: str, dropped: list[DroppedCharge], suspicion: float, aggregation: AggregationSpec,
              threshold: float) -> CaseVerdict:
    """The verdict when nothing was charged: faithful, scored by the statements' suspicion (below the
    threshold)."""
    why = f" ({plural(len(dropped), 'statement')} measured, none suspect enough to charge)" if dropped else ""
    measured = [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None]
    suspicion = share(aggregation, measured) if aggregation.method == "share" and measured else suspicion
    return CaseVerdict(case_id=case_id, label="PASS", score=min(suspicion, threshold * 0.999), charges=[],
                       dropped=dropped, reason="No charges were brought: every statement of the answer "
                                               f"stands{why}.")


def verdict_reason(method: str, threshold: float, charges: list[Charge], dropped: list[DroppedCharge],
                   rulings: list[Ruling], hallucinated: bool, score: float) -> str:
    """Why the case verdict came out as it did, naming the ruling or statement that decided it."""
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    supported = [r for r in rulings if r.verdict is not Verdict.HALLUCINATED]
    if hallucinated and guilty:
        worst = max(guilty, key=lambda r: r.p_hallucinated)
        return (f"Charge {worst.charge + 1} (\"{charges[worst.charge].quote}\") is found hallucinated: "
                f"{worst.reason}")
    if hallucinated:  # by the share or mean rule with no charge convicted: the measured statements decided
        suspects = [(r.p_hallucinated, charges[r.charge].quote,
                     f"charge {r.charge + 1}, "
                     f"{'not escalated' if r.source == 'measurement' else 'acquitted'}")
                    for r in rulings]
        suspects += [(d.p_suspect, d.quote, f"not tried: {d.why_dropped}") for d in dropped
                     if d.p_suspect is not None]
        p, quote, how = max(suspects)
        return (f"No charge was convicted, but the case score by the {method} rule ({score:.2f}) reaches the "
                f"threshold ({threshold:.2f}); most suspect: \"{quote}\" (P {p:.2f}, {how}).")
    summary = f"{len(supported)} of {plural(len(rulings), 'charge')} found supported ({method} rule)"
    if supported:
        return f"{summary}: {max(supported, key=lambda r: 1 - r.p_hallucinated).reason}"
    return (f"{summary}, but the case score by that rule ({score:.2f}) stays below the threshold "
            f"({threshold:.2f}): {min(guilty, key=lambda r: r.p_hallucinated).reason}")


def aggregate(spec: AggregationSpec, threshold: float, case_id: str, charges: list[Charge],
              dropped: list[DroppedCharge], rulings: list[Ruling]) -> CaseVerdict:
    """The case verdict from the rulings, by the aggregation method."""
    ps = [r.p_hallucinated for r in rulings]
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    if spec.method == "any":
        score, hallucinated = max(ps), bool(guilty)
    elif spec.method == "majority":
        score, hallucinated = sum(ps) / len(ps), len(guilty) * 2 > len(rulings)
    elif spec.method == "share":
        whole_answer_tried = any(c.whole_answer for c in charges)  # the dropped are parts of it
        score = share(spec, [(c.quote, r.p_hallucinated) for c, r in zip(charges, rulings)] +
                      [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None
                       and not whole_answer_tried])
        hallucinated = score >= threshold
    else:
        score = sum(ps) / len(ps)
        hallucinated = score >= threshold
    reason = verdict_reason(spec.method, threshold, charges, dropped, rulings, hallucinated, score)
    return CaseVerdict(case_id=case_id, label="FAIL" if hallucinated else "PASS", score=score, reason=reason,
                       rulings=rulings, charges=charges, dropped=dropped)


def testimony_ruling(charge: Charge, weighing: Weighing, testimony: list[Testimony], start: int) -> Ruling:
    """The ruling on a charged sentence (at `start` in the answer) by a fitted ruling's weighing of its
    testimony."""
    p = weighing.p_hallucinated
    verdict = Verdict.HALLUCINATED if p >= weighing.threshold else Verdict.SUPPORTED
    said = "; ".join(_said(testimony, start, start + len(charge.quote))[:2])
    reason = (f"the ruling weighed its testimony at P(hallucinated) = {p:.2f} (threshold "
              f"{weighing.threshold:.2f}; {_turned_on(weighing)}){': ' + said if said else ''}: "
              f"{verdict.value}")
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence,
                  p_hallucinated=p, source="testimony", rounds=0, evidence=charge.grounding, escalated=False)


def _turned_on(weighing: Weighing, most: int = 3) -> str:
    """The values that moved the log-odds most, in the direction of the outcome."""
    toward = 1 if weighing.p_hallucinated >= weighing.threshold else -1
    parts = sorted(((v, k) for k, v in weighing.contributions.items() if k != "intercept" and v * toward > 0),
                   key=lambda vk: -abs(vk[0]))[:most]
    return ("it turned on " + ", ".join(f"{k} {v:+.2f}" for v, k in parts)
            if parts else "no value moved it far")


def _said(testimony: list[Testimony], start: int, end: int) -> list[str]:
    """What the witnesses pointed at within [start, end) of the answer, strongest first."""
    points: list[tuple[Pointer, str]] = [(p, t.witness) for t in testimony if t.heard for p in t.points
                                         if p.start < end and p.end > start]
    return [f"{witness}: {p.note}" for p, witness in sorted(points, key=lambda pw: -pw[0].weight)]


def quoted_points(testimony: list[Testimony], answer: str, most: int = 3) -> list[str]:
    """The strongest things the witnesses pointed at, each with the words it points at."""
    points = sorted(((p, t.witness) for t in testimony if t.heard for p in t.points),
                    key=lambda pw: -pw[0].weight)
    return [f"'{answer[p.start:p.end]}': {p.note} ({witness})" for p, witness in points[:most]]


def fitted_for(weighing: Weighing) -> str:
    """The model a weighing's ruling was fitted for (`court/model/fingerprint`; a model's name may hold a
    slash)."""
    return weighing.ruling.split("/", 1)[-1].rsplit("/", 1)[0]


def weighed_verdict(case_id: str, answer: str, charges: list[Charge], dropped: list[DroppedCharge],
                    rulings: list[Ruling], weighing: Weighing, testimony: list[Testimony]) -> CaseVerdict:
    """The case verdict by a fitted ruling's weighing of the whole answer's testimony."""
    hallucinated = weighing.p_hallucinated >= weighing.threshold
    outcome = "hallucinated" if hallucinated else "faithful"
    reason = (f"The ruling fitted for {fitted_for(weighing)} ({weighing.family}) weighs the testimony at "
              f"P(hallucinated) = {weighing.p_hallucinated:.2f} against {weighing.threshold:.2f}: {outcome}; "
              f"{_turned_on(weighing)}")
    if hallucinated and rulings:
        worst = max(rulings, key=lambda r: r.p_hallucinated)
        reason += f". Most suspect: \"{charges[worst.charge].quote}\" (P {worst.p_hallucinated:.2f})"
    if hallucinated and (said := quoted_points(testimony, answer)):
        reason += "; the witnesses point at " + "; ".join(said)
    if weighing.missing:
        reason += f". Not heard, so not weighed: {', '.join(weighing.missing)}"
    return CaseVerdict(case_id=case_id, label="FAIL" if hallucinated else "PASS",
                       score=weighing.p_hallucinated,
                       reason=reason + ".", rulings=rulings, charges=charges, dropped=dropped,
                       testimony=testimony, weighing=weighing)
