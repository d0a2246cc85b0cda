"""The decoding loop of the transformers backend: every row of a batch generates token by token over the
batch's KV cache, each under its own Outlines logits processor and seeded generator, until EOS or its
limit."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from courtroom.door.constraints import ConstraintCompiler
from courtroom.door.models import LoadedModel
from courtroom.door.outputs import OutputSpec
from courtroom.door.requests import GenerationRequest


@functools.cache
def _cache_keyword(model_class: type) -> str:
    import inspect

    return "cache" if "cache" in inspect.signature(model_class.forward).parameters else "past_key_values"


def cache_argument(model: Any, cache: Any) -> dict[str, Any]:
    """The KV cache as this model's forward takes it: `cache=` where the installed transformers has the name
    (it renamed `past_key_values`, which warns until 5.40 and then goes), else `past_key_values=`."""
    return {_cache_keyword(type(model)): cache}


def returned_cache(out: Any) -> Any:
    """The KV cache a forward pass returned (`out.cache`, or `out.past_key_values` before the rename)."""
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values


@dataclass
class BackendStats:
    """Counters for benchmarks: how much work the backend did."""

    calls: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    computed_prompt_tokens: int = 0
    generated_tokens: int = 0
    forward_passes: int = 0
    seconds: float = 0.0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    decode_steps: int = 0


@dataclass
class Row:
    """One request in a batch, as it is prefilled and decoded."""

    index: int
    request: GenerationRequest
    spec: OutputSpec
    ids: list[int]
    reused: int = 0
    processor: Any = None
    generator: Any = None
    generated: list[int] = field(default_factory=list)
    position: int = 0
    finish: str | None = None


def decode_batch(rows: list[Row], logits: Any, cache: Any, mask: Any, positions: Any, *, lm: LoadedModel,
                 compiler: ConstraintCompiler, stats: BackendStats, tick: Callable[..., None]
                 | None = None) -> None:
    """Generate token by token for every row until EOS or its limit; rows leave as they finish (each step
    `tick`ed)."""
    import torch

    device = lm.device
    eos = getattr(lm.model.generation_config, "eos_token_id", None)
    stop_ids = {i for i in [lm.tokenizer.eos_token_id, *([eos] if isinstance(eos, int) else eos or [])]
                if i is not None}
    for row in rows:
        if row.request.constrained and row.spec.kind == "json":
            row.processor = compiler.processor(row.spec.key, row.spec.schema or "")
        if row.request.sampling.temperature > 0:
            row.generator = generator(row.request)
    active = list(range(len(rows)))
    positions = positions.clone()
    while True:
        next_tokens = []
        for slot, r in enumerate(active):
            row = rows[r]
            row_logits = logits[slot:slot + 1]
            if row.processor is not None:
                last = row.generated[-1] if row.generated else row.ids[-1]
                row_logits = row.processor(torch.tensor([[last]], device=row_logits.device),
                                           row_logits.clone())
            token = pick(row_logits[0], row.request.sampling.temperature, row.generator)
            next_tokens.append(token)
            if token in stop_ids:
                row.finish = "stop"
            else:
                row.generated.append(token)
                if len(row.generated) >= row.request.sampling.max_new_tokens:
                    row.finish = "length"
        keep = [slot for slot, r in enumerate(active) if rows[r].finish is None]
        stats.generated_tokens += len(active)
        stats.decode_steps += 1
        if tick is not None:
            tick(requests=len(active) - len(keep), completion_tokens=len(active))
        if not keep:
            return
        if len(keep) < len(active):
            index = torch.tensor(keep, device=device)
            cache.batch_select_indices(index)
            mask = mask.index_select(0, index)
            positions = positions.index_select(0, index.cpu())
            next_tokens = [next_tokens[s] for s in keep]
            active = [active[s] for s in keep]
        tokens = torch.tensor(next_tokens, dtype=torch.long, device=device).unsqueeze(1)
        mask = torch.cat([mask, torch.ones((len(active), 1), dtype=mask.dtype, device=device)], dim=1)
        out = lm.model(input_ids=tokens, attention_mask=mask, position_ids=positions.unsqueeze(1).to(device),
                       **cache_argument(lm.model, cache), use_cache=True)
        stats.forward_passes += 1
        positions = positions + 1
        cache = returned_cache(out)
        logits = out.logits[:, -1, :].float()


def generator(request: GenerationRequest) -> Any:
    import torch

    seed = request.sampling.seed
    return torch.Generator().manual_seed(seed if seed is not None else int(torch.randint(0, 2**62, (1,))))


def pick(logits: Any, temperature: float, generator: Any) -> int:
    import torch

    if temperature == 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.float().cpu() / temperature, dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))
