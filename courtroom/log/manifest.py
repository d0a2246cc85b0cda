"""A run's manifest: what ran (`RunSpec`: cases, judge, model door, runner), the judge's configuration and
hash (the run's identity), and what produced every number. Version 1 manifests are read through
`migrate_v1`."""

from __future__ import annotations

import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

import courtroom.baselines
import courtroom.courts  # noqa: F401 (with the baselines: the judges register themselves, `engine.registry`)
from courtroom.case import Case
from courtroom.digest import content_hash
from courtroom.door.backend import Backend, ServerCapabilities
from courtroom.door.http_client import refuse_credentials
from courtroom.door.spec import BackendSpec, HostGrant, Placement
from courtroom.engine.judge import Judge
from courtroom.engine.migrations import retired
from courtroom.engine.registry import JudgeSpec, judge_from_config, upgrade_config
from courtroom.errors import ConfigError, RunError, did_you_mean
from courtroom.evaluate.selection import CaseSelection

MANIFEST_VERSION = 2
JudgeConfig = dict[str, Any]
"""A judge's full configuration as `Judge.config()` gives it (for a court: its file and every persona)."""

RunnerKind = Literal["local", "ray"]


class RunnerSpec(BaseModel):
    """Where the cases are judged."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: RunnerKind = "local"
    """local: in this process; ray: on Ray actors, one model replica each."""
    workers: int = Field(1, ge=1)
    """Ray workers (model replicas)."""
    gpus_per_worker: float = Field(0.0, ge=0.0)
    """GPUs per Ray worker; a fraction packs replicas on one GPU."""
    address: str | None = None
    """A Ray cluster to join (default: start a local one)."""
    chunk_timeout: float | None = Field(None, gt=0)
    """Seconds a Ray worker may take over a chunk of cases before it is deemed hung, killed and replaced
    (its cases retried alone); None waits as long as it takes."""


RUN_SETTINGS: dict[str, str] = {
    **dict.fromkeys(("dataset", "field_map", "limit", "balanced", "seed", "sources", "exclude"), "selection"),
    **dict.fromkeys(("model", "api_key_env", "concurrency", "engine", "device", "dtype"), "backend"),
    **dict.fromkeys(("workers", "gpus_per_worker", "chunk_timeout"), "runner"), "window": "run",
    "skip_invalid": "run",
    "judge": "judge.name", "court": "judge", "judge_options": "judge.options", "model_url": "backend.url",
    "request_timeout": "backend.timeout", "runner": "runner.kind", "ray_address": "runner.address",
    "allow_hosts": "run.hosts"}
"""Where each flat setting of a run (`courtroom run`, `courtroom.run`) goes: `section[.field]` (`run`: the
spec)."""


class RunSpec(BaseModel):
    """Everything that defines a run."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    selection: CaseSelection
    judge: JudgeSpec = JudgeSpec()
    backend: BackendSpec = BackendSpec()
    runner: RunnerSpec = RunnerSpec()
    window: int = Field(8, ge=1)
    """Cases advanced together in lockstep (the batch window)."""
    skip_invalid: bool = False
    """Skip and count invalid dataset rows instead of stopping."""
    hosts: list[HostGrant] = Field(default_factory=list, exclude_if=lambda v: not v)
    """The hosts the user consented to besides `--model-url`'s (`--allow-host`): a court's seats call no other
    (`courtroom.runs.hosts`)."""

    @classmethod
    def build(cls, dataset: str, **settings: Any) -> RunSpec:
        """A spec from flat settings (`RUN_SETTINGS`); a bad setting is a `ConfigError` naming it (no
        credentials)."""
        parts: dict[str, dict[str, Any]] = {where.partition(".")[0]: {} for where in RUN_SETTINGS.values()}
        for name, value in {"dataset": dataset, **settings}.items():
            if name not in RUN_SETTINGS:
                raise ConfigError(f"{name!r} is not a setting of a run" + did_you_mean(name, RUN_SETTINGS))
            section, _, field = RUN_SETTINGS[name].partition(".")
            parts[section][field or name] = value
        judge, run = parts["judge"], parts["run"]
        try:
            if (url := parts["backend"].get("url")) is not None:
                refuse_credentials(url)  # first: the spec's own errors would repeat the URL
            return cls(selection=CaseSelection(**parts["selection"]), runner=RunnerSpec(**parts["runner"]),
                       judge=JudgeSpec(**{**judge, "options": judge.get("options") or {}}),
                       backend=BackendSpec.of(**parts["backend"]),
                       **{**run, "hosts": [HostGrant.parse(grant) for grant in run.get("hosts", ())]})
        except ValidationError as exc:
            raise ConfigError("; ".join(f"{exc.title}.{'.'.join(map(str, e['loc']))}: "
                                        f"{e['msg'].removeprefix('Value error, ')} (got {e['input']!r})"
                                        for e in exc.errors())) from None
        except ValueError as exc:  # credentials in the URL, named without them
            raise ConfigError(str(exc)) from None


