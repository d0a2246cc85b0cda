"""A shipped ruling changed, and a copy of the default court that files it."""

from __future__ import annotations

from pathlib import Path

import yaml

SHIPPED = Path(__file__).resolve().parents[2] / "personas" / "courts"


def shipped_ruling(**changes: object) -> dict:
    """The shipped SmolLM2 ruling of the default court, with `changes`."""
    ruling = yaml.safe_load((SHIPPED / "rulings" / "default.smollm2-135m.yaml").read_text())
    ruling.update(changes)
    return ruling


def court_with(tmp_path: Path, ruling: str | dict) -> Path:
    """A copy of the default court whose SmolLM2 ruling is `ruling` (a path, or a ruling written beside it)."""
    court = yaml.safe_load((SHIPPED / "default.yaml").read_text())
    if isinstance(ruling, dict):
        (tmp_path / "ruling.yaml").write_text(yaml.safe_dump(ruling))
        ruling = "ruling.yaml"
    court["witnesses"]["rulings"] = {"smollm2-135m": ruling}
    path = tmp_path / "court.yaml"
    path.write_text(yaml.safe_dump(court))
    return path
