"""Evaluation runs: a dataset, a judge and a model, streamed to a run directory, resumable.

`start_run` validates everything (dataset rows, court, model name) before any model loads, opens
or resumes the run directory, and returns a `Run` whose `execute` judges the remaining cases
through a runner (in process, or on Ray actors), writing each case as it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from courtroom.case import Case
from courtroom.engine.judge import Judge
from courtroom.errors import ConfigError, CourtroomError
from courtroom.evaluate.datasets import LoadReport, load_dataset, select
from courtroom.log.store import Manifest, ResultRow, RunStore

RUNNERS = ("local", "ray")
"""Where a run's cases can be judged (`courtroom.runs.runners`)."""


class RunSpec(BaseModel):
    """Everything that defines a run (recorded in its manifest)."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    field_map: dict[str, str] = Field(default_factory=dict)
    limit: int | None = None
    balanced: bool = False
    seed: int = 0
    sources: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    """Run directories (or files of case ids, one per line) whose cases are left out before sampling:
    calibrate or tune on cases disjoint from an evaluation run."""
    skip_invalid: bool = False
    judge: str = "courtroom"
    court: str = "default"
    model: str = "default"
    engine: str = "xgrammar"
    window: int = Field(8, ge=1)
    judge_options: dict[str, Any] = Field(default_factory=dict)
    runner: str = "local"
    workers: int = 1
    gpus_per_worker: float = 0.0
    ray_address: str | None = None
    device: str = "auto"

    def dataset_key(self) -> dict[str, Any]:
        """What selects the cases (must match to resume a run)."""
        key = self.model_dump(include={"dataset", "field_map", "limit", "balanced", "seed", "sources", "exclude"})
        if not key["exclude"]:
            del key["exclude"]  # runs made before --exclude existed keep resuming
        return key


def build_judge(spec: RunSpec, backend: Any = None) -> Judge:
    """The judge a run spec asks for (no model is loaded)."""
    from courtroom.court import Court
    from courtroom.engine.registry import judge_class

    options = dict(spec.judge_options)
    if spec.judge == "courtroom":
        return Court.load(spec.court, backend, model=spec.model, window=spec.window, **options)
    return judge_class(spec.judge)(backend, model=spec.model, window=spec.window, **options)


def backend_options(spec: RunSpec) -> dict[str, Any]:
    """How the runner builds each model door."""
    return {"model": spec.model, "engine": spec.engine, "device": spec.device}


@dataclass
class Run:
    """A prepared run: the judge, the cases still to judge, and the store that records them."""

    spec: RunSpec
    judge: Judge
    cases: list[Case]
    store: RunStore
    finished: set[str]
    report: LoadReport
    rows: list[ResultRow] = field(default_factory=list)
    lock: Any = None
    """The claim on the run directory (see `RunStore.lock`), held until `close()`."""

    def close(self) -> None:
        """Release the run directory (a process that ends releases it too)."""
        if self.lock is not None:
            self.lock.close()

    @property
    def remaining(self) -> list[Case]:
        return [c for c in self.cases if c.id not in self.finished]

    def execute(self, on_row: Callable[[ResultRow], None] | None = None, runner: Any = None) -> list[ResultRow]:
        """Judge every remaining case, writing each as it ends; returns all rows of the run."""
        from courtroom.runs.runners import make_runner

        runner = runner or make_runner(self.spec)
        for outcome in runner.run(self.judge, self.spec, self.remaining):
            row = self.store.write(outcome)
            self.finished.add(row.case_id)
            if on_row:
                on_row(row)
        return self.store.rows()


def select_cases(spec: RunSpec, report: LoadReport | None = None) -> list[Case]:
    """The cases a run spec selects (its dataset, filters, exclusions and sample)."""
    return select(load_dataset(spec.dataset, spec.field_map or None, spec.skip_invalid, report),
                  limit=spec.limit, balanced=spec.balanced, seed=spec.seed, sources=spec.sources or None,
                  exclude=excluded_case_ids(spec.exclude))


def run_cases(store: RunStore) -> list[Case]:
    """The cases a run selected, rebuilt from its manifest (finished or not)."""
    return select_cases(RunSpec(**store.manifest().dataset, skip_invalid=True))


def excluded_case_ids(paths: list[str]) -> set[str]:
    """The case ids of run directories (every case the run selected, finished or not, and every case it
    finished) or id files (one id per line)."""
    ids: set[str] = set()
    for item in paths:
        path = Path(item)
        if path.is_dir():
            store = RunStore(path)
            if not store.exists():
                raise CourtroomError(f"--exclude {item}: not a run directory (no manifest.json) nor an id file")
            ids.update(case.id for case in run_cases(store))
            ids.update(row.case_id for row in store.rows())
        elif path.is_file():
            ids.update(line.strip() for line in path.read_text().splitlines() if line.strip())
        else:
            raise CourtroomError(f"--exclude {item}: no such run directory or id file")
    return ids


def start_run(spec: RunSpec, out: str | Path, *, fresh: bool = False) -> Run:
    """Load and select the cases, build the judge, and open (or resume) the run directory."""
    from courtroom.door.models import resolve_model

    report = LoadReport(spec.dataset)
    cases = select_cases(spec, report)
    if not cases:
        raise CourtroomError(f"{spec.dataset}: no cases selected (check --source, --limit and the labels)")
    resolve_model(spec.model)  # an unknown model fails now, not after the first case
    if spec.runner not in RUNNERS:
        raise ConfigError(f"unknown runner {spec.runner!r}; choose one of {', '.join(RUNNERS)}")
    if spec.runner == "ray" and spec.device != "auto":
        raise ConfigError(f"--device {spec.device} with --runner ray: Ray places each worker, on a GPU it "
                          "assigns (--gpus-per-worker) or on CPU; leave --device out")
    judge = build_judge(spec)
    store = RunStore(out)
    lock = store.lock()
    if store.exists() and not fresh:
        previous = store.manifest()
        if previous.config_hash != judge.config_hash():
            raise CourtroomError(f"{out} holds a run of another judge configuration ({previous.config_hash}); "
                                 "use another --out, or --fresh to start over")
        if previous.dataset != spec.dataset_key() or previous.options.get("model") != spec.model:
            raise CourtroomError(f"{out} holds a run on other cases or another model; use another --out, "
                                 "or --fresh to start over")
        store.repair()
    else:
        if fresh:
            import shutil

            for path in store.root.iterdir():  # all but the lock this run holds
                if path.name != ".lock":
                    shutil.rmtree(path) if path.is_dir() else path.unlink()
        store.write_manifest(Manifest(
            name=Path(out).name, judge=judge.config(), config_hash=judge.config_hash(),
            backend=backend_options(spec), dataset=spec.dataset_key(),
            options=spec.model_dump(exclude={"dataset", "field_map", "limit", "balanced", "seed", "sources"}),
        ))
    wanted = {c.id for c in cases}
    finished = store.finished_ids() & wanted
    return Run(spec, judge, cases, store, finished, report, lock=lock)

