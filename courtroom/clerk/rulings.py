"""Rulings named by a court file: read (a regular file, not too large), validated, and checked against the clerk (name,
witnesses and versions, hidden depth, values) and the model it is filed under."""

from __future__ import annotations

import stat
from collections.abc import Collection, Mapping
from pathlib import Path

from pydantic import ValidationError

from courtroom.clerk.files import courts_dir
from courtroom.clerk.spec import ClerkSpec, SpecT
from courtroom.door.models import model_key
from courtroom.errors import CourtError
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import WORD_VALUES, FittedRuling
from courtroom.witness.spans import FEATURES, WORD_PROBE
from courtroom.yamlio import Locator, describe_errors, read_yaml


def load_rulings(spec: SpecT, path: Path, locator: Locator, courts: Collection[str] | None = (),
                 origin: Mapping[tuple[str, ...], str] | None = None) -> SpecT:
    """The court with every ruling it names by file read and checked (see `check_ruling`); a file is found relative to
    the court file that names it (`origin`: the file each setting came from, through `extends`), else `path`."""
    witnesses = spec.witnesses
    if witnesses is None or not witnesses.rulings:
        return spec
    loaded: dict[str, FittedRuling | str] = {}
    for model, ruling in witnesses.rulings.items():
        where = f"{path}:{locator.line(['witnesses', 'rulings', model]) or ''}: field witnesses.rulings.{model}"
        if isinstance(ruling, str):
            file = ruling_file(ruling, Path((origin or {}).get(("witnesses", "rulings", model), path)))
            _check_readable(file, where)
            data, file_locator = read_yaml(file, CourtError)
            try:
                ruling = FittedRuling.model_validate(data)
            except ValidationError as exc:
                raise CourtError(f"{where}: {file} is not a ruling file:\n{describe_errors(file, exc, file_locator)}") \
                    from exc
        check_ruling(ruling, spec, model, where, courts)
        loaded[model] = ruling
    return spec.model_copy(update={"witnesses": witnesses.model_copy(update={"rulings": loaded})})


MAX_RULING_BYTES = 32 * 2**20
"""The largest ruling file read (a 7B model's probes take a few MB)."""


def _check_readable(file: Path, where: str) -> None:
    """A ruling file is a regular file of at most `MAX_RULING_BYTES`: a device (`/dev/zero`), a FIFO or a directory
    is refused before it is opened (reading one would exhaust memory or hang)."""
    try:
        info = file.stat()
    except OSError as exc:
        raise CourtError(f"{where}: cannot read the ruling file {file} ({exc.strerror})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise CourtError(f"{where}: {file} is not a regular file: a ruling is a YAML file")
    if info.st_size > MAX_RULING_BYTES:
        raise CourtError(f"{where}: {file} is {info.st_size} bytes, over the {MAX_RULING_BYTES} a ruling file may be")


def ruling_file(name: str, court_file: Path) -> Path:
    """A ruling file named in a court: relative to the court file, else among the shipped courts' (a copy of a
    shipped court elsewhere keeps its rulings, as it keeps its personas)."""
    path = Path(name)
    if path.is_absolute():
        return path
    beside = court_file.parent / path
    shipped = courts_dir() / path
    return beside if beside.is_file() or not shipped.is_file() else shipped


def check_ruling(ruling: FittedRuling, spec: ClerkSpec, model: str, where: str,
                 courts: Collection[str] | None = ()) -> None:
    """A ruling decides only for the model and court it was fitted for (or a court it extends, `courts`; any court for a
    recorded run, `None`), over the witnesses and versions it was fitted on; anything else is refused, naming both."""
    witnesses = spec.witnesses
    assert witnesses is not None
    if model_key(ruling.model) != model_key(model):
        raise CourtError(f"{where}: the ruling was fitted for model {ruling.model!r}, and is filed under {model!r}: "
                         f"fit one for {model!r} (courtroom calibrate --ruling) or file it under its own model")
    if courts is not None and ruling.court not in {spec.name, *courts}:
        raise CourtError(f"{where}: the ruling was fitted for court {ruling.court!r}, not for court {spec.name!r}"
                         + (f" (nor for {', '.join(courts)}, which it extends)" if courts else ""))
    for name, version in ruling.witnesses.items():
        if name not in witnesses.heard:
            raise CourtError(f"{where}: the ruling weighs witness {name!r}, which court {spec.name!r} does not hear "
                             f"(it hears {', '.join(witnesses.heard)})")
        if name in WITNESSES and WITNESSES[name].version != version:
            raise CourtError(f"{where}: the ruling was fitted on witness {name!r} version {version}; this courtroom's "
                             f"is version {WITNESSES[name].version}: refit it (courtroom calibrate --ruling)")
    if unknown := unknown_features(ruling):
        raise CourtError(f"{where}: the ruling weighs {', '.join(unknown)}, which no witness it weighs gives (a ruling "
                         f"decided by its intercept alone is no ruling): refit it (courtroom calibrate --ruling)")
    reads_states = "hidden" in ruling.probes or (ruling.spans is not None and ruling.spans.probe is not None)
    if reads_states and ruling.hidden_depth != witnesses.hidden_depth:
        raise CourtError(f"{where}: the ruling's hidden-state probes read depth {ruling.hidden_depth}, the court's "
                         f"witnesses.hidden_depth is {witnesses.hidden_depth}")


def unknown_features(ruling: FittedRuling) -> list[str]:
    """The values a ruling weighs that none of its witnesses gives (`witness.value`), nor its probes (`NAME.probe`,
    the word probe's `WORD_VALUES`), nor, for its span model, the words' values (`spans.FEATURES`)."""
    known = {f"{name}.{value}" for name in ruling.witnesses if name in WITNESSES for value in WITNESSES[name].values}
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
