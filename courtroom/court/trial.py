"""The procedure of one case: indictment, a trial per charge through the court's graph, the verdict.

Written as lockstep programs (see `lockstep.py`): the charges of a case are tried side by side and
every turn due at the same step, across cases, goes to the backend as one batch. A turn is one to
three constrained calls: choose a move among the legal ones (scored, so each move has a
probability; skipped when only one is legal), write the move's payload (JSON under its schema),
and, when the move ends in a ruling, the verdict (scored: its probability is the confidence).

Every prompt of a case opens with the court rules and the case file, then the charge and the
debate so far, then the persona's instructions and the task: the shared part comes first, so the
backend computes it once per case.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from courtroom.baselines.plain import p_hallucinated, rails_request
from courtroom.case import Case, CaseVerdict, Charge, DroppedCharge, Ruling, Verdict
from courtroom.casefile import (
    OPENING_SYSTEM,
    context_sentences,
    normalize,
    quoted_in,
    render_answer,
    render_opening,
    split_sentences,
)
from courtroom.court import grounding as measure
from courtroom.court.lexical import Vocabulary
from courtroom.court.moves import ChargeDraft, VerdictChoice, cited, describe_fields, indictment_model, payload_model
from courtroom.court.personas import Persona
from courtroom.court.procedure import EdgeSpec
from courtroom.door.requests import ChatMessage, GenerationRequest, GenerationResponse
from courtroom.engine.events import ChargesEvent, MoveEvent, RulingEvent, jsonable
from courtroom.engine.lockstep import Call, Transcript, gather

if TYPE_CHECKING:
    from courtroom.court import Court

Step = Generator[list[Call], list[GenerationResponse], Any]


@dataclass(frozen=True)
class Entry:
    """One move in the debate record of a charge."""

    round: int
    role: str
    persona: str
    move: str
    payload: dict[str, Any]


# -- prompts --------------------------------------------------------------------------------------
WHOLE_ANSWER = "no specific charge was brought; the whole answer is tried"
"""The reason of the one charge of a court that tries the whole answer when nothing was charged."""

NO_CHARGE: dict[str, Any] = {"index": 0, "quote": "", "reason": "", "grounding": None, "p_suspect": None}
"""The `charge` a persona's template sees before any charge is brought (at the indictment)."""

def case_messages(court: Court, case: Case, tail: str) -> tuple[ChatMessage, ChatMessage]:
    """A prompt of the case: the shared opening (numbered context, question), the court rules and the
    fenced answer (identical for every call of the case), then `tail` (charge, debate, instructions, task)."""
    user = f"{render_opening(case)}\n\n{court.spec.rules.strip()}\n\n{render_answer(case)}\n\n{tail}"
    return (ChatMessage(role="system", content=OPENING_SYSTEM), ChatMessage(role="user", content=user))


def charge_header(charge: Charge) -> str:
    return (f"CHARGE {charge.index + 1}: the answer states \"{charge.quote}\"\n"
            f"The clerk's reason for suspicion: {charge.reason}")


def render_payload(payload: dict[str, Any], sentences: tuple[str, ...]) -> str:
    """A payload as the debate record shows it; a cited sentence is quoted in full."""
    parts = []
    for key, value in payload.items():
        if key == "evidence" and isinstance(value, int):
            parts.append(f'citing [{value}] "{sentences[value - 1]}"' if 1 <= value <= len(sentences)
                         else "citing no sentence")
        else:
            parts.append(str(value))
    return " ".join(parts)


def debate_record(entries: list[Entry], sentences: tuple[str, ...]) -> str:
    if not entries:
        return "DEBATE RECORD: nothing has been said yet."
    lines = ["DEBATE RECORD:"]
    for e in entries:
        lines.append(f"- Round {e.round}, {e.role} ({e.move}): {render_payload(e.payload, sentences)}")
    return "\n".join(lines)


def turn_messages(court: Court, case: Case, persona: Persona, body: str, task: str,
                  template: dict[str, Any]) -> tuple[ChatMessage, ...]:
    instructions = persona.render(case={"question": case.question, "answer": case.answer, "context": case.context},
                                  **template)
    return case_messages(court, case, f"{body}\n\n{instructions}\n\n{task}")


