"""A fitted ruling: how a court weighs its witnesses' testimony for one model, a logistic model per task
family over the testimony's values and probe scores (docs/witnesses.md); applying it needs no scikit-learn."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from courtroom.case import Testimony, Weighing
from courtroom.digest import content_hash
from courtroom.errors import ConfigError

FORMAT = 1
"""The ruling file format this version reads and writes."""
REACH = 1e6
"""A linear part must weigh values this many scales from its means (and values of 0) without leaving the
floats."""
Family = Literal["qa", "summary", "data2text", "dialogue", "any"]


class Linear(BaseModel):
    """Standardise, weigh, add: a logistic model's linear part."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    features: list[str]
    """The values weighed, by name (empty for a probe: the vector's coordinates, in order)."""
    mean: list[float]
    scale: list[float]
    weights: list[float]
    intercept: float

    @model_validator(mode="after")
    def _same_lengths(self) -> Linear:
        sizes = {len(self.mean), len(self.scale), len(self.weights)} | ({len(self.features)}
                                                                        if self.features else set())
        if len(sizes) != 1:
            raise ValueError(f"features, mean, scale and weights differ in length ({sorted(sizes)})")
        if any(s <= 0 for s in self.scale):
            raise ValueError("every scale must be positive")
        with np.errstate(over="ignore", invalid="ignore"):
            slopes = np.abs(np.array(self.weights) / np.array(self.scale, dtype=np.float64))
            bound = abs(self.intercept) + slopes @ np.abs(self.mean) + REACH * np.abs(self.weights).sum()
        if not np.isfinite(bound):
            raise ValueError("weights, means and scales whose log-odds overflow a float (weighing values of "
                             f"0, or {REACH:g} scales from the means): not a ruling a court can apply")
        return self

    def log_odds(self, values: Sequence[float]) -> float:
        """`intercept` plus each value's part, in order (inf or NaN when it leaves the floats: see
        `exact_sum`)."""
        return self.intercept + exact_sum([w * (v - m) / s for v, m, s, w in
                                           zip(values, self.mean, self.scale, self.weights)])

    def contributions(self, values: Mapping[str, float]) -> tuple[dict[str, float], list[str]]:
        """Each feature's part of the log-odds (and `intercept`), and the features `values` lacks (weighing
        nothing)."""
        parts = {"intercept": self.intercept}
        missing = []
        for name, mean, scale, weight in zip(self.features, self.mean, self.scale, self.weights):
            if name not in values:
                missing.append(name)
                continue
            parts[name] = weight * (values[name] - mean) / scale
        return parts, missing


