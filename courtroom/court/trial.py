"""The procedure of one case: indictment, a trial per charge through the court's graph, the verdict.

Written as lockstep programs (see `courtroom.engine.lockstep`): the charges of a case are tried side by
side and every turn due at the same step, across cases, goes to the backend as one batch. A turn is one to
three constrained calls: choose a move among the legal ones (scored, so each move has a probability;
skipped when only one is legal), write the move's payload (JSON under its schema), and, when the move ends
in a ruling, the verdict (scored: its probability is the confidence).
"""

from __future__ import annotations

from typing import Any, Literal

from courtroom.baselines.plain import p_hallucinated, rails_request
from courtroom.case import Case, CaseVerdict, Charge, Ruling
from courtroom.casefile import context_sentences
from courtroom.court.bench import Bench
from courtroom.court.evidence import Measure, weigh_evidence
from courtroom.court.indictment import indict
from courtroom.court.moves import VerdictChoice, cited, payload_model
from courtroom.court.personas import Persona
from courtroom.court.prompts import Entry, charge_header, debate_record, move_task, payload_task, turn_messages, verdict_task
from courtroom.court.verdict import aggregate, plural, ruling, share
from courtroom.door.requests import GenerationRequest, jsonable
from courtroom.engine.events import MoveEvent, RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript, gather


def try_charge(bench: Bench, case: Case, charge: Charge, transcript: Transcript,
               measured: Measure | None = None, first_reading: float | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence, and the judge's
    first reading of the answer when the court takes one)."""
    procedure = bench.procedure
    max_rounds = bench.spec.max_rounds
    sentences = context_sentences(case, bench.spec.sentences)
    node, round = procedure.start, 1
    entries: list[Entry] = []
    while True:
        role = procedure.role(node)
        persona = bench.persona(role)
        template = {"charge": charge.model_dump(), "round": round, "max_rounds": max_rounds}
        body = f"{charge_header(charge)}\n\n{debate_record(entries, sentences)}"
        legal = procedure.legal_moves(node, round, max_rounds)
        call_info = dict(role=role, persona=persona.name, node=node, charge=charge.index, round=round)
        move_probs: dict[str, float] | None = None
        if len(legal) == 1:
            edge = legal[0]
        else:
            request = GenerationRequest(
                messages=turn_messages(bench, case, persona, body, move_task(role, round, max_rounds, legal), template),
                output_type=Literal[tuple(e.move for e in legal)],  # type: ignore[misc]
                sampling=persona.sampling, cache_group=case.id)
            [response] = yield [Call(request, purpose="move", **call_info)]
            chosen = response.unwrap()
            move_probs = response.option_probs
            edge = next(e for e in legal if e.move == chosen)
        model = cited(payload_model(edge.payload), len(sentences))
        request = GenerationRequest(
            messages=turn_messages(bench, case, persona, body, payload_task(edge, model), template),
            output_type=model, sampling=persona.sampling, cache_group=case.id)
        [response] = yield [Call(request, purpose="payload", **call_info)]
        payload = jsonable(response.unwrap())
        evidence = payload.get("evidence")
        found = None if not isinstance(evidence, int) or evidence == 0 else 1 <= evidence <= len(sentences)
        transcript.add(MoveEvent, charge=charge.index, round=round, node=node, role=role, persona=persona.name,
                       move=edge.move, payload=payload, forced=move_probs is None, move_probs=move_probs,
                       evidence_found=found)
        entries.append(Entry(round, role, persona.name, edge.move, payload))
        confidence = 1.0 if move_probs is None else move_probs[edge.move]
        words = ""
        if edge.to == "acquit":
            opinion, source = 1.0 - confidence, "withdrawn"
        elif edge.to == "convict":
            opinion, source = confidence, "conceded"
        elif edge.to == "ruling":
            opinion = yield from _rule(bench, case, charge, persona, entries, round, call_info)
            source = "judge"
            words = f'"{payload["reason"]}"' if isinstance(payload.get("reason"), str) and payload["reason"] else ""
        elif edge.to == "jury":
            opinion, votes = yield from _jury(bench, case, charge, entries, round)
            source = "jury"
            words = votes
        else:
            if edge.new_round:
                round += 1
            node = edge.to
            continue
        weighed = {}
        if bench.spec.ruling.judge_weight < 1.0:
            evidence, note, grounded = yield from weigh_evidence(bench, case, charge, entries, measured)
            weighed = {"evidence": evidence, "evidence_note": note, "grounded": grounded}
        decided = ruling(charge, bench, source, opinion, round, first_reading=first_reading, words=words, **weighed)
        transcript.add(RulingEvent, ruling=decided)
        return decided


def _verdict_request(bench: Bench, case: Case, charge: Charge, persona: Persona, entries: list[Entry],
                     round: int) -> GenerationRequest:
    template = {"charge": charge.model_dump(), "round": round, "max_rounds": bench.spec.max_rounds}
    body = f"{charge_header(charge)}\n\n{debate_record(entries, context_sentences(case, bench.spec.sentences))}"
    return GenerationRequest(messages=turn_messages(bench, case, persona, body, verdict_task(charge), template),
                             output_type=VerdictChoice, sampling=persona.sampling, cache_group=case.id)


def _rule(bench: Bench, case: Case, charge: Charge, persona: Persona, entries: list[Entry], round: int,
          call_info: dict[str, Any]) -> Step:
    """The judge's verdict: its probability of `hallucinated`."""
    request = _verdict_request(bench, case, charge, persona, entries, round)
    [response] = yield [Call(request, purpose="verdict", **call_info)]
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))


