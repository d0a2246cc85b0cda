"""The witnesses by name: what each needs from the door, its version, and how it testifies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from courtroom.case import Testimony
from courtroom.witness import figures, grounding, hidden, lookback, names, overlap, polarity, verdict
from courtroom.witness.reading import Reading

Need = Literal["logprobs", "attention", "hidden_states"]


@dataclass(frozen=True)
class GroundingSettings:
    """The court's grounding measure, which the grounding witness reports by (`GroundingSpec`)."""

    clip: float | None = 2.0
    center: float = 0.4
    scale: float = 0.3


@dataclass(frozen=True)
class Witness:
    """A named, versioned measurement of a case."""

    name: str
    version: int
    needs: frozenset[Need]
    testify: Callable[[Reading, GroundingSettings], Testimony]
    about: str
    values: tuple[str, ...]
    """The names of the values it gives (of the whole answer and of each sentence): what a ruling may
    weigh."""


WITNESSES: dict[str, Witness] = {w.name: w for w in (
    Witness("grounding", grounding.VERSION, frozenset({"logprobs"}),
            lambda r, g: grounding.testify(r, g.clip, g.center, g.scale),
            "how much likelier the context makes the answer's tokens (mean, low tail, rare words, surprise)",
            (*grounding.VARIANTS, *(f"worst_{v}" for v in grounding.VARIANTS), "share")),
    Witness("lookback", lookback.VERSION, frozenset({"logprobs", "attention"}), lambda r,
            g: lookback.testify(r),
            "the share of attention the answer's tokens pay to the context, per layer and head", ("mean",)),
    Witness("hidden", hidden.VERSION, frozenset({"logprobs", "hidden_states"}), lambda r,
            g: hidden.testify(r),
            "the model's hidden state while reading the answer, for a fitted probe", ()),
    Witness("figures", figures.VERSION, frozenset(), lambda r, g: figures.testify(r),
            "every number of the answer looked up in the context, or computed from it", figures.STATUSES),
    Witness("names", names.VERSION, frozenset(), lambda r, g: names.testify(r),
            "every name of the answer looked up in the context", ("absent", "absent_share")),
    Witness("polarity", polarity.VERSION, frozenset(), lambda r, g: polarity.testify(r),
            "the answer's yes or no, and negations that disagree with the closest context sentence",
            ("answer", "flipped")),
    Witness("overlap", overlap.VERSION, frozenset(), lambda r, g: overlap.testify(r),
            "the share of the answer's content words the context never uses", ("unsupported",)),
    Witness("verdict", verdict.VERSION, frozenset({"logprobs"}), lambda r, g: verdict.testify(r),
            "the model's own yes or no to a yes/no question, against the answer's", ("agrees",)),
)}
"""Every witness, by name: a witness is registered here, once."""
WitnessName = Literal[tuple(WITNESSES)]  # type: ignore[valid-type]
"""A witness's name, as court files write it (the keys of `WITNESSES`)."""

READING_NEEDS: dict[Need, Callable[[Reading], bool]] = {
    "logprobs": lambda r: r.full is not None and r.bare is not None,
    "attention": lambda r: r.lookback is not None and r.token_lookback is not None,
    "hidden_states": lambda r: r.hidden is not None,
}


def hear(reading: Reading, heard: Sequence[str], settings: GroundingSettings) -> list[Testimony]:
    """The testimony of each witness named, in order; one whose needs are not met is recorded as not heard,
    with why."""
    out = []
    for name in heard:
        witness = WITNESSES[name]
        lacking = [need for need in sorted(witness.needs) if not READING_NEEDS[need](reading)]
        if lacking:
            why = "; ".join(reading.unheard.get(need, f"the run recorded no {need}") for need in lacking)
            out.append(Testimony(witness=name, version=witness.version, heard=False, why_not=why))
        else:
            out.append(witness.testify(reading, settings))
    return out
