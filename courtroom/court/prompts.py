"""The texts of a court's turns: every prompt of a case opens with the same case (numbered context, question),
rules and fenced answer, computed once per case by the backend; then the charge, the debate, the persona and
the task."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from courtroom.case import Case, Charge
from courtroom.casefile import OPENING_SYSTEM, render_answer, render_opening
from courtroom.court.bench import Bench
from courtroom.court.moves import describe_fields
from courtroom.court.personas import Persona
from courtroom.court.procedure import EdgeSpec
from courtroom.court.texts import FIELDS, compose
from courtroom.door.requests import ChatMessage
from courtroom.engine.events import Grounds


@dataclass(frozen=True)
class Entry:
    """One move in the debate record of a charge."""

    round: int
    role: str
    persona: str
    move: str
    payload: dict[str, Any]
    grounds: Grounds | None = None
    edge: EdgeSpec | None = None


NO_CHARGE: dict[str, Any] = {"index": 0, "quote": "", "reason": "", "grounding": None, "p_suspect": None}
"""The `charge` a persona's template sees before any charge is brought (at the indictment)."""

def blind(bench: Bench, role: str) -> bool:
    """Whether `role` reads the case without its context (`trial.blind_judge`: the judge and the jury)."""
    return bench.trial.blind_judge and role in ("judge", "jury")


def case_messages(bench: Bench, case: Case, tail: str,
                  hidden: bool = False) -> tuple[ChatMessage, ChatMessage]:
    """A prompt of the case: the shared opening (the question alone if `hidden`), rules, fenced answer, then
    `tail`."""
    opening = (f"QUESTION: {case.question.strip()}"
               if hidden else render_opening(case, splitter=bench.spec.sentences))
    user = f"{opening}\n\n{bench.trial.rules.strip()}\n\n{render_answer(case, bench.prompt_format)}\n\n{tail}"
    return (ChatMessage(role="system", content=OPENING_SYSTEM), ChatMessage(role="user", content=user))


def charge_header(charge: Charge) -> str:
    return (f"CHARGE {charge.index + 1}: the answer states \"{charge.quote}\"\n"
            f"The clerk's reason for suspicion: {charge.reason}")


def render_payload(entry: Entry, hidden: bool = False) -> str:
    """A move's texts as the debate record shows them (to a `hidden` reader, a cited sentence by its number
    alone)."""
    texts = {key: str(value) for key, value in entry.payload.items()}
    if (hidden and entry.edge is not None and isinstance(entry.edge.payload, str)
        and FIELDS.get(entry.edge.payload) in texts):
        texts[FIELDS[entry.edge.payload]] = compose(entry.edge, entry.role, entry.grounds, hidden=True)
    return " ".join(texts.values())


def debate_record(entries: list[Entry], hidden: bool = False) -> str:
    if not entries:
        return "DEBATE RECORD: nothing has been said yet."
    lines = ["DEBATE RECORD:"]
    for e in entries:
        said = render_payload(e, hidden)
        lines.append(f"- Round {e.round}, {e.role} ({e.move})" + (f": {said}" if e.payload else ""))
    return "\n".join(lines)


def turn_messages(bench: Bench, case: Case, persona: Persona, body: str, task: str,
                  template: dict[str, Any]) -> tuple[ChatMessage, ...]:
    hidden = blind(bench, persona.role)
    instructions = persona.render(case={"question": case.question, "answer": case.answer,
                                        "context": [] if hidden else case.context}, **template)
    return case_messages(bench, case, f"{body}\n\n{instructions}\n\n{task}", hidden)


def move_task(role: str, round: int, max_rounds: int, moves: list[EdgeSpec]) -> str:
    options = "\n".join(f"- {m.move}: {m.description}" for m in moves)
    return (f"It is your turn as {role}, round {round} of at most {max_rounds}. Your legal "
            f"moves:\n{options}\nAnswer with the name of one move.")


def payload_task(edge: EdgeSpec, model: Any, pieces: str = "") -> str:
    grounds = f"What your move rests on, read and checked by the court: {pieces}\n" if pieces else ""
    return (f"Your move: {edge.move} ({edge.description}).\n{grounds}Write it as a JSON object with these "
            f"fields, in this order:\n{describe_fields(model)}")


def verdict_task(charge: Charge) -> str:
    return (f"Give your verdict on charge {charge.index + 1}. Answer \"hallucinated\" if the context does "
            "not support the charged statement, or \"supported\" if the context supports it.")


def indictment_task(max_charges: int) -> str:
    return (f"List at most {max_charges} statements of the answer that the context may not support. Copy "
            "each statement exactly as it is written in the answer, and give the reason it is suspect. If "
            "the context supports every statement, return an empty list.\n"
            'Write JSON: {"charges": [{"quote": "...", "reason": "..."}]}')
