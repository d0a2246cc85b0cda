"""Prototype (#32): which way of turning the span model's word scores into spans points best, out of fold?

Reads the labelled examples of runs of the default court on `ragtruth-spans-dev.jsonl` (with
`witnesses.word_states=true`, so the word probe can be fitted), and fits the ruling and its span model by the
shipped procedure (`courtroom.evaluate.fit_ruling`: grouped 5-fold cross-validation, the span model's threshold,
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

import courtroom.evaluate.fit_spans as fit_spans_module
from courtroom.evaluate.fit_ruling import fit_ruling
from courtroom.evaluate.spans import paired_f1_difference, span_scores
from courtroom.log.ruling_calibrate import labelled_runs
from courtroom.witness.registry import WITNESSES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
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
        "no word probe": {"probe": False},
        "windows 0-3": {"windows": (0, 1, 2, 3)},
        "gaps 0-5": {"gaps": (0, 1, 2, 3, 4, 5)},
        "windows 0-3, gaps 0-5": {"windows": (0, 1, 2, 3), "gaps": (0, 1, 2, 3, 4, 5)},
        "word probe C 0.001": {"probe_c": 0.001},
        "word probe C 0.1": {"probe_c": 0.1},
    }
    found = {}
    for name, variant in variants.items():
        start = time.time()
        chosen = examples
        if variant.get("probe") is False:
            chosen = [replace(e, spans=replace(e.spans, word_hidden=None)) if e.spans is not None else e
                      for e in examples]
        saved = (fit_spans_module.WINDOWS, fit_spans_module.GAPS, fit_spans_module.WORD_PROBE_C)
        fit_spans_module.WINDOWS = variant.get("windows", saved[0])
        fit_spans_module.GAPS = variant.get("gaps", saved[1])
        fit_spans_module.WORD_PROBE_C = variant.get("probe_c", saved[2])
        try:
            fit = fit_ruling(chosen, model=model, court=court, witnesses=heard)
        finally:
            fit_spans_module.WINDOWS, fit_spans_module.GAPS, fit_spans_module.WORD_PROBE_C = saved
        words = fit.span_cases["words"]
        found[name] = words
        s = span_scores(words)
        token = s["token hallucinated answers"]
        print(f"{name:28s} token P {token['precision']:.3f} R {token['recall']:.3f} F1 {token['f1']:.3f} "
              f"{token['f1_95']} hit@1 {s['hit@1']:.3f} | sentences F1 "
              f"{span_scores(fit.span_cases['sentences'], resamples=0)['token hallucinated answers']['f1']:.3f} "
              f"({time.time() - start:.0f} s)", flush=True)
    for name in found:
        if name != "shipped grid":
            print(f"{name} - shipped grid: {paired_f1_difference(found[name], found['shipped grid'])}")


if __name__ == "__main__":
    main()
