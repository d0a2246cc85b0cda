"""Outlines-constrained generation on a transformers model, batched, with prompt-prefix KV reuse. A batch:
tokenize each prompt with the chat template; compute only what the per-case prefix cache lacks; score *choice*
rows (every option's summed token log-probabilities, normalised); prefill *JSON* and text rows, then decode
them together (`door.decoding`: our own loop, as rows reuse prefixes of different lengths, follow different
grammars and seeds)."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from courtroom.door.backend import Backend
from courtroom.door.constraints import DEFAULT_ENGINE, ConstraintCompiler
from courtroom.door.decoding import BackendStats, Row, cache_argument, decode_batch, generator, returned_cache
from courtroom.door.models import LoadedModel, load_model, resolve_model
from courtroom.door.observed_pass import observed_pass
from courtroom.door.outputs import OutputSpec
from courtroom.door.prefix_cache import PrefixCache, Segment
from courtroom.door.requests import GenerationRequest, GenerationResponse


@dataclass(frozen=True)
class _OptionTokens:
    """The options of a choice as tokens: ids, and each token's character span in its option."""

    ids: list[list[int]]
    spans: list[list[tuple[int, int]]]


class TransformersBackend(Backend):
    """The real model door: transformers for the model, Outlines for the constraints."""

    name = "transformers"

    @classmethod
    def check_model(cls, model: str) -> None:
        resolve_model(model)  # an unknown model fails now, not after the first case

    def __init__(self, model: str = "default", *, device: str = "auto", dtype: str = "auto",
                 engine: str = DEFAULT_ENGINE, max_batch_size: int = 16, prefix_cache: bool = True,
                 loaded: LoadedModel | None = None) -> None:
        self.model, self.device_request, self.dtype_request, self.engine = model, device, dtype, engine
        self.max_batch_size, self.use_prefix_cache = max_batch_size, prefix_cache
        self.stats = BackendStats()
        self._loaded = loaded
        self._compiler: ConstraintCompiler | None = None
        self.prefix_cache = PrefixCache()
        """The cached prompt prefixes, per group."""
        self._option_ids: dict[str, _OptionTokens] = {}

    # -- loading -------------------------------------------------------------------------------
    @property
    def loaded(self) -> LoadedModel:
        """The model, loaded on first use."""
        if self._loaded is None:
            self._loaded = load_model(self.model, self.device_request, self.dtype_request)
        return self._loaded

    @property
    def compiler(self) -> ConstraintCompiler:
        if self._compiler is None:
            lm = self.loaded
            self._compiler = ConstraintCompiler(lm.model, lm.tokenizer, self.engine,
                                                fingerprint=f"{lm.source.location}:{len(lm.tokenizer)}")
        return self._compiler

    def prepare(self) -> None:
        _ = self.compiler  # loads the model

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"backend": self.name, "model": self.model, "engine": self.engine,
                                "prefix_cache": self.use_prefix_cache}
        if self._loaded is not None:
            info.update(model_location=self._loaded.source.location, device=self._loaded.device,
                        dtype=self._loaded.dtype)
        return info

    def release(self, cache_group: str) -> None:
        self.prefix_cache.release(cache_group)

    # -- the door ------------------------------------------------------------------------------
    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResponse]:
        self.check_requests(requests)  # before any model loads
        responses: list[GenerationResponse] = []
        rows = self._rows(requests)
        for start in range(0, len(rows), self.max_batch_size):
            batch = [dataclasses.replace(row, index=i)
                     for i, row in enumerate(rows[start:start + self.max_batch_size])]
            responses.extend(self._generate_batch(batch))
        return responses

    def render(self, request: GenerationRequest) -> str:
        """The prompt text of a request, as the model sees it."""
        tokenizer = self.loaded.tokenizer
        messages = [m.model_dump() for m in request.messages]
        if getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "

    def tokenize(self, request: GenerationRequest) -> list[int]:
        return list(self.loaded.tokenizer(self.render(request), add_special_tokens=False)["input_ids"])

    @property
    def context_window(self) -> int | None:
        return getattr(self.loaded.model.config, "max_position_embeddings", None)

    def _rows(self, requests: Sequence[GenerationRequest]) -> list[Row]:
        """The requests tokenized, each checked against the context window before any is computed."""
        rows = []
        for i, request in enumerate(requests):
            row = Row(i, request, request.spec, self.tokenize(request))
            completion = max(len(ids) for ids in self._option_tokens(row.spec).ids) \
                if row.spec.kind == "choice" and request.constrained else request.sampling.max_new_tokens
            self.check_fits(request, len(row.ids), completion)
            rows.append(row)
        return rows

    def _generate_batch(self, rows: list[Row]) -> list[GenerationResponse]:
        import torch

        start = time.perf_counter()
        with torch.inference_mode():
            scored: dict[int, dict[str, Any]] = {}
            choice = [r for r in rows if r.spec.kind == "choice" and r.request.constrained]
            decode = [r for r in rows if not (r.spec.kind == "choice" and r.request.constrained)]
            if choice:
                for row in sorted(choice, key=lambda r: (r.request.cache_group or "", len(r.ids))):
                    scored[row.index] = self._score_row(row)
                    self.tick(requests=1, prompt_tokens=len(row.ids) - row.reused,
                              completion_tokens=scored[row.index]["completion_tokens"])
                self.stats.prefill_seconds += time.perf_counter() - start
            if decode:
                prefill_start = time.perf_counter()
                last_logits, cache, mask, positions = self._prefill(decode)
                decode_start = time.perf_counter()
                self.stats.prefill_seconds += decode_start - prefill_start
                self.tick(prompt_tokens=sum(len(r.ids) - r.reused for r in decode))
                decode_batch(decode, last_logits, cache, mask, positions, lm=self.loaded,
                             compiler=self.compiler,
                            stats=self.stats, tick=self.tick)
                self.stats.decode_seconds += time.perf_counter() - decode_start
        seconds = time.perf_counter() - start
        self.stats.calls += 1
        self.stats.requests += len(rows)
        self.stats.seconds += seconds
        responses = []
        for row in rows:
            common = {"prompt_tokens": len(row.ids), "cached_prompt_tokens": row.reused, "seconds": seconds,
                      "batch_size": len(rows), "schema_key": row.spec.key}
            if row.index in scored:
                responses.append(GenerationResponse(**scored[row.index], **common))
            else:
                raw = self.loaded.tokenizer.decode(row.generated, skip_special_tokens=True)
                responses.append(GenerationResponse.of_text(row.request, raw,
                                                            truncated=row.finish == "length",
                                                            completion_tokens=len(row.generated), **common))
        return responses

    # -- prefill -------------------------------------------------------------------------------
    def _prefill(self, rows: list[Row]) -> tuple[Any, Any, Any, Any]:
        """Compute every row's uncached prompt tokens; return last logits, batch cache, mask, positions. Phase
        A computes each row's prompt but its last token alone (no padding; each row sees what the rows before
        it stored in the prefix cache); phase B runs every row's last token as one batch over the
        right-aligned KV."""
        import torch

        lm = self.loaded
        segments: dict[int, list[Segment]] = {}
        for row in sorted(rows, key=lambda r: (r.request.cache_group or "", len(r.ids))):
            have = self._cached_prefix(row)
            todo = row.ids[row.reused:-1]
            if todo:
                computed = self._forward_with_logits(have, todo, row.reused)[0]
                self.stats.computed_prompt_tokens += len(todo)
                if self._caches(row):
                    self.prefix_cache.insert(row.request.cache_group, row.ids[:-1], row.reused, computed)
                have.append(computed)
            segments[row.index] = have
        batch = len(rows)
        past_len = max(len(r.ids) - 1 for r in rows)
        mask = torch.zeros((batch, past_len + 1), dtype=torch.long)
        for b, row in enumerate(rows):
            mask[b, past_len - (len(row.ids) - 1):] = 1
            row.position = len(row.ids)
        input_ids = torch.tensor([[r.ids[-1]] for r in rows], dtype=torch.long)
        position_ids = torch.tensor([[len(r.ids) - 1] for r in rows], dtype=torch.long)
        past = self._stack([segments[r.index] for r in rows], past_len)
        device = lm.device
        out = lm.model(input_ids=input_ids.to(device), attention_mask=mask.to(device),
                       position_ids=position_ids.to(device), **cache_argument(lm.model, past), use_cache=True)
        self.stats.forward_passes += 1
        self.stats.prompt_tokens += sum(len(r.ids) for r in rows)
        self.stats.computed_prompt_tokens += batch
        next_positions = torch.tensor([r.position for r in rows], dtype=torch.long)
        return out.logits[:, -1, :].float(), returned_cache(out), mask.to(device), next_positions

    def _caches(self, row: Row) -> bool:
        return self.use_prefix_cache and row.request.cache_group is not None

    def _cached_prefix(self, row: Row) -> list[Segment]:
        """The KV segments of the longest cached prefix of the row's prompt but its last token (`row.reused`
        long)."""
        match = self.prefix_cache.lookup(row.request.cache_group, row.ids, max_length=len(row.ids) - 1) \
            if self._caches(row) else None
        row.reused = match.length if match else 0
        return list(match.segments) if match else []

    def _forward_with_logits(self, past: list[Segment], ids: list[int],
                             start: int) -> tuple[Segment, Any, Segment]:
        """Run one row's tokens after its cached past: the new tokens' KV, the logits after the last, the
        whole KV."""
        import torch
        from transformers import DynamicCache

        lm = self.loaded
        device = lm.device
        if past:
            layers = [(torch.cat([seg[layer][0] for seg in past], dim=2),
                       torch.cat([seg[layer][1] for seg in past], dim=2))
                      for layer in range(len(past[0]))]
            cache = DynamicCache(ddp_cache_data=layers, config=lm.model.config)
        else:
            cache = DynamicCache(config=lm.model.config)
        input_ids = torch.tensor([ids], dtype=torch.long, device=device)
        positions = torch.arange(start, start + len(ids), device=device).unsqueeze(0)
        out = lm.model(input_ids=input_ids, position_ids=positions, **cache_argument(lm.model, cache),
                       use_cache=True, logits_to_keep=1)
        self.stats.forward_passes += 1
        full = [(layer.keys, layer.values) for layer in returned_cache(out).layers]
        segment = [(keys[:, :, start:].clone(), values[:, :, start:].clone()) for keys, values in full]
        return segment, out.logits[0, -1].float(), full

    def _stack(self, rows: list[list[Segment]], past_len: int) -> Any:
        """Right-align every row's KV segments into one left-padded batch cache."""
        import torch
        from transformers import DynamicCache

        config = self.loaded.model.config
        if past_len == 0 or not any(rows):
            return DynamicCache(config=config)
        template = next(segs[0] for segs in rows if segs)

        # its segments joined, zeros left up to `past_len`
        def row(segs: list[Segment], layer: int, part: int) -> Any:
            joined = torch.cat([seg[layer][part] for seg in segs] or [template[layer][part][:, :, :0]], dim=2)
            return torch.nn.functional.pad(joined, (0, 0, past_len - joined.shape[2], 0))

        layers = [tuple(torch.cat([row(segs, layer, part) for segs in rows]) for part in (0, 1))
                  for layer in range(len(template))]
        return DynamicCache(ddp_cache_data=layers, config=config)

    # -- choices -------------------------------------------------------------------------------
    def _option_tokens(self, spec: OutputSpec) -> _OptionTokens:
        """Every option's token ids and their character spans in the option. Cached per option list,
        except one-option choices (texts being measured, new every time: caching them would only grow)."""
        tokens = self._option_ids.get(spec.key)
        if tokens is None:
            tokenizer = self.loaded.tokenizer
            encoded = [tokenizer(o, add_special_tokens=False, return_offsets_mapping=True)
                       for o in spec.options]
            ids = [list(e["input_ids"]) for e in encoded]
            spans = [[(int(a), int(b)) for a, b in e["offset_mapping"]] for e in encoded]
            if any(a != b and b[:len(a)] == a for a in ids for b in ids):
                # an option is a token prefix of another: score the end of the turn too
                ids = [t + [tokenizer.eos_token_id] for t in ids]
                spans = [s + [(len(o), len(o))] for s, o in zip(spans, spec.options)]
            tokens = _OptionTokens(ids, spans)
            if len(spec.options) > 1:
                self._option_ids[spec.key] = tokens
        return tokens

    def _score_row(self, row: Row) -> dict[str, Any]:
        """Probability of every option of a choice row, scored alone after its own cached prefix: the uncached
        prompt in one pass, then one row per longer option over it (padding costs more than batching saves on
        CPU)."""
        import torch
        from transformers import DynamicCache

        lm = self.loaded
        device = lm.device
        past = self._cached_prefix(row)
        todo = row.ids[row.reused:]
        segment, last_logits, full = self._forward_with_logits(past, todo, row.reused)
        self.stats.computed_prompt_tokens += len(todo)
        self.stats.prompt_tokens += len(row.ids)
        if self._caches(row):
            self.prefix_cache.insert(row.request.cache_group, row.ids, row.reused, segment)
        first = torch.log_softmax(last_logits, dim=-1)
        option_ids = self._option_tokens(row.spec).ids
        if row.request.observe is not None and len(option_ids) == 1:
            spans = self._option_tokens(row.spec).spans[0]
            scores, observed = observed_pass(self.loaded, row.request.observe, len(row.ids), option_ids[0],
                                             spans, full, first)
            self.stats.forward_passes += 1
            return self._choice_result(row, [scores], observed)
        token_scores = [[float(first[ids[0]])] for ids in option_ids]
        tails = [(j, ids) for j, ids in enumerate(option_ids) if len(ids) > 1]
        if tails:
            n, width = len(tails), max(len(ids) - 1 for _, ids in tails)
            layers = [(keys.expand(n, -1, -1, -1), values.expand(n, -1, -1, -1)) for keys, values in full]
            cache = DynamicCache(ddp_cache_data=layers, config=lm.model.config)
            pad_id = (lm.tokenizer.pad_token_id
                      if lm.tokenizer.pad_token_id is not None else lm.tokenizer.eos_token_id)
            input_ids = torch.full((n, width), pad_id, dtype=torch.long)
            for r, (_, ids) in enumerate(tails):  # right-padded: a real token never sees the padding after it
                input_ids[r, :len(ids) - 1] = torch.tensor(ids[:-1])
            positions = torch.arange(len(row.ids), len(row.ids) + width).expand(n, -1)
            out = lm.model(input_ids=input_ids.to(device), position_ids=positions.to(device),
                           **cache_argument(lm.model, cache), use_cache=False)
            self.stats.forward_passes += 1
            logprobs = torch.log_softmax(out.logits.float(), dim=-1)
            for r, (j, ids) in enumerate(tails):
                targets = torch.tensor(ids[1:], device=device)
                token_scores[j] += logprobs[r, torch.arange(len(ids) - 1), targets].tolist()
        return self._choice_result(row, token_scores)

    @property
    def looks_inside(self) -> frozenset:
        """Attention (eager for the observed pass only) and hidden states, from the same forward pass."""
        return frozenset({"attention", "hidden_states"})

    def _choice_result(self, row: Row, token_scores: list[list[float]],
                       observed: dict[str, Any] | None = None) -> dict[str, Any]:
        """The response's fields of an option picked (argmax, or sampled with the row's seed) by summed
        log-probs."""
        import torch

        logp = torch.tensor([math.fsum(t) for t in token_scores], dtype=torch.float64)
        probs = torch.softmax(logp, dim=0)
        temperature = row.request.sampling.temperature
        if temperature == 0:
            choice = int(torch.argmax(probs))
        else:
            tempered = torch.softmax(logp / temperature, dim=0)
            choice = int(torch.multinomial(tempered.float(), 1, generator=generator(row.request)))
        option = row.spec.options[choice]
        tokens = self._option_tokens(row.spec)
        self.stats.generated_tokens += len(tokens.ids[choice])
        return {"value": row.spec.coerce_option(option), "raw": option,
                "completion_tokens": len(tokens.ids[choice]),
                "option_probs": {o: float(p) for o, p in zip(row.spec.options, probs)},
                "option_logprobs": {o: float(lp) for o, lp in zip(row.spec.options, logp)},
                "token_logprobs": token_scores[choice], "token_spans": tokens.spans[choice],
                **(observed or {})}

