"""Deciding: a charge's ruling from the court's opinion and the evidence, and the case verdict from the
rulings by the court's aggregation rule, with the reason that names what decided it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from courtroom.case import CaseVerdict, Charge, DroppedCharge, Pointer, Ruling, RulingSource, Testimony, Verdict, Weighing
from courtroom.court.bench import Bench

SOURCES = {"withdrawn": "the prosecutor withdrew the charge", "conceded": "the defence conceded the charge",
           "judge": "the judge ruled", "jury": "the jury ruled", "testimony": "the ruling weighed the testimony"}


def plural(count: int, noun: str) -> str:
    """`1 charge`, `2 charges`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def escalated(charge: Charge, bench: Bench) -> bool | None:
    """Whether the charge goes to trial: True inside the court's escalation band (or with no P(suspect) to place
    in it, such as the whole answer tried when nothing was charged), False outside it (the measurement decides);
    None when the court has no band."""
    band = bench.spec.escalation
    if band is None:
        return None
    if band.bounds is None:  # tries: nothing
        return False
    low, high = band.bounds
    return charge.p_suspect is None or low <= charge.p_suspect <= high


def _against(p: float, bound: float) -> str:
    """`p` with as many decimals as it takes to tell it from `bound`."""
    for digits in range(2, 8):
        if round(p, digits) != round(bound, digits):
            return f"{p:.{digits}f}"
    return f"{p!r}"


def band_note(charge: Charge, bench: Bench) -> str:
    """Why a charge was or was not escalated, in the band's terms."""
    band = bench.spec.escalation
    assert band is not None
    if band.bounds is None:
        return "this court tries no charge"
    if charge.p_suspect is None:
        return "no P(suspect) was measured to place it in the escalation band"
    (low, high), p = band.bounds, charge.p_suspect
    where = f"[{low:g}, {high:g}]"
    if p < low:
        return f"P(suspect) = {_against(p, low)} is below the escalation band {where}"
    if p > high:
        return f"P(suspect) = {_against(p, high)} is above the escalation band {where}"
    return f"P(suspect) = {p:.2f} lies in the escalation band {where}"


def measured_ruling(charge: Charge, bench: Bench, first_reading: float | None = None) -> Ruling:
    """The ruling on a charge the court did not escalate: the measurement alone, P(hallucinated) = P(suspect)
    (with the first reading weighed in when the court takes one); no trial."""
    assert charge.p_suspect is not None
    p = charge.p_suspect
    reading = bench.spec.ruling.first_reading_weight
    if first_reading is not None:
        p = (1.0 - reading) * p + reading * first_reading
    verdict = Verdict.HALLUCINATED if p >= bench.threshold else Verdict.SUPPORTED
    measured = f"grounding {charge.grounding:+.2f} nats/token, " if charge.grounding is not None else ""
    band = bench.spec.escalation
    lead = ("decided by the measurement" if band is not None and band.bounds is None
            else "not escalated to trial, the measurement decided")
    parts = [f"{lead} ({measured}{band_note(charge, bench)})"]
    if first_reading is not None:
        parts.append(f"the first reading of the whole answer, P(hallucinated) = {first_reading:.2f}, weighs {reading:.2f}")
    reason = "; ".join(parts) + f"; P(hallucinated) = {p:.2f}: {verdict.value}"
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence, p_hallucinated=p,
                  source="measurement", rounds=0, evidence=charge.grounding, first_reading=first_reading,
                  escalated=False)


