"""Choices and texts scored over HTTP for `door.served`: the probes of what a server can score with, exact
scores from every option token's log-probability (token by token, or by `echo`), and the approximate choice
from `top_logprobs`."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from courtroom.door.outputs import OutputSpec
from courtroom.door.requests import GenerationRequest, GenerationResponse
from courtroom.door.token_spans import decoded, token_spans
from courtroom.errors import BackendError

TOKEN_SCORING_LIMIT = 16
"""Option tokens up to which a choice is always scored token by token; beyond it, only when that computes
fewer tokens than `echo` (`_token_scoring_pays`)."""

CACHE_BLOCK = 16
"""Tokens a token-scoring request may compute again past the cached prompt (a server caches whole blocks)."""

LOGPROB_SLACK = 1e-4
"""How far above 0 a server's log-probability may round (read as 0); anything higher is refused as no
log-probability."""

Post = Callable[..., dict[str, Any]]
"""POST a JSON body to a URL (`request=`: the request it is for, named in errors; `retries=`), the answer's
JSON."""


class ServedScoring:
    """Scores a served model's choices and texts, through its backend's requests."""

    def __init__(self, post: Post, url: str, model: str, *, concurrency: int) -> None:
        """`post` sends the backend's requests; `url` is the API's base (`/tokenize` is asked at its root)."""
        self._post, self.url, self.root, self.model = post, url, url.removesuffix("/v1"), model
        self._terms = (ThreadPoolExecutor(max_workers=concurrency,
                                          thread_name_prefix="courtroom-served-tokens"))
        self._option_ids: dict[str, tuple[list[list[int]], list[str]]] = {}
        self._end_ids: list[int] | None = None

    # -- probing ---------------------------------------------------------------------------------
    def probe_tokenize(self) -> bool:
        """Whether the server tokenizes (`/tokenize`)."""
        try:
            return bool(self._post(f"{self.root}/tokenize", {"model": self.model, "prompt": "probe",
                                                             "add_special_tokens": False},
                                   retries=0).get("tokens"))
        except BackendError:
            return False

    def probe_prompt_logprobs(self) -> bool:
        """Whether `echo` returns a log-probability for every prompt token."""
        try:
            ids = self._tokenize_text("The sky is blue.")
            body = {"model": self.model, "prompt": ids, "max_tokens": 0, "echo": True, "logprobs": 0}
            logprobs = self._post(f"{self.url}/completions", body, retries=0)["choices"][0]["logprobs"]
            return len(logprobs["token_logprobs"]) == len(ids)
        except (BackendError, KeyError, TypeError, IndexError):
            return False

    def probe_token_scoring(self) -> bool:
        """Whether the server scores a token where it would be generated (`allowed_token_ids`, vLLM)."""
        try:
            prompt, blue = self._tokenize_text("The sky is"), self._tokenize_text(" green")
            body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "logprobs": 1, "temperature": 0,
                    "allowed_token_ids": blue[:1], "return_tokens_as_token_ids": True}
            logprobs = self._post(f"{self.url}/completions", body, retries=0)["choices"][0]["logprobs"]
            return logprobs["tokens"][0] == f"token_id:{blue[0]}" and logprobs["token_logprobs"][0] < 0
        except (BackendError, KeyError, TypeError, IndexError):
            return False

    def scored_choice(self, request: GenerationRequest, spec: OutputSpec, *, token_scoring: bool,
                      check_fits: Callable[[GenerationRequest, int, int], None]) -> GenerationResponse:
        """The option chosen and every option's probability, from every option token's log-probability (token
        by token when the server can and it pays, else by `echo`); `check_fits` refuses a prompt over the
        context window."""
        started = time.perf_counter()
        body = {"model": self.model, "messages": [m.model_dump() for m in request.messages],
                "add_generation_prompt": True}
        prompt = list(self._post(f"{self.root}/tokenize", body, request=request)["tokens"])
        check_fits(request, len(prompt), 0)
        option_ids, _ = self._options(spec)
        check_fits(request, len(prompt), max(len(ids) for ids in option_ids))
        scores_by = (self._scores_by_token if token_scoring
                     and _token_scoring_pays(len(prompt), option_ids) else self._scores_by_echo)
        token_scores, tokens = scores_by(request, prompt, option_ids)
        logp = [math.fsum(scores) for scores in token_scores]
        top = max(logp)
        weights = [math.exp(lp - top) for lp in logp]
        probs = [w / math.fsum(weights) for w in weights]
        choice = _pick(probs, logp, request)
        option = spec.options[choice]
        return GenerationResponse(
            value=spec.coerce_option(option), raw=option, prompt_tokens=len(prompt),
            completion_tokens=len(option_ids[choice]), seconds=time.perf_counter() - started,
            option_probs=dict(zip(spec.options, probs)), option_logprobs=dict(zip(spec.options, logp)),
            token_logprobs=token_scores[choice], token_spans=self._spans(tokens[choice], option),
            schema_key=spec.key)

    def _scores_by_echo(self, request: GenerationRequest, prompt: list[int], option_ids: list[list[int]]
                        ) -> tuple[list[list[float]], list[list[str]]]:
        """Every option token's log-probability (and token string) by `echo`, the prompt computed again per
        option."""
        token_scores, strings = [], []
        for ids in option_ids:
            body = {"model": self.model, "prompt": prompt + ids, "max_tokens": 0, "echo": True, "logprobs": 0}
            answer = self._post(f"{self.url}/completions", body, request=request)
            scores, tokens = self._checked_logprobs(answer, total=len(prompt) + len(ids), last=len(ids))
            token_scores.append(scores)
            strings.append(tokens)
        return token_scores, strings

    def _scores_by_token(self, request: GenerationRequest, prompt: list[int], option_ids: list[list[int]]
                         ) -> tuple[list[list[float]], list[list[str]]]:
        """Every option token's log-probability where it would be generated: the first request computes the
        prompt (into the prefix cache), the others then go out together, each computing only the option tokens
        before its own."""
        positions = sorted({(tuple(ids[:k]), ids[k]) for ids in option_ids for k in range(len(ids))}, key=len)

        def term(position: tuple[tuple[int, ...], int]) -> tuple[float, str]:
            done, target = position
            body = {"model": self.model, "prompt": prompt + list(done), "max_tokens": 1, "logprobs": 1,
                    "temperature": 0, "allowed_token_ids": [target]}
            scores, tokens = self._checked_logprobs(self._post(f"{self.url}/completions", body,
                                                               request=request),
                                                    total=1, last=1)
            return scores[0], tokens[0]

        first = term(positions[0])
        scored = dict(zip(positions, [first, *self._terms.map(term, positions[1:])]))
        token_scores = [[scored[(tuple(ids[:k]), ids[k])][0] for k in range(len(ids))] for ids in option_ids]
        return token_scores, [[scored[(tuple(ids[:k]), ids[k])][1] for k in range(len(ids))]
                              for ids in option_ids]

    def _spans(self, tokens: list[str], text: str) -> list[tuple[int, int]]:
        """The tokens' character spans in `text`; tokens that do not spell it are a `BackendError`, never
        wrong spans."""
        spans = token_spans(tokens, text)
        if spans is None:
            raise BackendError(f"the model server at {self.url} wrote the tokens of {text[:80]!r} as "
                               f"{[decoded(t) for t in tokens][:40]!r}, which do not spell it")
        return spans

    def _checked_logprobs(self, answer: dict[str, Any], *, total: int,
                          last: int) -> tuple[list[float], list[str]]:
        """The `last` token log-probabilities (and tokens) of a completions answer that must hold `total` of
        them; another count (the server tokenized another way) or a value that is no log-probability is a
        `BackendError`."""
        logprobs = answer["choices"][0]["logprobs"]
        values, tokens = list(logprobs["token_logprobs"]), [str(t) for t in logprobs["tokens"]]
        if len(values) != total or len(tokens) != total:
            raise BackendError(f"the model server at {self.url} returned {len(values)} token "
                               f"log-probabilities where {total} were asked for; does it tokenize as its "
                               "/tokenize says?")
        return [self._logprob(v, finite=True) for v in values[total - last:]], tokens[total - last:]

    def _logprob(self, value: Any, *, finite: bool) -> float:
        """A log-probability from the server, rounding above 0 read as 0; NaN, a positive value (and, when
        `finite`, -inf) or no number at all is a `BackendError`."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not value <= LOGPROB_SLACK \
                or (finite and value == -math.inf):
            raise BackendError(f"the model server at {self.url} returned {value!r} as a token "
                               f"log-probability (expected a{' finite' if finite else ''} number at most 0)")
        return min(float(value), 0.0)

    def _options(self, spec: OutputSpec) -> tuple[list[list[int]], list[str]]:
        """Each option's token ids; when one option's tokens begin another's, the end of the turn is scored
        too (as in process). Cached per option list, except one-option choices (texts being measured)."""
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
            turn = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
            body = {"model": self.model, "messages": turn, "add_generation_prompt": False}
            with_turn = self._post(f"{self.root}/tokenize", body)["tokens"]
            without = self._post(f"{self.root}/tokenize", {**body, "messages": turn[:1],
                                                           "add_generation_prompt": True})["tokens"]
            self._end_ids = with_turn[len(without) + len(self._tokenize_text("y")):][:1]
        return self._end_ids

    def _tokenize_text(self, text: str) -> list[int]:
        body = {"model": self.model, "prompt": text, "add_special_tokens": False}
        return list(self._post(f"{self.root}/tokenize", body)["tokens"])

    # -- choices without prompt log-probabilities (approximate) ---------------------------------
    def first_token_choice(self, request: GenerationRequest, spec: OutputSpec) -> GenerationResponse:
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
        option = next((o for o in spec.options if o.lower() == text.lower()),
                      max(probs, key=lambda o: probs[o]))
        usage = answer.get("usage") or {}
        return GenerationResponse(
            value=spec.coerce_option(option), raw=option, prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)), seconds=time.perf_counter() - started,
            option_probs=probs, option_logprobs={o: math.log(p) for o, p in probs.items()},
            schema_key=spec.key)

    def close(self) -> None:
        """Stop the threads of token-by-token scoring."""
        self._terms.shutdown(wait=False)


def _pick(probs: list[float], logp: list[float], request: GenerationRequest) -> int:
    temperature = request.sampling.temperature
    if temperature == 0:
        return max(range(len(probs)), key=lambda i: probs[i])
    top = max(logp)
    tempered = [math.exp((lp - top) / temperature) for lp in logp]
    return random.Random(request.sampling.seed).choices(range(len(probs)), weights=tempered)[0]


def _token_scoring_pays(prompt_tokens: int, option_ids: list[list[int]]) -> bool:
    """Whether to score the options token by token rather than by `echo`: always up to `TOKEN_SCORING_LIMIT`
    option tokens, beyond it when it computes fewer tokens (`echo` computes prompt and option for every
    option, bypassing the prefix cache; token by token computes the prompt once)."""
    if sum(map(len, option_ids)) <= TOKEN_SCORING_LIMIT:
        return True
    positions = {tuple(ids[:k + 1]) for ids in option_ids for k in range(len(ids))}
    by_token = prompt_tokens + sum(len(position) - 1 + CACHE_BLOCK for position in positions)
    by_echo = sum(prompt_tokens + len(ids) for ids in option_ids)
    return by_token < by_echo