def _jury(bench: Bench, case: Case, charge: Charge, entries: list[Entry], round: int) -> Step:
    jurors = bench.panel("jury")
    calls = [Call(_verdict_request(bench, case, charge, juror, entries, round), purpose="verdict", role="jury",
                  persona=juror.name, node="jury", charge=charge.index, round=round) for juror in jurors]
    responses = yield calls
    ps = []
    for response in responses:
        response.unwrap()
        ps.append(float((response.option_probs or {}).get("hallucinated", 0.0)))
    mean_p = sum(ps) / len(ps)
    votes = sum(p >= bench.threshold for p in ps)
    # majority: the share of jurors voting hallucinated; mean: their mean probability
    p_h = votes / len(ps) if bench.spec.jury_rule == "majority" else mean_p
    return p_h, f"{votes} of {plural(len(ps), 'juror')} voted hallucinated, mean P(hallucinated) = {mean_p:.2f}"


def read_first(case: Case, prompt_format: int) -> Step:
    """The judge's first reading of the whole answer: P(hallucinated) of the one-word question."""
    [response] = yield [Call(rails_request(case, prompt_format), purpose="first reading", role="judge")]
    return p_hallucinated(response)


def run_case(bench: Bench, case: Case, transcript: Transcript) -> Step:
    """Indict, try every charge side by side, and combine the rulings into the case verdict."""
    first_reading: float | None = None
    if bench.spec.ruling.first_reading_weight:
        found, first_reading = yield from gather([indict(bench, case, transcript), read_first(case, bench.prompt_format)])
    else:
        found = yield from indict(bench, case, transcript)
    if not found.charges:
        dropped = found.dropped
        why = f" ({plural(len(dropped), 'statement')} measured, none suspect enough to charge)" if dropped else ""
        # the indictment's suspicion still ranks the case (AUROC), kept below the verdict threshold
        measured = [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None]
        suspicion = share(bench, measured) if bench.spec.aggregation.method == "share" and measured else found.suspicion
        score = min(suspicion, bench.threshold * 0.999)
        return CaseVerdict(case_id=case.id, label="PASS", score=score, charges=[], dropped=dropped,
                           reason=f"No charges were brought: every statement of the answer stands{why}.")
    rulings: list[Ruling] = yield from gather([try_charge(bench, case, c, transcript, found.measures.get(c.index),
                                                          first_reading) for c in found.charges])
    return aggregate(bench, case.id, found.charges, found.dropped, rulings)
