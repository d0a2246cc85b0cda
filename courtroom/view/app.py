"""The web app of `courtroom view` (Starlette, served by uvicorn): one page, its script and styles, and a JSON
API over the runs under one folder. Every request needs the token made at this start, in its URL or in the
`X-Courtroom-Token` header the page's script sends (never in a cookie: a browser sends cookies to every port
of a host, so an old start's or another server's would be sent or checked); a change (a POST) needs it in the
header; a run is named by its key among those found under the folder and a static file by its name, so no
other path is opened (docs/SECURITY.md)."""

from __future__ import annotations

import getpass
import html
import secrets
import socket
import threading
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from courtroom.errors import AuditError, CourtroomError
from courtroom.log.store import first_problem
from courtroom.report.case_view import case_record
from courtroom.report.measurement import BAND_LABELS
from courtroom.report.summary import CaseQuery
from courtroom.view.labelling import Labelling
from courtroom.view.runs import Finder, RunView, diff, shown_path

HEADER = "x-courtroom-token"
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src "
          "'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": POLICY, "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer", "cache-control": "no-store", "x-frame-options": "DENY"}
STATIC = {**dict.fromkeys(("view.js", "page.js", "labelling.js", "view.css"), "courtroom.view/static"),
          **dict.fromkeys(("dom.js", "record.js", "testimony.js", "report.css"),
                          "courtroom.report/templates")}
"""The files the page loads, by name: the view's own and the report's case record (drawn the same way). A
script is an ES module at `/static/TOKEN/NAME`, so the modules it imports by a relative name carry the token
too."""
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="courtroom-token" content="{token}">
<title>courtroom view</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/{token}/report.css">
<link rel="stylesheet" href="/static/{token}/view.css"></head>
<body><nav><a href="#/">runs</a><span id="where"></span><span id="status" class="muted"></span></nav>
<main id="main"></main>
<script type="module" src="/static/{token}/view.js"></script>
</body></html>
"""


@cache
def _static(name: str) -> str:
    package, folder = STATIC[name].split("/")
    return resources.files(package).joinpath(folder, name).read_text(encoding="utf-8")


class LabelBody(BaseModel):
    case: str
    key: str
    """h, f or s: a label; u: the case's label taken back."""
    note: str = ""


class Runs:
    """The runs under the folder (looked for again when the folder changes) and their labelling."""

    def __init__(self, root: str | Path, prior: str | None, n: int, seed: int, author: str) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise AuditError(f"{root}: no such folder of runs")
        self.prior, self.n, self.seed, self.author = prior, n, seed, author
        self.find = Finder(self.root)
        self.views: dict[str, RunView] = {}
        self.labellings: dict[str, Labelling] = {}
        self.lock = threading.Lock()

    def all(self) -> list[RunView]:
        with self.lock:
            found = self.find()
            self.views = {key: view if (view := self.views.get(key))
                          and view.path == path else self._open(key, path)
                          for key, path in found.items()}
            return [v for v in self.views.values() if isinstance(v, RunView)]

    @staticmethod
    def _open(key: str, path: Path) -> RunView | str:
        try:
            return RunView(key, path)
        except CourtroomError as exc:  # no longer a run (removed while the folder was read)
            return str(exc)

    def get(self, key: str | None) -> RunView:
        if key not in self.views:
            self.all()
        view = self.views.get(key) if key is not None else None
        if not isinstance(view, RunView):
            raise HTTPException(404, f"no run {key!r} under {self.root}")
        return view

    def labelling(self, key: str | None) -> Labelling:
        view = self.get(key)
        with self.lock:
            if view.key not in self.labellings:
                self.labellings[view.key] = Labelling(view, self.prior, self.n, self.seed, self.author)
            return self.labellings[view.key]


