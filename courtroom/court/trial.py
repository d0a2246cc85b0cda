"""The trial of one charge through the court's graph (`try_charge`), a lockstep program. A turn is at most
three constrained calls: the move among the legal ones (scored; skipped when only one is legal, unless
`trial.poll_moves`), for a move that ends in a ruling the verdict (scored), and, with `trial.texts:
generated`, one sentence the speaker writes after its pieces (JSON under its schema). Each side's move rests
on its pieces of the charge's reading (`court.grounds`), recorded with the move; with `trial.texts: composed`
the court writes the move's text from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from courtroom.case import Case, Charge, Verdict
from courtroom.clerk.measure import Measure
from courtroom.clerk.reading import Reading
from courtroom.clerk.verdict import plural
from courtroom.court.bench import Bench
from courtroom.court.evidence import weigh_evidence
from courtroom.court.grounds import defence, prosecution
from courtroom.court.moves import VerdictChoice, payload_model
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
from courtroom.court.texts import FIELDS, SIDE_OF_VERDICT, compose, side
from courtroom.court.verdict import ruling
from courtroom.door.outputs import jsonable
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.engine.events import Grounds, MoveEvent, RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript

SIDES = {"prosecutor": "convict", "defender": "acquit"}
"""The verdict each debater argues for; a move to the other verdict (a withdrawal, a concession) gives its
side up."""


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

    @property
    def role(self) -> str:
        return self.persona.role

    @property
    def template(self) -> dict[str, Any]:
        return {"charge": self.charge.model_dump(), "round": self.round,
                "max_rounds": self.bench.trial.max_rounds}

    @property
    def info(self) -> dict[str, Any]:
        """What every call of the turn is recorded with."""
        return dict(role=self.role, persona=self.persona.name, node=self.node, charge=self.charge.index,
                    round=self.round)

    def request(self, task: str, output_type: Any) -> GenerationRequest:
        return GenerationRequest(messages=turn_messages(self.bench, self.case, self.persona, self.body, task,
                                                        self.template),
                                 output_type=output_type, sampling=self.persona.sampling,
                                 cache_group=self.case.id, seat=self.bench.seat(self.role))

    def verdict(self, speaker: Persona, entries: list[Entry], seat: str | None, **info: Any) -> Call:
        """The call for `speaker`'s verdict on the charge after the debate `entries` (scored)."""
        record = debate_record(entries, blind(self.bench, speaker.role))
        messages = turn_messages(self.bench, self.case, speaker, f"{charge_header(self.charge)}\n\n{record}",
                                 verdict_task(self.charge), self.template)
        return Call(GenerationRequest(messages=messages, output_type=VerdictChoice, sampling=speaker.sampling,
                                      cache_group=self.case.id, seat=seat), purpose="verdict", **info)


def try_charge(bench: Bench, case: Case, charge: Charge, transcript: Transcript,
               measured: Measure | None = None, reading: Reading | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence when the court takes
    it); each side's move rests on its pieces of `reading` (the charge read against the context)."""
    procedure, trial = bench.procedure, bench.trial
    pieces = {} if reading is None else {"prosecution": prosecution(reading), "defence": defence(reading)}
    node, round = procedure.start, 1
    entries: list[Entry] = []
    while True:
        persona = bench.persona(procedure.role(node))
        turn = Turn(bench, case, charge, node, round, persona,
                    f"{charge_header(charge)}\n\n{debate_record(entries, blind(bench, persona.role))}")
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
        confidence = 1.0 if chosen.raw is None else chosen.raw[edge.move]
        said = dict(forced=chosen.raw is None, move_probs=chosen.raw, polled_probs=polled)
        if edge.to == "ruling":
            [response] = yield [turn.verdict(persona, entries, bench.seat(persona.role), **turn.info)]
            opinion = _p_hallucinated(response)
            weighed = yield from _weighed(bench, case, charge, entries, measured, reading)
            decided = ruling(charge, bench, "judge", opinion, round, **weighed)
            grounds = pieces.get(SIDE_OF_VERDICT[decided.verdict])
            payload = yield from _payload(turn, edge, grounds, decided.verdict)
            _record(transcript, turn, edge, payload, grounds, said)
            transcript.add(RulingEvent, ruling=decided)
            return decided
        grounds = pieces.get(side(turn.role, edge) or "")
        payload = yield from _payload(turn, edge, grounds)
        _record(transcript, turn, edge, payload, grounds, said)
        entries.append(Entry(round, turn.role, persona.name, edge.move, payload, grounds, edge))
        words = ""
        if edge.to == "acquit":
            opinion, source = 1.0 - confidence, "withdrawn"
        elif edge.to == "convict":
            opinion, source = confidence, "conceded"
        elif edge.to == "jury":
            opinion, words = yield from _jury(turn, entries)
            source = "jury"
        else:
            if edge.new_round:
                round += 1
            node = edge.to
            continue
        weighed = yield from _weighed(bench, case, charge, entries, measured, reading)
        decided = ruling(charge, bench, source, opinion, round, words=words, **weighed)
        transcript.add(RulingEvent, ruling=decided)
        return decided


