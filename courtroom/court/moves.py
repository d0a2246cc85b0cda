"""Move payloads: the JSON each move carries (a registered model below, or an inline list of text fields in
the court), and the outputs of the clerk and of a verdict. Reasons come before conclusions, and every text is
whole sentences of bounded length, so no argument is empty or cut mid-word; `none` carries nothing."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from courtroom.case import Verdict
from courtroom.errors import CourtError

Text = str


class Payload(BaseModel):
    """Base of move payloads."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


_WORD = r"[A-Za-z]{1,24}(?:['’-][A-Za-z]{1,24}){0,3}"
_NUMBER = r"[$€£]?(?:[0-9]{1,3}(?:,[0-9]{3}){1,3}|[0-9]{1,4})(?:\.[0-9]{1,4})?%?"
_OPEN, _CLOSE, _JOIN = r"[(\['‘]?", r"[)\]'’]{0,2}", r"[,;:]?"
SENTENCE = (rf"{_OPEN}[A-Z][A-Za-z]{{0,23}}(?:['’-][A-Za-z]{{1,24}}){{0,3}}{_CLOSE}{_JOIN}"
            rf"(?: {_OPEN}(?:{_WORD}|{_NUMBER}){_CLOSE}{_JOIN}){{2,29}}[.!?]")
"""One sentence of 3 to 30 words: it opens with a capitalised word; each word is letters (at most 24, with up
to three inner apostrophes or hyphens) or a number (up to four digits, or thousands by commas after one to
three; one decimal point and at most four decimals; a currency sign or a percent), between optional single
quotes or brackets (a citation: "[2]"; no double quote, which xgrammar lets through unescaped, breaking the
JSON), with an optional comma, semicolon or colon after it; single spaces between; its end punctuation right
after a whole word. So no text is a run of digits and dots, a word cut at a hyphen, a fragment, or longer than
a generation's token budget (SmolLM2-135M wrote "1.1.1.1..." in 44 of 151 texts under a pattern of any
characters, "29,30,31,..." to the token limit under one whose numbers were unbounded, and
"1000,000,000,000,000" under one that let four digits open a number with thousands)."""
ONE_SENTENCE = rf"^{SENTENCE}$"
"""One sentence, whole: what every text of a move payload is (a reason, a note, a question)."""


class Argument(Payload):
    """An argument about the charge (after the pieces it rests on, which the court reads and checks)."""

    argument: str = Field(pattern=ONE_SENTENCE)
    """The argument, in one sentence."""


class Reason(Payload):
    """A short reason, for moves that end the debate (withdraw, concede)."""

    reason: str = Field(pattern=ONE_SENTENCE)
    """Why, in one short sentence."""


class RulingReason(Payload):
    """The judge's reasoning before the verdict."""

    reason: str = Field(pattern=ONE_SENTENCE)
    """Which argument convinced you and why, in one sentence."""


class Question(Payload):
    """A question put to the other side in cross-examination."""

    question: str = Field(pattern=ONE_SENTENCE)
    """One precise question about the charged statement."""


class Testimony(Payload):
    """An answer to a cross-examination question (after the pieces it rests on)."""

    answer: str = Field(pattern=ONE_SENTENCE)
    """The answer, in one sentence."""


class Note(Payload):
    """A brief remark (for moves that need no argument, such as calling the next round)."""

    note: str = Field(pattern=ONE_SENTENCE)
    """What remains unclear, in one sentence."""


class Nothing(Payload):
    """No payload: the move is all there is to it (no model call)."""


PAYLOADS: dict[str, type[Payload]] = {
    "argument": Argument, "reason": Reason, "ruling": RulingReason, "question": Question,
    "testimony": Testimony, "note": Note, "none": Nothing,
}


class InlineField(BaseModel):
    """A text field of an inline payload declared in a court file."""

    model_config = ConfigDict(extra="forbid")

    description: str
    max_length: int = Field(200, ge=1, le=2000)


class InlinePayload(BaseModel):
    """A payload declared in a court file: named text fields, generated in the order given."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    fields: dict[str, InlineField] = Field(min_length=1)


def payload_model(spec: str | InlinePayload) -> type[Payload]:
    """The pydantic model of a payload named in a court file."""
    if isinstance(spec, InlinePayload):
        return _inline_model(spec.model_dump_json())
    if spec not in PAYLOADS:
        raise CourtError(f"unknown payload {spec!r}; registered payloads: {sorted(PAYLOADS)}, or declare one "
                         "inline")
    return PAYLOADS[spec]


@lru_cache(maxsize=128)
def _inline_model(spec_json: str) -> type[Payload]:
    spec = InlinePayload.model_validate_json(spec_json)
    fields: dict[str, Any] = {
        name: (str, Field(max_length=f.max_length, description=f.description))
        for name, f in spec.fields.items()
    }
    return create_model(spec.name, __base__=Payload, **fields)


def describe_fields(model: type[BaseModel]) -> str:
    """A bullet list of a payload's fields and what goes in them, for prompts."""
    lines = []
    for name, field in model.model_fields.items():
        limit = next((m.max_length for m in field.metadata if getattr(m, "max_length", None)), None)
        pattern = next((m.pattern for m in field.metadata if getattr(m, "pattern", None)), None)
        bound = (" (one sentence)" if pattern == ONE_SENTENCE
                 else f" (at most {limit} characters)" if limit else "")
        lines.append(f'- "{name}"{bound}: {field.description or ""}'.rstrip(": "))
    return "\n".join(lines)


class ChargeDraft(BaseModel):
    """A charge as the clerk proposes it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    quote: str = Field(max_length=150)
    """A statement copied exactly from the answer."""
    reason: str = Field(max_length=150)
    """Why the context may not support it."""


@lru_cache(maxsize=16)
def indictment_model(max_charges: int) -> type[BaseModel]:
    """The clerk's output: at most `max_charges` charges (possibly none)."""
    return create_model(
        "Indictment",
        __config__=ConfigDict(extra="forbid"),
        charges=(list[ChargeDraft], Field(max_length=max_charges)),
    )


VerdictChoice = Literal["hallucinated", "supported"]
"""The verdict output of a judge or juror: scored, so it comes with probabilities."""

assert set(VerdictChoice.__args__) == {v.value for v in Verdict}  # type: ignore[attr-defined]
