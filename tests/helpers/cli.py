"""The command line run in process, as a test of bad input reads it."""

from __future__ import annotations

from typer.testing import CliRunner

from courtroom.cli import app


def invoke(*args: str) -> tuple[int, str]:
    """Exit code and output (on one line) of a command that must not end in a traceback."""
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})
    output = " ".join(result.output.split())
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (repr(result.exception), output[-2000:])
    return result.exit_code, output
