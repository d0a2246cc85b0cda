"""How the served door scores a choice: token by token (each option token where it would be generated, the
prompt computed once and cached) or by `echo` (the whole prompt computed again for every option), whichever
computes less, and both to the same scores. Against `tests.helpers.fake_openai` (no engine needed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest

from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.door.served import ServedBackend
from courtroom.door.served_scoring import _token_scoring_pays
from courtroom.door.token_spans import token_spans
from tests.helpers.fake_openai import MODEL, FakeServer, fake_server

CONTEXT = " ".join(f"[{n}] Sentence number {n} of the context says something." for n in range(1, 41))
CITATION = GenerationRequest(messages=(ChatMessage(role="user", content=f"{CONTEXT}\nWhich sentence states it?"),),
                             output_type=Literal[tuple(str(n) for n in range(10, 41))])  # 31 options, 62 tokens
LONG_TEXT = "The lighthouse was automated in 1926 after its last keeper retired."


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        server.logprob = lambda token_id: -((token_id % 7) + 1) / 10  # differs by token, so paths can disagree
        yield server


def score(server: FakeServer, request: GenerationRequest, *, token_scoring: bool) -> tuple[Any, list[str]]:
    server.token_scoring = token_scoring
    backend = ServedBackend(server.url, MODEL, retries=0)
    try:
        backend.prepare()
        assert backend.capabilities.token_scoring is token_scoring
        server.requests.clear()
        response = backend.generate([request])[0]
    finally:
        backend.close()
    paths = ["echo" if body.get("echo") else "token" for path, body in server.requests if path == "/v1/completions"]
    return response, paths


def test_many_short_options_over_a_long_prompt_are_scored_token_by_token(fake: FakeServer) -> None:
    by_token, paths = score(fake, CITATION, token_scoring=True)
    assert paths and set(paths) == {"token"}  # no option made the server compute the whole prompt again
    assert len(paths) < 2 * 31
    by_echo, echo_paths = score(fake, CITATION, token_scoring=False)
    assert echo_paths == ["echo"] * 31
    assert by_token.option_logprobs == pytest.approx(by_echo.option_logprobs)
    assert by_token.value == by_echo.value


def test_a_long_text_is_scored_by_echo_even_where_tokens_could_be(fake: FakeServer) -> None:
    text = GenerationRequest(messages=(ChatMessage(role="user", content="Say it."),),
                             output_type=Literal[LONG_TEXT])
    _, paths = score(fake, text, token_scoring=True)
    assert paths == ["echo"]


def test_the_choice_of_path_counts_the_tokens_each_computes() -> None:
    assert _token_scoring_pays(10, [[1, 2], [3, 4]])  # within the limit: always token by token
    assert _token_scoring_pays(2000, [[n, m] for n in range(5) for m in range(4)])  # 20 options over a long prompt
    assert not _token_scoring_pays(2000, [list(range(60))])  # one long text: echo
    assert not _token_scoring_pays(5, [[n, m] for n in range(5) for m in range(4)])  # a tiny prompt: echo is cheap


SPLIT = "Le café — très bon \U0001F600 ok, naïve 日本."
"""A text whose characters of several bytes a byte tokenizer splits between tokens."""


def by_bytes(text: str) -> list[tuple[int, int]]:
    """The span of every byte token of `text`: the character it is part of (as a tokenizer's offsets give it)."""
    return [(i, i + 1) for i, character in enumerate(text) for _ in character.encode()]


@pytest.mark.parametrize("tokenizer", ["bytes", "openai bytes"])
@pytest.mark.parametrize(("options", "token_scoring"), [((SPLIT,), False), (("café!", "thé 日!"), True)])
def test_tokens_that_split_a_character_keep_every_later_token_in_place(
        fake: FakeServer, tokenizer: str, options: tuple[str, ...], token_scoring: bool) -> None:
    """A byte-level tokenizer splits `😀` into four tokens; a server writes each as it decodes alone (`\ufffd`, or
    OpenAI's `bytes:\\xf0`): read by their lengths, every token after the first split character pointed at other
    characters, and the witnesses at other words."""
    fake.tokenizer = tokenizer
    request = GenerationRequest(messages=(ChatMessage(role="user", content="Say it."),), output_type=Literal[options])
    response, paths = score(fake, request, token_scoring=token_scoring)
    assert set(paths) == {"token" if token_scoring else "echo"}
    assert response.token_spans == by_bytes(response.raw)


@pytest.mark.parametrize(("tokens", "text", "spans"), [
    (["The", "sky", "is"], "The sky is", [(0, 3), (3, 7), (7, 10)]),   # SentencePiece tokens decoded alone lose a space
    (["", "\U0001F600", " ok"], "\U0001F600 ok", [(0, 1), (0, 1), (1, 4)]),  # an empty piece held back: the offsets of the tokenizer
    (["a", "b", "<|im_end|>"], "ab", [(0, 1), (1, 2), (2, 2)]),         # the end of the turn, past the text
    (["a", "x"], "ab", None), (["a"], "ab", None)])                     # tokens that do not make the text
def test_token_spans_are_found_in_the_texts_bytes(tokens: list[str], text: str, spans: list | None) -> None:
    assert token_spans(tokens, text) == spans
