"""The runs under a folder as `courtroom view` serves them: found without following a link, read again when their
files change, their cases filtered, sorted and paged on the server, and two runs paired (`report.diff`)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom.calibrate.label_file import read_labels, word
from courtroom.errors import CourtroomError
from courtroom.log.audit import Audit
from courtroom.log.manifest import Manifest
from courtroom.log.store import EDITS, MANIFEST, RESULTS
from courtroom.report.case_view import case_line
from courtroom.report.diff import diff_runs
from courtroom.report.html import _diff_cells, _Run, judged_by

DEPTH = 4
"""How many folders deep runs are looked for under the folder given."""
SUMMARY_EVERY = 5.0
"""Seconds between two summaries of a run that is being written (the metrics' bootstrap is the costly part)."""


def find_runs(root: Path) -> dict[str, Path]:
    """The run directories under `root` (or `root`), keyed by their relative path; links and hidden folders skipped."""
    found: dict[str, Path] = {}
    for here, dirs, _ in os.walk(root):
        path = Path(here)
        if (path / MANIFEST).is_file() and not (path / MANIFEST).is_symlink():
            found[path.relative_to(root).as_posix() if path != root else path.name] = path
            dirs.clear()
        else:
            dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if len(path.relative_to(root).parts) < DEPTH else []
    return found


def shown_path(path: str | Path) -> str:
    """A path as the page shows it: relative to the working directory when it is under it (as one types it there)."""
    return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd().resolve()) else str(path)


def label_path(run: Path) -> Path:
    """Where the view keeps a run's labels: `<run>.labels.csv` beside the run directory, in `courtroom label`'s format."""
    return run.parent / f"{run.name}.labels.csv"


def _stamp(*paths: Path) -> tuple[tuple[int, int] | None, ...]:
    """Each file's size and time of change (None where there is none): what a write changes."""
    return tuple((s.st_size, s.st_mtime_ns) if p.is_file() and (s := p.stat()) else None for p in paths)


class CaseQuery(BaseModel):
    """The case list's filters, sort and page, as the page asks for them."""

    model_config = ConfigDict(extra="forbid")

    outcome: Literal["all", "wrong", "correct", "error", "unlabelled", "edited"] = "all"
    verdict: Literal["", "FAIL", "PASS"] = ""
    source: str = ""
    pmin: float = Field(0.0, ge=0.0, le=1.0)
    pmax: float = Field(1.0, ge=0.0, le=1.0)
    labelled: Literal["", "yes", "no"] = ""
    ended: str = ""
    """How a trial of the case ended (`judge`, `withdrawn`, ...), or `none`: no trial."""
    q: str = ""
    sort: Literal["i", "id", "verdict", "gold", "score", "charges", "source"] = "i"
    desc: bool = False
    offset: int = Field(0, ge=0)
    limit: int = Field(100, ge=1, le=500)