def move_task(role: str, round: int, max_rounds: int, moves: list[EdgeSpec]) -> str:
    options = "\n".join(f"- {m.move}: {m.description}" for m in moves)
    return (f"It is your turn as {role}, round {round} of at most {max_rounds}. Your legal moves:\n{options}\n"
            "Answer with the name of one move.")


def payload_task(edge: EdgeSpec, model: Any) -> str:
    return (f"Your move: {edge.move} ({edge.description}). Write it as a JSON object with these fields, "
            f"in this order:\n{describe_fields(model)}")


def verdict_task(charge: Charge) -> str:
    return (f"Give your verdict on charge {charge.index + 1}. Answer \"hallucinated\" if the context does not "
            "support the charged statement, or \"supported\" if the context supports it.")


def indictment_task(max_charges: int) -> str:
    return (f"List at most {max_charges} statements of the answer that the context may not support. Copy each "
            "statement exactly as it is written in the answer, and give the reason it is suspect. If the context "
            "supports every statement, return an empty list.\n"
            'Write JSON: {"charges": [{"quote": "...", "reason": "..."}]}')


# -- indictment -----------------------------------------------------------------------------------
def indict(court: Court, case: Case, transcript: Transcript) -> Step:
    """Draw up the charges, by the court's indictment mode; returns (charges, dropped, suspicion)."""
    measures: dict[int, Measure] = {}
    if court.spec.indictment.mode == "grounding":
        charges, dropped, suspicion, measures = yield from _indict_by_grounding(court, case)
    elif court.spec.indictment.mode == "score":
        charges, dropped, suspicion = yield from _indict_by_score(court, case)
    else:
        charges, dropped = yield from _indict_by_generation(court, case)
        suspicion = 0.0
    if not charges and court.spec.on_no_charges == "try_whole_answer":
        charges.append(Charge(index=0, quote=case.answer.strip(), reason=WHOLE_ANSWER))
    transcript.add(ChargesEvent, charges=charges, dropped=dropped)
    return charges, dropped, suspicion, measures


@dataclass(frozen=True)
class Measure:
    """A statement's measured grounding in the whole context, and what re-measuring it against other
    evidence needs: its likelihood without context (total and tokens; per token when measured by token),
    and, when it was read off the whole answer, where it lies in the answer."""

    grounding: float
    bare: tuple[float, int]
    bare_tokens: tuple[float, ...] | None = None
    span: tuple[int, int] | None = None
    weakest: tuple[str, ...] = ()
    """The words the context accounts for least, when measured token by token in the answer."""
    unsupported: float = 0.0
    """The share of the statement's content words that the sources never use (with lexical evidence)."""
    exhibits: tuple[str, ...] = ()
    """Those words, in the statement's order (with lexical evidence)."""


def suspicion(court: Court, grounding: float, measured: Measure) -> float:
    """P(suspect) of a statement measured at `grounding`, with the court's lexical evidence when it takes it."""
    g = court.spec.grounding
    lexical = 0.0 if g.lexical is None or g.lexical.scale is None else \
        (measured.unsupported - g.lexical.center) / g.lexical.scale
    return measure.p_suspect(grounding, g.center, g.scale, lexical)


def with_lexical_evidence(court: Court, case: Case, statements: Sequence[str], measured: list[Measure]) -> list[Measure]:
    """The measures with the share of each statement's words that the context and question never use."""
    if court.spec.grounding.lexical is None:
        return measured
    vocabulary = Vocabulary([*case.context, case.question])
    out = []
    for statement, m in zip(statements, measured):
        evidence = vocabulary.evidence(statement)
        out.append(replace(m, unsupported=evidence.unsupported, exhibits=evidence.words))
    return out


