"""A trial's ruling on a charge: the court's own opinion weighed with the evidence, and why a charge was (not)
tried."""

from __future__ import annotations

from courtroom.case import Charge, Ruling, RulingSource, Verdict
from courtroom.clerk.verdict import measured_ruling
from courtroom.court.bench import Bench

SOURCES = {"withdrawn": "the prosecutor withdrew the charge", "conceded": "the defence conceded the charge",
           "judge": "the judge ruled", "jury": "the jury ruled",
           "testimony": "the ruling weighed the testimony"}


def escalated(charge: Charge, bench: Bench) -> bool | None:
    """Whether the charge goes to trial: True inside the escalation band (or with no P(suspect) to place),
    False outside it (the measurement decides); None when the court has no band."""
    band = bench.trial.escalation
    if band is None:
        return None
    return charge.p_suspect is None or band.low <= charge.p_suspect <= band.high


def _against(p: float, bound: float) -> str:
    """`p` with as many decimals as it takes to tell it from `bound`."""
    for digits in range(2, 8):
        if round(p, digits) != round(bound, digits):
            return f"{p:.{digits}f}"
    return f"{p!r}"


def band_note(charge: Charge, bench: Bench) -> str:
    """Why a charge was or was not escalated, in the band's terms."""
    band = bench.trial.escalation
    assert band is not None
    if charge.p_suspect is None:
        return "no P(suspect) was measured to place it in the escalation band"
    low, high, p = band.low, band.high, charge.p_suspect
    where = f"[{low:g}, {high:g}]"
    if p < low:
        return f"P(suspect) = {_against(p, low)} is below the escalation band {where}"
    if p > high:
        return f"P(suspect) = {_against(p, high)} is above the escalation band {where}"
    return f"P(suspect) = {p:.2f} lies in the escalation band {where}"


def untried_ruling(charge: Charge, bench: Bench) -> Ruling:
    """The ruling on a charge outside the escalation band: its measurement alone, no trial."""
    return measured_ruling(charge, bench.threshold, "not escalated to trial, the measurement decided",
                           band_note(charge, bench))


def ruling(charge: Charge, bench: Bench, source: RulingSource, opinion: float, rounds: int, *,
           evidence: float | None = None, evidence_note: str = "", grounded: float | None = None,
           words: str = "") -> Ruling:
    """A charge's ruling: the court's own opinion weighed with the measured evidence, and a reason saying
    how."""
    weight = bench.trial.judge_weight
    p = opinion if evidence is None else weight * opinion + (1.0 - weight) * evidence
    verdict = Verdict.HALLUCINATED if p >= bench.threshold else Verdict.SUPPORTED
    said = {"withdrawn": f"P(withdraw) = {1 - opinion:.2f}", "conceded": f"P(concede) = {opinion:.2f}"}.get(
        source, f"P(hallucinated) = {opinion:.2f}")
    parts = [f"{SOURCES[source]} ({said}{', ' + words if words else ''})"]
    tried = escalated(charge, bench)
    if tried is not None:
        parts.insert(0, f"escalated to trial ({band_note(charge, bench)})")
    if evidence is not None:
        parts.append(f"{evidence_note}, so P(suspect) = {evidence:.2f}; weighed {weight:.2f} to the court "
                     f"and {1 - weight:.2f} to the evidence")
    opinion_side = Verdict.HALLUCINATED if opinion >= bench.threshold else Verdict.SUPPORTED
    outcome = f"P(hallucinated) = {p:.2f}: {verdict.value}"
    if opinion_side is not verdict:
        overruled = ({"withdrawn": "the withdrawal",
                      "conceded": "the concession"}.get(source, f"the {source}'s verdict"))
        outcome += f" (the measurement overruled {overruled}: {opinion:.2f} became {p:.2f})"
    reason = "; ".join(parts) + f"; {outcome}"
    confidence = p if verdict is Verdict.HALLUCINATED else 1.0 - p
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence,
                  p_hallucinated=p,
                  source=source, rounds=rounds, opinion=opinion, evidence=grounded, escalated=tried)
