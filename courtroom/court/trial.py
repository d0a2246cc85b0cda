"""The trial of one charge through the court's graph (`try_charge`), up to its ruling.

Written as a lockstep program (see `courtroom.engine.lockstep`): the charges of a case are tried side by side
(`court.program`) and every turn due at the same step, across cases, goes to the backend as one batch. A turn is one
to three constrained calls: choose a move among the legal ones (scored, so each move has a probability; skipped when
only one is legal; decided by the court's rule at a node decided by the evidence), write the move's payload (JSON
under its schema, or a scored choice for a citation or an exhibit, which the court then measures or checks), and,
when the move ends in a ruling, the verdict (scored: its probability is the confidence). With an escalation band,
charges measured outside it are decided by the measurement before any trial (`court.program`).
"""
from __future__ import annotations

from typing import Any, Literal, NamedTuple

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk.measure import Measure, measure_statements
from courtroom.clerk.verdict import plural
from courtroom.court.bench import Bench
from courtroom.court.evidence import TrialEvidence, grounding_in_cited, reopen, weigh_evidence
from courtroom.court.exhibits import NONE, Item, Sources, candidates
from courtroom.court.moves import VerdictChoice, cited, payload_model, scored_kind
from courtroom.court.personas import Persona
from courtroom.court.procedure import EdgeSpec
from courtroom.court.prompts import (
    Entry,
    charge_header,
    citation_task,
    debate_record,
    exhibit_task,
    move_task,
    payload_task,
    turn_messages,
    verdict_task,
)
from courtroom.court.verdict import ruling
from courtroom.door.outputs import jsonable
from courtroom.door.requests import GenerationRequest
from courtroom.engine.events import MoveEvent, RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript


class Chosen(NamedTuple):
    """A move and how it was chosen: the model's probabilities, or the court's rule; both None when it was the only
    legal move."""

    edge: EdgeSpec
    raw: dict[str, float] | None = None
    rule: str | None = None


def try_charge(bench: Bench, case: Case, charge: Charge, transcript: Transcript, measured: Measure | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence when the court takes it)."""
    procedure = bench.procedure
    max_rounds = bench.trial.max_rounds
    sentences = context_sentences(case, bench.spec.sentences)
    node, round = procedure.start, 1
    entries: list[Entry] = []
    found = TrialEvidence()
    while True:
        role = procedure.role(node)
        persona = bench.persona(role)
        template = {"charge": charge.model_dump(), "round": round, "max_rounds": max_rounds}
        body = f"{charge_header(charge)}\n\n{debate_record(entries, sentences)}"
        legal = procedure.legal_moves(node, round, max_rounds)
        call_info = dict(role=role, persona=persona.name, node=node, charge=charge.index, round=round)
        if len(legal) == 1:
            chosen = Chosen(legal[0])
        elif procedure.spec.nodes[node].choice == "evidence":
            if measured is None:
                [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
            again, why = reopen(bench, measured, found, round)
            chosen = Chosen(next(e for e in legal if e.new_round == again), rule=why)
        else:
            request = GenerationRequest(
                messages=turn_messages(bench, case, persona, body, move_task(role, round, max_rounds, legal), template),
                output_type=Literal[tuple(e.move for e in legal)],  # type: ignore[misc]
                sampling=persona.sampling, cache_group=case.id)
            [response] = yield [Call(request, purpose="move", **call_info)]
            move = response.unwrap()
            chosen = Chosen(next(e for e in legal if e.move == move), response.option_probs)
        edge = chosen.edge
        model = cited(payload_model(edge.payload), len(sentences))
        task_info = (bench, case, persona, body, template, call_info)
        if scored_kind(model) == "citation":
            payload, choice_probs = yield from _cite(edge, len(sentences), *task_info)
            if measured is None and 1 <= payload["evidence"] <= len(sentences):
                [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
            finding = yield from _measure_citation(bench, case, charge, measured, found, payload["evidence"], round)
        elif scored_kind(model) == "exhibit":
            weakest = measured.weakest if measured is not None else ()
            sources = Sources([*case.context, case.question])
            offered = candidates(charge.quote, sources, weakest)
            payload, choice_probs = yield from _name(edge, offered, *task_info)
            finding = _check_exhibit(sources, offered, payload["exhibit"], found, round)
        elif not model.model_fields:
            payload, choice_probs, finding = {}, None, ""
        else:
            request = GenerationRequest(
                messages=turn_messages(bench, case, persona, body, payload_task(edge, model), template),
                output_type=model, sampling=persona.sampling, cache_group=case.id)
            [response] = yield [Call(request, purpose="payload", **call_info)]
            payload, choice_probs, finding = jsonable(response.unwrap()), None, ""
        evidence = payload.get("evidence")
        located = None if not isinstance(evidence, int) or evidence == 0 else 1 <= evidence <= len(sentences)
        transcript.add(MoveEvent, charge=charge.index, round=round, node=node, role=role, persona=persona.name,
                       move=edge.move, payload=payload, forced=chosen.raw is None and chosen.rule is None,
                       move_probs=chosen.raw, rule=chosen.rule,
                       choice_probs=choice_probs, finding=finding or None, evidence_found=located)
        entries.append(Entry(round, role, persona.name, edge.move, payload, finding or chosen.rule or ""))
        confidence = 1.0 if chosen.raw is None else chosen.raw[edge.move]
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
        if bench.trial.judge_weight < 1.0:
            evidence, note, grounded = yield from weigh_evidence(bench, case, charge, entries, measured, found)
            weighed = {"evidence": evidence, "evidence_note": note, "grounded": grounded}
        decided = ruling(charge, bench, source, opinion, round, words=words, **weighed)
        transcript.add(RulingEvent, ruling=decided)
        return decided


def _scored_choice(options: tuple[str, ...], task: str, bench: Bench, case: Case, persona: Persona, body: str,
                   template: dict[str, Any], call_info: dict[str, Any]) -> Step:
    """One scored choice among `options` as a payload call: the most probable option and every option's probability."""
    request = GenerationRequest(
        messages=turn_messages(bench, case, persona, body, task, template),
        output_type=Literal[options],  # type: ignore[valid-type]
        sampling=persona.sampling, cache_group=case.id)
    [response] = yield [Call(request, purpose="payload", **call_info)]
    chosen = response.unwrap()
    probs = response.option_probs
    return (max(probs, key=probs.__getitem__) if probs else chosen), probs


