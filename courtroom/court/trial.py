"""The trial of one charge through the court's graph (`try_charge`), a lockstep program. A turn is one to three
constrained calls: the move among the legal ones (scored; skipped when only one is legal, unless `trial.poll_moves`),
its payload (JSON under its schema), and, for a move that ends in a ruling, the verdict (scored)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk.measure import Measure
from courtroom.clerk.verdict import plural
from courtroom.court.bench import Bench
from courtroom.court.evidence import weigh_evidence
from courtroom.court.moves import VerdictChoice, cited, payload_model
from courtroom.court.personas import Persona
from courtroom.court.procedure import EdgeSpec
from courtroom.court.prompts import (
    Entry,
    blind,
    charge_header,
    debate_record,
    move_task,
    payload_task,
    turn_messages,
    verdict_task,
)
from courtroom.court.verdict import ruling
from courtroom.door.outputs import jsonable
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.engine.events import MoveEvent, RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript

SIDES = {"prosecutor": "convict", "defender": "acquit"}
"""The verdict each debater argues for; a move to the other verdict (a withdrawal, a concession) gives its side up."""


class Chosen(NamedTuple):
    """A move and the model's probability of each legal move (None when it was the only legal move)."""

    edge: EdgeSpec
    raw: dict[str, float] | None = None


@dataclass(frozen=True)
class Turn:
    """One turn of a trial: who speaks, where, and what the prompt of the turn opens with."""

    bench: Bench
    case: Case
    charge: Charge
    node: str
    round: int
    persona: Persona
    body: str
    """The charge and the debate so far, as the speaker reads them."""
    sentences: tuple[str, ...]

    @property
    def role(self) -> str:
        return self.persona.role

    @property
    def template(self) -> dict[str, Any]:
        return {"charge": self.charge.model_dump(), "round": self.round, "max_rounds": self.bench.trial.max_rounds}

    @property
    def info(self) -> dict[str, Any]:
        """What every call of the turn is recorded with."""
        return dict(role=self.role, persona=self.persona.name, node=self.node, charge=self.charge.index,
                    round=self.round)

    def request(self, task: str, output_type: Any) -> GenerationRequest:
        return GenerationRequest(messages=turn_messages(self.bench, self.case, self.persona, self.body, task,
                                                        self.template),
                                 output_type=output_type, sampling=self.persona.sampling, cache_group=self.case.id,
                                 seat=self.bench.seat(self.role))

    def verdict(self, speaker: Persona, entries: list[Entry], seat: str | None, **info: Any) -> Call:
        """The call for `speaker`'s verdict on the charge after the debate `entries` (scored)."""
        record = debate_record(entries, self.sentences, blind(self.bench, speaker.role))
        messages = turn_messages(self.bench, self.case, speaker, f"{charge_header(self.charge)}\n\n{record}",
                                 verdict_task(self.charge), self.template)
        return Call(GenerationRequest(messages=messages, output_type=VerdictChoice, sampling=speaker.sampling,
                                      cache_group=self.case.id, seat=seat), purpose="verdict", **info)


