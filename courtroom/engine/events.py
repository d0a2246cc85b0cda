"""The transcript event schema: what happened in one case, append-only, one JSON object per line. Replaying a
transcript's model calls through the same judge rebuilds the verdict (`replay.py`); prompts are stored once
per case as `prompt` events, referenced by hash. Versioned (`SCHEMA_VERSION`): `courtroom transcript
schema`."""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from courtroom.case import Case, CaseVerdict, Charge, DroppedCharge, Ruling, Verdict
from courtroom.door.recorded import RecordedCall

SCHEMA_VERSION = 2
"""2: a trial's moves carry what they rest on (`MoveEvent.grounds`); a move of version 1 cited by a generated
number (`payload.evidence`), read as grounds of its own (`Grounds.generated`)."""


utc_now = functools.partial(datetime.now, timezone.utc)


class BaseEvent(BaseModel):
    """Fields every event carries."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    seq: int = Field(ge=0)
    """Position in the case's transcript, from 0."""
    time: datetime = Field(default_factory=utc_now)
    """When it happened (UTC)."""


class CaseStartEvent(BaseEvent):
    """A case enters the court."""

    event: Literal["case_start"] = "case_start"
    schema_version: int = SCHEMA_VERSION
    """Version of this event schema."""
    case: Case
    """The case, in full."""
    judge: str
    """Which judge tries it (`courtroom` or a baseline name)."""
    config_hash: str
    """Hash of the judge's configuration (court, personas); the run manifest holds the full text."""


class PromptEvent(BaseEvent):
    """A chat message stored once and referred to by hash from model calls."""

    event: Literal["prompt"] = "prompt"
    hash: str
    role: Literal["system", "user", "assistant"]
    content: str


class CallSite(BaseModel):
    """Where in a judge's procedure a model call stands (a `Call` carries it; its event records it)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    purpose: str
    """What the call was for: `indict`, `move`, `payload`, `verdict`, or a baseline's step."""
    role: str | None = None
    """Court role that spoke (clerk, prosecutor, defender, judge, juror...)."""
    persona: str | None = None
    """Persona name."""
    node: str | None = None
    """Debate-graph node of the turn."""
    charge: int | None = None
    """Index of the charge on trial (from 0), when the call belongs to a trial."""
    round: int | None = None
    """Round of the trial, from 1."""


class ModelCallEvent(BaseEvent, RecordedCall, CallSite):
    """One request at the model door and its response (`RecordedCall`), and where in the procedure it
    stood."""

    model_config = ConfigDict(extra="forbid", frozen=False, use_attribute_docstrings=True)

    event: Literal["model_call"] = "model_call"
    step: int
    """Lockstep step at which the call was batched."""


class ChargesEvent(BaseEvent):
    """The indictment: charges brought, and those proposed but dropped."""

    event: Literal["charges"] = "charges"
    charges: list[Charge]
    dropped: list[DroppedCharge] = Field(default_factory=list)


class Quote(BaseModel):
    """Words quoted from a text (the answer, or a context sentence), where they stand in it, and the court's
    check."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    text: str
    start: int = Field(ge=0)
    """Character offsets of the words in the text they are quoted from (the whole answer, or the cited
    sentence)."""
    end: int = Field(ge=0)
    verified: bool
    """Whether the court found exactly these words there; a quote that fails is shown as failed, never as
    verified."""


class Grounds(BaseModel):
    """What a move rests on: the words of the charged statement it speaks of, the context sentence it cites
    (or that none speaks to them) and the words of that sentence, each chosen by a reading of the case and
    checked."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    reading: Literal["likelihood", "words", "generated"]
    """How the pieces were chosen: `likelihood`, by how much likelier each sentence alone makes the charged
    words than no context (the model's reading); `words`, by the content words they share (no model);
    `generated`, a number the model wrote (trials of transcript version 1, unchecked)."""
    answer: Quote | None = None
    """Words of the answer (within the charged statement) the move speaks of."""
    sentence: int | None = None
    """The context sentence cited (from 1); None: the reading found none that speaks to the words."""
    passage: Quote | None = None
    """Words of the cited sentence."""
    scores: dict[int, float] = Field(default_factory=dict)
    """The reading: each candidate sentence's score (nats a token of the words, or shared words), by
    number."""
    found: bool | None = None
    """Whether the cited number names a sentence of the context (None: nothing cited)."""

    @property
    def verified(self) -> bool:
        """Every quote found where it is said to be, and the citation a sentence of the context."""
        quotes = [q for q in (self.answer, self.passage) if q is not None]
        return all(q.verified for q in quotes) and self.found is not False and self.reading != "generated"


