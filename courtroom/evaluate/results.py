"""Result rows: one finished case as a run records it (`results.jsonl`): its verdict or error, gold label and
cost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, field_validator

from courtroom.case import AnnotatedSpan, Label, VariantVerdict
from courtroom.engine.lockstep import CaseOutcome
from courtroom.evaluate.trial_stats import TrialStats, TrialSummary, trial_stats

Probability = Annotated[float, Field(ge=0.0, le=1.0)]

TRANSCRIPTS = "transcripts"
"""The folder of a run directory that holds its transcripts (`courtroom.log.store`)."""


class ResultRow(BaseModel):
    """One finished case, as `results.jsonl` stores it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    """Every number finite and in its range: a row of a run handed over is read, never trusted to be sane."""

    case_id: str
    source: str
    gold: Label | None
    label: Label | None
    """Predicted label (None when the case failed)."""
    score: float | None = Field(ge=0.0, le=1.0)
    reason: str = ""
    error: str | None = None
    error_type: str | None = None
    charges: int = Field(0, ge=0)
    rounds: float = Field(0.0, ge=0.0)
    """Mean rounds per charge."""
    parse_failures: int = Field(0, ge=0)
    model_calls: int = Field(0, ge=0)
    prompt_tokens: int = Field(0, ge=0)
    computed_prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    seconds: float = Field(0.0, ge=0.0)
    """Model time attributed to this case (each batch's wall time shared among its requests)."""
    transcript: str = ""
    """Path of the transcript, relative to the run directory: a file of its `transcripts/` folder (a row read
    from a run directory someone handed you names no other file: `../x` and `/x` are refused)."""
    variants: dict[str, VariantVerdict] = Field(default_factory=dict)
    """The case decided by variants of the judge from the same calls (the court's measurement alone, its
    agents alone), for the debate's gain; empty for other judges and for runs made before 0.2."""
    escalated: int | None = Field(None, ge=0, exclude_if=lambda v: v is None)
    """With a court that escalates (`escalation`): how many of the case's charges went to trial (the others
    were decided by the measurement alone); None when every charge is tried, for other judges and older
    runs."""
    spans: list[tuple[NonNegativeInt, NonNegativeInt,
                      Probability]] | None = (Field(None, exclude_if=lambda v: v is None))
    """The parts of the answer found hallucinated (start, end, score), strongest first, from a court that
    points at them (None for other judges and older runs)."""
    gold_spans: list[AnnotatedSpan] | None = Field(None, exclude_if=lambda v: v is None)
    """The case's gold spans, when the dataset annotates them (None otherwise)."""
    trial_seconds: float | None = Field(None, ge=0.0, exclude_if=lambda v: v is None)
    """With a court that escalates: the model time of the trials (the calls made for a charge), of `seconds`;
    the rest is what the measurement (and a first reading) cost. None as for `escalated`."""
    trial: TrialStats | None = Field(None, exclude_if=lambda v: v is None)
    """How the case's trials went (`courtroom.evaluate.trial_stats`); None when it held none, and in rows
    recorded before rows kept it."""
    case_digest: str | None = Field(None, exclude_if=lambda v: v is None)
    """`Case.digest()` of the case as it was judged (a resumed run refuses a dataset whose case changed since,
    and `audit verify` checks it against the transcript and the manifest); None for rows recorded before runs
    kept digests."""

    @field_validator("transcript")
    @classmethod
    def _inside_transcripts(cls, value: str) -> str:
        folder, _, name = value.replace("\\", "/").partition("/")
        if value and (folder != TRANSCRIPTS or name in ("", ".", "..") or "/" in name):
            raise ValueError(f"{value!r} is not a file of the run's {TRANSCRIPTS}/ folder (a path read from "
                             "a run directory is never followed out of it)")
        return value

    @field_validator("spans")
    @classmethod
    def _spans_run_forward(cls, value: list[tuple[int, int, float]]
                           | None) -> list[tuple[int, int, float]] | None:
        for number, (start, end, _) in enumerate(value or []):
            if end <= start:
                raise ValueError(f"span {number}: start {start} is not before end {end}")
        return value

    @property
    def correct(self) -> bool | None:
        return None if self.gold is None or self.label is None else self.gold == self.label


