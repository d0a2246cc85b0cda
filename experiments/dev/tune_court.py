"""Offline sweep of the evidence court's parameters over saved dev transcripts (no model calls).

Every statement of an answer carries its measured grounding (charges and dropped quotes); every
ruling carries the court's opinion and the grounding it weighed. Re-deciding with another
grounding center, judge weight or aggregation needs only arithmetic.

    python experiments/dev/tune_court.py /tmp/probe-hb/courtroom /tmp/probe-rt/courtroom
"""

from __future__ import annotations

import argparse
import itertools
import math

import numpy as np

from courtroom.metrics import auroc
from courtroom.transcripts.store import RunStore


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-max(-50, min(50, x))))


def load(path: str) -> list[tuple[bool, list[dict]]]:
    store = RunStore(path)
    cases = []
    for row in store.rows():
        events = store.events(row.case_id)
        charges = next(e for e in events if e.event == "charges")
        rulings = {e.ruling.charge: e.ruling for e in events if e.event == "ruling"}
        statements = []
        for c in charges.charges:
            r = rulings.get(c.index)
            statements.append({"g": c.grounding, "opinion": r.opinion if r else None,
                               "evidence": r.evidence if r else c.grounding})
        for d in charges.dropped:
            statements.append({"g": d.grounding, "opinion": None, "evidence": d.grounding})
        cases.append((row.gold == "FAIL", statements))
    return cases


def decide(cases, center: float, scale: float, weight: float, method: str, threshold: float = 0.5):
    scores = []
    for _, statements in cases:
        ps = []
        for s in statements:
            p_indict = sigmoid((center - s["g"]) / scale)
            if p_indict >= 0.5 and s["opinion"] is not None:
                p = weight * s["opinion"] + (1 - weight) * sigmoid((center - s["evidence"]) / scale)
            elif p_indict >= 0.5:
                p = sigmoid((center - s["evidence"]) / scale)
            else:
                p = p_indict
            ps.append(p)
        scores.append(max(ps) if method == "any" else sum(ps) / len(ps))
    gold = np.array([g for g, _ in cases])
    pred = np.array(scores) >= threshold
    tpr = (pred & gold).sum() / gold.sum()
    tnr = (~pred & ~gold).sum() / (~gold).sum()
    return (tpr + tnr) / 2, auroc(gold, scores)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    data = {path: load(path) for path in args.runs}
    rows = []
    for center, weight, method in itertools.product([-0.2, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [0.0, 0.25, 0.5, 1.0],
                                                    ["any", "share"]):
        results = [decide(cases, center, 0.3, weight, method) for cases in data.values()]
        rows.append((sum(r[0] for r in results) / len(results), center, weight, method, results))
    for mean, center, weight, method, results in sorted(rows, reverse=True)[:25]:
        cells = "  ".join(f"bal {b:.3f} auc {a:.3f}" for b, a in results)
        print(f"mean bal {mean:.3f} | center {center:+.1f} weight {weight:.2f} {method:5s} | {cells}")


if __name__ == "__main__":
    main()
