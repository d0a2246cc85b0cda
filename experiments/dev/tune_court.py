"""Offline sweep of the evidence court's parameters over saved dev transcripts (no model calls).

Every statement of an answer carries its measured grounding (charges and dropped quotes); every
ruling carries the court's opinion and the grounding it weighed. Re-deciding with another
grounding center, judge weight or aggregation needs only arithmetic.

    python experiments/dev/tune_court.py experiments/results/qwen2.5-coder-0.5b/halubench-courtroom-tune \
        [--direct experiments/results/qwen2.5-coder-0.5b/halubench-rails-tune]

Only the arithmetic of the run's own trials is re-decided (judge weight, aggregation, verdict threshold,
and with `--direct` a rails run of the same cases, the weight of the judge's first reading), so every
number is exactly what the court would give. Ranks parameter sets by cross-validated balanced accuracy
(thresholds chosen on the other folds), so a choice is judged out of sample; run it on tuning runs
disjoint from the evaluation sample (`--exclude`).
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from courtroom.evaluate.metrics import auroc, confusion, rates_from_counts
from courtroom.evaluate.thresholds import best_threshold, out_of_fold, stratified_folds
from courtroom.log.store import RunStore
from courtroom.witness.grounding import p_suspect


def load(path: str, direct: dict[str, float] | None = None) -> list[tuple[bool, list[dict], float]]:
    """(gold is FAIL, the case's statements, the direct reading's P(hallucinated) or 0) per case; with
    `direct`, only the cases it holds."""
    store = RunStore(path)
    cases = []
    for row in store.rows():
        if direct is not None and row.case_id not in direct:
            continue
        events = store.events(row.case_id)
        charges = next(e for e in events if e.event == "charges")
        rulings = {e.ruling.charge: e.ruling for e in events if e.event == "ruling"}
        statements = []
        for c in charges.charges:
            r = rulings.get(c.index)
            statements.append({"g": c.grounding, "opinion": r.opinion if r else None,
                               "evidence": r.evidence if r else c.grounding, "chars": len(c.quote)})
        for d in charges.dropped:
            statements.append({"g": d.grounding, "opinion": None, "evidence": d.grounding, "chars": len(d.quote)})
        cases.append((row.gold == "FAIL", statements, (direct or {}).get(row.case_id, 0.0)))
    return cases


def direct_readings(path: str) -> dict[str, float]:
    """P(hallucinated) of a rails run (the plain one-word question), by case id."""
    return {r.case_id: r.score for r in RunStore(path).rows() if r.score is not None}


def case_scores(cases, center: float, scale: float, weight: float, method: str, direct_weight: float = 0.0
                ) -> np.ndarray:
    """Every case's deciding score under these parameters, as the court computes it for the charges the
    run tried (their trials are recorded, so only the arithmetic changes). A case without a charge is
    acquitted at any threshold (score -1 here); the court ranks it below its threshold by suspicion."""
    scores = []
    for _, statements, direct in cases:
        ps = [((1 - direct_weight) * (weight * s["opinion"] + (1 - weight) * p_suspect(s["evidence"], center, scale))
               + direct_weight * direct, s) for s in statements if s["opinion"] is not None]
        tried = [p for p, _ in ps]
        every = ps + [(p_suspect(s["g"], center, scale), s) for s in statements if s["opinion"] is None]
        weights = [s["chars"] if method == "share-chars" else 1 for _, s in every]
        share = sum(w * p for w, (p, _) in zip(weights, every)) / sum(weights)
        if not tried:  # acquitted at any threshold; ranked below the others by the share of its statements
            scores.append(share - 1.0 if method.startswith("share") else -1.0)
        elif method == "any":
            scores.append(max(tried))
        else:
            scores.append(share)
    return np.array(scores)


def balanced(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(rates_from_counts(*confusion(gold, pred))["balanced_accuracy"])


def cross_validated(gold: np.ndarray, scores: np.ndarray, folds: int = 5, seed: int = 0) -> float:
    """Balanced accuracy with each fold thresholded at the best threshold of the other folds (the library's folds,
    keyed by position here)."""
    pred, _ = out_of_fold(gold, scores, stratified_folds(gold, np.arange(len(gold)), folds, seed))
    return balanced(gold, pred)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--center", type=float, default=0.4, help="the run's grounding center (charges fixed by it)")
    parser.add_argument("--scale", type=float, default=0.3)
    parser.add_argument("--direct", nargs="*", default=[],
                        help="rails runs of the same cases: also sweep the weight of their direct reading")
    args = parser.parse_args()
    direct = {k: v for path in args.direct for k, v in direct_readings(path).items()} if args.direct else None
    cases = [c for path in args.runs for c in load(path, direct)]
    gold = np.array([g for g, _, _ in cases])
    print(f"{len(cases)} cases ({gold.sum()} FAIL)")
    opinions = [(g, s["opinion"]) for g, st, _ in cases for s in st if s["opinion"] is not None]
    if opinions:
        print(f"court opinions on {len(opinions)} charges: AUROC vs the case's gold label "
              f"{auroc([g for g, _ in opinions], [o for _, o in opinions])}, mean {np.mean([o for _, o in opinions]):.3f}")
    rows = []
    direct_weights = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5] if direct else [0.0]
    for center, weight, method, dw in itertools.product([args.center], [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0],
                                                        ["any", "share", "share-chars"],
                                                        direct_weights):
        scores = case_scores(cases, center, args.scale, weight, method, dw)
        threshold = best_threshold(gold, scores)
        charged = scores >= 0
        rows.append((cross_validated(gold, scores), center, weight, method, f"{dw:.1f}",
                     auroc(gold[charged], scores[charged]),
                     balanced(gold, scores >= 0.5), threshold, balanced(gold, scores >= threshold)))
    print("cv bal | center weight method first-reading | AUROC among charged cases | bal@0.5 | best threshold "
          "(in-sample bal)")
    for cv, center, weight, method, dw, auc, at_half, threshold, best in sorted(rows, reverse=True)[:20]:
        print(f"{cv:.3f} | {center:+.1f} {weight:.2f} {method:5s} {dw} | {auc:.3f} | {at_half:.3f} | "
              f"{threshold:.3f} ({best:.3f})")


if __name__ == "__main__":
    main()
