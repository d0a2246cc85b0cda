"""Span metrics (`courtroom.evaluate.spans`) on hand-made answers, the expected numbers worked out by hand."""

from __future__ import annotations

import pytest

from courtroom.case import AnnotatedSpan
from courtroom.evaluate.spans import Counts, SpanCase, counts, hit_at_1, paired_f1_difference, prf, span_scores

ANSWER = "The cat sat on the red mat."
#         0123456789012345678901234567
# words: The 0-3, cat 4-7, sat 8-11, on 12-14, the 15-18, red 19-22, mat. 23-27


def gold(start: int, end: int, **more: object) -> AnnotatedSpan:
    return AnnotatedSpan(start=start, end=end, **more)


def test_character_and_token_counts_by_hand() -> None:
    case = SpanCase(ANSWER, [gold(19, 26)], [(15, 22, 0.9)])  # gold "red mat", predicted "the red"
    # characters: gold 19..25 (7), predicted 15..21 (7), both 19..21 ("red")
    assert counts(case, "char") == Counts(tp=3, fp=4, fn=4)
    assert prf(counts(case, "char")) == pytest.approx((3 / 7, 3 / 7, 3 / 7))
    # words: gold {red, mat.}, predicted {the, red}
    assert counts(case, "token") == Counts(tp=1, fp=1, fn=1)
    assert prf(counts(case, "token")) == pytest.approx((0.5, 0.5, 0.5))
    # a word counts when any of its characters does: "m" and "a" of "mat." differ as characters, not as a word
    apart = SpanCase(ANSWER, [gold(24, 25)], [(23, 24, 0.5)])
    assert counts(apart, "char") == Counts(0, 1, 1) and counts(apart, "token") == Counts(1, 0, 0)


def test_prf_is_zero_where_undefined() -> None:
    assert prf(Counts(0, 0, 0)) == (0.0, 0.0, 0.0)
    assert prf(Counts(0, 3, 0)) == (0.0, 0.0, 0.0)
    assert prf(Counts(2, 0, 2)) == pytest.approx((1.0, 0.5, 2 / 3))


def test_overlapping_gold_spans_are_merged() -> None:
    one = SpanCase(ANSWER, [gold(19, 26)], [(4, 7, 0.5), (19, 22, 0.8)])
    two = SpanCase(ANSWER, [gold(19, 22), gold(20, 26), gold(19, 26)], [(4, 7, 0.5), (19, 22, 0.8)])
    for level in ("char", "token"):
        assert counts(two, level) == counts(one, level)
    assert counts(two, "char") == Counts(tp=3, fp=3, fn=4)


def test_implicit_true_spans_are_left_out_of_the_gold_and_reported_apart() -> None:
    case = SpanCase(ANSWER, [gold(19, 26), gold(4, 7, implicit_true=True, type="Evident Baseless Info")],
                    [(19, 26, 0.9)])
    assert counts(case, "token") == Counts(tp=2, fp=0, fn=0)          # "cat" is not missed
    assert counts(case, "token", implicit=True) == Counts(tp=0, fp=2, fn=1)
    scores = span_scores([case], resamples=50)
    assert scores["token hallucinated answers"]["recall"] == 1.0
    assert scores["token recall, implicit_true spans"] == 0.0
    # an answer whose only gold span is implicit_true is not a hallucinated answer
    only = SpanCase(ANSWER, [gold(4, 7, implicit_true=True)], [])
    assert span_scores([only], resamples=10)["hallucinated answers"] == 0
    assert not hit_at_1(SpanCase(ANSWER, [gold(4, 7, implicit_true=True)], [(4, 7, 1.0)]))


def test_hit_at_1_asks_whether_the_strongest_span_overlaps_the_gold() -> None:
    assert hit_at_1(SpanCase(ANSWER, [gold(19, 22)], [(0, 3, 0.4), (19, 22, 0.9)]))
    assert not hit_at_1(SpanCase(ANSWER, [gold(19, 22)], [(0, 3, 0.95), (19, 22, 0.9)]))
    assert not hit_at_1(SpanCase(ANSWER, [gold(19, 22)], []))
    assert not hit_at_1(SpanCase(ANSWER, [gold(19, 22)], [(15, 19, 0.9)]))  # touching is not overlapping


def test_span_scores_count_spans_on_faithful_answers_as_false_positives_for_all_answers_only() -> None:
    hallucinated = SpanCase(ANSWER, [gold(19, 26)], [(19, 26, 0.9)])
    faithful = SpanCase(ANSWER, [], [(0, 3, 0.8)])
    scores = span_scores([hallucinated, faithful], resamples=200)
    assert scores["answers"] == 2 and scores["hallucinated answers"] == 1
    assert scores["token hallucinated answers"]["precision"] == 1.0
    assert scores["token all answers"]["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert scores["token all answers"]["recall"] == 1.0
    assert scores["token all answers"]["f1"] == pytest.approx(0.8, abs=1e-4)
    assert scores["char all answers"]["precision"] == pytest.approx(7 / 10, abs=1e-4)
    assert scores["hit@1"] == 1.0
    low, high = scores["token all answers"]["f1_95"]
    assert low <= scores["token all answers"]["f1"] <= high


def test_recall_by_type() -> None:
    case = SpanCase(ANSWER, [gold(4, 7, type="Evident Conflict"), gold(19, 26, type="Subtle Baseless Info")],
                    [(4, 7, 0.9)])
    assert span_scores([case], resamples=10)["token recall by type"] == {"Evident Conflict": 1.0,
                                                                          "Subtle Baseless Info": 0.0}


def test_the_paired_difference_has_the_sign_of_the_better_predictor() -> None:
    cases = [(ANSWER, [gold(19, 26)]), ("A dog ran far away.", [gold(2, 5)]), ("It is blue and green.", [gold(6, 10)])]
    good = [SpanCase(a, g, [(g[0].start, g[0].end, 0.9)]) for a, g in cases]
    poor = [SpanCase(a, g, [(0, 2, 0.9)]) for a, g in cases]
    diff, low, high = paired_f1_difference(good, poor, resamples=200)
    assert diff == pytest.approx(1.0) and low > 0 and high <= 1.0
    diff, low, high = paired_f1_difference(poor, good, resamples=200)
    assert diff == pytest.approx(-1.0) and high < 0
    assert paired_f1_difference(good, good, resamples=50) == (0.0, 0.0, 0.0)


def test_scores_without_resampling_give_point_estimates_and_no_intervals() -> None:
    case = SpanCase(ANSWER, [gold(19, 26)], [(19, 26, 0.9)])
    scores = span_scores([case], resamples=0)
    assert scores["hit@1"] == 1.0 and "hit@1_95" not in scores
    assert scores["token hallucinated answers"]["f1"] == 1.0
