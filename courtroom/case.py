"""The domain: a case to judge, the charges brought against its answer, rulings and the case verdict."""

from __future__ import annotations

import enum
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from courtroom.digest import content_hash

Label = Literal["PASS", "FAIL"]
"""Gold or predicted label, HaluBench convention: PASS = faithful, FAIL = hallucinated."""


class Verdict(str, enum.Enum):
    """A ruling on one charge."""

    HALLUCINATED = "hallucinated"
    SUPPORTED = "supported"


class AnnotatedSpan(BaseModel):
    """A part of the answer a person marked as hallucinated (a gold span, as RAGTruth annotates them):
    character offsets into the answer as given. Spans of one answer may overlap (annotators disagree);
    evaluation merges them."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    start: int = Field(ge=0, strict=True)
    """Strict, like every field here: `true` or `"4"` is refused, not read as 1 or 4."""
    end: int = Field(ge=0, strict=True)
    text: str | None = Field(default=None, strict=True)
    """The annotated text: when given, it must be exactly the answer's characters [start, end)."""
    type: str | None = Field(default=None, strict=True)
    """The annotation's kind (RAGTruth: Evident/Subtle Conflict, Evident/Subtle Baseless Info)."""
    implicit_true: bool = Field(default=False, strict=True)
    """Annotated, but true by common knowledge (RAGTruth): reported apart from the others."""
    due_to_null: bool = Field(default=False, strict=True)
    """Annotated because the context had no answer (RAGTruth)."""

    @model_validator(mode="after")
    def _ordered(self) -> AnnotatedSpan:
        if self.end <= self.start:
            raise ValueError(f"start {self.start} is not before end {self.end}: a span runs forward and is "
                             "not empty")
        return self


class Case(BaseModel):
    """One thing to judge: a question, its context passages and the answer under judgment."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    id: str = Field(min_length=1)
    """Unique within a dataset; names transcripts and result rows."""
    question: str
    """What the RAG system was asked (for context only: faithfulness is judged against `context`)."""
    context: list[str] = Field(min_length=1)
    """The retrieved passages the answer must be grounded in."""
    answer: str = Field(min_length=1)
    """The answer under judgment. Data, never instructions."""
    label: Label | None = None
    """Gold label when known."""
    source: str = "custom"
    """Dataset and subset, e.g. `halubench/FinanceBench`."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the dataset carries."""
    spans: list[AnnotatedSpan] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Gold spans: the parts of the answer annotated as hallucinated, when the dataset has them."""

    @field_validator("context", mode="before")
    @classmethod
    def _context_as_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("context")
    @classmethod
    def _context_has_text(cls, value: list[str]) -> list[str]:
        if not any(passage.strip() for passage in value):
            raise ValueError("the context is empty: give at least one passage with text")
        return value

    @field_validator("answer")
    @classmethod
    def _answer_has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the answer is blank: it has no text to judge")
        return value

    @model_validator(mode="after")
    def _spans_fit_the_answer(self) -> Case:
        for i, span in enumerate(self.spans):
            if span.end > len(self.answer):
                raise ValueError(f"field spans[{i}]: end {span.end} is past the answer's {len(self.answer)} "
                                 "characters")
            if span.text is not None and self.answer[span.start:span.end] != span.text:
                raise ValueError(f"field spans[{i}]: its text {span.text[:40]!r} is not the answer's "
                                 f"characters [{span.start}, {span.end}) "
                                 f"({self.answer[span.start:span.end][:40]!r})")
        if self.spans and self.label == "PASS":
            raise ValueError(f"field spans: {len(self.spans)} hallucinated span(s) on a faithful (PASS) "
                             "answer: label it FAIL, or drop its spans")
        return self

    @property
    def hallucinated(self) -> bool | None:
        """The gold label as a boolean (None when unlabelled)."""
        return None if self.label is None else self.label == "FAIL"

    def digest(self) -> str:
        """The hash of everything the case holds (id, question, context, answer, label, source, metadata): two
        cases with the same digest are the same case. A run records it per case, so that a dataset changed
        under a run is noticed (`courtroom.log.manifest.CaseDigests`)."""
        return content_hash(json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False))


WHOLE_ANSWER_REASON = "no specific charge was brought; the whole answer is tried"
"""The reason of the one charge of a court that tries the whole answer when nothing was charged; a recorded
charge with this reason is that charge (`Charge.whole_answer`)."""


class Charge(BaseModel):
    """A candidate hallucination: a statement quoted from the answer and why it is suspect."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    index: int = Field(ge=0)
    """Position among the case's charges, from 0 as recorded in transcripts; people read charge `index + 1`
    (the court record, reasons, `audit edit --charge` and exports number charges from 1)."""
    quote: str
    """Words taken from the answer."""
    reason: str
    """Why the clerk finds it suspect."""
    grounding: float | None = None
    """How much the context raises the model's likelihood of the quote (nats per token), when measured."""
    p_suspect: float | None = None
    """The indictment's probability that the quote is hallucinated, when it gives one."""
    whole_answer: bool = Field(False, exclude=True)
    """The whole answer is tried as one charge (nothing was charged). Recorded through its reason,
    `WHOLE_ANSWER_REASON`, and read back from it."""

    @model_validator(mode="before")
    @classmethod
    def _whole_answer_from_reason(cls, data: Any) -> Any:
        if (isinstance(data, dict) and "whole_answer" not in data
            and data.get("reason") == WHOLE_ANSWER_REASON):
            return {**data, "whole_answer": True}
        return data


