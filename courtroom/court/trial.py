"""The trial of one charge through the court's graph (`try_charge`), up to its ruling.

Written as a lockstep program (see `courtroom.engine.lockstep`): the charges of a case are tried side by side
(`court.program`) and every turn due at the same step, across cases, goes to the backend as one batch. A turn is one
to three constrained calls: choose a move among the legal ones (scored, so each move has a probability; skipped when
only one is legal; decided by the court's rule at a node decided by the evidence), write the move's payload (JSON
under its schema, or a scored choice for a citation or an exhibit, which the court then measures or checks), and,
when the move ends in a ruling, the verdict (scored: its probability is the confidence). With `trial.turns:
statement-first` a debater writes its statement before it chooses its move (reading it), the court checks its quote,
and asks whether the statement argues the side the move takes. With an escalation band, charges measured outside it
are decided by the measurement before any trial (`court.program`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from courtroom.case import Case, Charge
from courtroom.casefile import OPENING_SYSTEM, context_sentences
from courtroom.clerk.measure import Measure, measure_statements
from courtroom.clerk.verdict import plural
from courtroom.court.bench import Bench
from courtroom.court.evidence import TrialEvidence, grounding_in_cited, reopen, weigh_evidence
from courtroom.court.exhibits import NONE, Item, Sources, candidates
from courtroom.court.moves import Statement, VerdictChoice, cited, payload_model, scored_kind
from courtroom.court.personas import Persona
from courtroom.court.procedure import EdgeSpec
from courtroom.court.prompts import (
    Entry,
    blind,
    charge_header,
    citation_task,
    debate_record,
    exhibit_task,
    move_after_statement,
    move_task,
    payload_task,
    stance_task,
    statement_task,
    turn_messages,
    verdict_task,
)
from courtroom.court.verdict import ruling
from courtroom.door.outputs import jsonable
from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.engine.events import MoveEvent, RulingEvent
from courtroom.engine.lockstep import Call, Step, Transcript
from courtroom.text.quotes import quoted_in

SIDES = {"prosecutor": "convict", "defender": "acquit"}
"""The verdict each debater argues for; a move to the other verdict (a withdrawal, a concession) gives its side up."""


class Chosen(NamedTuple):
    """A move and how it was chosen: the model's probabilities, or the court's rule; both None when it was the only
    legal move."""

    edge: EdgeSpec
    raw: dict[str, float] | None = None
    rule: str | None = None


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


def try_charge(bench: Bench, case: Case, charge: Charge, transcript: Transcript, measured: Measure | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence when the court takes it)."""
    procedure, trial = bench.procedure, bench.trial
    sentences = context_sentences(case, bench.spec.sentences)
    node, round = procedure.start, 1
    entries: list[Entry] = []
    found = TrialEvidence()
    while True:
        persona = bench.persona(procedure.role(node))
        hidden = blind(bench, persona.role)
        turn = Turn(bench, case, charge, node, round, persona,
                    f"{charge_header(charge)}\n\n{debate_record(entries, sentences, hidden)}", sentences)
        legal = procedure.legal_moves(node, round, trial.max_rounds, trial.exchange_rounds)
        said = (yield from _state(turn)) if _states(turn, legal) else None
        polled = None
        if len(legal) == 1:
            chosen = Chosen(legal[0])
            if trial.poll_moves and turn.role in SIDES and len(every := procedure.moves(node)) > 1:
                polled = yield from _poll(turn, every)
        elif procedure.spec.nodes[node].choice == "evidence":
            if measured is None:
                [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
            again, why = reopen(bench, measured, found, round)
            chosen = Chosen(next(e for e in legal if e.new_round == again), rule=why)
        else:
            task = move_task(turn.role, round, trial.max_rounds, legal) if said is None else \
                move_after_statement(turn.role, round, trial.max_rounds, legal, said[0]["argument"])
            [response] = yield [Call(turn.request(task, Literal[tuple(e.move for e in legal)]),  # type: ignore[misc]
                                     purpose="move", **turn.info)]
            move = response.unwrap()
            chosen = Chosen(next(e for e in legal if e.move == move), response.option_probs)
        edge = chosen.edge
        if said is not None:
            (payload, finding), choice_probs = said, None
            stance = yield from _stance(turn, payload["argument"])
        else:
            payload, choice_probs, finding, measured = yield from _payload(turn, edge, measured, found)
            stance = None
        evidence = payload.get("evidence")
        located = None if not isinstance(evidence, int) or evidence == 0 else 1 <= evidence <= len(sentences)
        transcript.add(MoveEvent, charge=charge.index, round=round, node=node, role=turn.role, persona=persona.name,
                       move=edge.move, payload=payload, forced=chosen.raw is None and chosen.rule is None,
                       move_probs=chosen.raw, polled_probs=polled, rule=chosen.rule, choice_probs=choice_probs,
                       finding=finding or None,
                       evidence_found=located, quote_verified=_verified(payload, sentences) if said else None,
                       stance=stance, agrees=_agrees(turn.role, edge, stance))
        entries.append(Entry(round, turn.role, persona.name, edge.move, payload, finding or chosen.rule or ""))
        confidence = 1.0 if chosen.raw is None else chosen.raw[edge.move]
        words = ""
        if edge.to == "acquit":
            opinion, source = 1.0 - confidence, "withdrawn"
        elif edge.to == "convict":
            opinion, source = confidence, "conceded"
        elif edge.to == "ruling":
            opinion = yield from _rule(bench, case, charge, persona, entries, round, turn.info)
            source = "judge"
            said_why = payload.get("reason", payload.get("argument"))  # a statement-first judge's words are its argument
            words = f'"{said_why}"' if isinstance(said_why, str) and said_why else ""
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
        if trial.judge_weight < 1.0:
            evidence, note, grounded = yield from weigh_evidence(bench, case, charge, entries, measured, found)
            weighed = {"evidence": evidence, "evidence_note": note, "grounded": grounded}
        decided = ruling(charge, bench, source, opinion, round, words=words, **weighed)
        transcript.add(RulingEvent, ruling=decided)
        return decided


def _agrees(role: str, edge: EdgeSpec, stance: float | None) -> bool | None:
    """Whether a debater's move takes the side its statement argues: the statement says the context supports the
    charge (stance 0.5 or more) exactly when the move does (a prosecutor's withdrawal, anything of a defender's but a
    concession)."""
    if stance is None or role not in SIDES:
        return None
    gives_up = edge.to != SIDES[role] and edge.to in ("acquit", "convict")
    move_says_supported = gives_up if role == "prosecutor" else not gives_up
    return (stance >= 0.5) == move_says_supported


def _poll(turn: Turn, moves: list[EdgeSpec]) -> Step:
    """A debater's opinion where the rules force its move (`trial.poll_moves`): its probability of each of the node's
    moves, legal or not; the court takes the forced move all the same."""
    task = move_task(turn.role, turn.round, turn.bench.trial.max_rounds, moves)
    [response] = yield [Call(turn.request(task, Literal[tuple(e.move for e in moves)]),  # type: ignore[misc]
                             purpose="poll", **turn.info)]
    response.unwrap()
    return response.option_probs


def _states(turn: Turn, legal: list[EdgeSpec]) -> bool:
    """Whether the speaker makes a statement before it moves: in a court of statement-first turns, at a node the model
    decides, where a move would carry text (not a scored citation or exhibit), to a reader who sees the context."""
    if turn.bench.trial.turns != "statement-first" or blind(turn.bench, turn.role):
        return False
    if turn.bench.procedure.spec.nodes[turn.node].choice != "model":
        return False
    models = [payload_model(e.payload) for e in legal]
    return all(not scored_kind(m) for m in models) and any(m.model_fields for m in models)


def _state(turn: Turn) -> Step:
    """The speaker's statement, and the court's check of its quote (the finding the debate record shows)."""
    model = cited(Statement, len(turn.sentences))
    task = statement_task(turn.role, turn.round, turn.bench.trial.max_rounds, model)
    [response] = yield [Call(turn.request(task, model), purpose="statement", **turn.info)]
    payload = jsonable(response.unwrap())
    number, quote = payload["evidence"], payload["quote"].strip()
    if not quote or not 1 <= number <= len(turn.sentences):
        finding = "no quote to check" if not quote else "the quote cites no sentence"
    else:
        finding = f"the quote {'is' if _verified(payload, turn.sentences) else 'is not'} in [{number}]"
    return payload, finding


def _verified(payload: dict[str, Any], sentences: tuple[str, ...]) -> bool:
    """Whether a statement's quote is found in the context sentence it cites."""
    number, quote = payload.get("evidence"), str(payload.get("quote", "")).strip()
    return bool(quote) and isinstance(number, int) and 1 <= number <= len(sentences) \
        and quoted_in(quote, sentences[number - 1])


def _stance(turn: Turn, argument: str) -> Step:
    """The model's P(yes) that a statement says the context supports the charged statement (asked of the statement
    and the charge alone: no context, no debate)."""
    if turn.role not in SIDES:
        return None
    messages = (ChatMessage(role="system", content=OPENING_SYSTEM),
                ChatMessage(role="user", content=stance_task(turn.charge, argument)))
    request = GenerationRequest(messages=messages, output_type=Literal["yes", "no"], cache_group=turn.case.id)
    [response] = yield [Call(request, purpose="stance", **turn.info)]
    response.unwrap()
    return float((response.option_probs or {}).get("yes", 0.5))


def _payload(turn: Turn, edge: EdgeSpec, measured: Measure | None, found: TrialEvidence) -> Step:
    """The move's payload, written after the move: JSON under its schema, or a scored citation or exhibit the court
    measures or checks; with every option's probability (scored payloads), the court's finding, and the charge's
    measure (measured when a citation needs it)."""
    bench, case, charge = turn.bench, turn.case, turn.charge
    model = cited(payload_model(edge.payload), len(turn.sentences))
    if scored_kind(model) == "citation":
        payload, probs = yield from _cite(turn, edge)
        if measured is None and 1 <= payload["evidence"] <= len(turn.sentences):
            [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
        finding = yield from _measure_citation(bench, case, charge, measured, found, payload["evidence"], turn.round)
        return payload, probs, finding, measured
    if scored_kind(model) == "exhibit":
        sources = Sources([*case.context, case.question])
        offered = candidates(charge.quote, sources, measured.weakest if measured is not None else ())
        payload, probs = yield from _name(turn, edge, offered)
        return payload, probs, _check_exhibit(sources, offered, payload["exhibit"], found, turn.round), measured
    if not model.model_fields:
        return {}, None, "", measured
    [response] = yield [Call(turn.request(payload_task(edge, model), model), purpose="payload", **turn.info)]
    return jsonable(response.unwrap()), None, "", measured


def _scored_choice(turn: Turn, options: tuple[str, ...], task: str) -> Step:
    """One scored choice among `options` as a payload call: the most probable option and every option's probability."""
    [response] = yield [Call(turn.request(task, Literal[options]), purpose="payload", **turn.info)]  # type: ignore[valid-type]
    chosen = response.unwrap()
    probs = response.option_probs
    return (max(probs, key=probs.__getitem__) if probs else chosen), probs


def _cite(turn: Turn, edge: EdgeSpec) -> Step:
    """A citation as a scored choice over the numbered context sentences (0: none): the payload and every
    sentence's probability."""
    options = tuple(str(i) for i in range(len(turn.sentences) + 1))
    chosen, probs = yield from _scored_choice(turn, options, citation_task(edge, len(turn.sentences)))
    return {"evidence": int(chosen)}, probs


def _name(turn: Turn, edge: EdgeSpec, offered: list[Item]) -> Step:
    """An exhibit as a scored choice among the candidate items (or none): the payload and every option's
    probability; no call when there is no candidate."""
    if not offered:
        return {"exhibit": NONE}, None
    options = tuple(item.text for item in offered) + (NONE,)
    chosen, probs = yield from _scored_choice(turn, options, exhibit_task(edge, offered))
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
                     round: int, seat: str | None) -> GenerationRequest:
    template = {"charge": charge.model_dump(), "round": round, "max_rounds": bench.trial.max_rounds}
    record = debate_record(entries, context_sentences(case, bench.spec.sentences), blind(bench, persona.role))
    return GenerationRequest(messages=turn_messages(bench, case, persona, f"{charge_header(charge)}\n\n{record}",
                                                    verdict_task(charge), template),
                             output_type=VerdictChoice, sampling=persona.sampling, cache_group=case.id, seat=seat)


def _rule(bench: Bench, case: Case, charge: Charge, persona: Persona, entries: list[Entry], round: int,
          call_info: dict[str, Any]) -> Step:
    """The judge's verdict: its probability of `hallucinated`."""
    request = _verdict_request(bench, case, charge, persona, entries, round, bench.seat(persona.role))
    [response] = yield [Call(request, purpose="verdict", **call_info)]
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))


def _jury(bench: Bench, case: Case, charge: Charge, entries: list[Entry], round: int) -> Step:
    jurors = bench.panel("jury")
    calls = [Call(_verdict_request(bench, case, charge, juror, entries, round, bench.seat("jury", number)),
                  purpose="verdict", role="jury", persona=juror.name, node="jury", charge=charge.index, round=round)
             for number, juror in enumerate(jurors)]
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
