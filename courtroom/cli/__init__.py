"""The `courtroom` command line: one module per verb (parse, call, print), wired into one Typer app."""

from __future__ import annotations

from courtroom.cli import audit, calibrate, compare, config, demo, export, label, models, rejudge, run, view  # noqa: F401 (registers the verbs)
from courtroom.cli.app import app

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - entry point
    app()
