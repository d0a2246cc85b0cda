"""Metrics against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from courtroom.evaluate.metrics import auroc, compute_metrics, metrics_by_source
from courtroom.evaluate.paired import mcnemar
from courtroom.evaluate.results import ResultRow
from courtroom.evaluate.thresholds import best_threshold, calibrated_predictions


def row(i: int, gold: str, label: str | None, score: float = 0.5, source: str = "s", **kw) -> ResultRow:
    return ResultRow(case_id=f"c{i}", source=source, gold=gold, label=label, score=score, **kw)


def test_rates_and_confusion() -> None:
    rows = [row(0, "FAIL", "FAIL", 0.9), row(1, "FAIL", "PASS", 0.4), row(2, "FAIL", "FAIL", 0.8),
            row(3, "PASS", "PASS", 0.1), row(4, "PASS", "FAIL", 0.6), row(5, "PASS", "PASS", 0.2),
            row(6, "PASS", "PASS", 0.3), row(7, "PASS", None, None, error="boom")]
    m = compute_metrics(rows, resamples=200)
    assert m.cases == 7 and m.errors == 1
    assert m.confusion == {"tp": 2, "fp": 1, "tn": 3, "fn": 1}
    assert m.accuracy.value == pytest.approx(5 / 7)
    assert m.balanced_accuracy.value == pytest.approx((2 / 3 + 3 / 4) / 2)
    assert m.precision.value == pytest.approx(2 / 3) and m.recall.value == pytest.approx(2 / 3)
    assert m.f1.value == pytest.approx(2 / 3)
    assert m.auroc.value == pytest.approx(11 / 12)
    assert m.balanced_accuracy.low <= m.balanced_accuracy.value <= m.balanced_accuracy.high


def test_auroc_handles_ties_and_one_class() -> None:
    assert auroc([True, False], [0.5, 0.5]) == pytest.approx(0.5)
    assert auroc([True, True], [0.1, 0.9]) is None


def test_per_source() -> None:
    rows = [row(0, "FAIL", "FAIL", source="a"), row(1, "PASS", "FAIL", source="b")]
    by = metrics_by_source(rows, resamples=0)
    assert by["a"].accuracy.value == 1.0 and by["b"].accuracy.value == 0.0


def test_per_source_prefix() -> None:
    rows = [row(0, "FAIL", "FAIL", source="rt/QA/gpt-4"), row(1, "PASS", "FAIL", source="rt/QA/llama"),
            row(2, "PASS", "PASS", source="rt/Summary/gpt-4")]
    by = metrics_by_source(rows, resamples=0, depth=2)
    assert sorted(by) == ["rt/QA", "rt/Summary"]
    assert by["rt/QA"].cases == 2 and by["rt/QA"].accuracy.value == 0.5


def test_mcnemar_exact() -> None:
    a = [row(i, "FAIL", "FAIL") for i in range(10)]
    b = [row(i, "FAIL", "PASS" if i < 8 else "FAIL") for i in range(10)]
    test = mcnemar(a, b)
    assert (test.shared, test.a_only_correct, test.b_only_correct) == (10, 8, 0)
    assert test.p_value == pytest.approx(2 / 2 ** 8)
    assert mcnemar(a, a).p_value == 1.0


def test_a_calibrated_threshold_is_learnt_out_of_fold() -> None:
    # a judge that ranks perfectly but whose scores all sit below 0.5
    rows = [ResultRow(case_id=f"c{i}", source="s", gold="FAIL" if i % 2 else "PASS",
                      label="PASS", score=(0.30 + i / 1000) if i % 2 else (0.10 + i / 1000))
            for i in range(40)]
    gold = np.array([r.gold == "FAIL" for r in rows])
    scores = np.array([r.score for r in rows])
    assert 0.14 < best_threshold(gold, scores) <= 0.301
    predictions = calibrated_predictions(rows, folds=5)
    assert set(predictions) == {r.case_id for r in rows}
    assert all(predictions[r.case_id] == (r.gold == "FAIL") for r in rows)
    # a judge whose scores carry no information gets no better than chance out of fold
    noise = [r.model_copy(update={"score": 0.5}) for r in rows]
    assert sum(calibrated_predictions(noise)[r.case_id] == (r.gold == "FAIL") for r in noise) == 20


def test_calibrated_folds_depend_on_the_cases_not_their_order() -> None:
    from courtroom.evaluate.thresholds import calibrated_rows

    rng = np.random.default_rng(1)  # a noisy judge: which fold a case lands in changes its prediction
    rows = [row(i, "FAIL" if i % 2 else "PASS", "PASS", float(rng.random())) for i in range(60)]
    rows.append(row(60, "FAIL", None, None, error="boom"))
    assert calibrated_predictions(rows) == calibrated_predictions(rows[::-1])
    relabelled = {r.case_id: r for r in calibrated_rows(rows)}
    assert len(relabelled) == 61 and relabelled["c60"].error == "boom" and relabelled["c60"].label is None
    assert compute_metrics(calibrated_rows(rows), resamples=0).errors == 1


def test_failed_cases_are_counted_not_hidden_in_comparisons() -> None:
    from courtroom.evaluate.paired import excluded_from_pairing, gold_disagreements
    from courtroom.evaluate.thresholds import errors_as_wrong

    reference = [row(i, "FAIL" if i % 2 else "PASS", "FAIL" if i % 2 else "PASS") for i in range(10)]
    reference[0] = row(0, "PASS", "FAIL")  # the reference misses the hard case 0...
    flaky = [row(i, r.gold, r.gold) if i else row(0, "PASS", None, None, error="boom") for i, r in enumerate(reference)]
    assert compute_metrics(flaky, resamples=0).balanced_accuracy.value == 1.0  # ...which the other run failed on
    assert excluded_from_pairing(reference, flaky) == 1 and mcnemar(reference, flaky).shared == 9
    counted = errors_as_wrong(flaky)
    m = compute_metrics(counted, resamples=0)
    assert m.errors == 1 and m.confusion == {"tp": 5, "fp": 1, "tn": 4, "fn": 0}
    assert mcnemar(reference, counted).shared == 10 and excluded_from_pairing(reference, counted) == 0
    assert gold_disagreements(reference, flaky) == 0
    assert gold_disagreements(reference, [row(1, "PASS", "PASS"), row(2, "PASS", "PASS")]) == 1
