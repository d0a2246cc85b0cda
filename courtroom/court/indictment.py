"""Charges the `clerk` persona drafts (`trial.charges: drafted`); unfound quotes, duplicates and extras are
dropped."""

from __future__ import annotations

from courtroom.case import Case, Charge, DroppedCharge
from courtroom.clerk.indictment import Indictment
from courtroom.court.bench import Bench
from courtroom.court.moves import ChargeDraft, indictment_model
from courtroom.court.prompts import NO_CHARGE, indictment_task, turn_messages
from courtroom.door.requests import GenerationRequest
from courtroom.engine.lockstep import Call, Step
from courtroom.text.quotes import normalize, quoted_in

CLERK = "clerk"
"""The role that drafts the charges."""


def draft_charges(bench: Bench, case: Case) -> Step:
    """The clerk's persona drafts charges; quotes not found in the answer, duplicates and extras are
    dropped."""
    clerk = bench.persona(CLERK)
    k = bench.spec.max_charges
    template = {"charge": NO_CHARGE, "round": 0, "max_rounds": bench.trial.max_rounds}
    request = GenerationRequest(
        messages=turn_messages(bench, case, clerk, "INDICTMENT", indictment_task(k), template),
        output_type=indictment_model(k), sampling=clerk.sampling, cache_group=case.id,
        seat=bench.seat(CLERK))
    [response] = yield [Call(request, purpose="indict", role=CLERK, persona=clerk.name)]
    drafts: list[ChargeDraft] = response.unwrap().charges
    charges: list[Charge] = []
    dropped: list[DroppedCharge] = []
    seen: dict[str, int] = {}
    for draft in drafts:
        key = normalize(draft.quote)
        if not quoted_in(draft.quote, case.answer):
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped="the quote is not in the answer"))
        elif key in seen:
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped=f"duplicate of charge {seen[key] + 1}"))
        elif len(charges) >= k:
            dropped.append(DroppedCharge(quote=draft.quote, reason=draft.reason,
                                         why_dropped=f"over the limit of {k} charges"))
        else:
            seen[key] = len(charges)
            charges.append(Charge(index=len(charges), quote=draft.quote, reason=draft.reason))
    return Indictment(charges, dropped)
