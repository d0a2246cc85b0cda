"""Prototype (#32): which way of turning the span model's word scores into spans points best, out of fold?

Reads the labelled examples of runs of the default court on `ragtruth-spans-dev.jsonl` (with
`witnesses.word_states=true`, so the word probe can be fitted), and fits the ruling and its span model by the
shipped procedure (`courtroom.calibrate.fit_ruling`: grouped 5-fold cross-validation, the span model's threshold,
gap and window chosen on the training folds only) under each variant of the search grid, printing the token
P/R/F1 and hit@1 of the words' spans on the hallucinated answers. Nothing here is scored on the cases it was tuned on.

    PYTHONPATH=. python experiments/dev/span_variants.py experiments/results/qwen2.5-coder-0.5b/ragtruth-word-states
"""

from __future__ import annotations

import argparse
import pickle
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import courtroom.calibrate.fit_spans as fit_spans_module
from courtroom.calibrate.fit_ruling import Design, decide, fit, fit_ruling
from courtroom.calibrate.fit_spans import _gold_words
from courtroom.calibrate.logistic import apply_linear, fit_linear
from courtroom.calibrate.ruling_runs import labelled_runs
from courtroom.evaluate.paired import mcnemar, paired_bootstrap_difference
from courtroom.evaluate.spans import paired_f1_difference, span_scores
from courtroom.witness.registry import WITNESSES


def with_neighbours(spans, window: int) -> list[list[float]]:  # noqa: ANN001
    """Each word's state followed by the mean state of up to `window` words on each side in its sentence."""
    states = np.array(spans.word_hidden)
    out = []
    for i, word in enumerate(spans.words):
        near = [j for j in range(max(0, i - window), min(len(spans.words), i + window + 1))
                if j != i and spans.words[j].sentence == word.sentence]
        around = states[near].mean(0) if near else states[i]
        out.append([*states[i], *around])
    return out


def word_scores(examples: list, train: np.ndarray, score: np.ndarray, C: float) -> dict[int, np.ndarray]:
    """Each `score` example's words scored by a word probe fitted on the words of the `train` examples."""
    usable = [i for i in train if examples[i].spans is not None and examples[i].spans.word_hidden is not None]
    X = np.concatenate([np.array(examples[i].spans.word_hidden) for i in usable])
    y = np.concatenate([np.array(_gold_words(examples[i].spans), dtype=int) for i in usable])
    lin = fit_linear(X, y, [], C)
    return {int(i): apply_linear(lin, np.array(examples[i].spans.word_hidden)) for i in score
            if examples[i].spans is not None and examples[i].spans.word_hidden is not None}


def case_values(scores: np.ndarray) -> dict[str, float]:
    top = np.sort(scores)[::-1]
    return {"words.max": float(top[0]), "words.top3": float(top[:3].mean()), "words.share": float((scores > 0).mean())}


