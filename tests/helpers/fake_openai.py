"""A small OpenAI-compatible model server on 127.0.0.1 for tests of the served door without an engine: a
character tokenizer (a token's id is its code point) or a byte tokenizer (`tokenizer`), a log-probability per token
id, and switches for how it scores (`token_scoring`: the vLLM extensions that score a token where it would be
generated) and for one way of being wrong (`mode`). Every request is logged (`requests`)."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "fake"


def token_logprob(token_id: int) -> float:
    """The fake model's log-probability of a token, wherever it stands: -0.5 for every token."""
    return -0.5


class FakeServer(ThreadingHTTPServer):
    """The server; set `mode`, `token_scoring` and `logprob` between requests."""

    mode = "honest"
    """honest, nan, infinite, positive, short (fewer log-probabilities than tokens), not json, no logprobs; trickle
    (an honest answer, one byte every 20 ms), trickle headers (the status line and headers one byte every 20 ms, for
    ever) and huge (a body of `huge_bytes`, streamed)."""
    models_mode = "honest"
    """How `GET /models` answers: honest, trickle headers or huge."""
    models_body: bytes | None = None
    """What `GET /models` answers instead of the honest list, when set."""
    refusal: str | None = None
    """When set, every completion (`/completions`, `/chat/completions`) is refused with HTTP 400 and this text."""
    huge_bytes = 4 * 2**20
    token_scoring = False
    """Whether it scores a token where it would be generated (`allowed_token_ids`, `return_tokens_as_token_ids`)."""
    logprob = staticmethod(token_logprob)
    tokenizer = "characters"
    """characters (a token per character, its id the code point); bytes (a token per UTF-8 byte, its id the byte,
    written as vLLM writes a token decoded alone: a byte of a character of several bytes is U+FFFD); openai bytes (the
    same tokens, such a byte written as OpenAI does, `bytes:\\xe2`)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.keys: list[str | None] = []
        """The Authorization header of every request, in order."""

    def token(self, token_id: int) -> str:
        """A token as the server writes it in log-probabilities: decoded alone."""
        if self.tokenizer == "characters" or token_id < 0x80:
            return chr(token_id)
        return "\ufffd" if self.tokenizer == "bytes" else f"bytes:\\x{token_id:02x}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, payload: Any, raw: bytes | None = None) -> None:
        body = raw if raw is not None else json.dumps(payload).encode()
        mode = {"/v1/completions": self.server.mode, "/v1/models": self.server.models_mode}.get(self.path, "honest")
        if mode == "trickle headers":
            self._trickle_headers()
            return
        length = self.server.huge_bytes if mode == "huge" else len(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        try:
            if mode == "trickle":
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.02)
            elif mode == "huge":
                block = b" " * 2**16
                for _ in range(length // len(block)):
                    self.wfile.write(block)
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up reading, as it should
            pass

    def _refuse(self, text: str) -> None:
        body = text.encode()
        self.send_response(400)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _trickle_headers(self) -> None:
        """A status line, then a header that never ends, a byte every 20 ms (each well within any read timeout)."""
        try:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.02)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up, as it should
            pass

    def do_GET(self) -> None:  # noqa: N802
        self.server.keys.append(self.headers.get("Authorization"))
        self._send({"data": [{"id": MODEL, "max_model_len": 8192}]}, raw=self.server.models_body)

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server, mode = self.server, self.server.mode
        server.keys.append(self.headers.get("Authorization"))
        server.requests.append((self.path, body))
        if self.path == "/tokenize":
            text = body["prompt"] if "prompt" in body else "".join(m["content"] for m in body["messages"])
            self._send({"tokens": list(text.encode()) if server.tokenizer != "characters" else [ord(c) for c in text]})
        elif server.refusal is not None:
            self._refuse(server.refusal)
        elif self.path == "/v1/completions":
            self._completion(body, server, mode)
        else:  # /v1/chat/completions, the approximate choice of servers without prompt log-probabilities
            top = [{"token": "yes", "logprob": math.nan if mode == "nan" else -0.1}]
            self._send({"choices": [{"message": {"content": "yes"}, "finish_reason": "stop",
                                     "logprobs": {"content": [{"top_logprobs": top}]}}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 1}})

    def _completion(self, body: dict[str, Any], server: FakeServer, mode: str) -> None:
        if mode == "not json":
            self._send(None, raw=b"<html>502 Bad Gateway</html>")
            return
        if mode == "no logprobs":
            self._send({"choices": [{"text": ""}]})
            return
        if body.get("echo"):
            ids = body["prompt"]
            values: list[Any] = [None] + [server.logprob(t) for t in ids[1:]]
            tokens = [server.token(t) for t in ids]
        else:  # one generated token, restricted to the allowed one where the server can
            allowed = body.get("allowed_token_ids") if server.token_scoring else None
            target = allowed[0] if allowed else ord("x")
            values = [server.logprob(target)]
            as_ids = server.token_scoring and body.get("return_tokens_as_token_ids")
            tokens = [f"token_id:{target}" if as_ids else server.token(target)]
        if mode in ("nan", "infinite", "positive"):
            values[-1] = {"nan": math.nan, "infinite": -math.inf, "positive": 3.0}[mode]
        if mode == "short":  # the server tokenized the text another way
            values, tokens = values[:-1], tokens[:-1]
        self._send({"choices": [{"text": "", "logprobs": {"token_logprobs": values, "tokens": tokens}}]})


@contextmanager
def fake_server() -> Iterator[FakeServer]:
    """A `FakeServer` serving on a free port for the duration of the block."""
    server = FakeServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
