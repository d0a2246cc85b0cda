"""`courtroom export`: a run's cases as CSV, Parquet or JSON Lines (one row per case), or as an inspect_ai
eval log."""

from __future__ import annotations

import typer

from courtroom.cli.app import app, console, fail, failing
from courtroom.report.terminal import shown


@app.command()
def export(
    run_dir: str = typer.Argument(..., help="Run directory."),
    fmt: str = typer.Option("csv", "--format", "-f", help="csv, parquet, jsonl (one row per case: verdict, "
                                                          "score, gold, correct, charges and their evidence) "
                                                          "or inspect (an inspect_ai eval log; pip install "
                                                          "courtroom[inspect])."),
    output: str | None = typer.Option(None, "-o", "--output", help="The file to write (default: beside the "
                                                                   "run, RUN.csv, RUN.parquet, RUN.jsonl, "
                                                                   "RUN.inspect.json)."),
) -> None:
    """Write a run's cases for other tools: pandas, spreadsheets, DuckDB, inspect_ai's log viewer."""
    from courtroom.cli.audit import open_audit
    from courtroom.log.export import FORMATS, default_output, export_run

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    audit = open_audit(run_dir)
    with failing(output or run_dir):
        target = output or default_output(run_dir, fmt)
        if fmt == "inspect":
            from courtroom.log.inspect_log import write_inspect_log

            path = write_inspect_log(audit, target)
        else:
            path = export_run(run_dir, fmt, target)
    console.print(f"wrote {shown(path)}")
