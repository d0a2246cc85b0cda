"""Evaluation runs: `start_run` validates everything (rows, court, model name) before any model loads, opens
or resumes the run directory, and returns a `Run` whose `execute` judges the remaining cases through a
runner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from courtroom.case import Case
from courtroom.door.backend import Backend, prepare_backend
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import LockstepObserver
from courtroom.errors import ConfigError, RunError
from courtroom.evaluate.datasets import LoadReport
from courtroom.evaluate.results import ResultRow
from courtroom.log.cases import selected_cases
from courtroom.log.manifest import CaseDigests, Manifest, RunSpec, setting_differences
from courtroom.log.recorded_court import make_judge
from courtroom.log.store import RunLock, RunStore
from courtroom.runs.hosts import Callee, consented
from courtroom.runs.runners import Runner, make_runner


@dataclass
class Run:
    """A prepared run: the judge, the cases still to judge, and the store that records them."""

    spec: RunSpec
    judge: Judge
    cases: list[Case]
    store: RunStore
    finished: set[str]
    report: LoadReport
    lock: RunLock | None = None
    """The claim on the run directory (see `RunStore.lock`), held until `close()`."""

    def close(self) -> None:
        """Release the run directory (a process that ends releases it too)."""
        if self.lock is not None:
            self.lock.close()

    @property
    def remaining(self) -> list[Case]:
        return [c for c in self.cases if c.id not in self.finished]

    def execute(self, on_row: Callable[[ResultRow], None] | None = None, runner: Runner | None = None,
                observer: LockstepObserver | None = None) -> list[ResultRow]:
        """Judge every remaining case, writing each as it ends (`observer`: the lockstep batches); all rows of
        the run."""
        runner = runner or make_runner(self.spec.runner, self.spec.backend)
        outcomes = runner.run(self.judge, self.remaining, observer) if observer is not None else \
            runner.run(self.judge, self.remaining)
        for outcome in outcomes:
            variants = self.judge.variants(outcome.case, outcome.events) if outcome.ok else {}
            try:
                row = self.store.write(outcome, variants)
            except OSError as exc:  # disk full, quota, permissions: stop, keeping every case written so far
                outcomes.close()
                raise RunError(f"{self.store.root}: cannot record case {outcome.case.id!r} "
                               f"({exc.strerror or exc}); {len(self.finished)} of {len(self.cases)} cases "
                               "are saved: free space (or fix the directory) and run the same command to "
                               "resume") from exc
            self.finished.add(row.case_id)
            if on_row:
                on_row(row)
        return self.store.rows()


def probed_backend(spec: RunSpec, judge: Judge) -> Backend:
    """A light backend (a served model's door), probed before the first case: it answers, takes the key,
    serves the model, and supports what the judge needs (a court that measures grounding needs to score
    texts)."""
    backend = spec.backend.build()
    prepare_backend(backend)
    if (needed := judge.needs_text_scoring()) and not backend.scores_texts:
        why, remedy = backend.why_no_text_scoring()
        raise ConfigError(f"the {judge.name} judge scores texts ({needed}), which needs prompt "
                          f"log-probabilities, and {why}; use --court generative, the court that works "
                          f"without them, or {remedy}")
    return backend


def start_run(spec: RunSpec, out: str | Path, *, fresh: bool = False,
              announce: Callable[[list[Callee]], None] | None = None) -> Run:
    """Load and select the cases, build the judge, and open (or resume) the run directory; `announce` hears
    the hosts the run will call, each consented to (`courtroom.runs.hosts`), before any request goes out."""
    report = LoadReport(spec.selection.dataset)
    cases = selected_cases(spec.selection, skip_invalid=spec.skip_invalid, report=report)
    if not cases:
        raise RunError(f"{spec.selection.dataset}: no cases selected (check --source, --limit and the "
                       "labels)")
    if spec.runner.kind == "ray" and spec.backend.device != "auto":
        raise ConfigError(f"--device {spec.backend.device} with --runner ray: Ray places each worker, on a "
                          "GPU it assigns (--gpus-per-worker) or on CPU; leave --device out")
    judge = make_judge(spec.judge, spec.backend, window=spec.window)  # no model is loaded
    # a court file's seats call no host the user did not name
    hosts = consented(spec.backend, judge.seats(), spec.hosts)
    if announce is not None and hosts:
        announce(hosts)
    backend = probed_backend(spec, judge) if spec.backend.light else None
    if backend is not None:
        judge.attach(backend)
    store = RunStore(out)
    lock = None
    try:
        if store.exists() and not fresh and store.rows():  # what differs from the recorded run is said first,
            _check_resumable(store, spec, judge, cases)  # whatever this machine has installed
        spec.backend.check_model()  # an unknown model fails now, not after the first case
        # and a further model a court seats (a served one is probed on loading)
        for seat in judge.seats().values():
            seat.check_model()
        lock = store.lock()
        reconfigured = store.exists() and not fresh and not store.rows()
        if store.exists() and not fresh and not reconfigured:
            _check_resumable(store, spec, judge, cases)  # again, now that this process holds the run
            store.repair()
        else:
            # a run that recorded no case yet (it failed before its first): new settings
            if fresh or reconfigured:
                store.clear()
            placement = spec.backend.placement() if spec.runner.kind == "local" else None
            store.write_manifest(Manifest(name=Path(out).name, spec=spec, judge=judge.config(),
                                          config_hash=judge.config_hash(), cases=CaseDigests.of(cases),
                                          server=backend.server if backend is not None else None,
                                          placement=placement))
    # a refused resume leaves the directory free for the corrected command, in this process too
    except BaseException:
        if lock is not None:
            lock.close()
        if backend is not None:
            backend.close()
        raise
    return Run(spec, judge, cases, store, store.finished_ids() & {c.id for c in cases}, report, lock=lock)


def _check_resumable(store: RunStore, spec: RunSpec, judge: Judge, cases: list[Case]) -> None:
    """A run directory resumes only with the judge, model and selection of the same data (by digest) it began
    with."""
    previous, out = store.manifest(), store.root
    if previous.config_hash != judge.config_hash():
        migrated, applied = previous.upgraded_judge
        if applied and migrated == judge.config():
            raise RunError(f"{out} was recorded before {'; '.join(applied)}: it can be audited and rejudged, "
                           f"not resumed; {_instead(store)}")
        recorded = f", --court {out} to finish it with the court it was started with" \
            if previous.judge.get("judge") == "courtroom" == spec.judge.name else ""
        raise RunError(f"{out} holds a run of another judge configuration ({previous.config_hash}, now "
                       f"{judge.config_hash()}): "
                       f"{_listed(setting_differences(previous.judge, judge.config()))}; "
                       f"{_instead(store, recorded)}")
    differences = setting_differences(previous.spec.selection.model_dump(mode="json"),
                                      spec.selection.model_dump(mode="json"))
    if previous.model != spec.backend.model:
        differences.insert(0, f"model: {previous.model!r} -> {spec.backend.model!r}")
    if differences:
        raise RunError(f"{out} holds a run on other cases or another model: {_listed(differences)}; "
                       f"{_instead(store)}")
    changes = previous.cases.changes(CaseDigests.of(cases)) if previous.cases is not None else \
        _stale_rows(store.rows(), cases)
    if changes:
        raise RunError(f"{out}: the data changed since the run started ({spec.selection.dataset}): "
                       f"{changes}; its results would mix two datasets: {_instead(store)}")
    now = spec.backend.placement() if spec.runner.kind == "local" and spec.backend.dtype == "auto" else None
    if now is not None and (began := _began_in(previous, now.device)) not in (None, now.dtype):
        raise RunError(f"{out} was judged in {began}, and --dtype auto computes in {now.dtype} here "
                       f"({now.why}): its scores would mix two types; add --dtype {began} to finish it as it "
                       f"began, or {_instead(store)}")


def _began_in(previous: Manifest, device: str) -> str | None:
    """The dtype a run's model computed in when it started: as recorded, or for a run recorded before runs
    kept it, what `auto` was then on a CPU (float32); None when it cannot be known (a GPU, Ray workers)."""
    if previous.placement is not None:
        return previous.placement.dtype
    if previous.spec.backend.dtype != "auto":
        return previous.spec.backend.dtype
    return "float32" if device == "cpu" and previous.spec.runner.kind == "local" else None


def _instead(store: RunStore, recorded: str = "") -> str:
    """What to do with a run directory that cannot be resumed (`recorded`: a way to finish it)."""
    judged = len(store.rows())
    cases = "its judged case" if judged == 1 else f"its {judged} judged cases"
    return (f"use another --out (this run stays as it is){recorded}, or --fresh to delete {cases} and start "
            "over")


def _stale_rows(rows: list[ResultRow], cases: list[Case]) -> str | None:
    """For a run recorded before digests: the judged cases whose content (digest, else gold label and source)
    is not the selected case's now, and those no longer selected."""
    now = {case.id: case for case in cases}
    changed = [r.case_id for r in rows if r.case_id in now and (
        r.case_digest != now[r.case_id].digest()
        if r.case_digest else (r.gold, r.source) != (now[r.case_id].label,
                                                                                          now[r.case_id].source))]
    gone = [r.case_id for r in rows if r.case_id not in now]
    if not changed and not gone:
        return None
    return (f"{len(changed)} {'case' if len(changed) == 1 else 'cases'} changed, {len(gone)} gone (first: "
            f"{(changed or gone)[0]!r})")


def _listed(differences: list[str], most: int = 6) -> str:
    shown = "; ".join(differences[:most])
    return shown + (f"; and {len(differences) - most} more"
                    if len(differences) > most else "") if shown else \
        "no setting differs (a configuration recorded by another version?)"