def measure_statements(court: Court, case: Case, statements: Sequence[str]) -> Step:
    """Measure each statement's grounding in the whole context, by the court's scoring mode (see
    `courtroom.court.grounding`); returns one `Measure` per statement."""
    g = court.spec.grounding
    answer = case.answer.strip()
    spans: list[tuple[int, int] | None] = [None] * len(statements)
    if g.scoring == "answer":
        for i, statement in enumerate(statements):
            start = answer.find(statement)
            spans[i] = (start, start + len(statement)) if start >= 0 else None
    measured: list[Measure | None] = [None] * len(statements)
    alone = [i for i, span in enumerate(spans) if span is None]
    calls = [Call(measure.scoring_request(case, answer, c), purpose="ground", role=court.spec.clerk)
             for c in ("full", "none")] if len(alone) < len(statements) else []
    calls += _measure_calls(court, case, [statements[i] for i in alone])
    responses = yield calls
    if len(alone) < len(statements):
        full, bare = measure.TokenScores.of(responses[0]), measure.TokenScores.of(responses[1])
        for i, span in enumerate(spans):
            if span is not None:
                b, f = bare.within(*span), full.within(*span)
                weakest = measure.weakest_words(answer, full.spans_within(*span), [x - y for x, y in zip(f, b)])
                measured[i] = Measure(measure.token_grounding(f, b, g.clip), (math.fsum(b), len(b)), b, span, weakest)
        responses = responses[2:]
    for i, m in zip(alone, _measures([statements[i] for i in alone], responses, g.clip)):
        measured[i] = m
    return with_lexical_evidence(court, case, statements, measured)


def _measure_calls(court: Court, case: Case, statements: Sequence[str]) -> list[Call]:
    role = court.spec.clerk
    with_context = [measure.scoring_request(case, s, "full") for s in statements]
    without = [measure.scoring_request(case, s, "none") for s in statements]
    return [Call(r, purpose="ground", role=role) for r in with_context + without]


def _measures(statements: Sequence[str], responses: list[GenerationResponse], clip: float | None) -> list[Measure]:
    """Measures of statements scored alone: with `clip`, token by token; without, from total likelihoods
    (the original measure, which transcripts without per-token scores can replay)."""
    n = len(statements)
    out = []
    for s, full, bare in zip(statements, responses[:n], responses[n:]):
        lp_bare = measure.logprob(bare, s)
        if clip is None:
            out.append(Measure(measure.grounding(measure.logprob(full, s), lp_bare), lp_bare))
        else:
            b = measure.TokenScores.of(bare).logprobs
            out.append(Measure(measure.token_grounding(measure.TokenScores.of(full).logprobs, b, clip), lp_bare, b))
    return out


def _grounding_in_cited(court: Court, case: Case, charge: Charge, measured: Measure,
                        cited: Sequence[tuple[int, str]]) -> Step:
    """The charge's grounding when only the cited context sentences are shown (measured the way the
    charge itself was: read off the whole answer, or the statement alone)."""
    clip = court.spec.grounding.clip
    text = case.answer.strip() if measured.span is not None else charge.quote
    request = measure.scoring_request(case, text, "cited", cited)
    [response] = yield [Call(request, purpose="weigh", role="court", charge=charge.index)]
    if measured.span is not None:
        tokens = measure.TokenScores.of(response).within(*measured.span)
    elif measured.bare_tokens is not None:
        tokens = measure.TokenScores.of(response).logprobs
    else:
        return measure.grounding(measure.logprob(response, text), measured.bare)
    return measure.token_grounding(tokens, measured.bare_tokens or (), clip)


