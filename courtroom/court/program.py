"""One case in a court that holds trials (`court_case`), a lockstep program: the indictment (or drafted charges), every
charge tried side by side (`trial.try_charge`) or decided by its measurement outside the escalation band, and the
rulings combined by the clerk's aggregation."""

from __future__ import annotations

from courtroom.case import WHOLE_ANSWER_REASON, Case, CaseVerdict, Charge, Ruling
from courtroom.clerk.indictment import Indictment, indict
from courtroom.clerk.program import weighed, with_findings
from courtroom.clerk.verdict import acquittal, aggregate
from courtroom.court.bench import Bench
from courtroom.court.indictment import draft_charges
from courtroom.court.trial import try_charge
from courtroom.court.verdict import escalated, untried_ruling
from courtroom.engine.events import ChargesEvent, RulingEvent
from courtroom.engine.lockstep import Step, Transcript, gather
from courtroom.witness.ruling import FittedRuling


def court_case(bench: Bench, ruling: FittedRuling | None, case: Case, transcript: Transcript) -> Step:
    """Indict, try every charge side by side, and combine the rulings into the case verdict (with a ruling fitted for
    the model, the clerk's ruling decides, as it does without a trial)."""
    if bench.trial.charges == "drafted":
        found = yield from draft_charges(bench, case)
    else:
        found = yield from indict(bench.spec, ruling, case)
    if not found.charges and bench.trial.on_no_charges == "try_whole_answer":
        found.charges.append(Charge(index=0, quote=case.answer.strip(), reason=WHOLE_ANSWER_REASON, whole_answer=True))
    transcript.add(ChargesEvent, charges=found.charges, dropped=found.dropped)
    if found.weighing is not None:
        verdict = weighed(found, ruling, case, transcript)
    elif not found.charges:
        verdict = acquittal(case.id, found.dropped, found.suspicion, bench.spec.aggregation, bench.threshold)
    else:
        verdict = yield from _tried(bench, case, transcript, found)
    return with_findings(verdict, found)


def _tried(bench: Bench, case: Case, transcript: Transcript, found: Indictment) -> Step:
    """The verdict by the trials of the charges (those outside the escalation band decided by their measurement)."""
    decided: dict[int, Ruling] = {}
    for charge in found.charges:
        if escalated(charge, bench) is False:
            decided[charge.index] = untried_ruling(charge, bench)
            transcript.add(RulingEvent, ruling=decided[charge.index])
    tried = [c for c in found.charges if c.index not in decided]
    tried_rulings = yield from gather([try_charge(bench, case, c, transcript, found.measures.get(c.index))
                                      for c in tried])
    decided |= {c.index: r for c, r in zip(tried, tried_rulings)}
    rulings = [decided[c.index] for c in found.charges]
    verdict: CaseVerdict = aggregate(bench.spec.aggregation, bench.threshold, case.id, found.charges, found.dropped,
                                     rulings)
    return verdict
