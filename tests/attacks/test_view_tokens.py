"""Attack (#58): `courtroom view` kept its token in a cookie, and a browser sends a host's cookies to every port of it.
After a restart (a new token) the printed URL answered 403 in the same browser, the old cookie checked before the
URL's token; a second view on another port failed the same way; and the token went to every other server on
127.0.0.1 the browser visited. The token is now never in a cookie: the URL carries it, the page's script sends it in
a header. In headless Chromium, one browser context for every start."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers.view import browser, made, serving  # noqa: F401 (fixtures)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def opens(page, url: str) -> bool:  # noqa: ANN001
    """Whether the printed URL opens the runs list (not a 403)."""
    if page.goto(url).status != 200:
        return False
    page.wait_for_selector("body[data-ready='1']")
    return page.locator("table.runs").count() == 1


@pytest.mark.browser
def test_the_printed_url_opens_after_a_restart_and_beside_another_view(made: Path, browser) -> None:  # noqa: ANN001, F811
    context = browser.new_context()
    page = context.new_page()
    port = free_port()
    with serving(made / "runs", port=port) as first:
        assert opens(page, first)
    with serving(made / "runs", port=port) as again:  # the same port, a new token: the old start's is gone
        assert again != first and opens(page, again)
    with serving(made / "runs") as one, serving(made / "runs") as other:  # two views at once, on two ports
        assert opens(page, one) and opens(page, other) and opens(page, one)
        page.goto(one + "#/run?run=mine")  # the page's own requests carry its token
        page.wait_for_selector("body[data-ready='1'] #case-body tr.case-row")
    assert context.cookies() == []
    context.close()


@contextmanager
def recording_server(heard: list[str]) -> Iterator[str]:
    """Another server on 127.0.0.1, which records every header it is sent."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            heard.append(str(self.headers))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"another site")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.browser
def test_the_token_goes_to_no_other_server_on_the_same_host(made: Path, browser) -> None:  # noqa: ANN001, F811
    context = browser.new_context()
    page = context.new_page()
    heard: list[str] = []
    with serving(made / "runs") as url, recording_server(heard) as elsewhere:
        token = url.split("token=")[1]
        assert opens(page, url)
        page.goto(elsewhere)
        page.goto(url + "#/run?run=mine")
        page.wait_for_selector("body[data-ready='1'] #case-body tr.case-row")
        page.goto(elsewhere + "again")
    assert len(heard) >= 2 and not any(token in headers for headers in heard), heard  # its pages (and favicon)
    context.close()
