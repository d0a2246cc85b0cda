"""The `courtroom` Typer application, its command groups and what every verb shares (a verb per module; heavy
modules load only inside commands, so `courtroom --help` stays fast)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from typer.core import TyperGroup

from courtroom.errors import CourtroomError
from courtroom.evaluate.gates import gate_failures, parse_gates
from courtroom.report.terminal import shown

app = typer.Typer(
    name="courtroom",
    help="Decide whether a RAG answer is hallucinated, and show why. The default court measures how well the "
         "context grounds each sentence of the answer, hears its witnesses and weighs their testimony (by a "
         "ruling fitted for the model, else by the grounding measure), with no trial; --court full, "
         "escalated, jury or cross_examination try each charge: a prosecutor and a defender argue it, and a "
         "judge rules.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Model names, files and caches.", no_args_is_help=True)
app.add_typer(models_app, name="models")
personas_app = typer.Typer(help="Validate persona files and publish their JSON schema.", no_args_is_help=True)
app.add_typer(personas_app, name="personas")
court_app = typer.Typer(help="Validate courts, describe them, draw their procedure.", no_args_is_help=True)
app.add_typer(court_app, name="court")
transcript_app = typer.Typer(help="The transcript event schema.", no_args_is_help=True)
app.add_typer(transcript_app, name="transcript")


class _AuditGroup(TyperGroup):
    """`courtroom audit RUN_DIR` is `courtroom audit summary RUN_DIR`."""

    def resolve_command(self, ctx, args):  # noqa: ANN001, ANN201
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args.insert(0, "summary")
        return super().resolve_command(ctx, args)


audit_app = typer.Typer(help="Audit a run: `courtroom audit RUN_DIR` summarises; list, show, verify, report, "
                             "edit.",
                        cls=_AuditGroup, no_args_is_help=True)
app.add_typer(audit_app, name="audit")

PIPED_WIDTH = 320
"""The width of tables printed to a pipe, a file or a CI log (no terminal to fit): wide enough not to cut a
cell."""


class CliConsole(Console):
    """On a terminal, rich's console at the terminal's width. Piped or captured (CI logs, scripts, tests),
    where no width is known, lines are never wrapped and tables get `PIPED_WIDTH` columns (COLUMNS still wins
    when set)."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal and "COLUMNS" not in self._environ:
            return ConsoleDimensions(PIPED_WIDTH, size.height)
        return size

    @property
    def soft_wrap(self) -> bool:  # type: ignore[override]
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value


console = CliConsole()
err = CliConsole(stderr=True)


def fail(message: str) -> NoReturn:
    """Print an error (shown as the text it is: it often quotes a dataset, a run or a server) and exit with
    status 2."""
    err.print(f"[bold red]error:[/] {shown(message)}")
    raise typer.Exit(2)


@contextmanager
def failing(path: object = None, writing: str = "") -> Iterator[None]:
    """Fail the command (`fail`) on a `CourtroomError` in the block; with `path`, on an `OSError` too (a path
    that cannot be read or written, a full disk), naming its file, else `path`, and what could not be
    `writing`."""
    try:
        yield
    except CourtroomError as exc:
        fail(str(exc))
    except OSError as exc:
        if path is None:
            raise
        why = exc.strerror or exc
        fail(f"{exc.filename or path}: " + (f"cannot write {writing} ({why})" if writing else f"{why}"))


GATE_FAILED = 3
"""The exit status of a run (or summary) whose metrics fail a `--fail-under` gate."""


def parse_fail_under(texts: list[str]) -> list:
    """The `--fail-under` gates, checked before anything runs (an unknown metric lists the valid ones)."""
    with failing():
        return parse_gates(texts)


def check_gates(metrics, gates: list, say_passed: bool = True) -> None:  # noqa: ANN001
    """Exit with status 3 and one line per failed gate when the metrics fail any; say so when all pass."""
    if not gates:
        return
    failures = gate_failures(metrics, gates)
    if failures:
        err.print(f"[bold red]failed[/]: {shown('; '.join(failures))}")
        raise typer.Exit(GATE_FAILED)
    if say_passed:
        console.print(f"[green]passed[/]: {shown(', '.join(g.describe() for g in gates))}")


def warn(message: str) -> None:
    """Print a warning on stderr."""
    err.print(f"[yellow]warning[/]: {shown(message)}")


def court_of(config: dict) -> str | None:
    """The name of the court a judge's configuration holds (None for a baseline)."""
    return (config.get("court") or {}).get("name") if config.get("judge") == "courtroom" else None


def judge_title(config: dict) -> str:
    """Who judged, from a judge's configuration: `court full (courtroom judge)`, or `rails judge` for a
    baseline."""
    court = court_of(config)
    return f"court {court} (courtroom judge)" if court else f"{config.get('judge')} judge"


@app.command()
def version() -> None:
    """Print the version."""
    from importlib.metadata import version as pkg_version

    console.print(pkg_version("courtroom"))