def word_evidence(examples: list, fold: np.ndarray, C: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Out of fold (nested): each case's P(hallucinated) by the ruling alone and by the ruling with the word probe's
    case values (`case_values`) among its values; the training cases' word values are cross-fitted within the
    training folds, so no case's value comes from a probe that saw its labels."""
    from dataclasses import replace as dc_replace

    # the designs see no words' states (so the shipped ruling adds no word values of its own): the prototype's
    # values are the only ones
    bare = [dc_replace(e, spans=dc_replace(e.spans, word_hidden=None)) if e.spans is not None else e for e in examples]
    alone, joined = np.zeros(len(examples)), np.zeros(len(examples))
    everything = np.arange(len(examples))
    for k in sorted(set(fold.tolist())):
        train, test = everything[fold != k], everything[fold == k]
        values: dict[int, dict[str, float]] = {}
        inner = np.arange(len(train)) % 3
        for j in range(3):
            for i, sc in word_scores(examples, train[inner != j], train[inner == j], C).items():
                values[i] = case_values(sc)
        for i, sc in word_scores(examples, train, test, C).items():
            values[i] = case_values(sc)
        chosen = [dc_replace(e, values={**e.values, **values.get(i, {})}) for i, e in enumerate(bare)]
        for out, design in ((alone, Design(bare)), (joined, Design(chosen))):
            out[test] = decide(design, fit(design, train, seed), test)
    return alone, joined


def acquitted(cases: list, examples: list, contexts: dict[str, list[str]]) -> list:
    """The spans of `cases` less those whose every content word one context sentence holds (a verified quote of
    support, found by the lexical check alone: what a defender choosing the best quote perfectly would give)."""
    from courtroom.evaluate.spans import SpanCase
    from courtroom.text.sentences import split
    from courtroom.text.words import content_words

    with_spans = [e for e in examples if e.spans is not None]
    out = []
    for case, example in zip(cases, with_spans):
        keyed = [{w.key for w in content_words(s)} for text in contexts[example.case_id]
                 for s in split(text, render=False)]
        kept = []
        for a, b, score in case.predicted:
            wanted = {w.key for w in content_words(case.answer[a:b])}
            if not wanted or not any(wanted <= k for k in keyed):
                kept.append((a, b, score))
        out.append(SpanCase(case.answer, case.gold, kept))
    return out


def rows_of(examples: list, p: np.ndarray) -> list:
    from courtroom.evaluate.results import ResultRow

    return [ResultRow(case_id=e.case_id, source=e.source, gold="FAIL" if e.hallucinated else "PASS",
                      label="FAIL" if x >= 0.5 else "PASS", score=float(x)) for e, x in zip(examples, p)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--variants", help="Only these variants (;-separated names), beside the shipped grid.")
    parser.add_argument("--no-case-level", action="store_true")
    parser.add_argument("--only-case-level", action="store_true", help="The shipped grid's spans, then the case level.")
    parser.add_argument("--data", default="../shared/data/ragtruth-spans-dev.jsonl")
    parser.add_argument("--cache", default="experiments/features/span-variants.pkl")
    args = parser.parse_args()
    cache = Path(args.cache)
    if cache.exists():
        examples, model, court, heard = pickle.loads(cache.read_bytes())
    else:
        runs = labelled_runs(args.runs)
        examples, model, court = runs.examples, runs.model, runs.court.spec.name
        heard = {name: WITNESSES[name].version for name in runs.court.spec.witnesses.heard}  # type: ignore[union-attr]
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps((examples, model, court, heard)))
    with_states = sum(e.spans is not None and e.spans.word_hidden is not None for e in examples)
    print(f"{len(examples)} examples, {with_states} with word states", flush=True)
    variants = {
        "shipped grid": {},
        "word probe C 0.01": {"probe_c": 0.01},
        "no word probe": {"probe": False},
        "windows 0-3": {"windows": (0, 1, 2, 3)},
        "gaps 0-5": {"gaps": (0, 1, 2, 3, 4, 5)},
        "windows 0-3, gaps 0-5": {"windows": (0, 1, 2, 3), "gaps": (0, 1, 2, 3, 4, 5)},
        "word probe C 0.001": {"probe_c": 0.001},
        "word probe C 0.1": {"probe_c": 0.1},
        "word probe C 0.0003": {"probe_c": 0.0003},
        "word probe C 0.001, neighbours": {"probe_c": 0.001, "neighbours": 2},
        "word probe C 0.0003, neighbours": {"probe_c": 0.0003, "neighbours": 2},
    }
    if args.variants:
        variants = {k: v for k, v in variants.items() if k in args.variants.split(";") or k == "shipped grid"}
    if args.only_case_level:
        variants = {"shipped grid": {}}
    found = {}
    for name, variant in variants.items():
        start = time.time()
        chosen = examples
        if variant.get("probe") is False:
            chosen = [replace(e, spans=replace(e.spans, word_hidden=None)) if e.spans is not None else e
                      for e in examples]
        if variant.get("neighbours"):
            chosen = [replace(e, spans=replace(e.spans, word_hidden=with_neighbours(e.spans, variant["neighbours"])))
                      if e.spans is not None and e.spans.word_hidden is not None else e for e in examples]
        saved = (fit_spans_module.WINDOWS, fit_spans_module.GAPS, fit_spans_module.WORD_PROBE_CS)
        fit_spans_module.WINDOWS = variant.get("windows", saved[0])
        fit_spans_module.GAPS = variant.get("gaps", saved[1])
        fit_spans_module.WORD_PROBE_CS = (variant["probe_c"],) if "probe_c" in variant else saved[2]
        try:
            fit = fit_ruling(chosen, model=model, court=court, witnesses=heard)
        finally:
            fit_spans_module.WINDOWS, fit_spans_module.GAPS, fit_spans_module.WORD_PROBE_CS = saved
        words = fit.span_cases["words"]
        found[name] = words
        s = span_scores(words)
        token = s["token hallucinated answers"]
        print(f"{name:28s} token P {token['precision']:.3f} R {token['recall']:.3f} F1 {token['f1']:.3f} "
              f"{token['f1_95']} hit@1 {s['hit@1']:.3f} | sentences F1 "
              f"{span_scores(fit.span_cases['sentences'], resamples=0)['token hallucinated answers']['f1']:.3f} "
              f"({time.time() - start:.0f} s)", flush=True)
    import json

    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    contexts = {r["id"]: r["context"] for r in map(json.loads, open(args.data))}
    for name in [n for n in ("shipped grid", "windows 0-3, gaps 0-5") if n in found]:
        kept = acquitted(found[name], examples, contexts)
        s = span_scores(kept)
        token = s["token hallucinated answers"]
        print(f"{name}, spans a context sentence holds acquitted: token P {token['precision']:.3f} R "
              f"{token['recall']:.3f} F1 {token['f1']:.3f} hit@1 {s['hit@1']:.3f}; difference "
              f"{paired_f1_difference(kept, found[name])}", flush=True)

    fold = fit.fold
    y = np.array([e.hallucinated for e in examples], dtype=int)
    for C in () if args.no_case_level else (0.01, 0.001):
        alone, joined = word_evidence(examples, fold, C)
        print(f"case level, word probe C {C}: ruling AUROC {roc_auc_score(y, alone):.3f} BA "
              f"{balanced_accuracy_score(y, alone >= 0.5):.3f}; with the words' values AUROC "
              f"{roc_auc_score(y, joined):.3f} BA {balanced_accuracy_score(y, joined >= 0.5):.3f}", flush=True)
        a, b = (rows_of(examples, p) for p in (joined, alone))
        diff, test = paired_bootstrap_difference(a, b), mcnemar(a, b)
        print(f"  with - without the words' values, balanced accuracy {diff.difference:+.3f} [{diff.low:+.3f}, "
              f"{diff.high:+.3f}], McNemar p = {test.p_value:.3g}", flush=True)
    for name in found:
        if name != "shipped grid":
            print(f"{name} - shipped grid: {paired_f1_difference(found[name], found['shipped grid'])}")


if __name__ == "__main__":
    main()
