"""The `courtroom` command line. Heavy modules (torch, transformers, ray) load only inside commands."""

from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="courtroom",
    help="Decide whether a RAG answer is hallucinated by holding a trial.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Model names, files and caches.", no_args_is_help=True)
app.add_typer(models_app, name="models")

console = Console()
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


@app.command()
def demo(
    judge: str = typer.Option("single", help="Which judge tries the example cases."),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id."),
    limit: Optional[int] = typer.Option(None, help="Judge only the first N example cases."),
) -> None:
    """Judge the shipped example cases with the default model and print the verdicts."""
    from courtroom.baselines import BASELINES
    from courtroom.datasets import example_cases
    from courtroom.errors import CourtroomError

    cases = example_cases()[:limit]
    if judge not in BASELINES:
        _fail(f"unknown judge {judge!r}; choose one of {sorted(BASELINES)}")
    try:
        judge_obj = BASELINES[judge](model=model)
        table = Table(title=f"{judge} judge, model {model}: {len(cases)} example cases")
        for column in ("case", "gold", "verdict", "score", "reason"):
            table.add_column(column, overflow="fold")
        correct = 0
        with console.status("loading the model and judging..."):
            outcomes = list(judge_obj.run_many(cases))
        for outcome in outcomes:
            v = outcome.verdict
            if v is None:
                table.add_row(outcome.case.id, outcome.case.label or "-", "[red]error[/]", "-", outcome.error or "")
                continue
            correct += v.label == outcome.case.label
            mark = "[green]" if v.label == outcome.case.label else "[red]"
            table.add_row(outcome.case.id, outcome.case.label or "-", f"{mark}{v.label}[/]", f"{v.score:.2f}",
                          v.reason[:160])
    except CourtroomError as exc:
        _fail(str(exc))
    console.print(table)
    console.print(f"accuracy {correct}/{len(cases)}")


@models_app.command("list")
def models_list() -> None:
    """Known model aliases and whether they are installed."""
    from courtroom.models import ALIASES

    table = Table(title="model aliases")
    for column in ("name", "installed", "description", "how to get it"):
        table.add_column(column, overflow="fold")
    for name, alias in ALIASES.items():
        path = alias.locate()
        table.add_row(name, str(path) if path else "no", alias.description, alias.how_to_get)
    console.print(table)


@app.command()
def version() -> None:
    """Print the version."""
    from importlib.metadata import version as pkg_version

    console.print(pkg_version("courtroom"))


def main() -> None:  # pragma: no cover - entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
