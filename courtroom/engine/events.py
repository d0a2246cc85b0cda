"""The transcript event schema: what happened in one case, append-only, one JSON object per line. Replaying a
transcript's model calls through the same judge rebuilds the verdict (`replay.py`); prompts are stored once per
case as `prompt` events, referenced by hash. Versioned (`SCHEMA_VERSION`): `courtroom transcript schema`."""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from courtroom.case import Case, CaseVerdict, Charge, DroppedCharge, Ruling, Verdict
from courtroom.door.recorded import RecordedCall

SCHEMA_VERSION = 1


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
    """One request at the model door and its response (`RecordedCall`), and where in the procedure it stood."""

    model_config = ConfigDict(extra="forbid", frozen=False, use_attribute_docstrings=True)

    event: Literal["model_call"] = "model_call"
    step: int
    """Lockstep step at which the call was batched."""


class ChargesEvent(BaseEvent):
    """The indictment: charges brought, and those proposed but dropped."""

    event: Literal["charges"] = "charges"
    charges: list[Charge]
    dropped: list[DroppedCharge] = Field(default_factory=list)


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
    """A forced move of a side polled (`trial.poll_moves`): the model's probability of every move of the node, legal
    or not (its opinion: would it have withdrawn, conceded?); the court took the forced move all the same."""
    calibrated_probs: dict[str, float] | None = Field(None, exclude_if=lambda v: v is None)
    """In runs of courts with move priors (retired with courtroom 0.1): the calibrated probability of every legal
    move, by which the move was chosen."""
    rule: str | None = Field(None, exclude_if=lambda v: v is None)
    """Why the court's rule chose this move (a node decided by the evidence), None when the model chose it."""
    choice_probs: dict[str, float] | None = Field(None, exclude_if=lambda v: v is None)
    """For a payload chosen by a scored choice (a citation, an exhibit): the probability of every option."""
    finding: str | None = Field(None, exclude_if=lambda v: v is None)
    """What the court measured or checked of the payload (the grounding in a cited sentence, whether a named
    item is in the context), as the debate record shows it."""
    evidence_found: bool | None = None
    """Whether the payload's `evidence` was found in the context (None when there is none)."""
    quote_verified: bool | None = Field(None, exclude_if=lambda v: v is None)
    """A statement's quote (`trial.turns: statement-first`): whether the court found it in the sentence it cites."""
    stance: float | None = Field(None, exclude_if=lambda v: v is None)
    """A debater's statement: the model's P(yes) that it says the context supports the charged statement."""
    agrees: bool | None = Field(None, exclude_if=lambda v: v is None)
    """Whether the move takes the side its statement argues (a prosecutor who argues with a statement that says the
    context supports the charge does not); None where no side is at stake."""
    error: str | None = None
    """Why the payload could not be produced (the move still stands)."""


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
    """`Charge.index` of the charge corrected (from 0: `audit edit --charge 1` records 0), or None for the case
    verdict itself."""
    verdict: Verdict
    provenance: Provenance


Event = Annotated[
    CaseStartEvent | PromptEvent | ModelCallEvent | ChargesEvent | MoveEvent | RulingEvent | VerdictEvent | ErrorEvent | EditEvent,
    Field(discriminator="event"),
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
