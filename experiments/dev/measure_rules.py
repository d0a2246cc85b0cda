"""The court's measurement alone (no trial), re-decided from token_probe.py output: which sentences
are charged and the case score under the `share` and `any` rules, for a grid of grounding settings.

    python experiments/dev/measure_rules.py /work/probe/hb-tune.jsonl /work/probe/rt-tune.jsonl

Ranks settings by cross-validated balanced accuracy (threshold chosen on the other folds); prints
AUROC overall and by source for the best few. Only for choosing the measurement on tuning cases.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import defaultdict

import numpy as np

from courtroom.evaluate.metrics import auroc
from courtroom.witness.grounding import p_suspect
from experiments.dev.token_measures import sentence_tokens
from experiments.dev.tune_court import balanced, cross_validated


def statements(case: dict, clip: float | None, scoring: str) -> list[tuple[int, float]]:
    """(characters, grounding) of every sentence."""
    out = []
    if scoring == "answer":
        ctx, bare = np.array(case["ctx"]), np.array(case["bare"])
        for (start, end), idx in zip(case["sentences"], sentence_tokens(case)):
            if not idx:
                continue
            gain = ctx[idx] - bare[idx]
            out.append((end - start, float(np.mean(np.minimum(gain, clip) if clip else gain))))
    else:
        for (start, end), c, b in zip(case["sentences"], case["sent_ctx"], case["sent_bare"]):
            gain = np.array(c) - np.array(b)
            out.append((end - start, float(np.mean(np.minimum(gain, clip) if clip else gain))))
    return out


def case_score(sts: list[tuple[int, float]], center: float, scale: float, rule: str, charge_at: float) -> float:
    ps = [(n, p_suspect(g, center, scale)) for n, g in sts]
    if rule == "any":
        return max(p for _, p in ps)
    share = sum(n * p for n, p in ps) / sum(n for n, _ in ps)
    if rule == "share-charged" and max(p for _, p in ps) < charge_at:
        return share - 1.0  # no charge: acquitted whatever the threshold, still ranked by its share
    return share


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--only", action="store_true", help="print the rows of a few candidate settings only")
    args = parser.parse_args()
    args.only = [(sc, cl, 0.4, 0.3, "share") for sc in ("sentence", "answer") for cl in (None, 0.5, 1.0, 2.0)] \
        if args.only else None
    cases = [json.loads(line) for path in args.files for line in open(path)]
    gold = np.array([c["label"] == "FAIL" for c in cases])
    print(f"{len(cases)} cases, {gold.sum()} FAIL")
    rows = []
    for scoring, clip, center, scale, rule in itertools.product(
            ["sentence", "answer"], [None, 0.5, 1.0, 2.0], [0.0, 0.2, 0.4, 0.6], [0.2, 0.3, 0.5],
            ["any", "share", "share-charged"]):
        scores = np.array([case_score(statements(c, clip, scoring), center, scale, rule, 0.5) for c in cases])
        rows.append((cross_validated(gold, scores), auroc(gold, scores), scoring, clip, center, scale, rule, scores))
    rows.sort(key=lambda r: -r[0])
    groups: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):
        groups["/".join(c["source"].split("/")[:2])].append(i)
    print("cv bal | AUROC | scoring clip center scale rule | AUROC by source")
    show = rows[:25] if not args.only else [r for r in rows if r[2:7] in args.only]
    for cv, auc, scoring, clip, center, scale, rule, scores in show:
        by = " ".join(f"{k.split('/')[-1][:8]}={auroc(gold[v], scores[v]):.2f}" for k, v in sorted(groups.items())
                      if 0 < gold[v].sum() < len(v))
        print(f"{cv:.3f} | {auc:.3f} | {scoring:8s} {clip} {center:+.1f} {scale:.1f} {rule:13s} | {by}")
    shipped = [r for r in rows if r[2:7] == ("sentence", None, 0.4, 0.3, "any")][0]
    print(f"shipped measure (sentence, no clip, 0.4/0.3, any): cv {shipped[0]:.3f}, AUROC {shipped[1]:.3f}")
    print(f"balanced accuracy at 0.5, best row: {balanced(gold, rows[0][7] >= 0.5):.3f}")


if __name__ == "__main__":
    main()
