"""A ruling checked against the clerk it decides for (name, witnesses, versions, hidden depth, values) and its
model."""

from __future__ import annotations

from collections.abc import Collection

from courtroom.clerk.spec import ClerkSpec
from courtroom.door.models import model_key
from courtroom.errors import CourtError
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import WORD_VALUES, FittedRuling
from courtroom.witness.spans import FEATURES, WORD_PROBE


def check_ruling(ruling: FittedRuling, spec: ClerkSpec, model: str, where: str,
                 courts: Collection[str] | None = ()) -> None:
    """A ruling decides only for the model and court it was fitted for (or one it extends, `courts`; any,
    `None`), over the witnesses and versions it was fitted on; else refused, naming both."""
    witnesses = spec.witnesses
    assert witnesses is not None
    if model_key(ruling.model) != model_key(model):
        raise CourtError(f"{where}: the ruling was fitted for model {ruling.model!r}, and is filed under "
                         f"{model!r}: fit one for {model!r} (courtroom calibrate --ruling) or file it under "
                         "its own model")
    if courts is not None and ruling.court not in {spec.name, *courts}:
        raise CourtError(f"{where}: the ruling was fitted for court {ruling.court!r}, not for court "
                         f"{spec.name!r}"
                         + (f" (nor for {', '.join(courts)}, which it extends)" if courts else ""))
    for name, version in ruling.witnesses.items():
        if name not in witnesses.heard:
            raise CourtError(f"{where}: the ruling weighs witness {name!r}, which court {spec.name!r} does "
                             f"not hear (it hears {', '.join(witnesses.heard)})")
        now = WITNESSES[name].version if name in WITNESSES else version
        if now != version:
            raise CourtError(f"{where}: the ruling was fitted on witness {name!r} version {version}; this "
                             f"courtroom's is version {now}: refit it (courtroom calibrate --ruling)")
    if unknown := unknown_features(ruling):
        raise CourtError(f"{where}: the ruling weighs {', '.join(unknown)}, which no witness it weighs gives "
                         "(a ruling decided by its intercept alone is no ruling): refit it (courtroom "
                         "calibrate --ruling)")
    reads_states = "hidden" in ruling.probes or (ruling.spans is not None and ruling.spans.probe is not None)
    if reads_states and ruling.hidden_depth != witnesses.hidden_depth:
        raise CourtError(f"{where}: the ruling's hidden-state probes read depth {ruling.hidden_depth}, the "
                         f"court's witnesses.hidden_depth is {witnesses.hidden_depth}")


def unknown_features(ruling: FittedRuling) -> list[str]:
    """The values a ruling weighs that none of its witnesses, probes or words' values give."""
    given = {name: WITNESSES[name].values for name in ruling.witnesses if name in WITNESSES}
    known = {f"{name}.{value}" for name in ruling.witnesses for value in given.get(name, ())}
    known |= {f"{name}.probe" for name in ruling.probes}
    if ruling.spans is not None and ruling.spans.probe is not None:
        known |= set(WORD_VALUES)
    weighed = [f for family in ruling.families.values() for f in family.linear.features]
    unknown = [f"families: {f}" for f in dict.fromkeys(weighed) if f not in known]
    if ruling.spans is not None and ruling.spans.linear.features:  # weighed by position: the names, in order
        words = [*FEATURES, *([WORD_PROBE] if ruling.spans.probe is not None else [])]
        if ruling.spans.linear.features != words:
            unknown.append(f"spans: {', '.join(ruling.spans.linear.features)} (the words' values are "
                           f"{', '.join(words)}, in this order)")
    return unknown