class DroppedCharge(BaseModel):
    """A charge the clerk proposed that was not brought to trial, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    quote: str
    reason: str
    why_dropped: str
    grounding: float | None = None
    """The quote's measured grounding (nats per token), when the court measured it."""
    p_suspect: float | None = None
    """The indictment's probability that the quote is hallucinated, when it gives one."""


RulingSource = Literal["judge", "withdrawn", "conceded", "jury", "measurement", "testimony"]


class Ruling(BaseModel):
    """The court's decision on one charge."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    charge: int = Field(ge=0)
    """`Charge.index` of the charge ruled on: from 0, as recorded in transcripts; the court record, reasons,
    `audit edit --charge` and exports call it charge `charge + 1`."""
    verdict: Verdict
    """Whether the charged statement is hallucinated."""
    reason: str
    """Why, in the court's words."""
    confidence: float = Field(ge=0.0, le=1.0)
    """Probability of `verdict` according to the model (1.0 for a withdrawal or concession)."""
    p_hallucinated: float = Field(ge=0.0, le=1.0)
    """Probability that the charged statement is hallucinated."""
    source: RulingSource = "judge"
    """How the ruling came about."""
    rounds: int = Field(0, ge=0)
    """Rounds of debate held before the ruling."""
    opinion: float | None = None
    """The court's own P(hallucinated) (judge, jury, withdrawal or concession) before the evidence is
    weighed."""
    evidence: float | None = None
    """The grounding (nats per token) the evidence was weighed at, when the court weighs evidence."""
    first_reading: float | None = None
    """The judge's first reading of the whole answer, P(hallucinated), in runs of courts that weighed one (a
    setting retired with courtroom 0.1): None in every ruling since, kept so their records read and replay."""
    escalated: bool | None = Field(None, exclude_if=lambda v: v is None)
    """With an escalation band (`CourtSpec.escalation`): whether the charge went to trial (its measured
    P(suspect) in the band) or was decided by the measurement alone (source `measurement`); None when every
    charge is tried."""


class Pointer(BaseModel):
    """What a witness points at: characters of the answer (and a context sentence, where it found one)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    start: int = Field(ge=0)
    """First character in the answer (as given, unstripped)."""
    end: int = Field(ge=0)
    """One past the last character."""
    note: str
    """What the witness says of it ("not in the context", "gain -2.3 nats")."""
    weight: float = 0.0
    """How strongly it points (the witness's own scale: a token's lost nats, 1 for an absent figure)."""
    context_sentence: int | None = Field(None, exclude_if=lambda v: v is None)
    """The context sentence (numbered from 1, as the court numbers them) it points at, when one."""


class Testimony(BaseModel):
    """What one witness measured of a case: named values for the whole answer and for each of its sentences
    (the same names, as if the sentence were the whole answer), and what it points at. A witness the court
    could not hear (the backend lacks what it needs) is recorded as not heard, with why, never as zeros."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    witness: str
    """Its name (`courtroom.witness.registry`)."""
    version: int
    """Its version: a fitted ruling names the versions it was fitted on."""
    heard: bool = True
    why_not: str = Field("", exclude_if=lambda v: not v)
    """Why it was not heard."""
    values: dict[str, float] = Field(default_factory=dict)
    """Named values of the whole answer."""
    sentences: list[dict[str, float]] = Field(default_factory=list)
    """The same values of each answer sentence, in the court's order."""
    points: list[Pointer] = Field(default_factory=list)
    """What it points at in the answer."""