def _record(transcript: Transcript, turn: Turn, edge: EdgeSpec, payload: dict[str, Any],
            grounds: Grounds | None, said: dict[str, Any]) -> None:
    transcript.add(MoveEvent, charge=turn.charge.index, round=turn.round, node=turn.node, role=turn.role,
                   persona=turn.persona.name, move=edge.move, payload=payload, grounds=grounds, **said)


def _weighed(bench: Bench, case: Case, charge: Charge, entries: list[Entry], measured: Measure | None,
             reading: Reading | None) -> Step:
    """The measured evidence weighed into the ruling (none when the court's own verdict carries all the
    weight)."""
    if bench.trial.judge_weight >= 1.0:
        return {}
    evidence, note, grounded = yield from weigh_evidence(bench, case, charge, entries, measured, reading)
    return {"evidence": evidence, "evidence_note": note, "grounded": grounded}


def _poll(turn: Turn, moves: list[EdgeSpec]) -> Step:
    """A debater's probability of each move of its node where the rules force its move
    (`trial.poll_moves`)."""
    task = move_task(turn.role, turn.round, turn.bench.trial.max_rounds, moves)
    [response] = yield [Call(turn.request(task, Literal[tuple(e.move for e in moves)]),  # type: ignore[misc]
                             purpose="poll", **turn.info)]
    response.unwrap()
    return response.option_probs


def _payload(turn: Turn, edge: EdgeSpec, grounds: Grounds | None, verdict: Verdict | None = None) -> Step:
    """The move's payload: its text composed by the court from its pieces (`trial.texts: composed`), or those
    pieces and one sentence the speaker writes after them, JSON under its schema (`generated`); nothing for
    `none`."""
    model = payload_model(edge.payload)
    if not model.model_fields:
        return {}
    composed = compose(edge, turn.role, grounds, verdict) if isinstance(edge.payload, str) else ""
    if turn.bench.trial.texts == "composed":
        return {FIELDS[edge.payload]: composed} if isinstance(edge.payload, str) else {}
    [response] = yield [Call(turn.request(payload_task(edge, model, composed), model), purpose="payload",
                             **turn.info)]
    written = jsonable(response.unwrap())
    if not isinstance(edge.payload, str):
        return written  # an inline payload: the fields as the speaker wrote them
    return {FIELDS[edge.payload]: composed, "generated": written[FIELDS[edge.payload]]}


def _p_hallucinated(response: GenerationResponse) -> float:
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))


def _jury(turn: Turn, entries: list[Entry]) -> Step:
    """The jury's P(hallucinated) by its rule (the share voting hallucinated, or the mean), and how it
    voted."""
    bench = turn.bench
    responses = yield [turn.verdict(juror, entries, bench.seat("jury", number), role="jury",
                                    persona=juror.name,
                                    node="jury", charge=turn.charge.index, round=turn.round)
                       for number, juror in enumerate(bench.panel("jury"))]
    ps = [_p_hallucinated(response) for response in responses]
    mean_p = sum(ps) / len(ps)
    votes = sum(p >= bench.threshold for p in ps)
    p_h = votes / len(ps) if bench.trial.jury_rule == "majority" else mean_p
    return p_h, (f"{votes} of {plural(len(ps), 'juror')} voted hallucinated, mean P(hallucinated) = "
                 f"{mean_p:.2f}")
