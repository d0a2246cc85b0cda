"""A served model behind the same door: any OpenAI-compatible HTTP server (vLLM, SGLang, llama.cpp's server, a
hosted API), asked the way the in-process backend computes.

- *JSON outputs* go to `/chat/completions` with `response_format` set to the output's JSON schema (the
  server's structured outputs); a reply that still does not validate is a recorded parse failure.
- *Scored choices* and *scored texts* (moves, verdicts, grounding) are computed exactly as in process: the
  prompt is tokenized by the server (`/tokenize`, with the model's own chat template) and the log-probability
  of every token of every option is read; an option's score is their sum, the options' probabilities their
  normalised exponentials. On vLLM each token is read where it would be generated (`/completions` with the
  option's tokens so far as the prompt, `max_tokens: 1`, `allowed_token_ids` of the next one, and its raw
  log-probability): every such request reuses the prefix cache, so a case's long context is computed once.
  Elsewhere they come from `echo` with `max_tokens: 0` (prompt log-probabilities), which vLLM computes without
  the cache. Servers with neither (hosted APIs) answer choices approximately, from the first generated
  token's `top_logprobs`, and cannot score texts: a court that needs them is refused before the first case.
- A lockstep batch goes out as concurrent requests (at most `concurrency` at once), so the server's
  continuous batching does the work; every prompt of a case opens the same way, so its prefix cache hits.
- Each request is retried with backoff on 429, 5xx and dropped connections, and takes at most `timeout` seconds in
  all and an answer of at most 256 MiB (`door.http_client`); before the first case
  `prepare` probes the server and fails with one clear error for a refused connection, a refused key, an
  unknown model. The API key is read from an environment variable whose *name* is all that is recorded.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from courtroom.door.backend import Backend, ServerCapabilities
from courtroom.door.http_client import ServerClient, refuse_credentials
from courtroom.door.requests import GenerationRequest, GenerationResponse, OutputSpec, truncation_message
from courtroom.errors import BackendError, ConfigError

TOKEN_SCORING_LIMIT = 16
"""Option tokens up to which a choice is always scored token by token (cached). Beyond it, a choice is scored
token by token only when that computes fewer tokens than `echo` (`_token_scoring_pays`): a choice among many
short options over a long prompt (a citation among the context's numbered sentences) is, since `echo`
computes the whole prompt again for every option; a long text (a grounding measure) is not, since each token's
request computes every option token before it."""

CACHE_BLOCK = 16
"""Tokens a token-scoring request may compute again past the cached prompt (a server caches whole blocks)."""

LOGPROB_SLACK = 1e-4
"""How far above 0 a server's log-probability may round (read as 0); anything higher is refused as no log-probability."""


class ServedBackend(Backend):
    """The door to a model someone serves over an OpenAI-compatible API."""

    name = "served"
    light = True

    def __init__(self, url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY", concurrency: int = 8,
                 timeout: float = 120.0, retries: int = 4, prompt_logprobs: bool | None = None) -> None:
        """`url` is the API's base (`http://127.0.0.1:8000/v1`); `model` the served model's name;
        `prompt_logprobs=False` forces the approximate path of servers without them (None: probe)."""
        try:
            refuse_credentials(url)  # they would reach error messages, and so the run's results
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.url = url.rstrip("/")
        self.root = self.url.removesuffix("/v1")
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.retries = retries
        self.timeout = timeout
        key = os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = ServerClient(self.url, model, headers=headers, timeout=timeout, retries=retries,
                                  max_connections=2 * concurrency)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="courtroom-served")
        self._terms = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="courtroom-served-tokens")
        self._forced_prompt_logprobs = prompt_logprobs
        self._capabilities: ServerCapabilities | None = None
        self._option_ids: dict[str, tuple[list[list[int]], list[str]]] = {}
        self._end_ids: list[int] | None = None

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
            raise BackendError(f"cannot reach the model server at {self.url} ({type(exc).__name__}: {exc}); is it "
                               "running, and is --model-url its OpenAI API base (…/v1)?") from exc
        if status in (401, 403):
            where = f"${self.api_key_env}" if os.environ.get(self.api_key_env) else f"no key (${self.api_key_env} is unset)"
            raise BackendError(f"the model server at {self.url} refused the request ({status}) with "
                               f"{where}; set the key's environment variable, or name another with --api-key-env")
        if status != 200:
            raise BackendError(f"the model server at {self.url} answered /models with {status}: {text[:200]}")
        served = _served_models(self._http.json_object(f"{self.url}/models", text))
        if self.model not in served:
            raise BackendError(f"the model server at {self.url} does not serve {self.model!r}; it serves "
                               f"{sorted(served)} (give --model one of them)")
        max_len = served[self.model].get("max_model_len")
        if not (max_len is None or isinstance(max_len, int) and not isinstance(max_len, bool) and max_len > 0):
            raise BackendError(f"the model server at {self.url} gives {self.model!r} a max_model_len of {max_len!r} "
                               "(expected a positive integer)")
        tokenize = self._probe_tokenize()
        prompt_logprobs = tokenize and self._probe_prompt_logprobs() if self._forced_prompt_logprobs is None \
            else self._forced_prompt_logprobs
        token_scoring = tokenize and self._forced_prompt_logprobs is not False and self._probe_token_scoring()
        self._capabilities = ServerCapabilities(tokenize=tokenize, prompt_logprobs=prompt_logprobs, max_model_len=max_len,
                                                token_scoring=token_scoring)

    def _probe_tokenize(self) -> bool:
        try:
            return bool(self._post(f"{self.root}/tokenize", {"model": self.model, "prompt": "probe",
                                                             "add_special_tokens": False}, retries=0).get("tokens"))
        except BackendError:
            return False

    def _probe_prompt_logprobs(self) -> bool:
        try:
            ids = self._tokenize_text("The sky is blue.")
            body = {"model": self.model, "prompt": ids, "max_tokens": 0, "echo": True, "logprobs": 0}
            logprobs = self._post(f"{self.url}/completions", body, retries=0)["choices"][0]["logprobs"]
            return len(logprobs["token_logprobs"]) == len(ids)
        except (BackendError, KeyError, TypeError, IndexError):
            return False

    def _probe_token_scoring(self) -> bool:
        try:
            prompt, blue = self._tokenize_text("The sky is"), self._tokenize_text(" green")
            body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "logprobs": 1, "temperature": 0,
                    "allowed_token_ids": blue[:1], "return_tokens_as_token_ids": True}
            logprobs = self._post(f"{self.url}/completions", body, retries=0)["choices"][0]["logprobs"]
            return logprobs["tokens"][0] == f"token_id:{blue[0]}" and logprobs["token_logprobs"][0] < 0
        except (BackendError, KeyError, TypeError, IndexError):
            return False

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
        responses = list(self._pool.map(self._serve_and_tick, requests))
        for response in responses:
            response.batch_size = len(requests)
            response.seconds = response.seconds or time.perf_counter() - start
        return responses

    def _serve_and_tick(self, request: GenerationRequest) -> GenerationResponse:
        response = self._serve(request)
        self.tick(requests=1, prompt_tokens=response.prompt_tokens - response.cached_prompt_tokens,
                  completion_tokens=response.completion_tokens)
        return response

    def _serve(self, request: GenerationRequest) -> GenerationResponse:
        try:
            return self._serve_unchecked(request)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:  # a body not shaped as promised
            where = f"case {request.cache_group!r}: " if request.cache_group else ""
            raise BackendError(f"{where}the model server at {self.url} answered with a body courtroom cannot read "
                               f"({type(exc).__name__}: {exc}); is it an OpenAI-compatible API?") from exc

    def _serve_unchecked(self, request: GenerationRequest) -> GenerationResponse:
        spec = request.spec
        if spec.kind == "choice" and request.constrained:
            if self.capabilities.scores_texts:
                return self._scored_choice(request, spec)
            if len(spec.options) == 1:
                raise BackendError(f"the model server at {self.url} returns no prompt log-probabilities, so it cannot "
                                   "score a text (grounding); use a court that does not measure grounding")
            return self._first_token_choice(request, spec)
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
                "name": spec.name[:64] or "output", "schema": json.loads(spec.schema or "{}"), "strict": True}}
        elif request.constrained:  # a choice, generated (servers without prompt log-probabilities)
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "choice", "schema": {"enum": list(spec.options)}, "strict": True}}
        answer = self._post(f"{self.url}/chat/completions", body, request=request)
        choice = answer["choices"][0]
        raw = choice["message"].get("content") or ""
        finish = "length" if choice.get("finish_reason") == "length" else "stop"
        usage = answer.get("usage") or {}
        counts = {"prompt_tokens": int(usage.get("prompt_tokens", 0)),
                  "cached_prompt_tokens": int(((usage.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0),
                  "completion_tokens": int(usage.get("completion_tokens", 0)),
                  "seconds": time.perf_counter() - started, "schema_key": spec.key}
        try:
            value = spec.parse(raw)
        except Exception as exc:  # a reply that does not validate: a recorded parse failure, never a crash
            error = truncation_message(spec, sampling.max_new_tokens) if finish == "length" and request.constrained \
                else str(exc)
            return GenerationResponse(raw=raw, error=error, finish_reason="length" if finish == "length" else
                                      "parse_error", **counts)
        return GenerationResponse(value=value, raw=raw, **counts)

    # -- scored choices and texts (prompt log-probabilities) ------------------------------------
    def _scored_choice(self, request: GenerationRequest, spec: OutputSpec) -> GenerationResponse:
        started = time.perf_counter()
        prompt = self._tokenize_messages(request)
        self.check_fits(request, len(prompt), 0)
        option_ids, _ = self._options(spec)
        self.check_fits(request, len(prompt), max(len(ids) for ids in option_ids))
        if self.capabilities.token_scoring and _token_scoring_pays(len(prompt), option_ids):
            token_scores, spans = self._scores_by_token(request, prompt, option_ids)
        else:
            token_scores, spans = self._scores_by_echo(request, prompt, option_ids)
        logp = [math.fsum(scores) for scores in token_scores]
        top = max(logp)
        weights = [math.exp(lp - top) for lp in logp]
        probs = [w / math.fsum(weights) for w in weights]
        choice = self._pick(probs, logp, request)
        option = spec.options[choice]
        return GenerationResponse(
            value=spec.coerce_option(option), raw=option, prompt_tokens=len(prompt),
            completion_tokens=len(option_ids[choice]), seconds=time.perf_counter() - started,
            option_probs=dict(zip(spec.options, probs)), option_logprobs=dict(zip(spec.options, logp)),
            token_logprobs=token_scores[choice], token_spans=_clip_spans(spans[choice], len(option)),
            schema_key=spec.key)

    def _scores_by_echo(self, request: GenerationRequest, prompt: list[int], option_ids: list[list[int]]
                        ) -> tuple[list[list[float]], list[list[tuple[int, int]]]]:
        """Every option token's log-probability from `echo` (the whole prompt computed again for each option)."""
        token_scores, spans = [], []
        for ids in option_ids:
            body = {"model": self.model, "prompt": prompt + ids, "max_tokens": 0, "echo": True, "logprobs": 0}
            answer = self._post(f"{self.url}/completions", body, request=request)
            scores, tokens = self._checked_logprobs(answer, total=len(prompt) + len(ids), last=len(ids))
            token_scores.append(scores)
            spans.append(_spans(tokens))
        return token_scores, spans

    def _scores_by_token(self, request: GenerationRequest, prompt: list[int], option_ids: list[list[int]]
                         ) -> tuple[list[list[float]], list[list[tuple[int, int]]]]:
        """Every option token's log-probability where it would be generated. The first request computes the
        prompt (and leaves it in the prefix cache); the others then go out together, each computing only the
        option tokens before its own."""
        positions = sorted({(tuple(ids[:k]), ids[k]) for ids in option_ids for k in range(len(ids))}, key=len)

        def term(position: tuple[tuple[int, ...], int]) -> tuple[float, str]:
            done, target = position
            body = {"model": self.model, "prompt": prompt + list(done), "max_tokens": 1, "logprobs": 1,
                    "temperature": 0, "allowed_token_ids": [target]}
            scores, tokens = self._checked_logprobs(self._post(f"{self.url}/completions", body, request=request),
                                                    total=1, last=1)
            return scores[0], tokens[0]

        first = term(positions[0])
        scored = dict(zip(positions, [first, *self._terms.map(term, positions[1:])]))
        token_scores = [[scored[(tuple(ids[:k]), ids[k])][0] for k in range(len(ids))] for ids in option_ids]
        texts = [[scored[(tuple(ids[:k]), ids[k])][1] for k in range(len(ids))] for ids in option_ids]
        return token_scores, [_spans(t) for t in texts]

    def _checked_logprobs(self, answer: dict[str, Any], *, total: int, last: int) -> tuple[list[float], list[str]]:
        """The `last` token log-probabilities (and tokens) of a completions answer that must hold `total` of them.
        A count that differs (the server tokenized another way) or a value that is not a log-probability (NaN,
        infinite, positive) is a `BackendError`, never a silently wrong score."""
        logprobs = answer["choices"][0]["logprobs"]
        values, tokens = list(logprobs["token_logprobs"]), [str(t) for t in logprobs["tokens"]]
        if len(values) != total or len(tokens) != total:
            raise BackendError(f"the model server at {self.url} returned {len(values)} token log-probabilities "
                               f"where {total} were asked for; does it tokenize as its /tokenize says?")
        return [self._logprob(v, finite=True) for v in values[total - last:]], tokens[total - last:]

    def _logprob(self, value: Any, *, finite: bool) -> float:
        """A log-probability from the server, rounding above 0 read as 0; NaN, a positive value (and, when
        `finite`, -inf) or no number at all is a `BackendError`."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not value <= LOGPROB_SLACK \
                or (finite and value == -math.inf):
            raise BackendError(f"the model server at {self.url} returned {value!r} as a token log-probability "
                               f"(expected a{' finite' if finite else ''} number at most 0)")
        return min(float(value), 0.0)

    @staticmethod
    def _pick(probs: list[float], logp: list[float], request: GenerationRequest) -> int:
        temperature = request.sampling.temperature
        if temperature == 0:
            return max(range(len(probs)), key=lambda i: probs[i])
        top = max(logp)
        tempered = [math.exp((lp - top) / temperature) for lp in logp]
        return random.Random(request.sampling.seed).choices(range(len(probs)), weights=tempered)[0]

    def _options(self, spec: OutputSpec) -> tuple[list[list[int]], list[str]]:
        """Each option's token ids; when one option's tokens begin another's, the end of the turn is scored too
        (as in process). Cached per option list, except one-option choices (texts being measured)."""
        cached = self._option_ids.get(spec.key)
        if cached is not None:
            return cached
        ids = [self._tokenize_text(option) for option in spec.options]
        if any(a != b and b[:len(a)] == a for a in ids for b in ids):
            ids = [t + self._end_of_turn() for t in ids]
        result = (ids, list(spec.options))
        if len(spec.options) > 1:
            self._option_ids[spec.key] = result
        return result

    def _end_of_turn(self) -> list[int]:
        """The token(s) that end an assistant turn in the model's chat template."""
        if self._end_ids is None:
            body = {"model": self.model, "messages": [{"role": "user", "content": "x"}, {"role": "assistant",
                                                                                          "content": "y"}],
                    "add_generation_prompt": False}
            with_turn = self._post(f"{self.root}/tokenize", body)["tokens"]
            without = self._post(f"{self.root}/tokenize", {**body, "messages": body["messages"][:1],
                                                           "add_generation_prompt": True})["tokens"]
            y = self._tokenize_text("y")
            tail = with_turn[len(without) + len(y):]
            self._end_ids = tail[:1]
        return self._end_ids

    def _tokenize_messages(self, request: GenerationRequest) -> list[int]:
        body = {"model": self.model, "messages": [m.model_dump() for m in request.messages],
                "add_generation_prompt": True}
        return list(self._post(f"{self.root}/tokenize", body, request=request)["tokens"])

    def _tokenize_text(self, text: str) -> list[int]:
        body = {"model": self.model, "prompt": text, "add_special_tokens": False}
        return list(self._post(f"{self.root}/tokenize", body)["tokens"])

    # -- choices without prompt log-probabilities (approximate) ---------------------------------
    def _first_token_choice(self, request: GenerationRequest, spec: OutputSpec) -> GenerationResponse:
        """The option the model writes, constrained to the options, with probabilities estimated from the
        first generated token's `top_logprobs` (an option no listed token begins gets what is left over)."""
        started = time.perf_counter()
        body = {"model": self.model, "messages": [m.model_dump() for m in request.messages], "max_tokens": 16,
                "temperature": request.sampling.temperature, "logprobs": True, "top_logprobs": 20}
        answer = self._post(f"{self.url}/chat/completions", body, request=request)
        choice = answer["choices"][0]
        text = (choice["message"].get("content") or "").strip().strip('"').strip()
        first = ((choice.get("logprobs") or {}).get("content") or [{}])[0].get("top_logprobs", [])
        mass = {o: 0.0 for o in spec.options}
        for candidate in first:
            token = candidate.get("token", "").strip().strip('"').lower()
            logprob = self._logprob(candidate.get("logprob", -math.inf), finite=False)
            for o in spec.options:
                if token and o.lower().startswith(token):
                    mass[o] += math.exp(logprob)
        rest = max(0.0, 1.0 - math.fsum(mass.values())) / len(spec.options)
        total = math.fsum(mass.values()) + rest * len(spec.options)
        probs = {o: (mass[o] + rest) / total for o in spec.options}
        option = next((o for o in spec.options if o.lower() == text.lower()), max(probs, key=lambda o: probs[o]))
        usage = answer.get("usage") or {}
        return GenerationResponse(
            value=spec.coerce_option(option), raw=option, prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)), seconds=time.perf_counter() - started,
            option_probs=probs, option_logprobs={o: math.log(p) for o, p in probs.items()}, schema_key=spec.key)

    def _post(self, url: str, body: dict[str, Any], *, request: GenerationRequest | None = None,
              retries: int | None = None) -> dict[str, Any]:
        """POST JSON for `request` (named in errors by its case), asked again as `ServerClient.post` says."""
        return self._http.post(url, body, case=request.cache_group if request is not None else None, retries=retries)

    def close(self) -> None:
        """Close the connections and the request threads."""
        self._pool.shutdown(wait=False)
        self._terms.shutdown(wait=False)
        self._http.close()


