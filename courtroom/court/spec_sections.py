"""The optional sections of a court file, each left out (None) unless the court uses it, added after the first
court files (`Since(4)` and later, so courts without them keep their identity): which charges go to trial
(`escalation`), priors of the model's move choices (`move_priors`), how the check of a named exhibit is weighed
(`exhibit_check`), and the witnesses heard with their fitted rulings (`witnesses`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from courtroom.door.models import model_key
from courtroom.engine.migrations import Since
from courtroom.witness.registry import WitnessName
from courtroom.witness.ruling import FittedRuling


class EscalationSpec(BaseModel):
    """Which charges go to trial: a charge whose measured P(suspect) lies in the band [low, high] is tried; one
    outside it is decided by the measurement alone (a ruling at P(hallucinated) = P(suspect), source
    `measurement`, no trial call). The measurement decides the clear cases and the debate is paid for only where
    it can change the verdict. Set the band on labelled dev data (`courtroom rejudge --set escalation=...` decides
    a run recorded with full trials again, asking only for the calls the escalated court needs). `tries: nothing`
    (no band) lets the measurement decide every charge: the court charges and measures, and tries none."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    tries: Annotated[Literal["band", "nothing"], Since(5)] = "band"
    """band: try the charges measured inside [low, high]; nothing: try no charge (give no band)."""
    low: float | None = Field(None, ge=0.0, le=1.0)
    """Charges measured below this P(suspect) are found supported by the measurement."""
    high: float | None = Field(None, ge=0.0, le=1.0)
    """Charges measured above this P(suspect) are found hallucinated by the measurement."""

    @model_validator(mode="after")
    def _a_band(self) -> EscalationSpec:
        if self.tries == "nothing":
            if self.low is not None or self.high is not None:
                raise ValueError("tries: nothing takes no band: leave out low and high")
            return self
        if self.low is None or self.high is None:
            raise ValueError("a band needs both low and high (or tries: nothing, to try no charge)")
        if self.low > self.high:
            raise ValueError(f"low ({self.low:g}) is above high ({self.high:g}): the band is empty")
        return self

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The band (low, high); None for a court that tries nothing."""
        return None if self.low is None or self.high is None else (self.low, self.high)


MovePriors = dict[str, dict[str, Annotated[float, Field(gt=0.0)]]]
"""Node -> move -> the model's prior probability of choosing that move."""


class MovePriorsSpec(BaseModel):
    """Priors of a model's move choices, per node of the graph: a small model chooses some moves (a withdrawal)
    almost whatever the charge, so its probabilities carry a prior. With priors, the calibrated probability of a
    move is P(move) / prior(move), renormalised over the legal moves; the move is chosen by the calibrated
    probabilities (the most probable, deterministic from the recorded probabilities, so transcripts replay) and
    a withdrawal's or concession's opinion is its calibrated probability. Estimate them from a run's
    transcripts (`courtroom.court.move_priors.move_priors`: the mean probability of each move at each node)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    nodes: MovePriors = Field(default_factory=dict)
    """Node -> move -> prior; a node named here must give a prior for every move out of it."""
    by_model: dict[str, MovePriors] = Field(default_factory=dict)
    """Priors for particular models (by the name given to --model), node by node overriding `nodes`: priors
    belong to the court and the model together."""


class ExhibitCheckSpec(BaseModel):
    """How the court's check of the item the prosecution named (an `exhibit` payload, see
    `courtroom.witness.exhibits`) enters the evidence: a shift of the log-odds of P(suspect), as the lexical term
    does. When any named item is absent from the sources `absent` is added, else when a named item is present
    `present`; naming nothing adds nothing. A court with `exhibit` moves and no `exhibit_check` records and shows
    the checks without weighing them."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    absent: float = 1.0
    """Added to the log-odds of P(suspect) when an item the prosecution named is absent from the sources."""
    present: float = -1.0
    """Added when the items the prosecution named are all present in the sources."""