class RunOrigin(BaseModel):
    """Where a rejudged run's model calls came from."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    rejudged_from: str
    """The run whose transcripts were decided again."""
    changed: dict[str, str] = Field(default_factory=dict)
    """What was changed (`court`, `reading`)."""
    calls_from: list[str] = Field(default_factory=list)
    """Other runs of the same cases that served recorded calls."""


class CaseDigests(BaseModel):
    """The cases a run judges, by digest (`Case.digest()`): data changed under a run is noticed on resume and
    verify."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    digest: str
    """The hash of all of them (the selected data's digest; the same cases in another order have the same)."""
    cases: dict[str, str]
    """Case id -> `Case.digest()`, in the order selected."""

    @classmethod
    def of(cls, cases: Sequence[Case]) -> CaseDigests:
        digests = {case.id: case.digest() for case in cases}
        return cls(digest=content_hash("\n".join(sorted(f"{i}\t{d}" for i, d in digests.items()))),
                   cases=digests)

    def changes(self, now: CaseDigests) -> str | None:
        """What differs in `now`, as `N cases changed, M new, K gone (first changed: 'id')`; None if
        nothing."""
        if now.digest == self.digest:
            return None
        changed = [i for i, d in now.cases.items() if i in self.cases and self.cases[i] != d]
        new = [i for i in now.cases if i not in self.cases]
        gone = [i for i in self.cases if i not in now.cases]
        first = next((f"first {what}: {ids[0]!r}" for what, ids in (("changed", changed), ("new", new),
                                                                    ("gone", gone))
                      if ids), "the recorded digest is not its cases'")
        return (f"{len(changed)} {'case' if len(changed) == 1 else 'cases'} changed, {len(new)} new, "
                f"{len(gone)} gone ({first})")