def create_app(root: str | Path, token: str, prior: str | None = None, n: int = 30, seed: int = 0,
               author: str | None = None) -> Starlette:
    """The app over the runs under `root`, answering only requests that carry `token`; labels are given as
    `author` (default: the login name)."""
    runs = Runs(root, prior, n, seed, author or getpass.getuser())

    async def guard(request: Request, call_next: Callable) -> Response:
        def carries(value: str | None) -> bool:
            return value is not None and secrets.compare_digest(value.encode(), token.encode())

        parts = request.url.path.split("/")  # a script's path carries it: /static/TOKEN/NAME
        given = request.headers.get(HEADER) or request.query_params.get("token") or \
            (parts[2] if len(parts) == 4 and parts[1] == "static" else None)  # the URL's token opens the page
        if not carries(given) or (request.method not in ("GET", "HEAD")
                                  and not carries(request.headers.get(HEADER))):
            response: Response = JSONResponse({"error": "this courtroom view needs its token: open the URL "
                                                        "it printed (a change also needs the page's "
                                                        "X-Courtroom-Token header)"}, 403)
        else:
            response = await call_next(request)
        response.headers.update(HEADERS)
        return response

    def page(request: Request) -> Response:
        return HTMLResponse(PAGE.format(token=html.escape(token)))

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise HTTPException(404, f"no file {name!r}")
        return Response(_static(name), media_type="text/javascript" if name.endswith(".js") else "text/css")

    def api_runs(request: Request) -> Response:
        return JSONResponse({"root": shown_path(runs.root), "runs": [run.head() for run in runs.all()]})

    def api_run(request: Request) -> Response:
        run = runs.get(request.query_params.get("run"))
        return JSONResponse({**run.head(), **run.summary().model_dump()})

    def api_cases(request: Request) -> Response:
        run = runs.get(request.query_params.get("run"))
        query = CaseQuery.model_validate({k: v for k, v in request.query_params.items() if k != "run"})
        return JSONResponse({**run.cases(query), "bands": list(BAND_LABELS)})

    def api_case(request: Request) -> Response:
        run = runs.get(request.query_params.get("run")).fresh()
        with run.lock:
            try:
                row = run.audit.row(request.query_params.get("id", ""))
            except AuditError as exc:
                raise HTTPException(404, str(exc)) from exc
            calls = request.query_params.get("calls") == "1"
            return JSONResponse(case_record(run.audit, row, calls, run.audit.grounding_clip()))

    def api_diff(request: Request) -> Response:
        return JSONResponse(diff(runs.get(request.query_params.get("a")),
                                 runs.get(request.query_params.get("b"))))

    def api_label(request: Request) -> Response:
        return JSONResponse(runs.labelling(request.query_params.get("run")).state())

    async def give_label(request: Request) -> Response:
        body, key = LabelBody.model_validate_json(await request.body()), request.query_params.get("run")
        def give() -> object:
            return runs.labelling(key).give(body.case, body.key, body.note)
        return JSONResponse(await run_in_threadpool(give))

    def api_estimate(request: Request) -> Response:
        return JSONResponse(runs.labelling(request.query_params.get("run")).estimate())

    def api_refit(request: Request) -> Response:
        return JSONResponse(runs.labelling(request.query_params.get("run")).job)

    async def start_refit(request: Request) -> Response:
        key = request.query_params.get("run")
        return JSONResponse(await run_in_threadpool(lambda: runs.labelling(key).start_refit()))

    def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return JSONResponse({"error": exc.detail}, exc.status_code)
        text = f"not a valid request ({first_problem(exc)})" if isinstance(exc, ValidationError) else str(exc)
        # OSError: a label not written
        return JSONResponse({"error": text}, 500 if isinstance(exc, OSError) else 400)

    routes = [Route("/", page), Route("/static/{name}", static), Route("/static/{token}/{name}", static),
              Route("/api/runs", api_runs), Route("/api/run", api_run), Route("/api/cases", api_cases),
              Route("/api/case", api_case), Route("/api/diff", api_diff), Route("/api/label", api_label),
              Route("/api/label", give_label, methods=["POST"]), Route("/api/estimate", api_estimate),
              Route("/api/refit", api_refit), Route("/api/refit", start_refit, methods=["POST"])]
    return Starlette(routes=routes, middleware=[Middleware(BaseHTTPMiddleware, dispatch=guard)],
                     exception_handlers=dict.fromkeys((HTTPException, CourtroomError, ValidationError,
                                                       OSError), refused))


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host:port` (port 0: any free one)."""
    return socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)


def address(sock: socket.socket, token: str) -> str:
    """The URL of the app listening on `sock`, with its token."""
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/?token={token}"


def serve(sock: socket.socket, app: Any) -> None:
    """Serve `app` on `sock` until interrupted."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
