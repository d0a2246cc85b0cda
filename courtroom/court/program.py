"""One case in a court (`court_case`), a lockstep program: the clerk's procedure (`clerk.program.clerk_case`) with the
court's charges (the indictment's, or drafted by the clerk persona; the whole answer when none is brought and the court
says so) and its way to decide them: every charge tried side by side (`trial.try_charge`), or decided by its
measurement outside the escalation band, the rulings combined by the clerk's aggregation."""

from __future__ import annotations

from courtroom.case import WHOLE_ANSWER_REASON, Case, CaseVerdict, Charge, Ruling
from courtroom.clerk.indictment import Indictment, indict
from courtroom.clerk.program import clerk_case, measured
from courtroom.clerk.verdict import aggregate
from courtroom.court.bench import Bench
from courtroom.court.indictment import draft_charges
from courtroom.court.trial import try_charge
from courtroom.court.verdict import escalated, untried_ruling
from courtroom.engine.events import RulingEvent
from courtroom.engine.lockstep import Step, Transcript, gather
from courtroom.witness.ruling import FittedRuling


def court_case(bench: Bench, ruling: FittedRuling | None, case: Case, transcript: Transcript) -> Step:
    """The clerk's procedure with the court's charges, each tried (with a ruling fitted for the model, the clerk's
    ruling decides, as it does without a trial)."""

    def decide(found: Indictment, case: Case, transcript: Transcript) -> Step:
        if found.weighing is not None or not found.charges:
            return (yield from measured(bench.spec, ruling, bench.threshold, found, case, transcript))
        return (yield from _tried(bench, case, transcript, found))

    return (yield from clerk_case(bench.spec, ruling, bench.threshold, case, transcript,
                                  charges=_charges(bench, ruling, case), decide=decide))


def _charges(bench: Bench, ruling: FittedRuling | None, case: Case) -> Step:
    """The clerk's indictment, or the charges the clerk persona drafts; the whole answer as one charge when none is
    brought and the court tries it then."""
    found = yield from (draft_charges(bench, case) if bench.trial.charges == "drafted" else indict(bench.spec, ruling,
                                                                                                       case))
    if not found.charges and bench.trial.on_no_charges == "try_whole_answer":
        found.charges.append(Charge(index=0, quote=case.answer.strip(), reason=WHOLE_ANSWER_REASON, whole_answer=True))
    return found


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