def _indict_by_grounding(court: Court, case: Case) -> Step:
    """The court measures how well the context accounts for each answer sentence; the least grounded
    (P(suspect) at or above the threshold) are charged."""
    spec, g = court.spec.indictment, court.spec.grounding
    sentences = split_sentences(case.answer) or (case.answer.strip(),)
    measured = yield from measure_statements(court, case, sentences)
    ps = [suspicion(court, m.grounding, m) for m in measured]
    ranked = sorted(range(len(sentences)), key=lambda i: -ps[i])
    charged = sorted(i for i in ranked if ps[i] >= spec.threshold)
    charged = sorted(sorted(charged, key=lambda i: -ps[i])[: court.spec.max_charges])
    charges, measures, dropped = [], {}, []
    for i in range(len(sentences)):
        note = f"grounding {measured[i].grounding:+.2f} nats/token, P(suspect) = {ps[i]:.2f}"
        if measured[i].weakest:
            note += "; least accounted for: " + ", ".join(f"'{w}'" for w in measured[i].weakest)
        if g.lexical is not None:
            note += (f"; words the context never uses: {', '.join(repr(w) for w in measured[i].exhibits)}"
                     if measured[i].exhibits else "; the context uses all of its words")
        if i in charged:
            measures[len(charges)] = measured[i]
            charges.append(Charge(index=len(charges), quote=sentences[i], grounding=measured[i].grounding,
                                  p_suspect=ps[i], reason=f"the context accounts poorly for it ({note})"))
        else:
            why = (f"P(suspect) = {ps[i]:.2f} is below the threshold {spec.threshold}" if ps[i] < spec.threshold
                   else f"over the limit of {court.spec.max_charges} charges")
            dropped.append(DroppedCharge(quote=sentences[i], reason=note, why_dropped=why,
                                         grounding=measured[i].grounding, p_suspect=ps[i]))
    return charges, dropped, max(ps), measures


def clerk_sentence_task(index: int, total: int, sentence: str) -> str:
    return (f"ANSWER SENTENCE {index} of {total}: \"{sentence}\"\n"
            "Is this sentence suspect: not stated by the context, or in conflict with it? Answer yes or no.")


def _indict_by_score(court: Court, case: Case) -> Step:
    """The clerk rates every answer sentence (scored yes/no); the most suspect are charged."""
    clerk = court.persona(court.spec.clerk)
    spec = court.spec.indictment
    sentences = split_sentences(case.answer) or (case.answer.strip(),)
    template = {"charge": NO_CHARGE, "round": 0, "max_rounds": court.spec.max_rounds}
    instructions = clerk.render(case={"question": case.question, "answer": case.answer, "context": case.context},
                                **template)
    calls = []
    for i, sentence in enumerate(sentences, start=1):
        user = f"INDICTMENT\n{instructions}\n\n{clerk_sentence_task(i, len(sentences), sentence)}"
        request = GenerationRequest(messages=case_messages(court, case, user),
                                    output_type=Literal["yes", "no"], sampling=clerk.sampling, cache_group=case.id)
        calls.append(Call(request, purpose="indict", role=court.spec.clerk, persona=clerk.name))
    responses = yield calls
    suspicion = []
    for sentence, response in zip(sentences, responses):
        response.unwrap()
        suspicion.append((float((response.option_probs or {}).get("yes", 0.0)), sentence))
    ranked = sorted(range(len(sentences)), key=lambda i: -suspicion[i][0])
    charged = [i for i in ranked if suspicion[i][0] >= spec.threshold][: court.spec.max_charges]
    charges = [Charge(index=n, quote=suspicion[i][1], p_suspect=suspicion[i][0],
                      reason=f"the clerk finds it suspect (P = {suspicion[i][0]:.2f})")
               for n, i in enumerate(sorted(charged))]
    dropped = []
    for i in range(len(sentences)):
        if i in charged:
            continue
        p = suspicion[i][0]
        why = (f"P(suspect) = {p:.2f} is below the threshold {spec.threshold}" if p < spec.threshold
               else f"over the limit of {court.spec.max_charges} charges")
        dropped.append(DroppedCharge(quote=suspicion[i][1], reason=f"P(suspect) = {p:.2f}", why_dropped=why,
                                     p_suspect=p))
    return charges, dropped, max(p for p, _ in suspicion)


def _indict_by_generation(court: Court, case: Case) -> Step:
    """The clerk drafts charges; quotes not found in the answer, duplicates and extras are dropped."""
    clerk = court.persona(court.spec.clerk)
    k = court.spec.max_charges
    template = {"charge": NO_CHARGE, "round": 0, "max_rounds": court.spec.max_rounds}
    request = GenerationRequest(
        messages=turn_messages(court, case, clerk, "INDICTMENT", indictment_task(k), template),
        output_type=indictment_model(k), sampling=clerk.sampling, cache_group=case.id)
    [response] = yield [Call(request, purpose="indict", role=court.spec.clerk, persona=clerk.name)]
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
    return charges, dropped