def ruling(charge: Charge, bench: Bench, source: RulingSource, opinion: float, rounds: int, *,
           evidence: float | None = None, evidence_note: str = "", grounded: float | None = None,
           first_reading: float | None = None, words: str = "") -> Ruling:
    """A charge's ruling: the court's own opinion (the judge's or jury's P(hallucinated), or what a withdrawal or
    concession implies), weighed with the measured evidence (P(suspect) at the charge's best grounding) and the
    first reading when the court takes them, and a reason that says which carried how much, in the record's terms."""
    weight = bench.spec.ruling.judge_weight
    p = opinion if evidence is None else weight * opinion + (1.0 - weight) * evidence
    reading = bench.spec.ruling.first_reading_weight
    if first_reading is not None:
        p = (1.0 - reading) * p + reading * first_reading
    verdict = Verdict.HALLUCINATED if p >= bench.threshold else Verdict.SUPPORTED
    said = {"withdrawn": f"P(withdraw) = {1 - opinion:.2f}", "conceded": f"P(concede) = {opinion:.2f}"}.get(
        source, f"P(hallucinated) = {opinion:.2f}")
    parts = [f"{SOURCES[source]} ({said}{', ' + words if words else ''})"]
    tried = escalated(charge, bench)
    if tried is not None:
        parts.insert(0, f"escalated to trial ({band_note(charge, bench)})")
    if evidence is not None:
        parts.append(f"{evidence_note}, so P(suspect) = {evidence:.2f}; weighed {weight:.2f} to the court and "
                     f"{1 - weight:.2f} to the evidence")
    if first_reading is not None:
        parts.append(f"the first reading of the whole answer, P(hallucinated) = {first_reading:.2f}, weighs {reading:.2f}")
    opinion_side = Verdict.HALLUCINATED if opinion >= bench.threshold else Verdict.SUPPORTED
    outcome = f"P(hallucinated) = {p:.2f}: {verdict.value}"
    if opinion_side is not verdict:
        overruled = {"withdrawn": "the withdrawal", "conceded": "the concession"}.get(source, f"the {source}'s verdict")
        outcome += f" (the measurement overruled {overruled}: {opinion:.2f} became {p:.2f})"
    reason = "; ".join(parts) + f"; {outcome}"
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence, p_hallucinated=p,
                  source=source, rounds=rounds, opinion=opinion, evidence=grounded, first_reading=first_reading,
                  escalated=tried)


def share(bench: Bench, statements: Sequence[tuple[str, float]]) -> float:
    """The expected share of the answer that is hallucinated: the mean P(hallucinated) of its statements,
    each counted once or by its length (`aggregation.share_by`)."""
    weights = [len(q) if bench.spec.aggregation.share_by == "characters" else 1 for q, _ in statements]
    return math.fsum(w * p for w, (_, p) in zip(weights, statements)) / max(sum(weights), 1)


def verdict_reason(bench: Bench, charges: list[Charge], dropped: list[DroppedCharge], rulings: list[Ruling],
                   hallucinated: bool, score: float) -> str:
    """Why the case verdict came out as it did, naming the ruling or statement that decided it."""
    method = bench.spec.aggregation.method
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    supported = [r for r in rulings if r.verdict is not Verdict.HALLUCINATED]
    if hallucinated and guilty:
        worst = max(guilty, key=lambda r: r.p_hallucinated)
        return f"Charge {worst.charge + 1} (\"{charges[worst.charge].quote}\") is found hallucinated: {worst.reason}"
    if hallucinated:  # by the share or mean rule with no charge convicted: the measured statements decided
        suspects = [(r.p_hallucinated, charges[r.charge].quote,
                     f"charge {r.charge + 1}, {'not escalated' if r.source == 'measurement' else 'acquitted'}")
                    for r in rulings]
        suspects += [(d.p_suspect, d.quote, f"not tried: {d.why_dropped}") for d in dropped if d.p_suspect is not None]
        p, quote, how = max(suspects)
        return (f"No charge was convicted, but the case score by the {method} rule ({score:.2f}) reaches the "
                f"threshold ({bench.threshold:.2f}); most suspect: \"{quote}\" (P {p:.2f}, {how}).")
    summary = f"{len(supported)} of {plural(len(rulings), 'charge')} found supported ({method} rule)"
    if supported:
        return f"{summary}: {max(supported, key=lambda r: 1 - r.p_hallucinated).reason}"
    return (f"{summary}, but the case score by that rule ({score:.2f}) stays below the threshold "
            f"({bench.threshold:.2f}): {min(guilty, key=lambda r: r.p_hallucinated).reason}")


