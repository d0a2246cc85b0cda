"""The grounding witness: per-token gains of the context, aggregated per sentence and over the answer."""

from __future__ import annotations

import math

import pytest

from courtroom.witness import grounding as witness
from courtroom.witness.grounding import VARIANTS, case_values, p_suspect, sentence_values
from tests.helpers.witness import reading


def test_sentence_values_by_hand() -> None:
    full, bare = [-1.0, -2.0, -0.5], [-3.0, -1.0, -0.5]  # gains 2, -1, 0
    v = sentence_values(full, bare, clip=1.0)             # capped 1, -1, 0
    assert v["mean"] == pytest.approx(0.0)
    assert v["min"] == pytest.approx(-1.0)
    assert v["q10"] == pytest.approx(-1.0 + 0.2 * 1.0)     # 10% of the way from the lowest to the next (linear)
    # weighted by the surprisal without the context (3, 1, 0.5)
    assert v["rare"] == pytest.approx((1.0 * 3 + -1.0 * 1 + 0.0 * 0.5) / 4.5)
    assert v["surprise"] == pytest.approx(-3.5 / 3)
    assert v["unsupported"] == pytest.approx(1 / 3)        # one gain below -0.5
    unclipped = sentence_values(full, bare, clip=None)
    assert unclipped["mean"] == pytest.approx(1 / 3) and unclipped["rare"] == pytest.approx(5 / 4.5)
    assert unclipped["min"] == v["min"] and unclipped["unsupported"] == v["unsupported"]


def test_the_clip_caps_gains_but_not_losses() -> None:
    v = sentence_values([0.0, -5.0], [-9.0, 0.0], clip=2.0)  # gains 9, -5
    assert v["mean"] == pytest.approx((2.0 - 5.0) / 2) and v["min"] == pytest.approx(-5.0)


def test_rare_weighting_falls_back_to_the_mean_when_nothing_is_surprising() -> None:
    v = sentence_values([-0.1, -0.3], [0.0, 0.0], clip=None)
    assert v["rare"] == pytest.approx(v["mean"]) == pytest.approx(-0.2)


def test_a_sentence_without_tokens_is_all_zero() -> None:
    assert sentence_values([], [], clip=2.0) == dict.fromkeys(VARIANTS, 0.0)


def test_case_values_weigh_sentences_by_length_and_share_is_the_expected_suspect_share() -> None:
    a = sentence_values([-1.0], [-3.0], None)   # mean gain 2
    b = sentence_values([-2.0], [-1.0], None)   # mean gain -1
    v = case_values([a, b], [10, 30], center=0.4, scale=0.3)
    assert v["mean"] == pytest.approx(0.25 * 2 + 0.75 * -1)
    assert v["worst_mean"] == pytest.approx(-1.0) and v["worst_min"] == pytest.approx(-1.0)
    assert v["unsupported"] == pytest.approx(0.75) and v["worst_unsupported"] == pytest.approx(1.0)  # worst is most
    assert v["share"] == pytest.approx(0.25 * p_suspect(2.0, 0.4, 0.3) + 0.75 * p_suspect(-1.0, 0.4, 0.3))
    assert set(v) == {*VARIANTS, *(f"worst_{n}" for n in VARIANTS), "share"}
    # sentences of no length count equally
    even = case_values([a, b], [0, 0], center=0.4, scale=0.3)
    assert even["mean"] == pytest.approx(0.5)
    assert case_values([], [], 0.4, 0.3) == {}


def test_p_suspect_is_a_logistic_of_the_distance_below_the_center() -> None:
    assert p_suspect(0.4, 0.4, 0.3) == pytest.approx(0.5)
    assert p_suspect(0.1, 0.4, 0.3) == pytest.approx(1 / (1 + math.exp(-1)))
    assert p_suspect(0.7, 0.4, 0.3) == pytest.approx(1 / (1 + math.exp(1)))
    assert p_suspect(-1e9, 0.4, 0.3) == pytest.approx(1.0) and p_suspect(1e9, 0.4, 0.3) == pytest.approx(0.0)


def test_the_testimony_values_sentences_by_their_tokens_and_points_at_the_least_supported() -> None:
    answer = " Paris is big. It has 9 million people."
    stripped = answer.strip()
    # tokens of the stripped answer: "Paris", " is", " big", ".", " It", " has", " 9", " million", " people", "."
    pieces = ["Paris", " is", " big", ".", " It", " has", " 9", " million", " people", "."]
    spans, at = [], 0
    for piece in pieces:
        spans.append((at, at + len(piece)))
        at += len(piece)
    assert at == len(stripped)
    full = [-1.0, -0.5, -1.0, -0.1, -0.5, -0.5, -6.0, -0.5, -1.0, -0.1]
    bare = [-4.0, -0.5, -2.0, -0.1, -0.5, -0.5, -3.0, -2.5, -1.0, -0.1]
    r = reading(answer, ["Paris is big."], sentences=["Paris is big.", "It has 9 million people."],
                token_spans=tuple(spans), full=tuple(full), bare=tuple(bare))
    t = witness.testify(r, clip=2.0, center=0.4, scale=0.3)
    first = sentence_values(full[:4], bare[:4], 2.0)
    second = sentence_values(full[4:], bare[4:], 2.0)
    assert t.sentences[0]["mean"] == pytest.approx(first["mean"], abs=1e-6)
    assert t.sentences[1]["min"] == pytest.approx(-3.0) and t.sentences[1]["mean"] == pytest.approx(second["mean"],
                                                                                                     abs=1e-6)
    whole = case_values([first, second], [13, 24], 0.4, 0.3)
    assert t.values["mean"] == pytest.approx(whole["mean"], abs=1e-6)
    assert t.values["share"] == pytest.approx(whole["share"], abs=1e-6)
    # only tokens the context made less likely are pointed at: " 9" (-3 nats)
    [point] = t.points
    assert answer[point.start:point.end] == " 9" and point.weight == pytest.approx(3.0)
    assert "3.0 nats less likely" in point.note