RETIRED_MOVE_FIELDS = ("calibrated_probs", "rule", "choice_probs", "finding", "evidence_found",
                       "quote_verified", "stance", "agrees")
"""Fields of moves nothing writes since the settings that wrote them were retired (move priors, the evidence
court's rules and choices, statement-first turns; a version 1 move's `evidence_found` is its grounds'
`found`): a transcript that holds them reads without them."""


def _older_move(data: Any) -> Any:
    """A move of an older transcript: without its retired fields, and one of version 1 cited with a generated
    number (`payload.evidence`) with grounds that say so."""
    if not isinstance(data, dict):
        return data
    moved = {k: v for k, v in data.items() if k not in RETIRED_MOVE_FIELDS}
    if "grounds" not in data and isinstance(data.get("payload"), dict) and \
            isinstance(number := data["payload"].get("evidence"), int):
        moved["grounds"] = {"reading": "generated", "sentence": number or None,
                            "found": data.get("evidence_found")}
    return moved


class MoveEvent(BaseEvent):
    """A move made in a trial: who, where in the graph, which move, with what payload."""

    event: Literal["move"] = "move"
    charge: int
    """`Charge.index` of the charge on trial (from 0; shown as charge `charge + 1`)."""
    round: int
    node: str
    role: str
    persona: str
    move: str
    payload: dict[str, Any] = Field(default_factory=dict)
    forced: bool = False
    """True when only one move was legal, so no model call chose it."""
    move_probs: dict[str, float] | None = None
    """The model's probability of every legal move (None when forced), as the model gave it (raw)."""
    polled_probs: dict[str, float] | None = Field(None, exclude_if=lambda v: v is None)
    """A forced move of a side polled (`trial.poll_moves`): the model's probability of every move of the node,
    legal or not (its opinion: would it have withdrawn, conceded?); the court took the forced move all the
    same."""
    grounds: Grounds | None = Field(None, exclude_if=lambda v: v is None)
    """What the move rests on (its quotes and citation, checked); None for a move that speaks of nothing."""
    error: str | None = None
    """Why the payload could not be produced (the move still stands)."""

    @model_validator(mode="before")
    @classmethod
    def _older(cls, data: Any) -> Any:
        return _older_move(data)


class RulingEvent(BaseEvent):
    """A charge is decided."""

    event: Literal["ruling"] = "ruling"
    ruling: Ruling


class VerdictEvent(BaseEvent):
    """The case verdict."""

    event: Literal["verdict"] = "verdict"
    verdict: CaseVerdict


class ErrorEvent(BaseEvent):
    """The case failed; the run goes on."""

    event: Literal["error"] = "error"
    message: str
    error_type: str
    traceback: str = ""


class Provenance(BaseModel):
    """Who changed a verdict, when and why."""

    model_config = ConfigDict(extra="forbid")

    author: str
    reason: str
    time: datetime = Field(default_factory=utc_now)


class EditEvent(BaseEvent):
    """A human correction of a charge's ruling; the model's events are never rewritten."""

    event: Literal["edit"] = "edit"
    charge: int | None
    """`Charge.index` of the charge corrected (from 0: `audit edit --charge 1` records 0), or None for the
    case verdict itself."""
    verdict: Verdict
    provenance: Provenance


Event = Annotated[
    CaseStartEvent | PromptEvent | ModelCallEvent | ChargesEvent | MoveEvent | RulingEvent | VerdictEvent
    | ErrorEvent | EditEvent, Field(discriminator="event"),
]
EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)


def parse_event(line: str) -> Any:
    """Validate one JSONL line as an event."""
    return EVENT_ADAPTER.validate_json(line)


def event_json_schema() -> dict[str, Any]:
    """The published JSON schema of a transcript line."""
    schema = EVENT_ADAPTER.json_schema()
    schema["title"] = f"courtroom transcript event, schema version {SCHEMA_VERSION}"
    return schema
