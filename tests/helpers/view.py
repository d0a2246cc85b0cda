"""Runs for `courtroom view` made without a model (the pseudo-model, a scripted court), the app served on 127.0.0.1 in a
thread, and a real headless Chromium."""

from __future__ import annotations

import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from courtroom.calibrate.ruling_runs import calibrate_ruling, write_ruling
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.labels import USER_TOWNS
from tests.helpers.runs import court_run, judged, labelled

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`runs/`: `mine`, 40 cases of towns on the default court (the measure decides; a prior ruling fitted on 24 other
    cases is `prior.yaml`, outside the folder), and `strict` and `lenient`, two runs of the full court on the examples
    (scripted) that differ."""
    root = tmp_path_factory.mktemp("view")
    (root / "runs").mkdir()
    fit, _ = calibrate_ruling([judged(labelled(root / "prior.jsonl"), root / "prior-run")])
    write_ruling(fit, root / "prior.yaml", {})
    judged(labelled(root / "mine.jsonl", USER_TOWNS), root / "runs" / "mine")
    court_run(root / "runs" / "strict", 0.7, -0.5)
    court_run(root / "runs" / "lenient", 0.0, 0.8)
    return root


@pytest.fixture
def world(made: Path, tmp_path: Path) -> Path:
    """A copy of the made world, for a test to label and refit in."""
    shutil.copytree(made, tmp_path / "world")
    return tmp_path / "world"


@contextmanager
def serving(root: Path, port: int = 0, **options: Any) -> Iterator[str]:
    """The app over `root` on 127.0.0.1 (on `port`, else a free one), in a thread: its URL with a new token."""
    import uvicorn

    from courtroom.view.app import address, create_app, listen

    token = secrets.token_urlsafe(16)
    sock = listen("127.0.0.1", port)
    server = uvicorn.Server(uvicorn.Config(create_app(root, token, **options), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.02)
    try:
        yield address(sock, token)
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def browser():  # one a module: a Playwright left running would stop the next module's
    playwright, chromium = chromium_or_skip()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        yield browser
        browser.close()


def open_page(browser, url: str):  # noqa: ANN001, ANN201
    """A page at `url` (waited for), and the problems it reports: script errors, console errors, and any request
    that leaves the app's own host."""
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    problems: list[str] = []
    origin = url.split("/?")[0]
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: problems.append(r.url) if not r.url.startswith((origin, "data:")) else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page, problems