class RunView:
    """One run as the view reads it: its case lines and summary, read again when its files change (`fresh`)."""

    audit: Audit
    manifest: Manifest

    def __init__(self, key: str, path: Path) -> None:
        self.key, self.path = key, path
        self.lock = threading.Lock()
        self.stamp: tuple | None = None
        self.lines: list[dict[str, Any]] = []
        self._summary: tuple[tuple | None, float, dict[str, Any]] = (None, 0.0, {})
        self._labels: tuple[tuple | None, dict[str, bool | None], str | None] = (None, {}, None)

    def fresh(self) -> RunView:
        """This run with its rows read again if its results, edits or manifest changed."""
        with self.lock:
            stamp = _stamp(self.path / RESULTS, self.path / EDITS, self.path / MANIFEST)
            if stamp != self.stamp:
                audit = Audit(self.path)
                edits = audit.edits()
                self.lines = [dict(case_line(i, row, corrected, bool(edits.get(row.case_id))),
                                   ended=sorted({k.split("@")[0] for k in row.trial.endings}) if row.trial else [])
                              for i, (row, corrected) in enumerate(zip(audit.rows(), audit.corrected_rows()))]
                self.audit, self.manifest, self.stamp = audit, audit.store.manifest(), stamp
        return self

    @property
    def live(self) -> bool:
        """Whether the run has judged fewer cases than its manifest lists (it is being written, or was stopped)."""
        return self.manifest.cases is not None and len(self.lines) < len(self.manifest.cases.cases)

    def summary(self) -> dict[str, Any]:
        """The report's summary of the run without charts, made again at most every `SUMMARY_EVERY` seconds."""
        self.fresh()
        stamp, made, summary = self._summary
        if stamp != self.stamp and (stamp is None or time.monotonic() - made >= SUMMARY_EVERY):
            whole = _Run(self.audit, "A", 0).summary()
            summary = {k: whole[k] for k in ("metrics", "confusion", "info", "trials", "gain")}
            self._summary = (self.stamp, time.monotonic(), summary)
        return summary

    def head(self) -> dict[str, Any]:
        """The run's line in the list of runs."""
        try:
            manifest = self.fresh().manifest
            summary = self.summary()
        except CourtroomError as exc:
            return {"key": self.key, "name": self.path.name, "error": str(exc)}
        total = len(manifest.cases.cases) if manifest.cases else None
        return {"key": self.key, "name": self.path.name, "by": judged_by(manifest), "model": manifest.model,
                "created": f"{manifest.created:%Y-%m-%d %H:%M}", "judged": len(self.lines), "total": total,
                "live": self.live, "metrics": summary["metrics"][0],
                "gain": summary["gain"]}

    def labels(self) -> tuple[dict[str, bool | None], str | None]:
        """The labels of the run's label file (`label_path`), and why it could not be read (None when it could)."""
        path = label_path(self.path)
        stamp = _stamp(path)
        if stamp != self._labels[0]:
            try:
                self._labels = (stamp, read_labels(path, self.path) if path.is_file() else {}, None)
            except CourtroomError as exc:
                self._labels = (stamp, {}, str(exc))
        return self._labels[1], self._labels[2]

    def cases(self, query: CaseQuery) -> dict[str, Any]:
        """A page of the run's cases that pass the filters, in the order asked for."""
        lines = self.fresh().lines
        labels, _ = self.labels()
        needle = query.q.lower().strip()
        ranged = query.pmin > 0 or query.pmax < 1

        def keep(c: dict[str, Any]) -> bool:
            return ((query.outcome == "all" or (c["edited"] if query.outcome == "edited" else c["outcome"] == query.outcome))
                    and (not query.verdict or c["corrected"] == query.verdict)
                    and (not query.source or c["source"] == query.source)
                    and (not ranged or (c["score"] is not None and query.pmin <= c["score"] <= query.pmax))
                    and (not query.labelled or (labels.get(c["id"]) is not None) == (query.labelled == "yes"))
                    and (not query.ended or (query.ended in c["ended"] if query.ended != "none" else not c["ended"]))
                    and (not needle or needle in c["id"].lower() or needle in c["reason"].lower()))

        chosen = [c for c in lines if keep(c)]
        if query.sort != "i" or query.desc:
            field = "corrected" if query.sort == "verdict" else query.sort
            chosen = sorted((c for c in chosen if c[field] is not None), key=lambda c: c[field], reverse=query.desc) + \
                [c for c in chosen if c[field] is None]
        page = [dict(c, labelled=word(labels.get(c["id"]))) for c in chosen[query.offset:query.offset + query.limit]]
        return {"total": len(lines), "matching": len(chosen), "offset": query.offset, "lines": page,
                "sources": sorted({c["source"] for c in lines}), "endings": sorted({e for c in lines for e in c["ended"]}),
                "live": self.live, "clip": self.audit.grounding_clip()}


def diff(a: RunView, b: RunView) -> dict[str, Any]:
    """Two runs of the same cases paired: the report's diff counts and test, and every case that differs."""
    d = diff_runs(a.fresh().audit, b.fresh().audit)

    def side(row: Any) -> dict[str, Any] | None:
        return None if row is None else {"label": row.label, "score": row.score, "error": row.error}

    return {"a": a.key, "b": b.key, "cells": _diff_cells(d),
            "cases": [{"id": c.case_id, "gold": c.gold, "change": c.change, "a": side(c.a), "b": side(c.b)}
                      for c in d.cases if c.change != "same"]}
