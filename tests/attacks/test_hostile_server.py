"""Attack: a model server that answers, but wrongly. A served engine (or a proxy in front of one) that returns
NaN, infinite or positive log-probabilities, fewer log-probabilities than the prompt has tokens (its tokenizer
disagrees with its /tokenize), a body that is not JSON, or JSON without the promised fields must end the case
with an error naming the server and what was wrong, never a silently wrong score, and never kill the run."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.door.served import ServedBackend
from courtroom.errors import BackendError
from courtroom.log.manifest import RunSpec
from courtroom.runs.start import start_run

MODEL = "fake"


class FakeServer(ThreadingHTTPServer):
    """An OpenAI-compatible server with a character tokenizer, every token at log-probability -0.5, and one
    way of being wrong (`mode`)."""

    mode = "honest"


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, payload: Any, raw: bytes | None = None) -> None:
        body = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._send({"data": [{"id": MODEL, "max_model_len": 4096}]})

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode = self.server.mode
        if self.path == "/tokenize":
            text = body["prompt"] if "prompt" in body else "".join(m["content"] for m in body["messages"])
            self._send({"tokens": [ord(c) for c in text]})
        elif self.path == "/v1/completions":
            if mode == "not json":
                self._send(None, raw=b"<html>502 Bad Gateway</html>")
                return
            if mode == "no logprobs":
                self._send({"choices": [{"text": ""}]})
                return
            ids = body["prompt"] if body.get("echo") else [ord("x")]
            values: list[Any] = [None] + [-0.5] * (len(ids) - 1) if body.get("echo") else [-0.5]
            if mode in ("nan", "infinite", "positive"):
                values[-1] = {"nan": math.nan, "infinite": -math.inf, "positive": 3.0}[mode]
            tokens = [chr(i) for i in ids]
            if mode == "short":  # the server tokenized the text another way
                values, tokens = values[:-1], tokens[:-1]
            self._send({"choices": [{"text": "", "logprobs": {"token_logprobs": values, "tokens": tokens}}]})
        else:  # /v1/chat/completions, the approximate choice of servers without prompt log-probabilities
            top = [{"token": "yes", "logprob": math.nan if mode == "nan" else -0.1}]
            self._send({"choices": [{"message": {"content": "yes"}, "finish_reason": "stop",
                                     "logprobs": {"content": [{"top_logprobs": top}]}}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 1}})


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeServer]:
    server = FakeServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def url(server: FakeServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


CHOICE = GenerationRequest(messages=(ChatMessage(role="user", content="Is the sky blue? yes or no"),),
                           output_type=Literal["yes", "no"])


def scored(server: FakeServer, mode: str, **options: Any) -> Any:
    server.mode = "honest"  # probed honest, then wrong while serving
    backend = ServedBackend(url(server), MODEL, retries=0, **options)
    backend.prepare()
    server.mode = mode
    try:
        return backend.generate([CHOICE])[0]
    finally:
        backend.close()


def test_an_honest_fake_scores_exactly(fake: FakeServer) -> None:
    response = scored(fake, "honest")
    assert response.ok and response.option_logprobs == {"yes": -1.5, "no": -1.0}  # 3 and 2 tokens at -0.5 each
    assert response.value == "no"


@pytest.mark.parametrize(("mode", "says"), [
    ("nan", "nan as a token log-probability"), ("infinite", "-inf as a token log-probability"),
    ("positive", "3.0 as a token log-probability"), ("short", "does it tokenize as its /tokenize says"),
    ("not json", "something other than a JSON object: '<html>502"), ("no logprobs", "a body courtroom cannot read")])
def test_a_wrong_answer_is_an_error_naming_the_server(fake: FakeServer, mode: str, says: str) -> None:
    with pytest.raises(BackendError, match="the model server at http://127.0.0.1") as caught:
        scored(fake, mode)
    assert says in str(caught.value)


def test_nan_in_the_approximate_path_is_an_error_too(fake: FakeServer) -> None:
    assert scored(fake, "honest", prompt_logprobs=False).option_probs["yes"] > 0.5
    with pytest.raises(BackendError, match="nan as a token log-probability"):
        scored(fake, "nan", prompt_logprobs=False)


def test_a_court_run_against_a_lying_server_ends_each_case_with_the_error_and_finishes(fake: FakeServer,
                                                                                        tmp_path: Path) -> None:
    fake.mode = "nan"
    run = start_run(RunSpec.build("examples", judge="courtroom", model=MODEL, model_url=url(fake), limit=3),
                    tmp_path / "run")
    rows = run.execute()
    run.close()
    assert len(rows) == 3
    assert all(r.error is not None and "nan as a token log-probability" in r.error for r in rows)
    assert all(r.score is None or not math.isnan(r.score) for r in rows)  # no NaN score was ever recorded
    assert len((tmp_path / "run" / "results.jsonl").read_text().splitlines()) == 3
