"""Court files: found by name or path, resolved through `extends` and brought up to date, into one mapping of
settings with where each came from (`CourtFile`); a `--set` read; the ruling files a court names
(`load_rulings`); the schema of the files."""

from __future__ import annotations

import copy
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.clerk.rulings import check_ruling
from courtroom.clerk.spec import SpecT
from courtroom.court.personas import shipped_dir
from courtroom.court.spec import CourtSpec
from courtroom.courts.migrations import flat_court, nest_trial, retired_in, without_retired_defaults
from courtroom.errors import CourtError, did_you_mean
from courtroom.witness.ruling import FittedRuling
from courtroom.yamlio import Locator, describe_errors, read_yaml

MAX_EXTENDS = 8
"""The longest chain of courts extending one another."""

def courts_dir() -> Path:
    """The directory of the shipped courts."""
    return shipped_dir() / "courts"


def shipped_courts() -> list[str]:
    """The names of the shipped courts."""
    return sorted(p.stem for p in courts_dir().glob("*.yaml"))


def find_court_file(name: str, near: Path | None = None) -> Path:
    """A court by path (first relative to `near`, the folder of the court naming it), or by a shipped court's
    name."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        for candidate in ([near / path] if near is not None and not path.is_absolute() else []) + [path]:
            if candidate.is_file():
                return candidate
        raise CourtError(f"court file {path} does not exist")
    candidate = courts_dir() / f"{name}.yaml"
    if candidate.is_file():
        return candidate
    raise CourtError(f"unknown court {name!r}: not a file, and not one of the shipped courts "
                     f"{shipped_courts()}"
                     + did_you_mean(name, shipped_courts()))


@dataclass
class CourtFile:
    """A court file resolved: its settings as one mapping, the file and its lines, and where each setting came
    from."""

    path: Path
    data: dict[str, Any]
    locator: Locator
    origin: dict[tuple[str, ...], str] = field(default_factory=dict)
    """The path of every setting written in a file of the chain, and the file that set it last."""
    lineage: tuple[str, ...] = ()
    """The names of the courts it extends, nearest first (their rulings decide here too: the same
    measurement)."""

    @property
    def trial(self) -> dict[str, Any] | None:
        """The trial section, when the court holds trials."""
        return self.data.get("trial")


def read_court(name_or_path: str | Path) -> CourtFile:
    """A court file by name or path, resolved through `extends` and brought up to date."""
    return _resolve(find_court_file(str(name_or_path)), [])


def _resolve(path: Path, chain: list[Path]) -> CourtFile:
    """A court file with the court it extends merged under it."""
    if path.resolve() in chain:
        raise CourtError(f"{path}: field extends: the courts extend one another in a circle "
                         f"({' -> '.join(str(p) for p in [*chain, path.resolve()])})")
    if len(chain) >= MAX_EXTENDS:
        raise CourtError(f"{path}: field extends: more than {MAX_EXTENDS} courts extend one another")
    data, locator = read_yaml(path, CourtError)
    if retired := retired_in({**data, **(data.get("trial") if isinstance(data.get("trial"), dict) else {})}):
        raise CourtError(retired[0].message(str(path)))
    data = nest_trial(data, str(path)) if flat_court(data) else data
    if isinstance(data.get("trial"), dict):  # a court written out whole before court 12 (`calibrate -o`)
        data["trial"] = without_retired_defaults(data["trial"])
    parent_name = data.pop("extends", None)
    if parent_name is None and "trial" in data and data["trial"] is None:
        del data["trial"]  # a court written out whole (`calibrate -o`) says it tries nothing
    own = {leaf: str(path) for leaf in _leaves(data)}
    if parent_name is None:
        return CourtFile(path, data, locator, own)
    if not isinstance(parent_name, str) or not parent_name:
        raise CourtError(f"{path}:{locator.line(['extends'])}: field extends: expected a court's name or "
                         "file")
    if "name" not in data:
        raise CourtError(f"{path}: field name: a court that extends another names itself (its runs are named "
                         "by it)")
    try:
        parent = _resolve(find_court_file(parent_name, path.parent), [*chain, path.resolve()])
    except CourtError as exc:
        raise CourtError(f"{path}:{locator.line(['extends'])}: field extends: {exc}") from exc
    return CourtFile(path, _merged(parent.data, data), locator, {**parent.origin, **own},
                     (str(parent.data.get("name", parent.path.stem)), *parent.lineage))


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`: mappings merged key by key, everything else (lists, text, numbers) replaced
    whole; a mapping set to null is removed (the setting's default applies: `witnesses: null` hears none)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None and isinstance(out.get(key), dict):
            del out[key]
        elif isinstance(value, dict) and isinstance(out.get(key), dict) and key != "rulings":
            out[key] = _merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _leaves(data: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(data, dict) and data:
        return [leaf for key, value in data.items() for leaf in _leaves(value, (*prefix, str(key)))]
    return [prefix]


def parse_override(item: str) -> tuple[str, Any]:
    """`aggregation.threshold=0.4` -> `("aggregation.threshold", 0.4)`, the value read as YAML."""
    import yaml

    path, sep, text = item.partition("=")
    if not sep or not path.strip():
        raise CourtError(f"--set {item!r}: expected FIELD=VALUE, e.g. aggregation.threshold=0.4")
    try:
        value = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: an integer of more digits than Python reads
        raise CourtError(f"--set {item!r}: the value is not valid YAML ({exc})") from exc
    return path.strip(), value


def resolved_settings(court: CourtFile, settings: dict[str, Any]) -> list[tuple[tuple[str, ...], Any, str]]:
    """Every setting a court resolves to (`settings`: its spec dumped), with the file that set it last or
    `default`."""
    out = []
    for path in _leaves(settings):
        value: Any = settings
        for key in path:
            value = value[key]
        origin = next((court.origin[path[:n]] for n in range(len(path), 0, -1) if path[:n] in court.origin),
                      "default")
        out.append((path, value, origin))
    return out


def load_rulings(spec: SpecT, path: Path, locator: Locator, courts: Collection[str] | None = (),
                 origin: Mapping[tuple[str, ...], str] | None = None) -> SpecT:
    """The court with every ruling it names read and checked, each found beside the court file naming it
    (`origin`)."""
    witnesses = spec.witnesses
    if witnesses is None or not witnesses.rulings:
        return spec
    loaded: dict[str, FittedRuling | str] = {}
    for model, ruling in witnesses.rulings.items():
        where = (f"{path}:{locator.line(['witnesses', 'rulings', model]) or ''}: field "
                 f"witnesses.rulings.{model}")
        if isinstance(ruling, str):
            file = ruling_file(ruling, Path((origin or {}).get(("witnesses", "rulings", model), path)))
            check_ruling_file(file, where)
            data, file_locator = read_yaml(file, CourtError)
            try:
                ruling = FittedRuling.model_validate(data)
            except ValidationError as exc:
                raise CourtError(f"{where}: {file} is not a ruling "
                                 f"file:\n{describe_errors(file, exc, file_locator)}") \
                    from exc
        check_ruling(ruling, spec, model, where, courts)
        loaded[model] = ruling
    return spec.model_copy(update={"witnesses": witnesses.model_copy(update={"rulings": loaded})})


MAX_RULING_BYTES = 32 * 2**20
"""The largest ruling file read (a 7B model's probes take a few MB)."""


def check_ruling_file(file: Path, where: str) -> None:
    """A ruling file is a regular file of at most `MAX_RULING_BYTES`: a device (`/dev/zero`), a FIFO or a
    directory is refused before it is opened (reading one would exhaust memory or hang)."""
    try:
        info = file.stat()
    except OSError as exc:
        raise CourtError(f"{where}: cannot read the ruling file {file} ({exc.strerror})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise CourtError(f"{where}: {file} is not a regular file: a ruling is a YAML file")
    if info.st_size > MAX_RULING_BYTES:
        raise CourtError(f"{where}: {file} is {info.st_size} bytes, over the {MAX_RULING_BYTES} a ruling "
                         "file may be")


def ruling_file(name: str, court_file: Path) -> Path:
    """A ruling file named in a court: relative to the court file, else among the shipped courts'."""
    path = Path(name)
    if path.is_absolute():
        return path
    beside = court_file.parent / path
    shipped = courts_dir() / path
    return beside if beside.is_file() or not shipped.is_file() else shipped


def court_json_schema() -> dict[str, Any]:
    """JSON Schema of court files, for editors."""
    schema = CourtSpec.model_json_schema(by_alias=True)
    schema["title"] = "courtroom court"
    schema["properties"]["extends"] = {"type": "string", "title": "Extends", "description": (
        "Another court (a shipped court's name, or a file relative to this one) whose settings this court "
        "takes, changing only those it writes (a section's settings one by one; a list or a text whole)")}
    return schema
