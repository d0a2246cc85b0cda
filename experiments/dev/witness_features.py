"""Prototype probe (#31): what a small model's own forward pass carries about a case, beyond the grounding measure.

For every case of a dev file, the answer is scored after the court's opening (numbered context, question) and after
the question alone, exactly as the default court's two grounding calls do, and the pass with context also returns,
for every answer token: the share of each layer's and head's attention paid to the prompt against the answer so far
(Lookback Lens' ratio), and the hidden states of a few layers, averaged over each answer sentence. Features land in
an .npz per case set, for `witness_fit.py`.

    python experiments/dev/witness_features.py ../shared/data/halubench-dev.jsonl --model qwen2.5-coder-0.5b \
        --out experiments/features/qwen0.5b-halubench.npz
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

import numpy as np
import torch

from courtroom.clerk.grounding import scoring_request
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import load_file
from courtroom.text.sentences import SPLITTER, split


def extract(backend: TransformersBackend, case, layers: list[int], token_hidden: bool = False) -> dict:
    lm = backend.loaded
    model, tok = lm.model, lm.tokenizer
    answer = case.answer.strip()
    enc = tok(answer, add_special_tokens=False, return_offsets_mapping=True)
    ans_ids = list(enc["input_ids"])
    offsets = [(int(a), int(b)) for a, b in enc["offset_mapping"]]
    out: dict = {"id": case.id, "source": case.source, "label": case.label, "answer": answer, "offsets": offsets,
                 "ids": ans_ids}
    sentences = split(answer, SPLITTER, render=False) or (answer,)
    spans, cursor = [], 0
    for s in sentences:
        start = answer.find(s, cursor)
        start = start if start >= 0 else answer.find(s)
        spans.append((start, start + len(s)))
        cursor = max(cursor, start + len(s))
    out["sentences"] = spans
    for which in ("full", "none"):
        request = scoring_request(case, answer, which)
        prompt = backend.tokenize(request)
        model.set_attn_implementation("sdpa")
        from transformers import DynamicCache
        cache = DynamicCache(config=model.config)
        pre = model(input_ids=torch.tensor([prompt]), past_key_values=cache, use_cache=True, logits_to_keep=1)
        first = torch.log_softmax(pre.logits[0, -1].float(), -1)
        if which == "full":
            model.set_attn_implementation("eager")
        post = model(input_ids=torch.tensor([ans_ids]), past_key_values=pre.past_key_values, use_cache=False,
                     position_ids=torch.arange(len(prompt), len(prompt) + len(ans_ids)).unsqueeze(0),
                     output_attentions=which == "full", output_hidden_states=which == "full")
        logprobs = torch.log_softmax(post.logits[0].float(), -1)
        lp = [float(first[ans_ids[0]])] + [float(logprobs[i, ans_ids[i + 1]]) for i in range(len(ans_ids) - 1)]
        out[f"lp_{which}"] = np.array(lp, dtype=np.float32)
        # the top-1 log-probability at every position (how peaked the model is: entropy-like)
        top = [float(first.max())] + [float(logprobs[i].max()) for i in range(len(ans_ids) - 1)]
        out[f"top_{which}"] = np.array(top, dtype=np.float32)
        if which == "full":
            P = len(prompt)
            yes_no = {w: tok(w, add_special_tokens=False)["input_ids"][0] for w in ("Yes", "No", "yes", "no")}
            out["first_yes_no"] = {w: float(first[i]) for w, i in yes_no.items()}
            # lookback ratio per answer token (query), layer, head
            ratios = []
            for att in post.attentions:  # (1, heads, A, P + A)
                a = att[0].float()
                ctx = a[:, :, :P].mean(-1)
                new = torch.stack([a[:, i, P:P + i + 1].mean(-1) for i in range(a.shape[1])], dim=1)
                ratios.append((ctx / (ctx + new + 1e-9)).T)  # (A, heads)
            out["lookback"] = torch.stack(ratios, dim=1).numpy().astype(np.float16)  # (A, layers, heads)
            # attention share on the context *passage* itself would need its token range; the prompt is used here
            hidden = []
            for layer in layers:
                h = post.hidden_states[layer][0].float()  # (A, d)
                hidden.append(torch.stack([h[[i for i, (a, b) in enumerate(offsets) if a < e and b > s] or [0]].mean(0)
                                           for s, e in spans]))
            out["hidden_sent"] = torch.stack(hidden, 1).numpy().astype(np.float16)  # (S, L, d)
            if token_hidden:  # every answer token's state at each layer (for a span probe)
                out["hidden_tok"] = torch.stack([post.hidden_states[layer][0].float() for layer in layers], 1
                                                ).numpy().astype(np.float16)  # (A, L, d)
            out["hidden_mean"] = torch.stack([post.hidden_states[layer][0].float().mean(0) for layer in layers]
                                             ).numpy().astype(np.float16)
            out["hidden_last"] = torch.stack([post.hidden_states[layer][0, -1].float() for layer in layers]
                                             ).numpy().astype(np.float16)
            out["prompt_tokens"] = P
    model.set_attn_implementation("sdpa")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--token-hidden", action="store_true", help="Keep every answer token's hidden states.")
    args = parser.parse_args()
    torch.set_num_threads(2)
    backend = TransformersBackend(args.model, device="cpu")
    n_layers = backend.loaded.model.config.num_hidden_layers
    layers = sorted({n_layers // 4, n_layers // 2, (3 * n_layers) // 4, n_layers})
    cases = load_file(args.data)[: args.limit]
    out = Path(args.out)
    done: dict = {}
    if out.exists():
        done = {r["id"]: r for r in pickle.loads(out.read_bytes())}
    start = time.time()
    with torch.inference_mode():
        for i, case in enumerate(cases):
            if case.id in done:
                continue
            done[case.id] = extract(backend, case, layers, args.token_hidden)
            if (i + 1) % 20 == 0 or i + 1 == len(cases):
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(pickle.dumps(list(done.values())))
                print(f"{i + 1}/{len(cases)} {time.time() - start:.0f}s", file=sys.stderr, flush=True)
    out.write_bytes(pickle.dumps(list(done.values())))


if __name__ == "__main__":
    main()
