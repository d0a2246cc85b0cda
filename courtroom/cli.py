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
personas_app = typer.Typer(help="Validate persona files and publish their JSON schema.", no_args_is_help=True)
app.add_typer(personas_app, name="personas")
court_app = typer.Typer(help="Validate courts, describe them, draw their procedure.", no_args_is_help=True)
app.add_typer(court_app, name="court")
transcript_app = typer.Typer(help="The transcript event schema.", no_args_is_help=True)
app.add_typer(transcript_app, name="transcript")

console = Console()
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


@app.command()
def demo(
    judge: str = typer.Option("courtroom", help="Which judge tries the example cases (courtroom or a baseline)."),
    court: str = typer.Option("default", help="Court name or file (for the courtroom judge)."),
    model: str = typer.Option("default", help="Model name, .gguf file, HF directory or Hub id."),
    limit: Optional[int] = typer.Option(None, help="Judge only the first N example cases."),
) -> None:
    """Judge the shipped example cases with the default model and print the verdicts."""
    from courtroom.datasets import example_cases
    from courtroom.errors import CourtroomError

    cases = example_cases()[:limit]
    try:
        judge_obj = _make_judge(judge, court, model)
        table = Table(title=f"{judge} judge ({court if judge == 'courtroom' else 'baseline'}), model {model}: "
                            f"{len(cases)} example cases")
        for column in ("case", "gold", "verdict", "score", "reason"):
            table.add_column(column, overflow="fold")
        correct = 0
        with console.status("judging the example cases (the first run also prepares the model)..."):
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


def _make_judge(judge: str, court: str, model: str, backend=None, **options):  # noqa: ANN001, ANN202
    from courtroom.court import Court
    from courtroom.registry import judge_class

    if judge == "courtroom":
        return Court.load(court, backend, model=model, **options)
    return judge_class(judge)(backend, model=model, **options)


@personas_app.command("validate")
def personas_validate(paths: list[str] = typer.Argument(..., help="Persona files or directories.")) -> None:
    """Validate persona files; report every broken one with its path, line and field."""
    from pathlib import Path

    from courtroom.errors import PersonaError
    from courtroom.personas import Persona

    files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.y*ml")) if p.is_dir() else [p])]
    broken = 0
    for file in files:
        try:
            persona = Persona.from_file(file)
            console.print(f"[green]ok[/] {file} ({persona.name}, role {persona.role})")
        except PersonaError as exc:
            broken += 1
            err.print(f"[red]invalid[/] {exc}")
    if broken or not files:
        raise typer.Exit(1)


@personas_app.command("schema")
def personas_schema(output: Optional[str] = typer.Option(None, "-o", "--output", help="Write to a file.")) -> None:
    """Print (or write) the JSON Schema of persona files, for editor validation."""
    import json

    from courtroom.personas import persona_json_schema

    text = json.dumps(persona_json_schema(), indent=2)
    if output:
        open(output, "w").write(text + "\n")
    else:
        print(text)


@court_app.command("validate")
def court_validate(court: str = typer.Argument("default", help="Court name or file.")) -> None:
    """Validate a court: its file, its graph and its personas."""
    from courtroom.court import Court
    from courtroom.errors import CourtroomError

    try:
        c = Court.load(court)
    except CourtroomError as exc:
        _fail(str(exc))
    console.print(f"[green]ok[/] {c.describe()}")


@court_app.command("show")
def court_show(court: str = typer.Argument("default", help="Court name or file."),
               mermaid: bool = typer.Option(False, "--mermaid", help="Print only the mermaid diagram.")) -> None:
    """Describe a court and draw its procedure as a mermaid diagram."""
    from courtroom.court import Court
    from courtroom.errors import CourtroomError

    try:
        c = Court.load(court)
    except CourtroomError as exc:
        _fail(str(exc))
    if not mermaid:
        console.print(c.describe())
    print(c.to_mermaid())


@court_app.command("schema")
def court_schema() -> None:
    """Print the JSON Schema of court files."""
    import json

    from courtroom.court import court_json_schema

    print(json.dumps(court_json_schema(), indent=2))


@transcript_app.command("schema")
def transcript_schema() -> None:
    """Print the published JSON Schema of a transcript event (one JSONL line)."""
    import json

    from courtroom.transcripts.events import event_json_schema

    print(json.dumps(event_json_schema(), indent=2))


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
