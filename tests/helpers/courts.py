"""Court and persona files written for a test: a shipped court's settings (resolved, standalone), edited; and a loaded
court's settings changed in place."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from courtroom.court import with_overrides
from courtroom.courts import load_court
from courtroom.engine.judge import Judge


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def settings(name: str) -> dict:
    """A shipped court's settings, resolved through `extends` (what a standalone copy of its file holds)."""
    return load_court(name).spec.model_dump(mode="json", by_alias=True, exclude={"schema_path"})


def court_file(tmp_path: Path, edit=None, persona_text: str | None = None, base: str = "full") -> Path:
    """A standalone copy of a shipped court (`full` by default: the clerk's settings and a trial), edited."""
    data = settings(base)
    if edit:
        edit(data)
    if persona_text:
        write(tmp_path, "my_judge.yaml", persona_text)
    return write(tmp_path, "court.yaml", yaml.safe_dump(data, sort_keys=False))


def tuned(court: Judge, **changes: object) -> Judge:
    """The court with settings changed in place, by their dotted paths written with `__`
    (`trial__judge_weight=1.0`)."""
    overrides = {name.replace("__", "."): value for name, value in changes.items()}
    court.spec = with_overrides(court.spec, overrides)  # type: ignore[attr-defined]  # a clerk's or a court's
    return court