# -- one charge -----------------------------------------------------------------------------------
def try_charge(court: Court, case: Case, charge: Charge, transcript: Transcript,
               measured: Measure | None = None, first_reading: float | None = None) -> Step:
    """Walk the procedure graph for one charge until a verdict (weighing the evidence, and the judge's
    first reading of the answer when the court takes one)."""
    procedure = court.procedure
    max_rounds = court.spec.max_rounds
    sentences = context_sentences(case)
    node, round = procedure.start, 1
    entries: list[Entry] = []
    while True:
        role = procedure.role(node)
        persona = court.persona(role)
        template = {"charge": charge.model_dump(), "round": round, "max_rounds": max_rounds}
        body = f"{charge_header(charge)}\n\n{debate_record(entries, sentences)}"
        legal = procedure.legal_moves(node, round, max_rounds)
        call_info = dict(role=role, persona=persona.name, node=node, charge=charge.index, round=round)
        move_probs: dict[str, float] | None = None
        if len(legal) == 1:
            edge = legal[0]
        else:
            request = GenerationRequest(
                messages=turn_messages(court, case, persona, body, move_task(role, round, max_rounds, legal), template),
                output_type=Literal[tuple(e.move for e in legal)],  # type: ignore[misc]
                sampling=persona.sampling, cache_group=case.id)
            [response] = yield [Call(request, purpose="move", **call_info)]
            chosen = response.unwrap()
            move_probs = response.option_probs
            edge = next(e for e in legal if e.move == chosen)
        model = cited(payload_model(edge.payload), len(sentences))
        request = GenerationRequest(
            messages=turn_messages(court, case, persona, body, payload_task(edge, model), template),
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
        if edge.to == "acquit":
            opinion, source = 1.0 - confidence, "withdrawn"
        elif edge.to == "convict":
            opinion, source = confidence, "conceded"
        elif edge.to == "ruling":
            opinion = yield from _rule(court, case, charge, persona, entries, round, call_info)
            source = "judge"
        elif edge.to == "jury":
            opinion, votes = yield from _jury(court, case, charge, entries, round)
            source = "jury"
            payload = {"reason": votes + " " + " ".join(f"{k}: {v}" for k, v in payload.items())}
        else:
            if edge.new_round:
                round += 1
            node = edge.to
            continue
        p_h, note, grounded = opinion, "", None
        weight = court.spec.ruling.judge_weight
        if weight < 1.0:
            evidence, note, grounded = yield from _weigh_evidence(court, case, charge, entries, measured)
            p_h = weight * opinion + (1.0 - weight) * evidence
        if first_reading is not None:
            reading = court.spec.ruling.first_reading_weight
            p_h = (1.0 - reading) * p_h + reading * first_reading
            note = "; ".join(filter(None, [note, f"first reading P(hallucinated) = {first_reading:.2f}"]))
        ruling = _ruling(charge, p_h, payload, source, round, court, note).model_copy(
            update={"opinion": opinion, "evidence": grounded, "first_reading": first_reading})
        transcript.add(RulingEvent, ruling=ruling)
        return ruling


def _ruling(charge: Charge, p_hallucinated: float, payload: dict[str, Any], source: Any, rounds: int,
            court: Court, note: str = "") -> Ruling:
    verdict = Verdict.HALLUCINATED if p_hallucinated >= court.threshold else Verdict.SUPPORTED
    reason = str(payload.get("reason") or " ".join(str(v) for v in payload.values()) or source)
    reason = f"{reason} [{note}]" if note else reason
    confidence = p_hallucinated if verdict is Verdict.HALLUCINATED else 1.0 - p_hallucinated
    return Ruling(charge=charge.index, verdict=verdict, reason=reason, confidence=confidence,
                  p_hallucinated=p_hallucinated, source=source, rounds=rounds)


def _verdict_request(court: Court, case: Case, charge: Charge, persona: Persona, entries: list[Entry],
                     round: int) -> GenerationRequest:
    template = {"charge": charge.model_dump(), "round": round, "max_rounds": court.spec.max_rounds}
    body = f"{charge_header(charge)}\n\n{debate_record(entries, context_sentences(case))}"
    return GenerationRequest(messages=turn_messages(court, case, persona, body, verdict_task(charge), template),
                             output_type=VerdictChoice, sampling=persona.sampling, cache_group=case.id)


def _rule(court: Court, case: Case, charge: Charge, persona: Persona, entries: list[Entry], round: int,
          call_info: dict[str, Any]) -> Step:
    """The judge's verdict: its probability of `hallucinated`."""
    request = _verdict_request(court, case, charge, persona, entries, round)
    [response] = yield [Call(request, purpose="verdict", **call_info)]
    response.unwrap()
    return float((response.option_probs or {}).get("hallucinated", 0.0))


def _weigh_evidence(court: Court, case: Case, charge: Charge, entries: list[Entry], measured: Measure | None) -> Step:
    """P(hallucinated) from the evidence: the charge's grounding in the whole context, or in the sentences
    the defence cited, whichever accounts for it better (the defence carries the burden of proof), with
    the court's lexical evidence when it takes it."""
    sentences = context_sentences(case)
    cited = sorted({e.payload["evidence"] for e in entries if e.role in court.spec.ruling_evidence_roles
                    and isinstance(e.payload.get("evidence"), int) and 1 <= e.payload["evidence"] <= len(sentences)})
    if measured is None:
        [measured] = yield from measure_statements(court, case, [charge.quote])
    best = measured.grounding
    cited_grounding = None
    if cited:
        cited_grounding = yield from _grounding_in_cited(court, case, charge, measured,
                                                         [(i, sentences[i - 1]) for i in cited])
        best = max(best, cited_grounding)
    return suspicion(court, best, measured), _evidence_note(measured.grounding, cited_grounding, cited), best


def _evidence_note(full: float, cited: float | None, sentences: list[int]) -> str:
    text = f"evidence: grounding in the context {full:+.2f} nats/token"
    if cited is not None:
        text += f", in the cited sentences {', '.join(f'[{i}]' for i in sentences)} {cited:+.2f}"
    return text


def _jury(court: Court, case: Case, charge: Charge, entries: list[Entry], round: int) -> Step:
    jurors = court.panel("jury")
    calls = [Call(_verdict_request(court, case, charge, juror, entries, round), purpose="verdict", role="jury",
                  persona=juror.name, node="jury", charge=charge.index, round=round) for juror in jurors]
    responses = yield calls
    ps = []
    for response in responses:
        response.unwrap()
        ps.append(float((response.option_probs or {}).get("hallucinated", 0.0)))
    mean_p = sum(ps) / len(ps)
    votes = sum(p >= court.threshold for p in ps)
    # majority: the share of jurors voting hallucinated; mean: their mean probability
    p_h = votes / len(ps) if court.spec.jury_rule == "majority" else mean_p
    return p_h, f"the jury voted {votes} of {len(ps)} for hallucinated (mean P(hallucinated) = {mean_p:.2f});"


# -- the case -------------------------------------------------------------------------------------
def read_first(case: Case) -> Step:
    """The judge's first reading of the whole answer: P(hallucinated) of the one-word question."""
    [response] = yield [Call(rails_request(case), purpose="first reading", role="judge")]
    return p_hallucinated(response)


def run_case(court: Court, case: Case, transcript: Transcript) -> Step:
    """Indict, try every charge side by side, and combine the rulings into the case verdict."""
    first_reading: float | None = None
    if court.spec.ruling.first_reading_weight:
        (charges, dropped, suspicion, measures), first_reading = yield from gather(
            [indict(court, case, transcript), read_first(case)])
    else:
        charges, dropped, suspicion, measures = yield from indict(court, case, transcript)
    if not charges:
        why = f" ({len(dropped)} proposed charges were dropped)" if dropped else ""
        # the indictment's suspicion still ranks the case (AUROC), kept below the verdict threshold
        measured = [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None]
        if court.spec.aggregation.method == "share" and measured:
            suspicion = share(court, measured)
        score = min(suspicion, court.threshold * 0.999)
        return CaseVerdict(case_id=case.id, label="PASS", score=score, charges=[], dropped=dropped,
                           reason=f"No charges were brought: every statement of the answer stands{why}.")
    rulings: list[Ruling] = yield from gather([try_charge(court, case, c, transcript, measures.get(c.index),
                                                          first_reading) for c in charges])
    return aggregate(court, case.id, charges, dropped, rulings)


def share(court: Court, statements: Sequence[tuple[str, float]]) -> float:
    """The expected share of the answer that is hallucinated: the mean P(hallucinated) of its statements,
    each counted once or by its length (`aggregation.share_by`)."""
    weights = [len(q) if court.spec.aggregation.share_by == "characters" else 1 for q, _ in statements]
    return math.fsum(w * p for w, (_, p) in zip(weights, statements)) / max(sum(weights), 1)


def verdict_reason(court: Court, charges: list[Charge], dropped: list[DroppedCharge], rulings: list[Ruling],
                   hallucinated: bool, score: float) -> str:
    """Why the case verdict came out as it did, naming the ruling or statement that decided it."""
    method = court.spec.aggregation.method
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    supported = [r for r in rulings if r.verdict is not Verdict.HALLUCINATED]
    if hallucinated and guilty:
        worst = max(guilty, key=lambda r: r.p_hallucinated)
        return f"Charge {worst.charge + 1} (\"{charges[worst.charge].quote}\") is found hallucinated: {worst.reason}"
    if hallucinated:  # by the share or mean rule with no charge convicted: the measured statements decided
        suspects = [(r.p_hallucinated, charges[r.charge].quote, f"charge {r.charge + 1}, acquitted") for r in rulings]
        suspects += [(d.p_suspect, d.quote, f"not tried: {d.why_dropped}") for d in dropped if d.p_suspect is not None]
        p, quote, how = max(suspects)
        return (f"No charge was convicted, but the case score by the {method} rule ({score:.2f}) reaches the "
                f"threshold ({court.threshold:.2f}); most suspect: \"{quote}\" (P {p:.2f}, {how}).")
    summary = f"{len(supported)} of {len(rulings)} charges were found supported ({method} rule)"
    if supported:
        return f"{summary}: {max(supported, key=lambda r: 1 - r.p_hallucinated).reason}"
    return (f"{summary}, but the case score by that rule ({score:.2f}) stays below the threshold "
            f"({court.threshold:.2f}): {min(guilty, key=lambda r: r.p_hallucinated).reason}")


def aggregate(court: Court, case_id: str, charges: list[Charge], dropped: list[DroppedCharge],
              rulings: list[Ruling]) -> CaseVerdict:
    """The case verdict from the rulings, by the court's aggregation method."""
    spec = court.spec.aggregation
    ps = [r.p_hallucinated for r in rulings]
    guilty = [r for r in rulings if r.verdict is Verdict.HALLUCINATED]
    if spec.method == "any":
        score, hallucinated = max(ps), bool(guilty)
    elif spec.method == "majority":
        score, hallucinated = sum(ps) / len(ps), len(guilty) * 2 > len(rulings)
    elif spec.method == "share":
        whole_answer_tried = any(c.reason == WHOLE_ANSWER for c in charges)  # the dropped are parts of it
        score = share(court, [(c.quote, r.p_hallucinated) for c, r in zip(charges, rulings)] +
                      [(d.quote, d.p_suspect) for d in dropped if d.p_suspect is not None and not whole_answer_tried])
        hallucinated = score >= court.threshold
    else:
        score = sum(ps) / len(ps)
        hallucinated = score >= court.threshold
    reason = verdict_reason(court, charges, dropped, rulings, hallucinated, score)
    return CaseVerdict(case_id=case_id, label="FAIL" if hallucinated else "PASS", score=score, reason=reason,
                       rulings=rulings, charges=charges, dropped=dropped)