class WitnessesSpec(BaseModel):
    """The witnesses a court hears (`courtroom.witness.registry`), and the rulings fitted to weigh their testimony
    for particular models (`courtroom.witness.ruling`). With a ruling for its model, the court decides each sentence
    and the whole answer by the ruling (no verdict trial is held: `escalation` applies to the models without one);
    without one, by its grounding measure and trials as before, and the testimony is recorded all the same
    (`courtroom calibrate --ruling` fits a ruling from such a run)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    heard: list[WitnessName] = Field(min_length=1)
    """The witnesses called, in the order they testify."""
    hidden_depth: float = Field(0.5, gt=0.0, le=1.0)
    """The depth of the residual stream the hidden-state witness reads (0.5: the middle layer)."""
    trial: Annotated[bool, Since(7)] = False
    """Hold a span trial over each charged sentence of an answer found hallucinated (`courtroom.court.span_trial`):
    the prosecutor names the false words, the defender quotes the context, the judge rules on the quotes; the words
    convicted are the verdict's spans (instead of the witnesses' own)."""
    trial_charges: Annotated[Literal["named", "spans"], Since(9)] = "named"
    """What a span trial tries. `named`: in each charged sentence, the words the prosecutor names among the
    witnesses' candidates; the judge's P(hallucinated) convicts them. `spans`: every span the witnesses found (the
    strongest four), and the prosecutor's named words in a charged sentence where they found none; the judge's
    odds, calibrated against the same ruling with the words taken away, multiply the witnesses' odds."""
    quote_check: Annotated[Literal["words", "strict"], Since(10)] = "words"
    """How a span trial checks the defender's quote against the words on trial. `words`: the quote holds every content
    word of them (stemmed), or the words themselves. `strict`: also, the quote holds them in their order (or reversed
    by an agent named with "by": "YouTube acquired Google" does not hold "Google acquired YouTube"), words without a
    content word are whole words of the quote ("in" is not held by "within"), a number counts the same thing ("12
    employees" is not held by "12 offices and 400 employees", but is by "12 full-time employees"), and the quote
    agrees in negation with the charged sentence where a negation reaches the words ("was not automated" is not
    supported by "was automated", whose content words it holds; "no fever, cough, or fatigue" does not support
    "fatigue"; a "not" in an aside or another clause does not count)."""
    word_states: Annotated[bool, Since(8)] = False
    """Also record the hidden state of every word of the answer (at `hidden_depth`; in-process backends), so that
    `courtroom calibrate --ruling` can fit a word probe into the span model from the run. Costs no model time, but a
    record of about 6 KB a word. A court whose ruling has a word probe needs not: it asks for each word's state
    projected onto the probe (one number a word, `Observation.project_words`)."""
    rulings_from: Annotated[str | None, Since(9)] = None
    """Another court whose rulings decide here too, because this court's testimony is that court's (the same
    measurement, sentences and witnesses, as `pointing`'s is `default`'s): a ruling fitted for either is accepted."""
    rulings: dict[str, FittedRuling | str] = Field(default_factory=dict)
    """Model -> its fitted ruling: a ruling file, relative to the court file (read when the court loads, and recorded
    whole in every run's manifest), by the name given to --model (`default` is `smollm2-135m`)."""

    @model_validator(mode="after")
    def _once_each(self) -> WitnessesSpec:
        if len(set(self.heard)) != len(self.heard):
            raise ValueError(f"a witness is called twice: {self.heard}")
        return self

    def ruling_for(self, model: str) -> FittedRuling | None:
        """The ruling fitted for `model`, filed under any of its names (`default` is `smollm2-135m`), None when
        there is none (or it is not loaded yet)."""
        ruling = next((r for m, r in self.rulings.items() if model_key(m) == model_key(model)), None)
        return ruling if isinstance(ruling, FittedRuling) else None
