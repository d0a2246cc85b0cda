"""A fitted ruling: its linear parts, its weighing of testimony (whole answer and sentences), families, probes."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from courtroom.case import Testimony
from courtroom.errors import ConfigError
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, Probe
from courtroom.witness.ruling import testimony_values as values_of


def linear(weights: dict[str, float], intercept: float = 0.0, mean: float = 0.0, scale: float = 1.0) -> Linear:
    return Linear(features=list(weights), mean=[mean] * len(weights), scale=[scale] * len(weights),
                  weights=list(weights.values()), intercept=intercept)


def ruling(families: dict[str, FamilyRuling] | None = None, probes: dict[str, Probe] | None = None) -> FittedRuling:
    return FittedRuling(model="smollm2-135m", court="default", witnesses={"figures": 1, "grounding": 1},
                        families=families or {"any": FamilyRuling(linear=linear({"figures.absent": 2.0,
                                                                                 "grounding.mean": -1.0}, -1.0))},
                        probes=probes or {})


TESTIMONY = [
    Testimony(witness="figures", version=1, values={"absent": 1.0},
              sentences=[{"absent": 0.0}, {"absent": 1.0}]),
    Testimony(witness="grounding", version=1, values={"mean": 0.5}, sentences=[{"mean": 1.0}, {"mean": 0.2}]),
    Testimony(witness="lookback", version=1, heard=False, why_not="no attention"),
]


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_linear_contributions_standardise_and_weigh_and_leave_missing_features_out() -> None:
    lin = Linear(features=["a", "b", "c"], mean=[1.0, 0.0, 5.0], scale=[2.0, 0.5, 1.0], weights=[3.0, -1.0, 7.0],
                 intercept=0.25)
    parts, missing = lin.contributions({"a": 5.0, "b": 1.0, "zzz": 99.0})
    assert parts == {"intercept": 0.25, "a": pytest.approx(3.0 * (5.0 - 1.0) / 2.0), "b": pytest.approx(-2.0)}
    assert missing == ["c"]


def test_linear_refuses_parts_of_different_lengths_and_non_positive_scales() -> None:
    with pytest.raises(ValidationError, match="differ in length"):
        Linear(features=["a", "b"], mean=[0.0], scale=[1.0], weights=[1.0], intercept=0.0)
    with pytest.raises(ValidationError, match="scale must be positive"):
        Linear(features=["a"], mean=[0.0], scale=[0.0], weights=[1.0], intercept=0.0)
    Linear(features=[], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, 2.0], intercept=0.0)  # a probe's


def test_testimony_values_name_each_value_by_witness_and_skip_witnesses_not_heard() -> None:
    assert values_of(TESTIMONY) == {"figures.absent": 1.0, "grounding.mean": 0.5}
    assert values_of(TESTIMONY, 0) == {"figures.absent": 0.0, "grounding.mean": 1.0}
    assert values_of(TESTIMONY, 5) == {}  # no such sentence


def test_the_ruling_weighs_the_whole_answer_and_each_sentence_by_their_own_values() -> None:
    r = ruling()
    whole = r.weigh(TESTIMONY, {}, "qa")
    z = -1.0 + 2.0 * 1.0 - 1.0 * 0.5
    assert whole.log_odds == pytest.approx(z) and whole.p_hallucinated == pytest.approx(sigmoid(z), abs=1e-6)
    assert whole.contributions == {"intercept": -1.0, "figures.absent": 2.0, "grounding.mean": -0.5}
    assert whole.family == "any" and whole.missing == [] and whole.threshold == 0.5
    assert whole.ruling == f"default/smollm2-135m/{r.fingerprint}"
    first, second = (r.weigh(TESTIMONY, {}, "qa", sentence=i) for i in (0, 1))
    assert first.log_odds == pytest.approx(-1.0 + 0.0 - 1.0) and second.log_odds == pytest.approx(-1.0 + 2.0 - 0.2)
    assert first.p_hallucinated < 0.5 < second.p_hallucinated


def test_a_value_not_heard_is_reported_missing_and_weighs_nothing() -> None:
    r = ruling()
    w = r.weigh(TESTIMONY[:1], {}, "qa")
    assert w.missing == ["grounding.mean"] and "grounding.mean" not in w.contributions
    assert w.log_odds == pytest.approx(-1.0 + 2.0)


def test_a_family_without_weights_of_its_own_falls_back_to_any() -> None:
    summary = FamilyRuling(linear=linear({"figures.absent": -5.0}), threshold=0.7, cases=80)
    anyone = FamilyRuling(linear=linear({"figures.absent": 5.0}), threshold=0.4)
    r = ruling({"any": anyone, "summary": summary})
    assert r.family_for("summary") == ("summary", summary)
    assert r.family_for("qa") == ("any", anyone)
    w = r.weigh(TESTIMONY, {}, "summary")
    assert w.family == "summary" and w.threshold == 0.7 and w.log_odds == pytest.approx(-5.0)
    assert r.weigh(TESTIMONY, {}, "data2text").family == "any"
    only = ruling({"qa": anyone})  # no `any`: the first there is
    assert only.family_for("summary") == ("qa", anyone)
    with pytest.raises(ValidationError, match="at least one task family"):
        FittedRuling(model="m", court="c", witnesses={}, families={})


def test_probes_score_their_vectors_and_refuse_a_vector_of_another_width() -> None:
    probe = Probe(source="hidden", linear=Linear(features=[], mean=[0.0, 1.0], scale=[1.0, 2.0], weights=[1.0, -2.0],
                                                 intercept=0.5))
    assert probe.score([3.0, 5.0]) == pytest.approx(0.5 + 3.0 - 2.0 * (5.0 - 1.0) / 2.0)
    r = ruling({"any": FamilyRuling(linear=linear({"figures.absent": 1.0, "hidden.probe": 1.0}))},
               probes={"hidden": probe})
    w = r.weigh(TESTIMONY, {"hidden": [3.0, 5.0]}, "qa")
    assert w.contributions["hidden.probe"] == pytest.approx(-0.5) and w.missing == []
    assert r.weigh(TESTIMONY, {}, "qa").missing == ["hidden.probe"]  # not observed: missing, not zero
    with pytest.raises(ConfigError, match="weighs 2 values, the model's pass gave 3: the ruling was fitted for another"):
        r.weigh(TESTIMONY, {"hidden": [1.0, 2.0, 3.0]}, "qa")


def test_the_fingerprint_follows_the_weights_only() -> None:
    a = ruling()
    assert a.fingerprint == a.model_copy(update={"fitted": {"date": "2030-01-01"}}).fingerprint
    other = ruling({"any": FamilyRuling(linear=linear({"figures.absent": 2.5, "grounding.mean": -1.0}, -1.0))})
    assert other.fingerprint != a.fingerprint


def test_a_ruling_file_round_trips_through_yaml() -> None:
    import yaml

    r = ruling(probes={"lookback": Probe(source="lookback", linear=Linear(features=[], mean=[0.1], scale=[1.0],
                                                                            weights=[2.0], intercept=0.0))})
    again = FittedRuling.model_validate(yaml.safe_load(yaml.safe_dump(r.model_dump(mode="json"))))
    assert again == r and again.fingerprint == r.fingerprint
