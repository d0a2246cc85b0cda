"""HTTP for the served door: every request within one deadline, every answer read through one cap.

httpx bounds each read and write, not a request (a server trickling bytes would hold it for ever), so every
socket operation here waits at most what is left of the request's `timeout`. Every answer is refused past
`MAX_RESPONSE_BYTES` as it streams in. 429, 5xx and dropped connections are asked again with backoff
(`ServerClient.post`). A URL that carries credentials is refused (`refuse_credentials`): a run records its
URL."""

from __future__ import annotations

import json
import re
import time
from contextvars import ContextVar
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import AfterValidator

from courtroom.errors import BackendError, ContextWindowError

MAX_RESPONSE_BYTES = 256 * 2**20
"""The largest answer read from a server (prompt log-probabilities of a long prompt take a few MB); a larger
one is refused before it fills the memory."""

RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504}
"""HTTP statuses worth asking again (after a pause): rate limits, timeouts, a server busy or restarting."""

SECRET_PARAMETER = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameters of a URL whose names say they carry a secret (`api_key`, `access_token`, `sig`, ...)."""


def url_credentials(url: str) -> str | None:
    """What in `url` looks like a credential (a user or password, a query parameter named like a key), or
    None."""
    parts = urlsplit(url)
    if "@" in parts.netloc:
        return "a user name or password before '@'"
    secret = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)
              if SECRET_PARAMETER.search(name)]
    return f"the query parameter {secret[0]!r}" if secret else None


def url_port(url: str) -> int | None:
    """The port `url` names (None: its scheme's), if 1 to 65535 in ASCII digits; else a ValueError saying
    so."""
    _, colon, port = urlsplit(url).netloc.rpartition("@")[2].rpartition("]")[2].rpartition(":")
    if colon and port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"the URL {url} names the port {port!r}: a port is a number from 1 to 65535, in "
                         "ASCII digits")
    return int(port) if colon and port else None


def origin(url: str) -> str:
    """Where a URL's requests go: scheme, host and port (`http://127.0.0.1:8000`)."""
    parts = urlsplit(url)
    port = url_port(url) or {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or ""
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def refuse_credentials(url: str) -> None:
    """Refuse a served API's URL that carries credentials (a run's manifest records it), without repeating
    them."""
    if (found := url_credentials(url)) is not None:
        parts = urlsplit(url)
        shown = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"
        raise ValueError(f"the model URL {shown} carries credentials ({found}); courtroom records the URL in "
                         "the run's manifest, so it does not take them there: put the key in an environment "
                         "variable and name it with --api-key-env (api_key_env; sent as a bearer token)")


def checked_url(url: str | None) -> str | None:
    """`url`, refused (a ValueError) when it carries credentials or names a port that is none."""
    if url is not None:
        refuse_credentials(url)
        url_port(url)
    return url


ServedUrl = Annotated[str | None, AfterValidator(checked_url)]
"""A served API's URL in a spec, checked (`checked_url`)."""


_DEADLINE: ContextVar[float | None] = ContextVar("courtroom_request_deadline", default=None)
"""When the request under way in this thread must be done (`time.monotonic()`)."""


def _within(timeout: float | None, operation: str) -> float | None:
    """A socket operation's timeout, cut to what is left of the request's deadline; past it, an httpcore
    timeout (`ReadTimeout`, `WriteTimeout`, `ConnectTimeout`) at once."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        import httpcore

        raise getattr(httpcore, f"{operation}Timeout")("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Wrapper:
    """Hands what it does not override to the httpcore object it wraps (a stream's `close`, a backend's
    `sleep`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _DeadlineStream(_Wrapper):
    """An httpcore network stream whose every operation waits at most until the request's deadline."""

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _within(timeout, "Read"))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _within(timeout, "Write"))

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float
                  | None = None) -> Any:
        return (_DeadlineStream(self._inner.start_tls(ssl_context, server_hostname,
                                                      _within(timeout, "Connect"))))


