"""Labelling in `courtroom view`: the page's face on `calibrate.label_session` (the workflow `courtroom label`
drives too), and the refit: its table at once from the recorded testimony (`calibrate.refit`), then its court
and the run decided again by it (`rejudge`, no model call) in the background, into the refit's folder."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from courtroom.calibrate.label_session import LabelSession
from courtroom.calibrate.refit import refit_court, refit_folder, refit_table
from courtroom.errors import ConfigError, CourtroomError
from courtroom.log.store import JUDGEMENTS
from courtroom.view.runs import RunView, shown_path


class Labelling:
    """One run's labelling in the page: its session, and its refit (one at a time)."""

    def __init__(self, view: RunView, prior: str | None, n: int, seed: int, author: str) -> None:
        self.view = view
        with view.lock:
            self.session = LabelSession(view.audit, prior, n, seed, author, "view")
        self.job: dict[str, Any] = {"state": "idle"}

    def state(self) -> dict[str, Any]:
        """The drawn cases (those not judged yet waiting in their place), the labels, and whether a refit can
        run."""
        s = self.session
        with self.view.lock:
            s.sync()
            words, labels = s.words(), s.labels()
            order = [{"id": c, "p": round(f.p, 3), "threshold": round(f.threshold, 3)}
                     if (f := s.found.get(c)) else
                     {"id": c, "waiting": True} for c in s.order()]
            given = sum(labels.values())
            return {"n": s.n, "seed": s.seed, "record": shown_path(s.run.root / JUDGEMENTS),
                    "weighed_by": s.weighed_by,
                    "order": order, "labels": {c["id"]: words[c["id"]] for c in order if c["id"] in words},
                    "given": len(labels), "hallucinated": given, "faithful": len(labels) - given,
                    "note": s.note,
                    "prior": s.prior and shown_path(s.prior.path), "refit": s.why_not(labels),
                    "job": self.job}

    def give(self, case_id: str, key: str, note: str) -> dict[str, Any]:
        """Record a label (`h`, `f`, `s`) or take one back (`u`)."""
        with self.view.lock:
            self.session.sync()
            self.session.undo(case_id) if key == "u" else self.session.give(case_id, key, note)
        return self.state()

    def estimate(self) -> dict[str, Any]:
        """What a refit on the labels would do now, or why it cannot run."""
        with self.view.lock:
            self.session.sync()
            try:
                done = self.session.estimate()
            except ConfigError as exc:
                return {"why": str(exc)}
            return {"why": self.session.why_not()} if done is None else done.summary()

    def start_refit(self) -> dict[str, Any]:
        """Refit on the labels, write its ruling beside the run and answer its table; write its court and
        decide the run again by it in the background."""
        with self.view.lock:
            if self.job.get("rejudged") == "writing":
                raise ConfigError("the run is being decided again by the last refit: wait for it")
            self.session.sync()
            done = self.session.estimate()
            if done is None:
                raise ConfigError(self.session.why_not() or "nothing to refit")
            assert self.session.prior is not None
            folder = refit_folder(self.view.path)
            self.job = {"state": "done", **refit_table(self.session.run, done, str(self.session.prior.path),
                                                       folder, shown_path), "rejudged": "writing"}
        threading.Thread(target=self._rejudge, args=(folder,), name=f"rejudge {self.view.key}",
                         daemon=True).start()
        return self.job

    def _rejudge(self, folder: Path) -> None:
        try:
            refit_court(self.view.audit, folder)
            self.job = {**self.job, "rejudged": "written"}
        except CourtroomError as exc:
            self.job = {**self.job, "rejudged": f"not written: {exc}"}
        except Exception as exc:  # noqa: BLE001 - a fault of the rejudge is shown in the page, not lost in a thread
            self.job = {**self.job, "rejudged": f"not written: {type(exc).__name__}: {exc}"}
