"""Labelling in `courtroom view`: the cases `courtroom label` draws, each label written at once to the run's label
file (`calibrate.label_file`, the one writer), and the prior refit run in the background."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from courtroom.calibrate.label_file import read_labels, word, write_labels
from courtroom.calibrate.label_pick import Candidate, Candidates, candidates, picked
from courtroom.calibrate.prior_refit import INTERCEPT_MIN_PER_CLASS
from courtroom.calibrate.prior_runs import read_prior
from courtroom.door.models import model_key
from courtroom.errors import ConfigError, CourtroomError
from courtroom.view.refit import refit
from courtroom.view.runs import RunView, label_path, shown_path

KEYS = {"h": True, "f": False, "s": None}
"""The keys of `courtroom label`: hallucinated, faithful, skip."""


def prior_for(run: RunView, given: str | None) -> str | None:
    """The prior a run's labels refit: the one given if fitted for the run's model, else the shipped one, else none."""
    model = model_key(run.fresh().manifest.model)
    for name in (str(Path(given).resolve()) if given and Path(given).is_file() else given, f"rulings/default.{model}.yaml"):
        try:
            if name is not None and model_key(read_prior(name)[0].model) == model:
                return name
        except CourtroomError:
            continue
    return None


class Labelling:
    """One run's labelling: its drawn cases, its label file, and its refit (one at a time)."""

    def __init__(self, run: RunView, prior: str | None, n: int, seed: int) -> None:
        self.run, self.prior, self.n, self.seed = run, prior_for(run, prior), n, seed
        self.no_prior = (f"no prior ruling for {run.manifest.model}: start courtroom view with --prior RULING (a ruling "
                         "fitted for the run's model) to refit one on these labels")
        self.lock = threading.Lock()
        self._drawn: tuple[tuple | None, Candidates | None, list[Candidate]] = (None, None, [])
        self.job: dict[str, Any] = {"state": "idle"}

    def drawn(self) -> tuple[Candidates, list[Candidate]]:
        """The run's candidates and the picked ones in order (`n`, then `2 n` spares for the skipped, as the terminal)."""
        stamp = self.run.fresh().stamp
        if self._drawn[0] != stamp or self._drawn[1] is None:
            try:
                found = candidates(self.run.path, read_prior(self.prior)[0] if self.prior else None)
            except ConfigError as exc:  # a prior of other witnesses: the draw goes on without it, the refit says why
                if self.prior is None:
                    raise
                self.no_prior, self.prior = f"the prior {self.prior} cannot refit this run: {exc}", None
                found = candidates(self.run.path)
            self._drawn = (stamp, found, picked(found, self.n, self.seed, spare=2 * self.n))
        return self._drawn[1], self._drawn[2]  # type: ignore[return-value]

    def state(self) -> dict[str, Any]:
        """The drawn cases, the labels given so far, and whether a refit can run."""
        found, order = self.drawn()
        labels, note = self.run.labels()
        given = [v for v in labels.values() if v is not None]
        fails, passes = sum(given), len(given) - sum(given)
        why = self.no_prior if self.prior is None else None
        if self.prior is not None and min(fails, passes) < INTERCEPT_MIN_PER_CLASS:
            why = f"label at least {INTERCEPT_MIN_PER_CLASS} cases of each kind (hallucinated and faithful) to refit"
        return {"n": self.n, "seed": self.seed, "file": shown_path(label_path(self.run.path)), "weighed_by": found.weighed_by,
                "order": [{"id": c.case.id, "p": round(c.p, 3), "threshold": round(c.threshold, 3)} for c in order],
                "labels": {case: word(v) for case, v in labels.items()}, "given": len(given), "hallucinated": fails,
                "faithful": passes, "note": note, "prior": self.prior and shown_path(self.prior), "refit": why, "job": self.job}

    def give(self, case_id: str, key: str) -> dict[str, Any]:
        """Label one drawn case (`h`, `f` or `s`) and write the label file at once, as `courtroom label` does."""
        if key not in KEYS:
            raise ConfigError(f"a label is h (hallucinated), f (faithful) or s (skip), not {key!r}")
        with self.lock:
            found, order = self.drawn()
            if case_id not in {c.case.id for c in order}:
                raise ConfigError(f"case {case_id!r} is not one of the cases drawn for labelling")
            path = label_path(self.run.path)
            by_id = {c.case.id: c for c in found.cases}
            labels = read_labels(path, self.run.path) if path.is_file() else {}
            labels[case_id] = KEYS[key]  # in the file's order, a new case last
            try:
                write_labels(path, self.run.path, [by_id[c] for c in labels if c in by_id], labels)
            except OSError as exc:  # a folder, a FIFO, a read-only folder, a full disk: the file stays as it was
                raise OSError(f"{path}: the label was not written ({exc.strerror or exc}); the file holds the labels "
                              "given before it") from exc
        return self.state()

    def start_refit(self) -> dict[str, Any]:
        """Start the refit in the background (refused while one runs, or before it can)."""
        with self.lock:
            if self.job["state"] == "running":
                raise ConfigError("a refit of this run is running: wait for it")
            if (why := self.state()["refit"]) is not None:
                raise ConfigError(why)
            self.job = {"state": "running"}
            threading.Thread(target=self._refit, name=f"refit {self.run.key}", daemon=True).start()
        return self.job

    def _refit(self) -> None:
        try:
            self.job = {"state": "done", **refit(self.run.path, label_path(self.run.path), self.prior or "")}
        except CourtroomError as exc:
            self.job = {"state": "failed", "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a fault of the refit is shown in the page, not lost in a thread
            self.job = {"state": "failed", "error": f"{type(exc).__name__}: {exc}"}