def aggregate(bench: Bench, case_id: str, charges: list[Charge], dropped: list[DroppedCharge],
              rulings: list[Ruling]) -> CaseVerdict:
    """The case verdict from the rulings, by the court's aggregation method."""
    spec = bench.spec.aggregation
    ps = [r.p_hallucinated for r in rulings]
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    if spec.method == "any":
        score, hallucinated = max(ps), bool(guilty)
    elif spec.method == "majority":
        score, hallucinated = sum(ps) / len(ps), len(guilty) * 2 > len(rulings)
    elif spec.method == "share":
        whole_answer_tried = any(c.whole_answer for c in charges)  # the dropped are parts of it
        score = share(bench, [(c.quote, r.p_hallucinated) for c, r in zip(charges, rulings)] +
                      [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None and not whole_answer_tried])
        hallucinated = score >= bench.threshold
    else:
        score = sum(ps) / len(ps)
        hallucinated = score >= bench.threshold
    reason = verdict_reason(bench, charges, dropped, rulings, hallucinated, score)
    return CaseVerdict(case_id=case_id, label="FAIL" if hallucinated else "PASS", score=score, reason=reason,
                       rulings=rulings, charges=charges, dropped=dropped)


def testimony_ruling(charge: Charge, weighing: Weighing, testimony: list[Testimony], start: int) -> Ruling:
    """The ruling on a charged sentence by a fitted ruling's weighing of its own testimony (no trial); `start` is
    where the sentence stands in the case's answer (what the witnesses pointed at in it is quoted)."""
    p = weighing.p_hallucinated
    verdict = Verdict.HALLUCINATED if p >= weighing.threshold else Verdict.SUPPORTED
    said = "; ".join(_said(testimony, start, start + len(charge.quote))[:2])
    reason = (f"the ruling weighed its testimony at P(hallucinated) = {p:.2f} (threshold {weighing.threshold:.2f}; "
              f"{_turned_on(weighing)}){': ' + said if said else ''}: {verdict.value}")
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence, p_hallucinated=p,
                  source="testimony", rounds=0, evidence=charge.grounding, escalated=False)


def _turned_on(weighing: Weighing, most: int = 3) -> str:
    """The values that moved the log-odds most, in the direction of the outcome."""
    toward = 1 if weighing.p_hallucinated >= weighing.threshold else -1
    parts = sorted(((v, k) for k, v in weighing.contributions.items() if k != "intercept" and v * toward > 0),
                   key=lambda vk: -abs(vk[0]))[:most]
    return "it turned on " + ", ".join(f"{k} {v:+.2f}" for v, k in parts) if parts else "no value moved it far"


def _said(testimony: list[Testimony], start: int, end: int) -> list[str]:
    """What the witnesses pointed at within [start, end) of the answer, strongest first."""
    points: list[tuple[Pointer, str]] = [(p, t.witness) for t in testimony if t.heard for p in t.points
                                         if p.start < end and p.end > start]
    return [f"{witness}: {p.note}" for p, witness in sorted(points, key=lambda pw: -pw[0].weight)]


def quoted_points(testimony: list[Testimony], answer: str, most: int = 3) -> list[str]:
    """The strongest things the witnesses pointed at, each with the words it points at."""
    points = sorted(((p, t.witness) for t in testimony if t.heard for p in t.points), key=lambda pw: -pw[0].weight)
    return [f"'{answer[p.start:p.end]}': {p.note} ({witness})" for p, witness in points[:most]]


def weighed_verdict(case_id: str, answer: str, charges: list[Charge], dropped: list[DroppedCharge],
                    rulings: list[Ruling], weighing: Weighing, testimony: list[Testimony]) -> CaseVerdict:
    """The case verdict by a fitted ruling's weighing of the whole answer's testimony."""
    hallucinated = weighing.p_hallucinated >= weighing.threshold
    outcome = "hallucinated" if hallucinated else "faithful"
    reason = (f"The ruling fitted for {weighing.ruling.split('/')[1]} ({weighing.family}) weighs the testimony at "
              f"P(hallucinated) = {weighing.p_hallucinated:.2f} against {weighing.threshold:.2f}: {outcome}; "
              f"{_turned_on(weighing)}")
    if hallucinated and rulings:
        worst = max(rulings, key=lambda r: r.p_hallucinated)
        reason += f". Most suspect: \"{charges[worst.charge].quote}\" (P {worst.p_hallucinated:.2f})"
    if hallucinated and (said := quoted_points(testimony, answer)):
        reason += "; the witnesses point at " + "; ".join(said)
    if weighing.missing:
        reason += f". Not heard, so not weighed: {', '.join(weighing.missing)}"
    return CaseVerdict(case_id=case_id, label="FAIL" if hallucinated else "PASS", score=weighing.p_hallucinated,
                       reason=reason + ".", rulings=rulings, charges=charges, dropped=dropped, testimony=testimony,
                       weighing=weighing)