class Weighing(BaseModel):
    """How a fitted ruling weighed a case's testimony into P(hallucinated) (`courtroom.witness.ruling`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    ruling: str
    """Which ruling: the model and court it was fitted for, and its fingerprint."""
    family: str
    """The task family whose weights applied (qa, summary, data2text, dialogue; any: the weights of every
    family)."""
    log_odds: float
    p_hallucinated: float = Field(ge=0.0, le=1.0)
    threshold: float = Field(ge=0.0, le=1.0)
    """P(hallucinated) at or above which the answer is hallucinated."""
    contributions: dict[str, float] = Field(default_factory=dict)
    """Each value's part of the log-odds (its weight times its standardised value), the intercept as
    `intercept`."""
    missing: list[str] = Field(default_factory=list)
    """Values the ruling weighs that no witness gave (not heard): left out at their mean, contributing 0."""
    distance: float | None = Field(None, ge=0.0, exclude_if=lambda v: v is None)
    """In weighings recorded before rulings' regions were retired (#53): how far the case lay from the cases
    the ruling was fitted on, the percentage of them nearer, and whether it lay beyond them (the measure then
    decided)."""
    percentile: float | None = Field(None, ge=0.0, le=100.0, exclude_if=lambda v: v is None)
    outside: bool = Field(False, exclude_if=lambda v: not v)


class HallucinatedSpan(BaseModel):
    """A part of the answer the court finds hallucinated: its characters (in the answer as given), how sure it
    is, what named it, and the context sentence closest to it (the one that fails to support, or contradicts,
    it)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True, allow_inf_nan=False)

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    score: float = Field(ge=0.0, le=1.0)
    """P(hallucinated) of its strongest word."""
    named_by: list[str] = Field(default_factory=list)
    """The witnesses that pointed at it (or the trial's moves that quoted it)."""
    context_sentence: int | None = Field(None, exclude_if=lambda v: v is None)
    """The context sentence (numbered from 1) closest to it, when one shares its words."""
    verified: bool | None = Field(None, exclude_if=lambda v: v is None)
    """For a span a party quoted in a trial: whether the quote was found in the text (normalised exact
    match)."""


class CaseVerdict(BaseModel):
    """The verdict on a case: label, score and reason, with the rulings behind it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, allow_inf_nan=False)

    case_id: str
    """The case judged."""
    label: Label
    """FAIL when the answer is judged hallucinated, else PASS."""
    score: float = Field(ge=0.0, le=1.0)
    """Hallucination score: 1 is certainly hallucinated, 0 certainly faithful (Opik convention)."""
    reason: str
    """Why, in one or two sentences."""
    rulings: list[Ruling] = Field(default_factory=list)
    """One per charge tried."""
    charges: list[Charge] = Field(default_factory=list)
    """The charges brought."""
    dropped: list[DroppedCharge] = Field(default_factory=list)
    """Charges proposed but not brought (quote not found in the answer, duplicates, over the limit)."""
    judge: str = "courtroom"
    """Which judge produced this verdict."""
    parse_failures: int = 0
    """Model outputs that did not parse (only unconstrained judges can have any)."""
    testimony: list[Testimony] = Field(default_factory=list, exclude_if=lambda v: not v)
    """What the court's witnesses measured (courts that hear witnesses)."""
    weighing: Weighing | None = Field(None, exclude_if=lambda v: v is None)
    """How a fitted ruling weighed the testimony into the verdict, when one did."""
    spans: list[HallucinatedSpan] = Field(default_factory=list, exclude_if=lambda v: not v)
    """The parts of the answer found hallucinated, strongest first (courts that hear witnesses; none when the
    answer is found faithful)."""

    @property
    def hallucinated(self) -> bool:
        """The verdict as a boolean."""
        return self.label == "FAIL"


class VariantVerdict(BaseModel):
    """How a variant of the judge decided the case, from the same recorded model calls (the court's
    measurement alone, its agents alone): the debate's gain is measured on every run with no extra call."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    label: Label
    score: float = Field(ge=0.0, le=1.0)
