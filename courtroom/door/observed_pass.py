"""The observed pass of the in-process door: a text scored over its prompt's KV while the court looks inside
the model (`GenerationRequest.observe`: attention paid back to the prompt, hidden states), for
`TransformersBackend`. torch and transformers are imported inside the function, as everywhere in the door."""

from __future__ import annotations

from typing import Any

from courtroom.door.decoding import cache_argument
from courtroom.door.models import LoadedModel
from courtroom.door.observe import TokenIndex, direction_key, projected_means, span_means
from courtroom.door.prefix_cache import Segment
from courtroom.door.requests import Observation


def observed_pass(lm: LoadedModel, observe: Observation, length: int, ids: list[int],
                  spans: list[tuple[int, int]],
                  past: Segment, first: Any) -> tuple[list[float], dict[str, Any]]:
    """Score a text's tokens (`ids`, each one's characters: `spans`) over its prompt's KV (`past`, `length`
    tokens; `first`: the log-probabilities after the prompt) while looking inside the pass (`observe`): per
    layer and head, the share of attention the text pays to the prompt (eager attention, reduced layer by
    layer in a hook), and the hidden states at the depths asked; each averaged over the observed spans' tokens
    (also `observe.hidden_only`'s)."""
    import torch
    from transformers import DynamicCache

    device = lm.device
    ratios: list[Any] = []

    def lookback(module: Any, args: Any, output: Any) -> None:
        weights = output[1][0].float()  # (heads, text tokens, prompt + text tokens)
        to_prompt = weights[:, :, :length].mean(-1)
        to_text = (weights[:, :, length:].sum(-1) / torch.arange(1, weights.shape[1] + 1,
                                                                 device=weights.device))
        ratios.append(to_prompt / (to_prompt + to_text + 1e-9))  # (heads, text tokens)

    hooks = []
    implementation = lm.model.config._attn_implementation
    if observe.lookback:
        lm.model.set_attn_implementation("eager")
        hooks = [m.register_forward_hook(lookback) for name, m in lm.model.named_modules()
                 if name.endswith("self_attn")]
    try:
        cache = DynamicCache(ddp_cache_data=list(past), config=lm.model.config)
        out = lm.model(input_ids=torch.tensor([ids], device=device), **cache_argument(lm.model, cache),
                       use_cache=False,
                       position_ids=torch.arange(length, length + len(ids), device=device).unsqueeze(0),
                       output_hidden_states=bool(observe.hidden))
    finally:
        for hook in hooks:
            hook.remove()
        if observe.lookback:
            lm.model.set_attn_implementation(implementation)
    logprobs = torch.log_softmax(out.logits[0].float(), dim=-1)
    scores = [float(first[ids[0]])] + [float(logprobs[i, ids[i + 1]]) for i in range(len(ids) - 1)]
    index = TokenIndex(spans)
    members = [index.within(a, b) for a, b in observe.spans]
    observed: dict[str, Any] = {}
    if observe.lookback:
        stacked = torch.stack(ratios)  # (layers, heads, text tokens)
        observed["lookback"] = span_means(stacked.permute(2, 0, 1).cpu().numpy(), members)
        observed["token_lookback"] = [round(float(v), 4) for v in stacked.mean((0, 1)).cpu()]
    if observe.hidden:
        layers = len(out.hidden_states) - 1
        chosen = [out.hidden_states[max(1, round(depth * layers))][0].float().cpu().numpy()
                  for depth in observe.hidden]
        words = [index.within(a, b) for a, b in observe.hidden_only]
        per_span = [span_means(h, members, digits=3)  # depth -> span -> dims (a projected word's: one number)
                    + (projected_means(h, words, observe.project_words) if observe.project_words
                       else span_means(h, words, digits=3)) for h in chosen]
        observed["hidden"] = [[per_span[d][s] for d in range(len(chosen))]
                              for s in range(len(members) + len(words))]
        if observe.project_words:
            observed["projected_words"] = direction_key(observe.project_words)
    return scores, observed