def try_charge(bench: Bench, case: Case, charge: Charge, transcript: Transcript, measured: Measure | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence when the court takes it)."""
    procedure, trial = bench.procedure, bench.trial
    sentences = context_sentences(case, bench.spec.sentences)
    node, round = procedure.start, 1
    entries: list[Entry] = []
    while True:
        persona = bench.persona(procedure.role(node))
        turn = Turn(bench, case, charge, node, round, persona,
                    f"{charge_header(charge)}\n\n{debate_record(entries, sentences, blind(bench, persona.role))}",
                    sentences)
        legal = procedure.legal_moves(node, round, trial.max_rounds, trial.exchange_rounds)
        polled = None
        if len(legal) == 1:
            chosen = Chosen(legal[0])
            if trial.poll_moves and turn.role in SIDES and len(every := procedure.moves(node)) > 1:
                polled = yield from _poll(turn, every)
        else:
            task = move_task(turn.role, round, trial.max_rounds, legal)
            [response] = yield [Call(turn.request(task, Literal[tuple(e.move for e in legal)]),  # type: ignore[misc]
                                     purpose="move", **turn.info)]
            move = response.unwrap()
            chosen = Chosen(next(e for e in legal if e.move == move), response.option_probs)
        edge = chosen.edge
        payload = yield from _payload(turn, edge)
        evidence = payload.get("evidence")
        located = None if not isinstance(evidence, int) or evidence == 0 else 1 <= evidence <= len(sentences)
        transcript.add(MoveEvent, charge=charge.index, round=round, node=node, role=turn.role, persona=persona.name,
                       move=edge.move, payload=payload, forced=chosen.raw is None, move_probs=chosen.raw,
                       polled_probs=polled, evidence_found=located)
        entries.append(Entry(round, turn.role, persona.name, edge.move, payload))
        confidence = 1.0 if chosen.raw is None else chosen.raw[edge.move]
        words = ""
        if edge.to == "acquit":
            opinion, source = 1.0 - confidence, "withdrawn"
        elif edge.to == "convict":
            opinion, source = confidence, "conceded"
        elif edge.to == "ruling":
            [response] = yield [turn.verdict(persona, entries, bench.seat(persona.role), **turn.info)]
            opinion, source = _p_hallucinated(response), "judge"
            said_why = payload.get("reason", payload.get("argument"))
            words = f'"{said_why}"' if isinstance(said_why, str) and said_why else ""
        elif edge.to == "jury":
            opinion, votes = yield from _jury(turn, entries)
            source = "jury"
            words = votes
        else:
            if edge.new_round:
                round += 1
            node = edge.to
            continue
        weighed = {}
        if trial.judge_weight < 1.0:
            evidence, note, grounded = yield from weigh_evidence(bench, case, charge, entries, measured)
            weighed = {"evidence": evidence, "evidence_note": note, "grounded": grounded}
        decided = ruling(charge, bench, source, opinion, round, words=words, **weighed)
        transcript.add(RulingEvent, ruling=decided)
        return decided


def _poll(turn: Turn, moves: list[EdgeSpec]) -> Step:
    """A debater's probability of each move of its node where the rules force its move (`trial.poll_moves`)."""
    task = move_task(turn.role, turn.round, turn.bench.trial.max_rounds, moves)
    [response] = yield [Call(turn.request(task, Literal[tuple(e.move for e in moves)]),  # type: ignore[misc]
                             purpose="poll", **turn.info)]
    response.unwrap()
    return response.option_probs


def _payload(turn: Turn, edge: EdgeSpec) -> Step:
    """The move's payload, written after the move: JSON under its schema (no call for a move that carries nothing)."""
    model = cited(payload_model(edge.payload), len(turn.sentences))
    if not model.model_fields:
        return {}
    [response] = yield [Call(turn.request(payload_task(edge, model), model), purpose="payload", **turn.info)]
    return jsonable(response.unwrap())


def _p_hallucinated(response: GenerationResponse) -> float:
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))


def _jury(turn: Turn, entries: list[Entry]) -> Step:
    """The jury's P(hallucinated) by its rule (the share voting hallucinated, or the mean), and how it voted."""
    bench = turn.bench
    responses = yield [turn.verdict(juror, entries, bench.seat("jury", number), role="jury", persona=juror.name,
                                    node="jury", charge=turn.charge.index, round=turn.round)
                       for number, juror in enumerate(bench.panel("jury"))]
    ps = [_p_hallucinated(response) for response in responses]
    mean_p = sum(ps) / len(ps)
    votes = sum(p >= bench.threshold for p in ps)
    p_h = votes / len(ps) if bench.trial.jury_rule == "majority" else mean_p
    return p_h, f"{votes} of {plural(len(ps), 'juror')} voted hallucinated, mean P(hallucinated) = {mean_p:.2f}"