class Probe(BaseModel):
    """A linear probe over a vector of the model's pass (attention pattern or hidden state): its score is a
    log-odds."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    source: Literal["lookback", "hidden"]
    linear: Linear
    """Over the vector's coordinates (features `0`, `1`, ...)."""

    def score(self, vector: Sequence[float]) -> float:
        if len(vector) != len(self.linear.weights):
            raise ConfigError(f"the ruling's {self.source} probe weighs {len(self.linear.weights)} values, "
                              f"the model's pass gave {len(vector)}: the ruling was fitted for another model")
        return self.linear.log_odds(vector)

    @property
    def direction(self) -> tuple[float, ...]:
        """Its weight per raw coordinate (weight over scale): `score(v)` is `offset` plus `v` dotted with it,
        so a door can project a vector onto it and report one number (`Observation.project_words`)."""
        return tuple(w / s for w, s in zip(self.linear.weights, self.linear.scale))

    @property
    def offset(self) -> float:
        """Its score of the zero vector (see `direction`)."""
        lin = self.linear
        return lin.intercept - math.fsum(w * m / s for w, m, s in zip(lin.weights, lin.mean, lin.scale))

    def scores(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        """The score of each vector (a word probe over each word's state), in one matrix product."""
        if not len(vectors):
            return []
        X = np.asarray(vectors, dtype=np.float64)
        lin = self.linear
        if X.ndim != 2 or X.shape[1] != len(lin.weights):
            raise ConfigError(f"the ruling's {self.source} probe weighs {len(lin.weights)} values, the "
                              f"model's pass gave {X.shape[-1]}: the ruling was fitted for another model")
        return (lin.intercept + ((X - np.array(lin.mean)) / np.array(lin.scale))
                @ np.array(lin.weights)).tolist()


class SpanModel(BaseModel):
    """How the court points at hallucinated words (`courtroom.witness.spans`): a logistic model over each
    word's values (`spans.FEATURES`), the word threshold, the gap of words a span may bridge, and the window
    its scores are smoothed over."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    linear: Linear
    threshold: float = Field(0.5, ge=0.0, le=1.0)
    max_gap: int = Field(1, ge=0, le=5)
    window: int = Field(0, ge=0, le=5, exclude_if=lambda v: v == 0)
    """Words on each side a word's score is averaged with before the threshold (`spans.smoothed`)."""
    probe: Probe | None = Field(None, exclude_if=lambda v: v is None)
    """A linear probe over each word's hidden state (`witnesses.word_states`), whose score the linear part
    weighs as its last value (`word_probe`)."""


class FamilyRuling(BaseModel):
    """The weights of one task family, and the threshold at which it calls an answer hallucinated."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    linear: Linear
    threshold: float = Field(0.5, ge=0.0, le=1.0)
    cases: int = Field(0, ge=0)
    """Labelled cases it was fitted on."""

    @model_validator(mode="before")
    @classmethod
    def _no_retired(cls, data: Any) -> Any:
        """A region (#53) or trial weights (#51), retired (`courts.migrations.RETIRED_SETTINGS`): read and
        left out."""
        return ({k: v for k, v in data.items() if k not in ("region", "trial")}
                if isinstance(data, dict) else data)


class FittedRuling(BaseModel):
    """A ruling file (`kind: courtroom-ruling`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    kind: Literal["courtroom-ruling"] = "courtroom-ruling"
    format: Literal[1] = FORMAT
    model: str
    """The model it was fitted for (`courtroom.door.models.model_key`)."""
    court: str
    witnesses: dict[str, int]
    """The witnesses it weighs, with the versions it was fitted on."""
    hidden_depth: float | None = None
    """The depth of the hidden state its hidden probe reads (None without one)."""
    probes: dict[str, Probe] = Field(default_factory=dict)
    families: dict[Family, FamilyRuling]
    spans: SpanModel | None = None
    """The fitted span model, when the ruling was fitted on cases with gold spans."""
    fitted: dict[str, object] = Field(default_factory=dict)
    """How it was fitted: cases, sources, command, date."""
    evaluation: dict[str, object] = Field(default_factory=dict)
    """Its out-of-fold numbers on the cases it was fitted on (cross-validated)."""

    @model_validator(mode="before")
    @classmethod
    def _no_trial_witness(cls, data: Any) -> Any:
        """The `trial` witness, named by rulings fitted on trial runs before trial weights were retired: left
        out."""
        if isinstance(data, dict) and isinstance(heard := data.get("witnesses"), dict) and "trial" in heard:
            return {**data, "witnesses": {k: v for k, v in heard.items() if k != "trial"}}
        return data

    @model_validator(mode="after")
    def _has_a_family(self) -> FittedRuling:
        if not self.families:
            raise ValueError("a ruling needs the weights of at least one task family")
        return self

    @property
    def fingerprint(self) -> str:
        """A short hash of its weights (what a verdict names)."""
        return content_hash(self.model_dump_json(include={"probes", "families"}))[:12]

    def family_for(self, family: str) -> tuple[str, FamilyRuling]:
        """The family's weights, or those fitted on every family (`any`), or the first there is."""
        for name in (family, "any"):
            if name in self.families:
                return name, self.families[name]  # type: ignore[index]
        name = next(iter(self.families))
        return name, self.families[name]

    def word_scores(self, word_states: Sequence[Sequence[float]] | None) -> list[float] | None:
        """Its word probe's log-odds of each word's state (None without a word probe or the states)."""
        if word_states is None or self.spans is None or self.spans.probe is None:
            return None
        return self.spans.probe.scores(word_states)

    def features(self, testimony: Sequence[Testimony], vectors: Mapping[str, Sequence[float]],
                 sentence: int | None = None, word_scores: Sequence[float] | None = None) -> dict[str, float]:
        """The values this ruling weighs of the whole answer (or a sentence): testimony, probe scores, word
        values."""
        return self.with_probes(testimony_values(testimony, sentence), vectors, word_scores)

    def with_probes(self, values: Mapping[str, float], vectors: Mapping[str, Sequence[float]],
                    word_scores: Sequence[float] | None = None) -> dict[str, float]:
        """`values`, the probes' scores over `vectors`, and `word_values` of the word probe's
        `word_scores`."""
        values = dict(values)
        for name, probe in self.probes.items():
            if name in vectors:
                values[f"{name}.probe"] = probe.score(vectors[name])
        if word_scores and self.spans is not None and self.spans.probe is not None:
            values.update(word_values(word_scores))
        return values

    def weigh(self, testimony: Sequence[Testimony], vectors: Mapping[str, Sequence[float]], family: str,
              sentence: int | None = None, word_scores: Sequence[float] | None = None) -> Weighing:
        """P(hallucinated) of the answer (or a sentence), with each value's part."""
        return self.weigh_values(self.features(testimony, vectors, sentence, word_scores), family)

    def weigh_values(self, values: Mapping[str, float], family: str) -> Weighing:
        """P(hallucinated) from the values `features` gives."""
        used, weights = self.family_for(family)
        parts, missing = weights.linear.contributions(values)
        z = exact_sum(list(parts.values()))
        if not math.isfinite(z):  # a value the ruling cannot weigh: never a verdict at P = 0 or 1 by default
            bad = sorted(k for k, v in parts.items() if not math.isfinite(v))
            raise ConfigError(f"the ruling {self.court}/{self.model} cannot weigh this testimony: the "
                              f"log-odds is {z} (from "
                              f"{', '.join(f'{k} = {values.get(k, parts[k])}' for k in bad) or 'the sum'})")
        p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
        return Weighing(ruling=f"{self.court}/{self.model}/{self.fingerprint}", family=used,
                        log_odds=round(z, 6), p_hallucinated=round(p, 6), threshold=weights.threshold,
                        contributions={k: round(v, 6) for k, v in parts.items()}, missing=missing)


def exact_sum(terms: Sequence[float]) -> float:
    """`math.fsum`, or the plain sum (inf or NaN) where the terms leave the floats, for the caller to
    refuse."""
    try:
        return math.fsum(terms)
    except (OverflowError, ValueError):  # an intermediate sum beyond a float, or inf - inf
        return sum(terms)


WORD_VALUES = ("hidden.words_max", "hidden.words_top3", "hidden.words_share")
"""What a word probe (`SpanModel.probe`) says of a text's words, as values a ruling may weigh: the highest
word's log-odds, the mean of the three highest, and the share of words it finds more likely false than not."""


def word_values(scores: Sequence[float]) -> dict[str, float]:
    """`WORD_VALUES` from the word probe's log-odds of each word (none without words)."""
    if not scores:
        return {}
    top = sorted(scores, reverse=True)
    return dict(zip(WORD_VALUES, (float(top[0]), float(sum(top[:3]) / len(top[:3])),
                                  float(sum(s > 0 for s in scores) / len(scores)))))


def testimony_values(testimony: Sequence[Testimony], sentence: int | None = None) -> dict[str, float]:
    """The testimony's values of the whole answer (or of one sentence), named `witness.value`."""
    values: dict[str, float] = {}
    for t in testimony:
        if not t.heard:
            continue
        source = t.values if sentence is None else (t.sentences[sentence]
                                                    if sentence < len(t.sentences) else {})
        values.update({f"{t.witness}.{k}": v for k, v in source.items()})
    return values
