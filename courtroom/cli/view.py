"""`courtroom view [RUNS_DIR]`: review runs in the browser, live as they are written, and label their
cases."""

from __future__ import annotations

import ipaddress

import typer

from courtroom.cli.app import app, console, fail, failing, warn
from courtroom.report.terminal import shown


@app.command()
def view(
    runs_dir: str = typer.Argument("runs", help="The folder of runs to serve (every run under it, or one "
                                                "run)."),
    host: str = typer.Option("127.0.0.1", help="The address to listen on; another than this machine's "
                                               "loopback lets anyone who can reach it and has the printed "
                                               "URL (its token) read the runs and label them."),
    port: int = typer.Option(8765, min=0, max=65535, help="The port (0: any free one)."),
    prior: str | None = typer.Option(None, "--prior", help="The ruling the labels refit (default: the "
                                                           "shipped rulings/default.<model>.yaml of a run's "
                                                           "model, if there is one)."),
    n: int = typer.Option(30, "--n", min=1, help="Labels to ask for, as `courtroom label --n`."),
    seed: int = typer.Option(0, help="Seed of the draw of cases to label, as `courtroom label --seed`."),
    author: str | None = typer.Option(None, "--author", help="Who labels, as the runs' records keep it "
                                                             "(default: the login name)."),
) -> None:
    """Serve the runs under RUNS_DIR at a local web page: the runs with their metrics, each run's cases to
    filter and sort (a run being written shows its cases as they arrive), each case's court record, two runs
    side by side, and labelling with the keyboard (h, f, s, u, arrows) into the run's record of human
    judgement, as `courtroom label` does, with what a refit would do after every label, and the refit run from
    the page. Every request needs the token of the printed URL, made anew at each start."""
    import secrets

    from courtroom.view.app import address, create_app, listen, serve

    token = secrets.token_urlsafe(24)
    with failing():
        app_ = create_app(runs_dir, token, prior, n, seed, author)
    try:
        sock = listen(host, port)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port} ({exc.strerror or exc}): give another --port (0: any free one)")
    if not _loopback(host):
        warn(f"listening on {host}, not only on this machine: anyone who can reach it and has the URL's "
             "token can read these runs and label them, over plain HTTP")
    console.print(f"courtroom view of {shown(runs_dir)}: {shown(address(sock, token))}  (Ctrl-C stops it)",
                  soft_wrap=True)  # the URL on one line, to click or copy whole
    serve(sock, app_)


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
