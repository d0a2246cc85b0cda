"""The clerk's procedure for one case (`clerk_case`): the indictment (its only model calls), the verdict, and
the words the witnesses point at; a court runs it with its own ways to charge and decide (`court.program`)."""

from __future__ import annotations

from collections.abc import Callable

from courtroom.case import Case, CaseVerdict
from courtroom.clerk.indictment import Indictment, indict
from courtroom.clerk.spec import ClerkSpec
from courtroom.clerk.verdict import acquittal, aggregate, measured_ruling, testimony_ruling, weighed_verdict
from courtroom.engine.events import ChargesEvent, RulingEvent
from courtroom.engine.lockstep import Step, Transcript
from courtroom.witness.ruling import FittedRuling

Decide = Callable[[Indictment, Case, Transcript], Step]
"""How the charges become the case verdict (a lockstep program that returns the `CaseVerdict`)."""


def clerk_case(spec: ClerkSpec, ruling: FittedRuling | None, threshold: float, case: Case,
               transcript: Transcript, *, charges: Step | None = None, decide: Decide | None = None) -> Step:
    """Indict (or bring a court's `charges`), decide (or `decide` as a court does), and add the witnesses'
    findings."""
    found = yield from (charges if charges is not None else indict(spec, ruling, case))
    transcript.add(ChargesEvent, charges=found.charges, dropped=found.dropped)
    decided = decide or (lambda found, case, transcript: measured(spec, ruling, threshold, found, case,
                                                                  transcript))
    verdict = yield from decided(found, case, transcript)
    return with_findings(verdict, found)


def measured(spec: ClerkSpec, ruling: FittedRuling | None, threshold: float, found: Indictment, case: Case,
             transcript: Transcript) -> Step:
    """The clerk's verdict: by the ruling's weighing when it decides, else every charge by its measurement."""
    if found.weighing is not None:
        return weighed(found, ruling, case, transcript)
    if not found.charges:
        return acquittal(case.id, found.dropped, found.suspicion, spec.aggregation, threshold)
    rulings = [measured_ruling(charge, threshold) for charge in found.charges]
    for r in rulings:
        transcript.add(RulingEvent, ruling=r)
    return aggregate(spec.aggregation, threshold, case.id, found.charges, found.dropped, rulings)
    yield  # a lockstep program that asks for nothing


def weighed(found: Indictment, ruling: FittedRuling | None, case: Case,
            transcript: Transcript) -> CaseVerdict:
    """The verdict by the ruling's weighing of the whole answer, each charge ruled on by the weighing of its
    sentence."""
    assert found.examination is not None and found.weighing is not None and ruling is not None
    examination = found.examination
    rulings = [testimony_ruling(c, examination.weigh(ruling, found.sentences[c.index][0]),
                                examination.testimony, found.sentences[c.index][1]) for c in found.charges]
    for r in rulings:
        transcript.add(RulingEvent, ruling=r)
    return weighed_verdict(case.id, case.answer, found.charges, found.dropped, rulings, found.weighing,
                           examination.testimony)


def with_findings(verdict: CaseVerdict, found: Indictment) -> CaseVerdict:
    """The verdict with the testimony heard and, for a hallucinated answer, the words the witnesses point
    at."""
    if found.examination is not None or found.heard:
        verdict.testimony = [*(found.examination.testimony if found.examination is not None else []),
                             *found.heard]
    if verdict.hallucinated:
        verdict.spans = found.spans
    return verdict
