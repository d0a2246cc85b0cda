"""A court named by a run directory (`--court RUN`, `rejudge RUN --set ...`): the court its manifest
records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from courtroom.door.backend import Backend
from courtroom.door.spec import BackendSpec
from courtroom.engine.judge import Judge
from courtroom.engine.registry import JudgeSpec
from courtroom.errors import CourtError, CourtroomError
from courtroom.log.store import MANIFEST, RunStore

COURTROOM = "courtroom"
"""The judge whose runs name a court (`engine.registry.JUDGES`)."""


def names_a_run(court: str | Path) -> bool:
    """Whether a `--court` names a run directory (one with a manifest) rather than a court file or name."""
    return (Path(court) / MANIFEST).is_file()


def recorded_court(run_dir: str | Path, backend: Backend | BackendSpec | None = None,
                   **options: Any) -> Judge:
    """The court a run was made with (`overrides` on top); a `CourtError` names an unreadable or court-less
    manifest."""
    manifest = Path(run_dir) / MANIFEST
    try:
        recorded = RunStore(run_dir).manifest()
        name = recorded.judge_config.get("judge")
    except CourtroomError as exc:
        raise CourtError(f"{manifest}: not a readable run manifest with a judge configuration "
                         f"({exc})") from exc
    if name != COURTROOM:
        raise CourtError(f"{manifest}: the run was judged by {name!r}, not by a court")
    return recorded.rebuild_judge(backend or recorded.spec.backend, **options)


def make_judge(judge: JudgeSpec, backend: Backend | BackendSpec | None = None, *, window: int = 8) -> Judge:
    """The judge `judge` names (no model is loaded); a court named by a run directory is the court it
    recorded."""
    if judge.name == COURTROOM and names_a_run(judge.court):
        return recorded_court(judge.court, backend, window=window, **judge.options)
    return judge.build(backend, window=window)
