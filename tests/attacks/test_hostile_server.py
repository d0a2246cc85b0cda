"""Attack: a model server that answers, but wrongly. A served engine (or a proxy in front of one) that returns
NaN, infinite or positive log-probabilities, fewer log-probabilities than the prompt has tokens (its tokenizer
disagrees with its /tokenize), a body that is not JSON, or JSON without the promised fields, or an answer that trickles in
forever or never ends, must end the case with an error naming the server and what was wrong, never a silently
wrong score or a hung or exhausted process, and never kill the run."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.door.served import ServedBackend
from courtroom.errors import BackendError
from courtroom.log.manifest import RunSpec
from courtroom.runs.start import start_run
from tests.helpers.fake_openai import MODEL, FakeServer, fake_server


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        yield server


CHOICE = GenerationRequest(messages=(ChatMessage(role="user", content="Is the sky blue? yes or no"),),
                           output_type=Literal["yes", "no"])


def scored(server: FakeServer, mode: str, **options: Any) -> Any:
    server.mode = "honest"  # probed honest, then wrong while serving
    backend = ServedBackend(server.url, MODEL, retries=0, **options)
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


def test_a_server_that_trickles_its_answer_times_out_in_all(fake: FakeServer) -> None:
    """httpx bounds each read, not the whole answer: one byte every 20 ms would never time out by reads alone. (The
    answer trickles for over 10 s; 2 s leaves the probe of /models time on a loaded machine.)"""
    with pytest.raises(BackendError, match=r"did not answer after 1 attempts \(ReadTimeout: the answer took more "
                                           r"than 2 s in all; a model this slow needs a longer request timeout "
                                           r"than 2 s \(`--request-timeout`"):
        scored(fake, "trickle", timeout=2)


def test_a_huge_answer_is_refused_as_it_streams_in(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("courtroom.door.http_client.MAX_RESPONSE_BYTES", 2**20)
    with pytest.raises(BackendError, match="answered completions with more than 1 MiB; refused"):
        scored(fake, "huge")


@pytest.mark.timeout(10)
def test_a_server_that_trickles_its_headers_times_out_in_all(fake: FakeServer) -> None:
    """Attack 7: the status line and headers a byte every 20 ms held a request for as long as the server liked (each
    read came within httpx's read timeout); the request's timeout now covers the headers too."""
    started = time.monotonic()
    with pytest.raises(BackendError, match=r"did not answer after 1 attempts \(ReadTimeout: the answer took more "
                                           r"than 0.5 s in all"):
        scored(fake, "trickle headers", timeout=0.5)
    assert time.monotonic() - started < 8  # (200 s before) the probe was honest; the request gave up at its deadline


@pytest.mark.timeout(10)
def test_a_models_probe_that_trickles_its_headers_times_out(fake: FakeServer) -> None:
    fake.models_mode = "trickle headers"
    backend = ServedBackend(fake.url, MODEL, retries=0, timeout=0.5)
    try:
        with pytest.raises(BackendError, match=r"cannot reach the model server at .*ReadTimeout: the answer took "
                                               r"more than 0.5 s in all"):
            backend.prepare()
    finally:
        fake.models_mode = "honest"
        backend.close()


def test_a_huge_models_answer_is_refused_as_it_streams_in(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 7: `/models` was read whole (a 600 MB answer took 1.25 GB); it goes through the same capped reader."""
    monkeypatch.setattr("courtroom.door.http_client.MAX_RESPONSE_BYTES", 2**20)
    fake.models_mode = "huge"
    backend = ServedBackend(fake.url, MODEL, retries=0)
    try:
        with pytest.raises(BackendError, match="answered models with more than 1 MiB; refused"):
            backend.prepare()
    finally:
        fake.models_mode = "honest"
        backend.close()


@pytest.mark.parametrize(("body", "says"), [
    (b"[]", "something other than a JSON object"), (b"not json", "something other than a JSON object"),
    (b'{"data": [{"id": "fake", "max_model_len": "many"}]}', "max_model_len of 'many'"),
    (b'{"data": ["fake", 3]}', "does not serve 'fake'")])
def test_a_models_answer_not_shaped_as_promised_is_a_clear_error(fake: FakeServer, body: bytes, says: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake, "models_body", body, raising=False)
    backend = ServedBackend(fake.url, MODEL, retries=0)
    try:
        with pytest.raises(BackendError, match="the model server at http://127.0.0.1") as caught:
            backend.prepare()
        assert says in str(caught.value)
    finally:
        backend.close()


def test_nan_in_the_approximate_path_is_an_error_too(fake: FakeServer) -> None:
    assert scored(fake, "honest", prompt_logprobs=False).option_probs["yes"] > 0.5
    with pytest.raises(BackendError, match="nan as a token log-probability"):
        scored(fake, "nan", prompt_logprobs=False)


def test_a_court_run_against_a_lying_server_ends_each_case_with_the_error_and_finishes(fake: FakeServer,
                                                                                        tmp_path: Path) -> None:
    fake.mode = "nan"
    run = start_run(RunSpec.build("examples", judge="courtroom", model=MODEL, model_url=fake.url, limit=3),
                    tmp_path / "run")
    rows = run.execute()
    run.close()
    assert len(rows) == 3
    assert all(r.error is not None and "nan as a token log-probability" in r.error for r in rows)
    assert all(r.score is None or not math.isnan(r.score) for r in rows)  # no NaN score was ever recorded
    assert len((tmp_path / "run" / "results.jsonl").read_text().splitlines()) == 3
