"""One case in a court (`court_case`): the clerk's program with the court's charges (measured, or drafted by
the clerk persona), each read against the context (`clerk.reading`, one batch for all) and tried side by side
(`trial.try_charge`) or, outside the escalation band, decided by its measurement; with a ruling fitted for the
model, the clerk's ruling decides, as it does without a trial."""

from __future__ import annotations

from courtroom.case import WHOLE_ANSWER_REASON, Case, CaseVerdict, Charge, Ruling
from courtroom.clerk.indictment import Indictment, indict
from courtroom.clerk.program import clerk_case, measured
from courtroom.clerk.reading import read_statements
from courtroom.clerk.verdict import aggregate
from courtroom.court.bench import Bench
from courtroom.court.indictment import draft_charges
from courtroom.court.testimony import trial_testimony
from courtroom.court.trial import try_charge
from courtroom.court.verdict import escalated, untried_ruling
from courtroom.engine.events import RulingEvent
from courtroom.engine.lockstep import Step, Transcript, gather
from courtroom.witness.ruling import FittedRuling


def court_case(bench: Bench, ruling: FittedRuling | None, case: Case, transcript: Transcript) -> Step:
    """The clerk's procedure with the court's charges, each tried; the trial's testimony recorded
    (`trial.testify`)."""

    def decide(found: Indictment, case: Case, transcript: Transcript) -> Step:
        if found.weighing is not None or not found.charges:
            verdict = yield from measured(bench.spec, ruling, bench.threshold, found, case, transcript)
        else:
            verdict = yield from _tried(bench, case, transcript, found)
        if bench.trial.testify:
            found.heard.append(trial_testimony(transcript.events, found.charges, bench.procedure))
        return verdict

    return (yield from clerk_case(bench.spec, ruling, bench.threshold, case, transcript,
                                  charges=_charges(bench, ruling, case), decide=decide))


def _charges(bench: Bench, ruling: FittedRuling | None, case: Case) -> Step:
    """The clerk's indictment or the persona's drafted charges (none: the whole answer, by
    `on_no_charges`)."""
    found = yield from (draft_charges(bench, case) if bench.trial.charges == "drafted" else
                        indict(bench.spec, ruling, case))
    if not found.charges and bench.trial.on_no_charges == "try_whole_answer":
        found.charges.append(Charge(index=0, quote=case.answer.strip(), reason=WHOLE_ANSWER_REASON,
                                    whole_answer=True))
    return found


def _tried(bench: Bench, case: Case, transcript: Transcript, found: Indictment) -> Step:
    """The verdict by the trials of the charges (those outside the escalation band decided by their
    measurement)."""
    decided: dict[int, Ruling] = {}
    for charge in found.charges:
        if escalated(charge, bench) is False:
            decided[charge.index] = untried_ruling(charge, bench)
            transcript.add(RulingEvent, ruling=decided[charge.index])
    tried = [c for c in found.charges if c.index not in decided]
    readings = (yield from read_statements(bench.spec, case, tried, found.measures,
                                           bench.trial.reading)) if tried else {}
    tried_rulings = yield from gather([try_charge(bench, case, c, transcript, found.measures.get(c.index),
                                                  readings.get(c.index)) for c in tried])
    decided |= {c.index: r for c, r in zip(tried, tried_rulings)}
    rulings = [decided[c.index] for c in found.charges]
    verdict: CaseVerdict = aggregate(bench.spec.aggregation, bench.threshold, case.id, found.charges,
                                     found.dropped, rulings)
    return verdict
