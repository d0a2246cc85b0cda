"""Prototype (#32): can a linear probe over each word's hidden state (and attention pattern) point at the hallucinated
words of an answer, out of fold?

Reads the per-token features `witness_features.py --token-hidden` wrote for `ragtruth-spans-dev.jsonl`, labels every
word (a run of non-blank characters, as the span metric counts them) gold when any of its characters lies in a human
span (`implicit_true` ones left out), and scores, by grouped 5-fold cross-validation (folds over contexts: the same
source text never in both), a logistic probe per feature set. The word threshold is chosen on the training folds'
own out-of-fold scores (inner 3-fold), so no threshold is picked on the cases it is scored on. Predicted spans are
runs of words at or above it (gaps of one word bridged within a sentence); token F1 and hit@1 on the hallucinated
answers come from `courtroom.evaluate.spans`, as in the shipped evaluation.

    python experiments/dev/span_probe_fit.py experiments/features/qwen0.5b-ragtruth-spans.pkl \
        ../shared/data/ragtruth-spans-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from courtroom.case import AnnotatedSpan
from courtroom.evaluate.spans import SpanCase, paired_f1_difference, span_scores

_WORD = re.compile(r"\S+")


def word_table(record: dict, row: dict) -> dict:
    """Every word of the answer with its features and its gold label."""
    answer = record["answer"]
    offset = row["answer"].find(answer)
    gold = [(s["start"] - offset, s["end"] - offset) for s in row.get("spans") or [] if not s.get("implicit_true")]
    offsets = record["offsets"]
    bounds = [(m.start(), m.end()) for m in _WORD.finditer(answer)]
    sentence_of = [max([i for i, (a, _) in enumerate(record["sentences"]) if a <= s] or [0]) for s, _ in bounds]
    lp_full, lp_none = record["lp_full"].astype(np.float64), record["lp_none"].astype(np.float64)
    look = record["lookback"].astype(np.float32).reshape(len(offsets), -1)
    hidden = record["hidden_tok"].astype(np.float32)  # (A, L, d)
    n_layers = hidden.shape[1]
    rows_h, rows_l, rows_s, labels = [], [], [], []
    for a, b in bounds:
        idx = [i for i, (x, y) in enumerate(offsets) if x < b and y > a] or [0]
        gain = lp_full[idx] - lp_none[idx]
        rows_h.append(hidden[idx].mean(0))  # (L, d)
        rows_l.append(look[idx].mean(0))
        rows_s.append([gain.min(), gain.mean(), -lp_none[idx].max(), -lp_full[idx].min(), float(bool(re.search(r"\d", answer[a:b]))),
                       look[idx].mean()])
        labels.append(any(x < b and y > a for x, y in gold))
    # the sentence's mean state beside the word's own (what the word is said in)
    sent_h = np.stack([np.mean([h for h, s in zip(rows_h, sentence_of) if s == k], 0) for k in sentence_of]) \
        if bounds else np.zeros((0, n_layers, hidden.shape[2]))
    return {"bounds": bounds, "sentence": sentence_of, "hidden": np.stack(rows_h) if bounds else None,
            "sent_hidden": sent_h, "look": np.stack(rows_l) if bounds else None, "scalars": np.array(rows_s),
            "labels": np.array(labels, bool), "gold": gold, "answer": answer}


def spans_from(table: dict, scores: np.ndarray, threshold: float, max_gap: int = 1) -> list[tuple[int, int, float]]:
    out, run = [], []

    def close() -> None:
        if run:
            out.append((table["bounds"][run[0]][0], table["bounds"][run[-1]][1], float(max(scores[i] for i in run))))
        run.clear()

    for i, s in enumerate(scores):
        if s < threshold:
            continue
        if run and (table["sentence"][i] != table["sentence"][run[-1]] or i - run[-1] - 1 > max_gap):
            close()
        run.append(i)
    close()
    return sorted(out, key=lambda x: -x[2])


def cases_of(tables: list[dict], scores: list[np.ndarray], threshold: float) -> list[SpanCase]:
    return [SpanCase(t["answer"], [AnnotatedSpan(start=a, end=b, text=t["answer"][a:b], type="evident_baseless_info")
                                   for a, b in t["gold"]], spans_from(t, s, threshold)) for t, s in zip(tables, scores)]


def token_f1(tables: list[dict], scores: list[np.ndarray], threshold: float) -> float:
    """Word-level F1 (words are the metric's tokens; the one-word gaps a span bridges are left out: a search only)."""
    y = np.concatenate([t["labels"] for t in tables])
    p = np.concatenate(scores) >= threshold
    tp, fp, fn = (y & p).sum(), (~y & p).sum(), (y & ~p).sum()
    return float(2 * tp / max(2 * tp + fp + fn, 1))


def features(table: dict, kind: str, layer: int) -> np.ndarray:
    parts = []
    if "h" in kind:
        parts.append(table["hidden"][:, layer])
    if "H" in kind:
        parts.append(table["hidden"].reshape(len(table["bounds"]), -1))
    if "c" in kind:
        parts.append(table["sent_hidden"][:, layer])
    if "l" in kind:
        parts.append(table["look"])
    if "s" in kind:
        parts.append(table["scalars"])
    return np.concatenate(parts, 1).astype(np.float32)


def fit(X: np.ndarray, y: np.ndarray, C: float):
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=300, class_weight="balanced"))
    return model.fit(X, y)


