"""`courtroom models`: the model aliases and whether they are installed."""

from __future__ import annotations

from rich.table import Table

from courtroom.cli.app import console, models_app


@models_app.command("list")
def models_list() -> None:
    """Known model aliases and whether they are installed."""
    from courtroom.door.models import ALIASES

    table = Table(title="model aliases")
    for column in ("name", "installed", "description", "how to get it"):
        table.add_column(column, overflow="fold")
    for name, alias in ALIASES.items():
        path = alias.locate()
        table.add_row(name, str(path) if path else "no", alias.description, alias.how_to_get)
    console.print(table)
