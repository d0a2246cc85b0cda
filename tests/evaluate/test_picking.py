"""Which cases to label: uncertain (near the threshold) and unlike each other, in one order for a seed."""

from __future__ import annotations

import numpy as np
import pytest

from courtroom.evaluate.picking import pick, uncertainty


def pool() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """40 cases: 10 copies of one case at the threshold (the same inputs), 10 other uncertain cases spread out, and
    20 cases the ruling is sure of (P 0.02 or 0.98)."""
    rng = np.random.default_rng(1)
    kinds = ["copy"] * 10 + ["uncertain"] * 10 + ["certain"] * 20
    p = np.concatenate([np.full(10, 0.5), 0.5 + rng.uniform(-0.12, 0.12, 10), np.tile([0.02, 0.98], 10)])
    X = np.concatenate([np.tile([[0.3, -0.2, 0.1]], (10, 1)), rng.normal(scale=2.0, size=(30, 3))])
    return p, X, kinds


def test_it_picks_uncertain_cases_unlike_each_other_never_the_certain_or_copies() -> None:
    p, X, kinds = pool()
    picked = pick(p, 0.5, X, 8)
    assert len(picked) == len(set(picked)) == 8
    chosen = [kinds[i] for i in picked]
    assert "certain" not in chosen  # the most certain cases teach least
    assert chosen.count("copy") == 1  # one of the copies, not ten: a copy of a picked case teaches nothing new
    assert chosen[0] == "copy"  # the most uncertain comes first
    # the most uncertain first, whatever their likeness, would have taken the copies: the diversity term did this
    assert [kinds[i] for i in pick(p, 0.5, X, 8, diversity=0.0)].count("copy") == 8
    # the pool: however unlike the others, a case the ruling is sure of is not picked while uncertain ones remain
    assert "certain" not in [kinds[i] for i in pick(p, 0.5, X, 6, diversity=0.9)]


def test_the_order_is_one_for_a_seed_and_ties_follow_the_seed() -> None:
    p, X, _ = pool()
    assert pick(p, 0.5, X, 10, seed=3) == pick(p, 0.5, X, 10, seed=3)
    first = {pick(p, 0.5, X, 1, seed=s, pool=20)[0] for s in range(10)}
    assert first <= set(range(10)) and len(first) > 1  # the copies tie: the seed decides which comes first


def test_uncertainty_is_relative_to_the_threshold_and_each_cases_own() -> None:
    assert uncertainty(np.array([0.7, 0.0, 1.0, 0.35]), 0.7) == pytest.approx([1.0, 0.0, 1 - 0.3 / 0.7, 0.5])
    # a case's own threshold (its family's): P 0.6 is uncertain at 0.6, sure at 0.1
    assert uncertainty(np.array([0.6, 0.6]), np.array([0.6, 0.1])) == pytest.approx([1.0, 1 - 0.5 / 0.9])
    assert pick(np.array([0.6, 0.6]), np.array([0.1, 0.6]), np.array([[0.0], [5.0]]), 1) == [1]


def test_fewer_cases_than_asked_are_all_picked_and_no_inputs_still_pick() -> None:
    p = np.array([0.1, 0.5, 0.9])
    assert sorted(pick(p, 0.5, np.zeros((3, 0)), 10)) == [0, 1, 2]
    assert pick(p, 0.5, np.zeros((3, 0)), 1) == [1]
    assert pick(np.array([]), 0.5, np.zeros((0, 2)), 5) == []
