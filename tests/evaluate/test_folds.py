"""The package's one fold assignment (`stratified_folds`): keys share a fold, labels and strata are dealt evenly."""

from __future__ import annotations

import numpy as np

from courtroom.evaluate.thresholds import stratified_folds


def test_each_source_and_kind_is_dealt_evenly_and_the_round_carries_on() -> None:
    rng = np.random.default_rng(0)
    strata = [f"source {i % 7}" for i in range(300)]  # seven sources, 42 or 43 cases each
    gold = rng.random(300) < 0.4
    fold = stratified_folds(gold, [f"case {i}" for i in range(300)], folds=5, seed=3, strata=strata)
    for source in set(strata):
        for label in (True, False):
            counts = np.bincount(fold[(np.array(strata) == source) & (gold == label)], minlength=5)
            assert counts.max() - counts.min() <= 1, (source, label, counts)
    sizes = np.bincount(fold, minlength=5)
    assert sizes.max() - sizes.min() <= 2  # small strata do not pile their remainders on the first folds
    unstratified = stratified_folds(gold, [f"case {i}" for i in range(300)], folds=5, seed=3)
    worst = max(np.ptp(np.bincount(unstratified[(np.array(strata) == s) & gold], minlength=5)) for s in set(strata))
    assert worst > 1  # by label alone, some source's hallucinated cases are dealt unevenly


def test_a_keys_cases_share_a_fold_whatever_their_labels_and_row_order() -> None:
    keys = [f"item {i // 2}" for i in range(100)]  # pairs: a faithful and a hallucinated answer
    gold = np.array([i % 2 == 0 for i in range(100)])
    fold = stratified_folds(gold, keys, folds=5, seed=1, strata=["s"] * 100)
    assert all(fold[i] == fold[i + 1] for i in range(0, 100, 2))
    order = np.random.default_rng(2).permutation(100)
    again = stratified_folds(gold[order], [keys[i] for i in order], folds=5, seed=1, strata=["s"] * 100)
    assert all(again[j] == fold[i] for j, i in enumerate(order))