def _served_models(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The models a `/models` answer lists, by id (entries without an id are left out)."""
    entries = answer.get("data")
    if not isinstance(entries, list):
        return {}
    return {entry["id"]: entry for entry in entries if isinstance(entry, dict) and isinstance(entry.get("id"), str)}


def _token_scoring_pays(prompt_tokens: int, option_ids: list[list[int]]) -> bool:
    """Whether to score the options token by token rather than by `echo`: always up to `TOKEN_SCORING_LIMIT`
    option tokens, beyond it when it computes fewer tokens. `echo` computes the prompt and the option for every
    option (prompt log-probabilities bypass the prefix cache); token by token computes the prompt once, then
    for each distinct position the option tokens before it and up to a cache block of the prompt."""
    if sum(map(len, option_ids)) <= TOKEN_SCORING_LIMIT:
        return True
    positions = {tuple(ids[:k + 1]) for ids in option_ids for k in range(len(ids))}
    by_token = prompt_tokens + sum(len(position) - 1 + CACHE_BLOCK for position in positions)
    by_echo = sum(prompt_tokens + len(ids) for ids in option_ids)
    return by_token < by_echo


def _spans(tokens: list[str]) -> list[tuple[int, int]]:
    """Each token's character span in the text the tokens make."""
    spans, start = [], 0
    for token in tokens:
        spans.append((start, start + len(token)))
        start += len(token)
    return spans


def _clip_spans(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """Token spans within the option's text (the end-of-turn token, when scored, spans nothing)."""
    return [(min(a, length), min(b, length)) for a, b in spans]

