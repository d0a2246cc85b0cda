"""`courtroom court`, `courtroom personas` and `courtroom transcript`: validate, describe and publish
schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from courtroom.cli.app import console, court_app, err, fail, failing, personas_app, transcript_app
from courtroom.report.terminal import shown, visible


@personas_app.command("validate")
def personas_validate(paths: list[str] = typer.Argument(..., help="Persona files or directories."),
                      court: str | None = typer.Option(None, help="Check each persona's role against this "
                                                                  "court (name or file); default: the "
                                                                  "shipped courts.")) -> None:
    """Validate persona files; report every broken one with its path, line and field (a role no court seats
    among them)."""
    from courtroom.court.personas import Persona
    from courtroom.courts.load import check_seated, seated_roles
    from courtroom.errors import PersonaError

    with failing():
        roles = seated_roles(court)  # a court that does not load is refused before any persona is read
    files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.y*ml")) if p.is_dir() else [p])]
    broken = 0
    for file in files:
        try:
            persona = Persona.from_file(file)
            check_seated(persona, file, court, roles)
            console.print("[green]ok[/] " + shown(f"{file} ({persona.name}, role {persona.role})"))
        except PersonaError as exc:
            broken += 1
            err.print(f"[red]invalid[/] {shown(exc)}")
    if broken or not files:
        raise typer.Exit(1)


@personas_app.command("schema")
def personas_schema(output: str | None = typer.Option(None, "-o", "--output",
                                                      help="Write to a file.")) -> None:
    """Print (or write) the JSON Schema of persona files, for editor validation."""
    from courtroom.court.personas import persona_json_schema

    text = json.dumps(persona_json_schema(), indent=2)
    if output:
        Path(output).write_text(text + "\n")
    else:
        print(text)


@court_app.command("validate")
def court_validate(court: str = typer.Argument("default", help="Court name or file.")) -> None:
    """Validate a court: its file (and the courts it extends), its graph and its personas; `court show` prints
    every setting it resolves to."""
    from courtroom.courts import load_court

    with failing():
        c = load_court(court)
    console.print(f"[green]ok[/] {shown(c.describe())}")
    _calls_out(c)


def _calls_out(judge: Any) -> None:
    """Flag every seat of the court that calls a served model: `run` calls it only with the user's
    --allow-host."""
    from courtroom.door.http_client import origin

    trial = getattr(judge.spec, "trial", None)
    for role, seats in trial.models.items() if trial is not None else ():
        for seat in (s for s in seats if s.url):
            key = (f"the key in ${seat.api_key_env}"
                   if seat.api_key_env else "no key (--api-key-env's at --model-url's host)")
            grant = origin(seat.url) + (f"={seat.api_key_env}" if seat.api_key_env else "")
            err.print("[yellow]calls out[/]: " + shown(f"role {role} speaks to model {seat.model} at "
                                                       f"{seat.url}, with {key}: `courtroom run` calls it "
                                                       f"only with --allow-host {grant}"))


@court_app.command("show")
def court_show(court: str = typer.Argument("default", help="Court name or file."),
               mermaid: bool = typer.Option(False, "--mermaid", help="Print only the mermaid "
                                                                     "diagram.")) -> None:
    """Describe a court, print every setting it resolves to (marked with the file it came from, through
    `extends`, or `default`), and draw its trial's procedure as a mermaid diagram."""
    from courtroom.courts import load_court, read_court
    from courtroom.courts.files import resolved_settings

    with failing():
        judge, resolved = load_court(court), read_court(court)
    procedure = getattr(judge, "procedure", None)
    if mermaid:
        if procedure is None:
            fail(f"court {judge.spec.name} holds no trial: it has no procedure to draw")
        print(visible(judge.to_mermaid()))  # type: ignore[attr-defined]
        return
    console.print(shown(judge.describe()))
    _calls_out(judge)
    settings = judge.spec.model_dump(mode="json", by_alias=True, exclude={"schema_path"})
    rows = []
    for path, value, origin in resolved_settings(resolved, settings):
        where = Path(origin).name if origin != "default" else "default"
        name = ".".join(path)
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            rows += [(f"{name}[{i}]", json.dumps(v, ensure_ascii=False), where) for i, v in enumerate(value)]
        elif isinstance(value, str) and "\n" in value.strip():
            rows += [(name, "|", where)] + [("", f"  {line}", "") for line in value.strip().splitlines()]
        else:
            rows.append((name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False),
                         where))
    width = max(len(name) for name, _, _ in rows)
    for name, text, where in rows:
        print(visible(f"{name:<{width}}  {text}" + (f"  # {where}" if where else "")))
    if procedure is not None:
        print(visible(judge.to_mermaid()))  # type: ignore[attr-defined]


@court_app.command("schema")
def court_schema() -> None:
    """Print the JSON Schema of court files."""
    from courtroom.courts import court_json_schema

    print(json.dumps(court_json_schema(), indent=2))


@transcript_app.command("schema")
def transcript_schema() -> None:
    """Print the published JSON Schema of a transcript event (one JSONL line)."""
    from courtroom.engine.events import event_json_schema

    print(json.dumps(event_json_schema(), indent=2))
