"""The runs under a folder as `courtroom view` serves them: found once, and looked for again only when a
folder under it changes (never through a link); each run opened once (`log.audit.Audit`) and read by what it
appends while it is written; its case lines (`report.summary`, as the report makes them) made once a case and
when a person judges it, filtered, sorted and paged on the server; two runs paired (`report.diff`)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from courtroom.errors import CourtroomError
from courtroom.log.audit import Audit
from courtroom.log.store import MANIFEST
from courtroom.report.diff import diff_cells, diff_runs
from courtroom.report.summary import (
    CaseLine,
    CaseQuery,
    RunSummary,
    case_line,
    run_summary,
    select,
    with_text,
)

DEPTH = 4
"""How many folders deep runs are looked for under the folder given."""
SUMMARY_EVERY = 5.0
"""Seconds between two summaries of a run that is being written (the metrics' bootstrap is the costly part);
never more often than one twentieth of the time: a summary that takes 1 s is made at most every 20 s."""


class Finder:
    """The run directories under `root` (or `root`), keyed by their relative path; links and hidden folders
    skipped. The folders it looked in are stat'ed at each call, and walked again only when one of them
    changed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.looked: dict[Path, int] = {}
        self.found: dict[str, Path] = {}

    def __call__(self) -> dict[str, Path]:
        if self.looked and all(_changed_at(path) == when for path, when in self.looked.items()):
            return self.found
        found, looked = {}, {}
        for here, dirs, _ in os.walk(self.root):
            path = Path(here)
            if (path / MANIFEST).is_file() and not (path / MANIFEST).is_symlink():
                found[path.relative_to(self.root).as_posix() if path != self.root else path.name] = path
                dirs.clear()
            else:
                looked[path] = _changed_at(path)
                dirs[:] = sorted(d for d in dirs
                                 if not d.startswith(".")) if len(path.relative_to(self.root).parts) < DEPTH \
                    else []
        self.found, self.looked = found, looked
        return found


def _changed_at(path: Path) -> int:
    try:
        return os.stat(path, follow_symlinks=False).st_mtime_ns
    except OSError:
        return -1


def shown_path(path: str | Path) -> str:
    """A path as the page shows it: relative to the working directory when it is under it (as one types it
    there)."""
    return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd().resolve()) else str(path)


class RunView:
    """One run as the page reads it: opened once, its case lines made once a case (again when a person judges
    it)."""

    def __init__(self, key: str, path: Path) -> None:
        self.key, self.path = key, path
        self.lock = threading.RLock()
        """Held by whatever reads or writes the run through this view (the page's requests, the labelling)."""
        self.audit = Audit(path)
        self.lines: list[CaseLine] = []
        self.index: dict[str, int] = {}
        self.searchable = False
        self._summary: tuple[tuple | None, float, RunSummary | None] = (None, 0.0, None)

    def fresh(self) -> RunView:
        """This run with what it appended since the last look read (all of it again if it was replaced)."""
        with self.lock:
            changed = self.audit.refresh()
            rows = self.audit.rows()
            if changed is None or len(rows) < len(self.lines) or any(
                    # judged again
                    case in self.index and rows[self.index[case]].case_id != case for case in changed):
                self.lines, self.index, self.searchable = [], {}, False
            for case in changed or ():
                if case in self.index:
                    self.lines[self.index[case]] = self._line(self.index[case])
            for i in range(len(self.lines), len(rows)):
                self.index[rows[i].case_id] = i
                self.lines.append(self._line(i))
        return self

    def _line(self, i: int) -> CaseLine:
        row = self.audit.rows()[i]
        line = case_line(self.audit, i, row)
        if self.searchable:
            case = self.audit.store.case(row.case_id)
            line = with_text(line, case.question, case.answer)
        return line

    @property
    def live(self) -> bool:
        """Whether the run has judged fewer cases than its manifest lists (it is being written, or was
        stopped)."""
        cases = self.audit.manifest.cases
        return cases is not None and len(self.lines) < len(cases.cases)

    def summary(self) -> RunSummary:
        """The run's summary (`report.summary`), made again when it changed, at most every `SUMMARY_EVERY`
        seconds."""
        with self.fresh().lock:
            stamp, wait, made = self._summary
            if made is None or (stamp != self.audit.stamps and time.monotonic() >= wait):
                start = time.monotonic()
                made = run_summary(self.audit)
                took = time.monotonic() - start
                self._summary = (self.audit.stamps, time.monotonic() + max(SUMMARY_EVERY, 20 * took), made)
            return made

    def head(self) -> dict[str, Any]:
        """The run's line in the list of runs."""
        try:
            summary = self.summary()
        except CourtroomError as exc:
            return {"key": self.key, "name": self.path.name, "error": str(exc)}
        cases = self.audit.manifest.cases
        return {"key": self.key, "name": self.path.name, "by": summary.by, "model": summary.model,
                "created": summary.created, "judged": len(self.lines),
                "total": len(cases.cases) if cases else None,
                "live": self.live, "metrics": summary.metrics[0].model_dump(), "gain": summary.gain}

    def cases(self, query: CaseQuery) -> dict[str, Any]:
        """A page of the run's cases that pass the filters, in the order asked for."""
        with self.fresh().lock:
            # the question and answer are read on the first search
            if query.q.strip() and not self.searchable:
                self.searchable = True
                self.lines = [self._line(i) for i in range(len(self.lines))]
            chosen = select(self.lines, query)
            return {"total": len(self.lines), "matching": len(chosen), "offset": query.offset,
                    "lines": [c.model_dump(exclude={"question", "answer"}) for c in
                              chosen[query.offset:query.offset + query.limit]],
                    "sources": sorted({c.source for c in self.lines}), "live": self.live,
                    "endings": sorted({e for c in self.lines for e in c.ended}),
                    "clip": self.audit.grounding_clip()}


def diff(a: RunView, b: RunView) -> dict[str, Any]:
    """Two runs of the same cases paired: the report's diff counts and test, and every case that differs."""
    d = diff_runs(a.fresh().audit, b.fresh().audit)

    def side(row: Any) -> dict[str, Any] | None:
        return None if row is None else {"label": row.label, "score": row.score, "error": row.error}

    return {"a": a.key, "b": b.key, "cells": diff_cells(d),
            "cases": [{"id": c.case_id, "gold": c.gold, "change": c.change, "a": side(c.a), "b": side(c.b)}
                      for c in d.cases if c.change != "same"]}
