"""Prototype fit (#31): which witnesses carry what, out of fold, on the features of `witness_features.py`.

    python experiments/dev/witness_fit.py experiments/features/qwen0.5b-halubench.pkl \
        experiments/features/qwen0.5b-ragtruth.pkl

Each extracted case becomes a `Reading`, the package's witnesses testify on it (`courtroom.witness.registry.hear`),
and `courtroom.calibrate.fit_ruling` fits and cross-validates rulings over subsets of the witnesses (5 folds over
groups of identical answers; probes fitted inside each training fold).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import sys

import numpy as np
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from courtroom.calibrate.fit_ruling import Example, fit_ruling, leave_one_source_out
from courtroom.case import Case
from courtroom.casefile import context_sentences
from courtroom.door.observe import TokenIndex
from courtroom.witness.family import task_family
from courtroom.witness.reading import Reading
from courtroom.witness.registry import WITNESSES, GroundingSettings, hear

DATA = ["/work/shared/data/halubench-dev.jsonl", "/work/shared/data/ragtruth-spans-dev.jsonl"]


def reading_of(x: dict, row: dict) -> Reading:
    case = Case(id=row["id"], question=row["question"], context=row["context"], answer=row["answer"],
                label=row["label"], source=row["source"])
    spans = [tuple(s) for s in x["offsets"]]
    members = [TokenIndex(spans).within(a, b) or [0] for a, b in x["sentences"]] + [list(range(len(spans)))]
    lb = x["lookback"].astype(np.float64)  # (A, L, H)
    lookback = tuple(tuple(lb[m].mean(0).ravel()) for m in members)
    hidden = tuple(tuple(v.astype(np.float64)) for v in x["hidden_sent"][:, 1]) + (tuple(x["hidden_mean"][1].astype(np.float64)),)
    yn = x["first_yes_no"]
    says_yes = 1 / (1 + math.exp(yn["No"] - yn["Yes"]))
    sentences = [(int(a), int(b)) for a, b in x["sentences"]]
    return Reading.of(case, sentences, context_sentences(case), token_spans=tuple(spans),
                      full=tuple(map(float, x["lp_full"])), bare=tuple(map(float, x["lp_none"])), lookback=lookback,
                      token_lookback=tuple(lb.mean((1, 2))), hidden=hidden, says_yes=says_yes)


def examples(xs: list[dict], rows: dict[str, dict], heard: list[str]) -> list[Example]:
    out = []
    for x in xs:
        row = rows[x["id"]]
        reading = reading_of(x, row)
        testimony = hear(reading, heard, GroundingSettings())
        values = {f"{t.witness}.{k}": v for t in testimony if t.heard for k, v in t.values.items()}
        vectors = {}
        if "lookback" in heard:
            vectors["lookback"] = list(reading.lookback[-1])
        if "hidden" in heard:
            vectors["hidden"] = list(reading.hidden[-1])
        source = row["source"].rsplit("/", 1)[0] if row["source"].startswith("ragtruth/") else row["source"]
        out.append(Example(case_id=row["id"], source=source, family=task_family(reading.case), values=values,
                           vectors=vectors, hallucinated=row["label"] == "FAIL",
                           group=hashlib.sha1(x["answer"][:200].encode()).hexdigest()))
    return out


def table_row(name: str, ex: list[Example], scores: np.ndarray, threshold: float = 0.5) -> dict:
    y = np.array([e.hallucinated for e in ex])
    src = np.array([e.source for e in ex])
    dataset = np.array(["ragtruth" if s.startswith("ragtruth/") else "halubench" for s in src])
    out = {"name": name}
    for key, mask in [(d, dataset == d) for d in sorted(set(dataset))] + [(s, src == s) for s in sorted(set(src))]:
        if len(set(y[mask])) > 1:
            out[key] = (balanced_accuracy_score(y[mask], scores[mask] >= threshold), roc_auc_score(y[mask], scores[mask]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("features", nargs="+")
    parser.add_argument("--loso", action="store_true")
    args = parser.parse_args()
    rows = {}
    for path in DATA:
        for line in open(path):
            r = json.loads(line)
            rows[r["id"]] = r
    xs = [x for path in args.features for x in pickle.load(open(path, "rb"))]
    print(f"{len(xs)} cases", file=sys.stderr)
    free = ["figures", "names", "polarity", "overlap"]
    configs = {
        "grounding": ["grounding"],
        "grounding + text checks": ["grounding", *free],
        "+ verdict": ["grounding", *free, "verdict"],
        "lookback alone": ["lookback"],
        "hidden alone": ["hidden"],
        "+ lookback": ["grounding", *free, "verdict", "lookback"],
        "all witnesses": list(WITNESSES),
    }
    results = []
    base = examples(xs, rows, ["grounding"])
    today = np.array([e.values["grounding.share"] for e in base])
    results.append(table_row("today's default court (share >= 0.48)", base, today, 0.48))
    for name, heard in configs.items():
        ex = examples(xs, rows, heard)
        fit = fit_ruling(ex, model="qwen2.5-coder-0.5b", court="default", witnesses={w: 1 for w in heard})
        results.append(table_row(name, ex, fit.out_of_fold))
        print(name, "families:", sorted(fit.ruling.families), file=sys.stderr)
        if args.loso and name == "all witnesses":
            results.append(table_row("all, leave one source out", ex, leave_one_source_out(ex)))
    keys = sorted({k for r in results for k in r if k != "name"})
    print("| witnesses | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for r in results:
        print(f"| {r['name']} | " + " | ".join(f"{r[k][0]:.3f} / {r[k][1]:.2f}" if k in r else "" for k in keys) + " |")


if __name__ == "__main__":
    main()