class _DeadlineBackend(_Wrapper):
    """An httpcore network backend whose connections and streams keep the request's deadline."""

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> _DeadlineStream:
        return _DeadlineStream(self._inner.connect_tcp(host, port, _within(timeout, "Connect"), local_address,
                                                    socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None
                            ) -> _DeadlineStream:
        return _DeadlineStream(self._inner.connect_unix_socket(path, _within(timeout, "Connect"),
                                                               socket_options))


class ServerClient:
    """The connections to one model server: requests within `timeout` seconds in all, answers of at most
    `MAX_RESPONSE_BYTES`; errors name the server (`server`) and, for a prompt refused as too long, the
    model."""

    def __init__(self, server: str, model: str, *, headers: dict[str, str], timeout: float, retries: int,
                 max_connections: int) -> None:
        import httpx

        self.server, self.model, self.timeout, self.retries = server, model, timeout, retries
        self._client = httpx.Client(headers=headers,
                                    timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
                                    limits=httpx.Limits(max_connections=max_connections))
        for transport in (self._client._transport, *self._client._mounts.values()):  # proxies too
            pool = getattr(transport, "_pool", None)
            if transport is not None and not hasattr(pool, "_network_backend"):
                raise BackendError(f"this version of httpx ({httpx.__version__}) cannot bound a request's "
                                   "total time; install httpx 0.27 or 0.28")
            if pool is not None:
                pool._network_backend = _DeadlineBackend(pool._network_backend)

    def receive(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[int, str]:
        """Send and read the whole answer, its status and text, within `timeout` seconds in all (else an
        `httpx.ReadTimeout`), refused past `MAX_RESPONSE_BYTES`."""
        import httpx

        deadline = time.monotonic() + self.timeout
        token = _DEADLINE.set(deadline)
        try:
            with self._client.stream(method, url, json=body) as response:
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise BackendError(f"the model server at {self.server} answered {_endpoint(url)} "
                                           f"with more than {MAX_RESPONSE_BYTES // 2**20} MiB; refused")
                    chunks.append(chunk)
                return response.status_code, b"".join(chunks).decode(response.encoding or "utf-8",
                                                                     errors="replace")
        except httpx.TimeoutException as exc:
            if time.monotonic() < deadline or isinstance(exc, httpx.ConnectTimeout):
                raise
            raise (httpx.ReadTimeout(f"the answer took more than {self.timeout:g} s in all",
                                     request=None)) from exc
        finally:
            _DEADLINE.reset(token)

    def post(self, url: str, body: dict[str, Any], *, case: str | None = None, retries: int | None = None
             ) -> dict[str, Any]:
        """POST JSON and read a JSON object, asking again with backoff on 429, 5xx and dropped connections;
        any other refusal is a `BackendError` with the server's message (a context-length refusal a
        `ContextWindowError`)."""
        import httpx

        attempts = (self.retries if retries is None else retries) + 1
        where = f"case {case!r}: " if case else ""
        last = ""
        for attempt in range(attempts):
            try:
                status, text = self.receive("POST", url, body)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
                if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
                    last += (f"; a model this slow needs a longer request timeout than {self.timeout:g} s "
                             f"(`--request-timeout`, or `timeout` of the backend spec)")
            else:
                if status == 200:
                    return self.json_object(url, text)
                last = f"HTTP {status}: {text[:300]}"
                if status not in RETRYABLE:
                    lowered = text.lower()
                    if status == 400 and ("context length" in lowered or "maximum model length" in lowered):
                        raise ContextWindowError(f"{where}the model server refused the prompt as too long "
                                                 f"for {self.model!r}: {text[:300]}")
                    raise BackendError(f"{where}the model server at {self.server} refused {_endpoint(url)}: "
                                       f"{last}")
            if attempt + 1 < attempts:
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
        raise BackendError(f"the model server at {self.server} did not answer after {attempts} attempts "
                           f"({last})")

    def json_object(self, url: str, text: str) -> dict[str, Any]:
        """An answer's text as a JSON object, else a `BackendError` showing its beginning."""
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise BackendError(f"the model server at {self.server} answered {_endpoint(url)} with something "
                               f"other than a JSON object: {text[:200]!r}")
        return answer

    def close(self) -> None:
        self._client.close()


def _endpoint(url: str) -> str:
    return url.rsplit("/", 1)[-1]
