"""The clerk's settings: how the answer is cut and measured, which witnesses testify, which statements are
charged, and how they become the verdict (a court adds `trial`: `courtroom.court.spec`)."""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from courtroom.door.models import model_key
from courtroom.text.sentences import SPLITTER, SentenceSplitter
from courtroom.witness.registry import WitnessName
from courtroom.witness.ruling import FittedRuling

_FIELDS = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class LexicalSpec(BaseModel):
    """Lexical evidence: the words of a statement that neither the context nor the question uses, named in its
    charge and optionally weighed: the share u of its content words that are unsupported adds (u - center) /
    scale to its log-odds of being hallucinated."""

    model_config = _FIELDS

    center: float = Field(0.35, ge=0.0, le=1.0)
    """Share of unsupported words at which the lexical evidence is neutral."""
    scale: float | None = Field(0.1, gt=0.0)
    """How sharply suspicion rises with the share of unsupported words; None names the words without weighing
    them."""


class GroundingSpec(BaseModel):
    """The clerk's measure of evidence: a statement's grounding, its pointwise mutual information with the
    context in nats per token (log P(statement | context, question) - log P(statement | question), per token),
    mapped to P(suspect) = sigmoid((center - grounding) / scale [+ the lexical term, see `LexicalSpec`])."""

    model_config = _FIELDS

    center: float = 0.2
    """Grounding (nats per token) at which a statement is as likely hallucinated as not."""
    scale: float = Field(0.3, gt=0.0)
    """How sharply P(suspect) falls as grounding rises."""
    scoring: Literal["sentence", "answer"] = "sentence"
    """sentence: score each sentence alone (two calls per sentence); answer: score the whole answer with the
    context and without (two calls per case) and read each sentence off its tokens, in the flow of the answer
    before it."""
    clip: float | None = Field(None, gt=0.0)
    """The most one token may gain from the context (nats), or None for no cap (total likelihoods). A copied
    rare name gains 5-10 nats and would otherwise outweigh the invented words beside it."""
    lexical: LexicalSpec | None = None
    """Lexical evidence (words of the statement the sources never use) weighed into P(suspect); None:
    grounding alone."""


class IndictmentSpec(BaseModel):
    """Which measured statements the clerk charges."""

    model_config = _FIELDS

    threshold: float = Field(0.5, ge=0.0, le=1.0)
    """A statement is charged when its P(suspect) reaches this."""


class AggregationSpec(BaseModel):
    """How the rulings on the charges become the case verdict."""

    model_config = _FIELDS

    method: Literal["any", "majority", "mean", "share"] = "any"
    """any: hallucinated if any charge is (score = max P); majority: if most are (score = mean P); mean: if
    the mean P(hallucinated) reaches the threshold; share: the expected share of the answer's statements that
    are hallucinated (rulings for those charged, P(suspect) for the others), against the threshold."""
    threshold: float = Field(0.5, ge=0.0, le=1.0)
    """P(hallucinated) at or above which a ruling (and the `mean` and `share` methods) says hallucinated."""
    share_by: Literal["statements", "characters"] = "statements"
    """share method: count every statement once, or by its length in characters (the expected share of the
    answer's *text* that is hallucinated: a long invented sentence outweighs a short greeting)."""
    by_model: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(default_factory=dict)
    """Thresholds tuned for particular models (by the name given to --model; `default` is `smollm2-135m`),
    overriding `threshold`: the threshold that balances the two kinds of error belongs to the court and the
    model together."""

    def threshold_for(self, model: str) -> float:
        """The threshold for `model` (`by_model`, else `threshold`)."""
        tuned = {model_key(name): value for name, value in self.by_model.items()}
        return tuned.get(model_key(model), self.threshold)


class WitnessesSpec(BaseModel):
    """The witnesses the clerk hears, and the rulings fitted to weigh their testimony for particular models:
    with a ruling for its model the clerk decides by it, else by its grounding measure, the testimony recorded
    all the same."""

    model_config = _FIELDS

    heard: list[WitnessName] = Field(min_length=1)
    """The witnesses called, in the order they testify."""
    hidden_depth: float = Field(0.5, gt=0.0, le=1.0)
    """The depth of the residual stream the hidden-state witness reads (0.5: the middle layer)."""
    word_states: bool = False
    """Also record the hidden state of every word of the answer (in-process backends; about 6 KB a word), so
    that `courtroom calibrate --ruling` can fit a word probe; a ruling with a word probe asks for projections
    instead."""
    rulings: dict[str, FittedRuling | str] = Field(default_factory=dict)
    """Model -> its fitted ruling: a ruling file, relative to the court file (read when the court loads, and
    recorded whole in every run's manifest), by the name given to --model (`default` is `smollm2-135m`)."""

    @model_validator(mode="after")
    def _once_each(self) -> WitnessesSpec:
        if len(set(self.heard)) != len(self.heard):
            raise ValueError(f"a witness is called twice: {self.heard}")
        return self

    def ruling_for(self, model: str) -> FittedRuling | None:
        """The ruling fitted for `model`, filed under any of its names, None when there is none (or not loaded
        yet)."""
        ruling = next((r for m, r in self.rulings.items() if model_key(m) == model_key(model)), None)
        return ruling if isinstance(ruling, FittedRuling) else None


class ClerkSpec(BaseModel):
    """The clerk's part of a court file (every setting but the `trial`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, populate_by_name=True)

    schema_path: str | None = Field(default=None, alias="$schema")
    """Optional JSON schema reference for editors (ignored)."""
    name: str = Field(pattern=r"^[a-z][a-z0-9_\-]*$")
    """The court's name."""
    description: str = ""
    """What the court does, for its users."""
    sentences: SentenceSplitter = SPLITTER
    """How the context is cut into the numbered sentences and the answer into the statements the clerk
    measures: structured (records, table rows, list items and lines first, then prose) or regex
    (`courtroom.text.sentences`)."""
    grounding: GroundingSpec = GroundingSpec()
    """How grounding (measured evidence) maps to a probability."""
    witnesses: WitnessesSpec | None = None
    """The witnesses heard while measuring, and the rulings that weigh them; None hears none (the measure
    decides)."""
    indictment: IndictmentSpec = IndictmentSpec()
    """Which statements are charged."""
    max_charges: int = Field(3, ge=1, le=10)
    """At most this many statements are charged per case (the most suspect)."""
    aggregation: AggregationSpec = AggregationSpec()
    """How the rulings on the charges combine into the case verdict."""

    def threshold_for(self, model: str) -> float:
        """The verdict threshold for `model` (`aggregation.by_model`, else `aggregation.threshold`)."""
        return self.aggregation.threshold_for(model)

    def problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """What is wrong across its settings, each with the path of the field at fault."""
        if self.witnesses is not None and self.grounding.scoring != "answer":
            return [(("witnesses",), "witnesses are heard on the whole answer's measured tokens: they need "
                                     "grounding.scoring: answer")]
        return []


SpecT = TypeVar("SpecT", bound=ClerkSpec)
"""The clerk's settings, or a court's (which hold them)."""
