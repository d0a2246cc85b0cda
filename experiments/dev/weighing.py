"""Is the weighing the limit, or the evidence (#31)? The fit's own out-of-fold folds, the witnesses' values of each
case (no probes): the ruling's logistic weighing against gradient-boosted trees (depth 3, which can weigh a value
differently by source or by another value), beside the shipped fit's out-of-fold P (values, probes and words).

    PYTHONPATH=. python experiments/dev/weighing.py FIT.pickle

FIT.pickle: a `RulingFit` of the runs on both dev files, as `experiments/span_trial.py score` keeps beside its
trials (`fit.pickle`). Balanced accuracy at P 0.5 / AUROC; every case scored by a model fitted on the other folds.
"""

from __future__ import annotations

import argparse
import pickle

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from courtroom.evaluate.fit_ruling import RULING_C


def _out_of_fold(make, X: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:  # noqa: ANN001
    p = np.zeros(len(y))
    for k in sorted(set(fold.tolist())):
        model = make().fit(X[fold != k], y[fold != k])
        p[fold == k] = model.predict_proba(X[fold == k])[:, 1]
    return p


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fit")
    with open(parser.parse_args().fit, "rb") as f:
        fit = pickle.load(f)
    examples = fit.examples
    names = sorted({k for e in examples for k in e.values})
    X = np.array([[e.values.get(n, np.nan) for n in names] for e in examples])
    X = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
    y = np.array([e.hallucinated for e in examples], dtype=int)
    sources = np.array([e.source for e in examples])
    ways = {
        "logistic, the values": _out_of_fold(lambda: make_pipeline(StandardScaler(), LogisticRegression(
            C=RULING_C, class_weight="balanced", max_iter=5000)), X, y, fit.fold),
        "boosted trees, the values": _out_of_fold(lambda: HistGradientBoostingClassifier(
            max_depth=3, learning_rate=0.05, max_iter=200, class_weight="balanced", random_state=0), X, y, fit.fold),
        "the fit (values, probes, words)": fit.out_of_fold,
    }
    picks = {"HaluBench": np.char.startswith(sources.astype(str), "halubench"),
             "RAGTruth": np.char.startswith(sources.astype(str), "ragtruth"),
             "FinanceBench": sources == "halubench/FinanceBench", "PubMedQA": sources == "halubench/pubmedQA"}
    print("| weighing | " + " | ".join(picks) + " |\n|---|" + "---|" * len(picks))
    for name, p in ways.items():
        cells = [f"{balanced_accuracy_score(y[m], p[m] >= 0.5):.3f} / {roc_auc_score(y[m], p[m]):.3f}"
                 for m in picks.values()]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
