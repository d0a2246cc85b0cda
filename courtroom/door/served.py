"""A served model behind the same door: any OpenAI-compatible HTTP server (vLLM, SGLang, llama.cpp, a hosted
API). JSON outputs go to `/chat/completions` with `response_format`; scored choices and texts are computed as
in process (`door.served_scoring`); a lockstep batch goes out as concurrent requests (at most `concurrency`),
bounded and retried by `door.http_client`. `prepare` probes the server first; only the *name* of the API key's
variable is recorded."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from courtroom.door.backend import Backend, ServerCapabilities
from courtroom.door.http_client import ServerClient, checked_url
from courtroom.door.outputs import OutputSpec
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.door.served_scoring import ServedScoring
from courtroom.errors import BackendError, ConfigError


class ServedBackend(Backend):
    """The door to a model someone serves over an OpenAI-compatible API."""

    name = "served"
    light = True

    def __init__(self, url: str, model: str, *, api_key_env: str | None = "OPENAI_API_KEY",
                 concurrency: int = 8,
                 timeout: float = 120.0, retries: int = 4, prompt_logprobs: bool | None = None) -> None:
        """`url` is the API's base (`http://127.0.0.1:8000/v1`); `model` the served model's name;
        `prompt_logprobs=False` forces the approximate path of servers without them (None: probe)."""
        try:
            checked_url(url)  # credentials would reach error messages, and so the run's results
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.url, self.model, self.api_key_env = url.rstrip("/"), model, api_key_env
        self.concurrency, self.retries, self.timeout = concurrency, retries, timeout
        key = os.environ.get(api_key_env) if api_key_env else None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = ServerClient(self.url, model, headers=headers, timeout=timeout, retries=retries,
                                  max_connections=2 * concurrency)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="courtroom-served")
        self._scoring = ServedScoring(self._post, self.url, model, concurrency=concurrency)
        self._forced_prompt_logprobs = prompt_logprobs
        self._capabilities: ServerCapabilities | None = None

    # -- probing ---------------------------------------------------------------------------------
    @property
    def capabilities(self) -> ServerCapabilities:
        """What the server supports (probed on first use)."""
        if self._capabilities is None:
            self.prepare()
        assert self._capabilities is not None
        return self._capabilities

    def prepare(self) -> None:
        """Probe the server once: it answers, accepts the key, serves the model; then what it supports."""
        if self._capabilities is not None:
            return
        import httpx

        try:
            status, text = self._http.receive("GET", f"{self.url}/models")
        except httpx.HTTPError as exc:
            raise BackendError(f"cannot reach the model server at {self.url} ({type(exc).__name__}: {exc}); "
                               "is it running, and is --model-url its OpenAI API base (…/v1)?") from exc
        if status in (401, 403):
            var = self.api_key_env
            where = (f"${var}" if var and os.environ.get(var) else f"no key (${var} is unset)"
                     if var else "no key")
            raise BackendError(f"the model server at {self.url} refused the request ({status}) with {where}; "
                               "set the key's environment variable, or name another with --api-key-env")
        if status != 200:
            raise BackendError(f"the model server at {self.url} answered /models with {status}: {text[:200]}")
        served = _served_models(self._http.json_object(f"{self.url}/models", text))
        if self.model not in served:
            raise BackendError(f"the model server at {self.url} does not serve {self.model!r}; it serves "
                               f"{sorted(served)} (give --model one of them)")
        max_len = served[self.model].get("max_model_len")
        if (not (max_len is None or isinstance(max_len, int) and not isinstance(max_len, bool)
                 and max_len > 0)):
            raise BackendError(f"the model server at {self.url} gives {self.model!r} a max_model_len of "
                               f"{max_len!r} (expected a positive integer)")
        scoring = self._scoring
        tokenize = scoring.probe_tokenize()
        forced = self._forced_prompt_logprobs
        prompt_logprobs = tokenize and scoring.probe_prompt_logprobs() if forced is None else forced
        token_scoring = (tokenize and self._forced_prompt_logprobs is not False
                         and scoring.probe_token_scoring())
        self._capabilities = ServerCapabilities(tokenize=tokenize, prompt_logprobs=prompt_logprobs,
                                                max_model_len=max_len, token_scoring=token_scoring)

    @property
    def scores_texts(self) -> bool:
        return self.capabilities.scores_texts

    def why_no_text_scoring(self) -> tuple[str, str]:
        return (f"the model server at {self.url} returns none (a hosted API?)",
                "serve the model with vLLM or SGLang")

    @property
    def server(self) -> ServerCapabilities:
        return self.capabilities

    @property
    def context_window(self) -> int | None:
        return self.capabilities.max_model_len

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"backend": self.name, "url": self.url, "model": self.model,
                                "api_key_env": self.api_key_env, "concurrency": self.concurrency}
        if self._capabilities is not None:
            info["capabilities"] = self._capabilities.model_dump()
        return info

    # -- the door --------------------------------------------------------------------------------
    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        self.check_requests(requests)
        self.prepare()
        start = time.perf_counter()
        responses = list(self._pool.map(self._serve, requests))
        for response in responses:
            response.batch_size = len(requests)
            response.seconds = response.seconds or time.perf_counter() - start
        return responses

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        try:
            response = self._serve_unchecked(request)
        # a body not shaped as promised
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            where = f"case {request.cache_group!r}: " if request.cache_group else ""
            raise BackendError(f"{where}the model server at {self.url} answered with a body courtroom cannot "
                               f"read ({type(exc).__name__}: {exc}); is it an OpenAI-compatible "
                               "API?") from exc
        self.tick(requests=1, prompt_tokens=response.prompt_tokens - response.cached_prompt_tokens,
                  completion_tokens=response.completion_tokens)
        return response

    def _serve_unchecked(self, request: GenerationRequest) -> GenerationResponse:
        spec = request.spec
        if spec.kind == "choice" and request.constrained:
            if self.capabilities.scores_texts:
                return self._scoring.scored_choice(request, spec,
                                                   token_scoring=self.capabilities.token_scoring,
                                                   check_fits=self.check_fits)
            if len(spec.options) == 1:
                raise BackendError(f"the model server at {self.url} returns no prompt log-probabilities, so "
                                   "it cannot score a text (grounding); use a court that does not measure "
                                   "grounding")
            return self._scoring.first_token_choice(request, spec)
        return self._generated(request, spec)

    # -- generated outputs (JSON or free text) ------------------------------------------------------
    def _generated(self, request: GenerationRequest, spec: OutputSpec) -> GenerationResponse:
        started = time.perf_counter()
        sampling = request.sampling
        body: dict[str, Any] = {"model": self.model, "messages": [m.model_dump() for m in request.messages],
                                "max_tokens": sampling.max_new_tokens, "temperature": sampling.temperature}
        if sampling.seed is not None:
            body["seed"] = sampling.seed
        if request.constrained and spec.kind == "json":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": spec.name[:64] or "output", "schema": json.loads(spec.schema or "{}"),
                "strict": True}}
        elif request.constrained:  # a choice, generated (servers without prompt log-probabilities)
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "choice", "schema": {"enum": list(spec.options)}, "strict": True}}
        answer = self._post(f"{self.url}/chat/completions", body, request=request)
        choice = answer["choices"][0]
        usage = answer.get("usage") or {}
        return GenerationResponse.of_text(
            request, choice["message"].get("content") or "",
            truncated=choice.get("finish_reason") == "length",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            cached_prompt_tokens=int(((usage.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0),
            completion_tokens=int(usage.get("completion_tokens", 0)), seconds=time.perf_counter() - started,
            schema_key=spec.key)

    def _post(self, url: str, body: dict[str, Any], *, request: GenerationRequest | None = None,
              retries: int | None = None) -> dict[str, Any]:
        """POST JSON for `request` (named in errors by its case), asked again as `ServerClient.post` says."""
        return self._http.post(url, body, case=request.cache_group if request is not None else None,
                               retries=retries)

    def close(self) -> None:
        """Close the connections and the request threads."""
        self._pool.shutdown(wait=False)
        self._scoring.close()
        self._http.close()


def _served_models(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The models a `/models` answer lists, by id (entries without an id are left out)."""
    entries = answer.get("data")
    if not isinstance(entries, list):
        return {}
    return {entry["id"]: entry for entry in entries if isinstance(entry, dict)
            and isinstance(entry.get("id"), str)}