def _git_sha() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for package in ("courtroom", "torch", "transformers", "outlines", "outlines_core", "xgrammar",
                    "llguidance", "pydantic", "networkx", "ray"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


class Manifest(BaseModel):
    """What a run was: enough to rebuild the judge and to know what produced every number."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    schema_version: Literal[2] = MANIFEST_VERSION
    """Version of this manifest's layout (version 1 is migrated on reading)."""
    name: str
    created: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    """When the run was first started (UTC)."""
    spec: RunSpec
    judge: JudgeConfig
    """The judge's full configuration (for the court: the court file and every persona, in full)."""
    config_hash: str
    """Hash of `judge`: the identity of the run's judge, carried by every transcript."""
    origin: RunOrigin | None = None
    """For a rejudged run: where its model calls came from."""
    server: ServerCapabilities | None = None
    """For a model behind a server: what the server was found to support when the run started
    (`Backend.server`)."""
    placement: Placement | None = Field(None, exclude_if=lambda v: v is None)
    """For a model in this process: the device and dtype it computes in, `auto` resolved where the run
    started."""
    cases: CaseDigests | None = Field(None, exclude_if=lambda v: v is None)
    """The cases the run judges (or a rejudge decides again), by digest; None in manifests before runs kept
    them."""
    versions: dict[str, str | None] = Field(default_factory=_versions)
    git_sha: str | None = Field(default_factory=_git_sha)
    """The commit of courtroom's repository, when run from one."""
    command: list[str] = Field(default_factory=lambda: list(sys.argv))
    _path: Path | None = PrivateAttr(None)
    _upgraded: tuple[JudgeConfig, list[str]] | None = PrivateAttr(None)

    @property
    def source(self) -> str:
        """Where the manifest was read from (named in errors), or the run's name."""
        return str(self._path) if self._path is not None else f"the manifest of run {self.name}"

    def read_from(self, path: Path) -> Manifest:
        """This manifest, known to be read from `path`."""
        self._path = path
        return self

    @property
    def model(self) -> str:
        """The model the run's judge spoke to."""
        return self.spec.backend.model

    @property
    def upgraded_judge(self) -> tuple[JudgeConfig, list[str]]:
        """The recorded judge configuration brought up to date (the one place), and the migrations applied."""
        if self._upgraded is None:
            self._upgraded = upgrade_config(self.judge)
        return self._upgraded

    @property
    def judge_config(self) -> JudgeConfig:
        """The recorded judge configuration, up to date (`judge` stays as recorded: its hash is the run's
        identity)."""
        return self.upgraded_judge[0]

    def rebuild_judge(self, backend: Backend | BackendSpec | None = None, **options: Any) -> Judge:
        """The judge this run was made with (the one place it is rebuilt), on `backend`, with `options` (a
        court's `overrides`, `window`); refused, naming why, when this version of courtroom cannot make it."""
        if why := retired(self.config_hash):
            raise RunError(f"run {self.name}: its judge is retired ({why}); its results can be read and "
                           "compared, not replayed or resumed")
        upgraded = self.judge_config
        judge = judge_from_config(upgraded, backend or self.spec.backend, source=self.source, **options)
        if not options.get("overrides") and judge.config() != upgraded:
            differing = judge_differences([judge.config(), upgraded])
            raise RunError(f"run {self.name}: this version of courtroom rebuilds its judge with other "
                           f"settings ({', '.join(differing)}); it can be read and compared, not replayed")
        return judge

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("schema_version", 1) == 1 and "spec" not in data:
            return migrate_v1(data)
        return data


def migrate_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 manifest (loose `backend`, `dataset` and `options` dictionaries) as version 2."""
    options = dict(data.get("options", {}))
    backend = data.get("backend", {})
    spec = {
        "selection": {**data.get("dataset", {}),
                      "exclude": options.get("exclude", data.get("dataset", {}).get("exclude", []))},
        "judge": {"name": options.get("judge", data["judge"].get("judge", "courtroom")),
                  "court": options.get("court", "default"), "options": options.get("judge_options", {})},
        "backend": {"model": backend.get("model", options.get("model", "default")),
                    "engine": backend.get("engine", "xgrammar"), "device": backend.get("device", "auto")},
        "runner": {"kind": options.get("runner", "local"), "workers": options.get("workers", 1),
                   "gpus_per_worker": options.get("gpus_per_worker", 0.0),
                   "address": options.get("ray_address")},
        "window": options.get("window", 8), "skip_invalid": options.get("skip_invalid", False),
    }
    origin = None
    if "rejudged_from" in options:
        # version 1 wrote the change over the source's options: a new reading, else a new court
        changed = ({"reading": options["reading"]}
                   if "reading" in options else {"court": options.get("court", "default")})
        origin = {"rejudged_from": options["rejudged_from"], "changed": changed,
                  "calls_from": options.get("calls_from", [])}
    kept = {key: data[key] for key in ("name", "created", "judge", "config_hash", "versions", "git_sha",
                                       "command")
            if key in data}
    return {**kept, "schema_version": MANIFEST_VERSION, "spec": spec, "origin": origin}


def judge_differences(configs: list[JudgeConfig]) -> list[str]:
    """The judge settings (top-level keys, or `key.subkey` one level down) that differ between
    configurations."""
    differing = []
    for key in sorted({k for config in configs for k in config}):
        values = [config.get(key) for config in configs]
        if all(value == values[0] for value in values):
            continue
        if all(isinstance(value, dict) for value in values):
            differing += [f"{key}.{sub}" for sub in sorted({s for value in values for s in value})
                          if any(value.get(sub) != values[0].get(sub) for value in values)]
        else:
            differing.append(key)
    return differing


def setting_differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Every setting that differs between two configurations, as `path: old -> new` (long values cut)."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in new:
                found.append(f"{path}: {_short(old[key])} -> (not set)")
            elif key not in old:
                found.append(f"{path}: (not set) -> {_short(new[key])}")
            else:
                found += setting_differences(old[key], new[key], path)
        return found
    return [] if old == new else [f"{prefix or 'value'}: {_short(old)} -> {_short(new)}"]


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."
