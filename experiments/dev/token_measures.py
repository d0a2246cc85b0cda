"""Compare evidence measures on token_probe.py output: AUROC per measure, overall and by source.

    python experiments/dev/token_measures.py experiments/probes/qwen-hb-tune.jsonl experiments/probes/qwen-rt-tune.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from collections.abc import Callable

import numpy as np

from courtroom.evaluate.metrics import auroc


def sentence_tokens(case: dict) -> list[list[int]]:
    """Indices of the whole-answer tokens that fall in each sentence."""
    out = []
    for start, end in case["sentences"]:
        out.append([i for i, (a, b) in enumerate(case["offsets"]) if a < end and b > start])
    return out


def features(case: dict) -> dict[str, float]:
    ctx, bare = np.array(case["ctx"]), np.array(case["bare"])
    pmi = ctx - bare
    f: dict[str, float] = {}
    # the shipped measure: each sentence scored alone, mean PMI per token; the case by its worst sentence
    if "sent_ctx" in case:  # probes made without --whole-only
        iso = [(np.sum(c) - np.sum(b)) / max(len(c), 1) for c, b in zip(case["sent_ctx"], case["sent_bare"])]
        f["iso min PMI"] = -min(iso)
        f["iso min mean lp_ctx"] = -min(np.mean(c) for c in case["sent_ctx"])
    groups = [g for g in sentence_tokens(case) if g]
    in_pmi = [float(np.mean(pmi[g])) for g in groups]
    f["in-answer min sentence PMI"] = -min(in_pmi)
    f["in-answer min sentence lp_ctx"] = -min(float(np.mean(ctx[g])) for g in groups)
    f["answer mean PMI"] = -float(np.mean(pmi))
    f["answer mean lp_ctx"] = -float(np.mean(ctx))
    srt = np.sort(ctx)
    for k in (1, 3, 5, 10):
        f[f"lowest {k} lp_ctx"] = -float(np.mean(srt[:k]))
    for p in (0.01, 0.05, 0.1):
        f[f"#tok lp_ctx<log{p}"] = float(np.sum(ctx < math.log(p)))
        f[f"share tok lp_ctx<log{p}"] = float(np.mean(ctx < math.log(p)))
        f[f"#tok lp_ctx<log{p} & pmi<1"] = float(np.sum((ctx < math.log(p)) & (pmi < 1.0)))
    f["sum surprise>2"] = float(np.sum(np.maximum(0.0, -ctx - 2.0)))
    f["sum surprise>4"] = float(np.sum(np.maximum(0.0, -ctx - 4.0)))
    f["max sentence surprise>2"] = max(float(np.sum(np.maximum(0.0, -ctx[g] - 2.0))) for g in groups)
    f["max sentence mean surprise>2"] = max(float(np.mean(np.maximum(0.0, -ctx[g] - 2.0))) for g in groups)
    spmi = np.sort(pmi)
    for k in (1, 3, 5):
        f[f"lowest {k} PMI"] = -float(np.mean(spmi[:k]))
    for t in (-0.5, -1.0, -2.0):
        f[f"#tok pmi<{t}"] = float(np.sum(pmi < t))
        f[f"share tok pmi<{t}"] = float(np.mean(pmi < t))
    f["sum neg PMI"] = -float(np.sum(np.minimum(pmi, 0.0)))
    f["mean neg PMI"] = -float(np.mean(np.minimum(pmi, 0.0)))
    for c in (1.0, 2.0):
        f[f"mean PMI clipped at {c}"] = -float(np.mean(np.minimum(pmi, c)))
        f[f"min sentence PMI clipped at {c}"] = -min(float(np.mean(np.minimum(pmi[g], c))) for g in groups)
    f["min sentence mean neg PMI"] = max(-float(np.mean(np.minimum(pmi[g], 0.0))) for g in groups)
    f["words"] = float(case["answer_words"])
    return f


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--depth", type=int, default=2, help="source path depth for the per-source columns")
    args = parser.parse_args()
    cases = [json.loads(line) for path in args.files for line in open(path)]
    cases = [c for c in cases if c["label"] in ("PASS", "FAIL")]
    feats = [features(c) for c in cases]
    gold = [c["label"] == "FAIL" for c in cases]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):
        groups["/".join(c["source"].split("/")[: args.depth])].append(i)
    names = sorted(groups)
    print(f"{len(cases)} cases; " + ", ".join(f"{n}: {len(groups[n])}" for n in names))
    print(f"{'measure':40s} {'all':>6s} " + " ".join(f"{n.split('/')[-1][:10]:>10s}" for n in names))
    score: Callable[[str, list[int]], str]

    def score(name: str, idx: list[int]) -> str:
        g = [gold[i] for i in idx]
        if all(g) or not any(g):
            return "   -"
        return f"{auroc(g, [feats[i][name] for i in idx]):.3f}"

    for name in feats[0]:
        print(f"{name:40s} {score(name, list(range(len(cases)))):>6s} "
              + " ".join(f"{score(name, groups[n]):>10s}" for n in names))


if __name__ == "__main__":
    main()
