"""The clerk's procedure for one case (`clerk_case`), a lockstep program: the indictment (its only model calls), then
the verdict, and for an answer found hallucinated the words the witnesses point at."""

from __future__ import annotations

from courtroom.case import Case, CaseVerdict
from courtroom.clerk.indictment import Indictment, indict
from courtroom.clerk.spec import ClerkSpec
from courtroom.clerk.verdict import acquittal, aggregate, fitted_for, measured_ruling, testimony_ruling, weighed_verdict
from courtroom.engine.events import ChargesEvent, RulingEvent
from courtroom.engine.lockstep import Step, Transcript
from courtroom.witness.ruling import FittedRuling


def clerk_case(spec: ClerkSpec, ruling: FittedRuling | None, threshold: float, case: Case,
               transcript: Transcript) -> Step:
    """Indict, decide every charge by its measurement (or the ruling), and combine the rulings into the verdict."""
    found = yield from indict(spec, ruling, case)
    transcript.add(ChargesEvent, charges=found.charges, dropped=found.dropped)
    if found.weighing is not None:
        verdict = weighed(found, ruling, case, transcript)
    elif not found.charges:
        verdict = acquittal(case.id, found.dropped, found.suspicion, spec.aggregation, threshold)
    else:
        rulings = [measured_ruling(charge, threshold) for charge in found.charges]
        for r in rulings:
            transcript.add(RulingEvent, ruling=r)
        verdict = aggregate(spec.aggregation, threshold, case.id, found.charges, found.dropped, rulings)
    return with_findings(verdict, found)


def weighed(found: Indictment, ruling: FittedRuling | None, case: Case, transcript: Transcript) -> CaseVerdict:
    """The verdict by the ruling's weighing of the whole answer, each charge ruled on by the weighing of its sentence."""
    assert found.examination is not None and found.weighing is not None and ruling is not None
    examination = found.examination
    rulings = [testimony_ruling(c, examination.weigh(ruling, found.sentences[c.index][0]), examination.testimony,
                                found.sentences[c.index][1]) for c in found.charges]
    for r in rulings:
        transcript.add(RulingEvent, ruling=r)
    return weighed_verdict(case.id, case.answer, found.charges, found.dropped, rulings, found.weighing,
                           examination.testimony)


def with_findings(verdict: CaseVerdict, found: Indictment) -> CaseVerdict:
    """The verdict with what the witnesses testified, and, when it finds the answer hallucinated, the words they point
    at; for an answer outside the ruling's region, its weighing and why it did not decide."""
    if found.examination is not None:
        verdict.testimony = found.examination.testimony
    if (outside := found.outside) is not None:
        verdict.weighing = outside
        verdict.reason += (f" The ruling fitted for {fitted_for(outside)} was not applied: the case lies outside "
                           f"the cases it was fitted on (distance {outside.distance:.2f} from their mean, farther than "
                           f"{outside.percentile:.1f}% of them), so the measure decided.")
    if verdict.hallucinated:
        verdict.spans = found.spans
    return verdict
