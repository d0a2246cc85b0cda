"""Court and persona files written for a test: the shipped default court, edited."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from courtroom.court import courts_dir


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def court_file(tmp_path: Path, edit=None, persona_text: str | None = None) -> Path:
    data = yaml.safe_load((courts_dir() / "default.yaml").read_text())
    if edit:
        edit(data)
    if persona_text:
        write(tmp_path, "my_judge.yaml", persona_text)
    return write(tmp_path, "court.yaml", yaml.safe_dump(data, sort_keys=False))
