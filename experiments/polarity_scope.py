"""The polarity witness's version 2 (negation by scope) against version 1 (the cues' parity), #46: on the recorded
examples of a run (the travel cache of `experiments/travel.py`: examples, model, measure, cases), the polarity value
recomputed from each case's text both ways (version 1 recomputed must equal what the run recorded), and a ruling fitted
out of fold on each (5 folds, `fit_ruling`), its balanced accuracy at 0.5 paired by McNemar's exact test.

    PYTHONPATH=. python experiments/polarity_scope.py /work/data-extra/qwen0.5b-travel-528.pickle
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Set
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
from scipy.stats import binomtest

from courtroom.calibrate.fit_ruling import fit_ruling
from courtroom.case import Case
from courtroom.casefile import context_sentences
from courtroom.text.negation import CUES
from courtroom.text.sentences import sentence_spans
from courtroom.witness import polarity
from experiments.estimate_check import balanced


def by_parity(text: str, keys: Set[str]) -> bool:
    """Version 1's reading: an odd number of cues anywhere in the sentence."""
    return len(CUES.findall(text)) % 2 == 1


def flipped_share(case: Case, parity: bool) -> float:
    with mock.patch.object(polarity, "negated", by_parity if parity else polarity.negated):
        checks = polarity.check_polarity(sentence_spans(case.answer), case.answer, context_sentences(case))
    return sum(c.flipped for c in checks) / len(checks) if checks else 0.0


def main() -> None:
    examples, model, _measure, cases = pickle.loads(Path(sys.argv[1]).read_bytes())
    old = [replace(e, values=e.values | {"polarity.flipped": flipped_share(cases[e.case_id], True)}) for e in examples]
    new = [replace(e, values=e.values | {"polarity.flipped": flipped_share(cases[e.case_id], False)}) for e in examples]
    same = sum(abs(o.values["polarity.flipped"] - e.values.get("polarity.flipped", -1)) < 1e-9
               for o, e in zip(old, examples))
    changed = sum(o.values["polarity.flipped"] != n.values["polarity.flipped"] for o, n in zip(old, new))
    print(f"{len(examples)} examples; version 1 recomputed = recorded in {same}; version 2 differs in {changed}")
    gold = np.array([e.hallucinated for e in examples])
    right = {}
    for name, chosen in [("version 1", old), ("version 2", new)]:
        p = fit_ruling(chosen, model=model, court="default", witnesses={"grounding": 1}).out_of_fold
        right[name] = (p >= 0.5) == gold
        print(f"{name}: balanced accuracy {balanced(gold, p):.3f} (out of fold)")
    lost = int((right["version 1"] & ~right["version 2"]).sum())
    gained = int((~right["version 1"] & right["version 2"]).sum())
    p_value = binomtest(lost, lost + gained).pvalue if lost + gained else 1.0
    print(f"paired: right only under version 1 {lost}, only under version 2 {gained}, p = {p_value:.2f}")


if __name__ == "__main__":
    main()