def _cite(edge: EdgeSpec, sentences: int, bench: Bench, case: Case, persona: Persona, body: str,
          template: dict[str, Any], call_info: dict[str, Any]) -> Step:
    """A citation as a scored choice over the numbered context sentences (0: none): the payload and every
    sentence's probability."""
    options = tuple(str(i) for i in range(sentences + 1))
    chosen, probs = yield from _scored_choice(options, citation_task(edge, sentences), bench, case, persona, body,
                                              template, call_info)
    return {"evidence": int(chosen)}, probs


def _name(edge: EdgeSpec, offered: list[Item], bench: Bench, case: Case, persona: Persona, body: str,
          template: dict[str, Any], call_info: dict[str, Any]) -> Step:
    """An exhibit as a scored choice among the candidate items (or none): the payload and every option's
    probability; no call when there is no candidate."""
    if not offered:
        return {"exhibit": NONE}, None
    options = tuple(item.text for item in offered) + (NONE,)
    chosen, probs = yield from _scored_choice(options, exhibit_task(edge, offered), bench, case, persona, body,
                                              template, call_info)
    return {"exhibit": chosen}, probs


def _measure_citation(bench: Bench, case: Case, charge: Charge, measured: Measure | None, found: TrialEvidence,
                      number: int, round: int) -> Step:
    """The court measures the charge's grounding in the cited sentence (once per sentence and trial); the finding."""
    if measured is None or not 1 <= number <= len(sentences := context_sentences(case, bench.spec.sentences)):
        return "no sentence cited"
    if number not in found.cited:
        found.cited[number] = yield from grounding_in_cited(bench, case, charge, measured,
                                                             [(number, sentences[number - 1])])
    found.bring(f"[{number}]", round)
    return (f"the statement grounded in [{number}] at {found.cited[number]:+.2f} nats/token "
            f"(in the whole context {measured.grounding:+.2f})")


def _check_exhibit(sources: Sources, offered: list[Item], named: str, found: TrialEvidence, round: int) -> str:
    """The court checks the named item against the sources; the finding."""
    if named == NONE:
        return "nothing named to check"
    item = next(i for i in offered if i.text == named)
    found.named[named] = held = sources.holds(item)
    found.bring(f"'{named}'", round)
    return f"'{named}' {'in' if held else 'not in'} the context"


def _verdict_request(bench: Bench, case: Case, charge: Charge, persona: Persona, entries: list[Entry],
                     round: int) -> GenerationRequest:
    template = {"charge": charge.model_dump(), "round": round, "max_rounds": bench.trial.max_rounds}
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
    p_h = votes / len(ps) if bench.trial.jury_rule == "majority" else mean_p
    return p_h, f"{votes} of {plural(len(ps), 'juror')} voted hallucinated, mean P(hallucinated) = {mean_p:.2f}"