def summarize(outcome: CaseOutcome, transcript: str, variants: dict[str, VariantVerdict]
              | None = None) -> ResultRow:
    """The result row of an outcome, with token and time accounting from its model calls."""
    calls = [e for e in outcome.events if e.event == "model_call"]
    rulings = outcome.verdict.rulings if outcome.verdict else []
    verdict = outcome.verdict
    escalates = any(r.escalated is not None for r in rulings)
    return ResultRow(
        case_id=outcome.case.id, source=outcome.case.source, gold=outcome.case.label,
        label=verdict.label if verdict else None, score=verdict.score if verdict else None,
        reason=verdict.reason if verdict else "", error=outcome.error, error_type=outcome.error_type,
        charges=len(verdict.charges) if verdict else 0,
        rounds=(sum(r.rounds for r in rulings) / len(rulings)) if rulings else 0.0,
        parse_failures=(verdict.parse_failures if verdict else 0),
        model_calls=len(calls), prompt_tokens=sum(c.prompt_tokens for c in calls),
        computed_prompt_tokens=sum(c.prompt_tokens - c.cached_prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        seconds=sum(c.seconds / max(c.batch_size, 1) for c in calls), transcript=transcript,
        variants=variants or {}, escalated=sum(bool(r.escalated) for r in rulings) if escalates else None,
        trial_seconds=sum(c.seconds / max(c.batch_size, 1) for c in calls if c.charge is not None
                          or c.purpose == "read")
        if escalates else None,
        spans=[(s.start, s.end, s.score) for s in verdict.spans] if verdict and verdict.testimony else None,
        gold_spans=list(outcome.case.spans) if outcome.case.spans else None,
        trial=trial_stats(outcome.events), case_digest=outcome.case.digest(),
    )


class Escalation(NamedTuple):
    """How much of a run's debate an escalating court held, and what the trials cost."""

    charges: int
    """Charges brought."""
    tried: int
    """Charges that went to trial (inside the band)."""
    seconds_per_case: float
    """Model time per case, all calls."""
    trial_seconds_per_case: float
    """Model time per case of the trials."""

    @property
    def share(self) -> float:
        """The share of charges escalated to trial."""
        return self.tried / self.charges if self.charges else 0.0

    @property
    def measurement_seconds_per_case(self) -> float:
        """Model time per case outside the trials: the measurement (and a first reading)."""
        return self.seconds_per_case - self.trial_seconds_per_case

    def describe(self) -> str:
        """One line: the share escalated and the cost per case, against the measurement's alone."""
        outside = self.measurement_seconds_per_case
        if self.tried == 0:
            return (f"escalation: no charge tried, the measurement decided all {self.charges}; model time "
                    f"{self.seconds_per_case:.2f} s/case")
        ratio = f" (the court costs {self.seconds_per_case / outside:.2f}x that)" if outside > 0 else ""
        return (f"escalation: {self.tried} of {self.charges} charges tried ({self.share:.1%}), the rest "
                f"decided by the measurement alone; model time {self.seconds_per_case:.2f} s/case, of which "
                f"trials {self.trial_seconds_per_case:.2f} s; outside the trials {outside:.2f} s/case{ratio}")


def escalation(rows: Sequence[ResultRow]) -> Escalation | None:
    """The share of charges escalated and the cost per case of an escalating court's run; None without
    escalation."""
    if not any(r.escalated is not None for r in rows):
        return None
    done = [r for r in rows if r.error is None]
    count = max(len(done), 1)
    return Escalation(sum(r.charges for r in done), sum(r.escalated or 0 for r in done),
                      sum(r.seconds for r in done) / count, sum(r.trial_seconds or 0.0 for r in done) / count)


def trials(rows: Sequence[ResultRow]) -> TrialSummary | None:
    """How a run's trials went (its finished cases'); None when no row holds a trial."""
    return TrialSummary.of([r.trial for r in rows if r.trial is not None and r.error is None])


def as_variant(rows: Sequence[ResultRow], name: str) -> list[ResultRow]:
    """The rows as a variant of the judge decided them (rows without that variant are left out)."""
    return [r.model_copy(update={"label": r.variants[name].label, "score": r.variants[name].score})
            for r in rows if name in r.variants]


def variant_names(rows: Sequence[ResultRow]) -> list[str]:
    """The variants the rows hold, in the order they were recorded."""
    return list(dict.fromkeys(name for r in rows for name in r.variants))
