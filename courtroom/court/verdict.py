"""Deciding: a charge's ruling from the court's opinion and the evidence, and the case verdict from the
rulings by the court's aggregation rule, with the reason that names what decided it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from courtroom.case import CaseVerdict, Charge, DroppedCharge, Ruling, Verdict
from courtroom.court.bench import Bench


def ruling(charge: Charge, p_hallucinated: float, payload: dict[str, Any], source: Any, rounds: int,
            bench: Bench, note: str = "") -> Ruling:
    verdict = Verdict.HALLUCINATED if p_hallucinated >= bench.threshold else Verdict.SUPPORTED
    reason = str(payload.get("reason") or " ".join(str(v) for v in payload.values()) or source)
    reason = f"{reason} [{note}]" if note else reason
    confidence = p_hallucinated if verdict is Verdict.HALLUCINATED else 1.0 - p_hallucinated
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence,
                  p_hallucinated=p_hallucinated, source=source, rounds=rounds)


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
        suspects = [(r.p_hallucinated, charges[r.charge].quote, f"charge {r.charge + 1}, acquitted") for r in rulings]
        suspects += [(d.p_suspect, d.quote, f"not tried: {d.why_dropped}") for d in dropped if d.p_suspect is not None]
        p, quote, how = max(suspects)
        return (f"No charge was convicted, but the case score by the {method} rule ({score:.2f}) reaches the "
                f"threshold ({bench.threshold:.2f}); most suspect: \"{quote}\" (P {p:.2f}, {how}).")
    summary = f"{len(supported)} of {len(rulings)} charges were found supported ({method} rule)"
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