def oof_scores(tables: list[dict], groups: np.ndarray, kind: str, layer: int, C: float, folds: int) -> list[np.ndarray]:
    X = [features(t, kind, layer) for t in tables]
    out: list[np.ndarray] = [np.zeros(0)] * len(tables)
    for train, test in GroupKFold(folds).split(np.zeros(len(tables)), groups=groups):
        model = fit(np.concatenate([X[i] for i in train]), np.concatenate([tables[i]["labels"] for i in train]), C)
        for i in test:
            out[i] = model.predict_proba(X[i])[:, 1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("features")
    parser.add_argument("data")
    parser.add_argument("--kinds", default="s,l,h,hc,hs,hls,hcls")
    parser.add_argument("--layer", type=int, default=1, help="Index among the layers the features kept.")
    parser.add_argument("--C", type=float, default=0.01)
    args = parser.parse_args()
    records = {r["id"]: r for r in pickle.loads(open(args.features, "rb").read())}
    rows = [json.loads(line) for line in open(args.data)]
    rows = [r for r in rows if r["id"] in records]
    tables = [word_table(records[r["id"]], r) for r in rows]
    keep = [i for i, t in enumerate(tables) if t["bounds"]]
    tables, rows = [tables[i] for i in keep], [rows[i] for i in keep]
    groups = np.unique(["\n".join(r["context"]) for r in rows], return_inverse=True)[1]
    fail = [i for i, r in enumerate(rows) if r["label"] == "FAIL" and tables[i]["gold"]]
    print(f"{len(tables)} answers, {sum(len(t['labels']) for t in tables)} words, "
          f"{sum(t['labels'].sum() for t in tables)} gold; {len(fail)} hallucinated with gold spans", flush=True)
    outer = list(GroupKFold(5).split(np.zeros(len(tables)), groups=groups))
    results = {}
    for kind in args.kinds.split(","):
        start = time.time()
        scores: list[np.ndarray] = [np.zeros(0)] * len(tables)
        for train, test in outer:
            sub = [tables[i] for i in train]
            inner = oof_scores(sub, groups[train], kind, args.layer, args.C, 3)
            sub_fail = [k for k, i in enumerate(train) if i in set(fail)]
            grid = np.quantile(np.concatenate(inner), np.linspace(0.5, 0.99, 40))
            best = max(grid, key=lambda th: token_f1([sub[k] for k in sub_fail], [inner[k] for k in sub_fail], th))
            X = [features(tables[i], kind, args.layer) for i in train]
            model = fit(np.concatenate(X), np.concatenate([tables[i]["labels"] for i in train]), args.C)
            for i in test:
                s = model.predict_proba(features(tables[i], kind, args.layer))[:, 1]
                scores[i] = np.where(s >= best, 0.5 + 0.5 * s, 0.5 * s)  # the fold's threshold maps to 0.5
        cases = cases_of([tables[i] for i in fail], [scores[i] for i in fail], 0.5)
        results[kind] = cases
        s = span_scores(cases)
        tok = s["token hallucinated answers"]
        print(f"{kind:6s} token P {tok['precision']:.3f} R {tok['recall']:.3f} F1 {tok['f1']:.3f} "
              f"{tok['f1_95']} hit@1 {s['hit@1']} {s.get('hit@1_95')} ({time.time() - start:.0f}s)", flush=True)
    kinds = list(results)
    if len(kinds) > 1:
        best = max(kinds, key=lambda k: span_scores(results[k], resamples=0)["token hallucinated answers"]["f1"])
        for k in kinds:
            if k != best:
                print(f"{best} - {k}: {paired_f1_difference(results[best], results[k])}")


if __name__ == "__main__":
    main()
