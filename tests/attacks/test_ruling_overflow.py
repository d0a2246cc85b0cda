"""Attack (#50): a ruling of huge finite numbers (means and weights of 1e308) passed validation, and then every case
ended in a bare `OverflowError` from `math.fsum` (its weighing, a probe's score), through `courtroom run`,
`calibrate --prior` and `label --ruling` alike. Such a ruling is refused when its file is read, naming the file and
the field; and a weighing that leaves the floats is a `ConfigError` naming the ruling, never a bare OverflowError.
Each test fails on 0abab8c."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from courtroom.calibrate.prior_runs import read_prior
from courtroom.case import Testimony
from courtroom.courts import load_court
from courtroom.errors import ConfigError, CourtError
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, Probe, SpanModel
from courtroom.witness.spans import FEATURES, model_scores
from tests.helpers.rulings import court_with, shipped_ruling


def _huge() -> dict:
    ruling = shipped_ruling()
    linear = ruling["families"]["any"]["linear"]
    linear["mean"] = [1e308] * len(linear["mean"])
    linear["weights"] = [1e308] * len(linear["weights"])
    return ruling


def test_a_ruling_whose_log_odds_overflow_is_refused_when_the_court_reads_it(tmp_path: Path) -> None:
    with pytest.raises(CourtError, match=r"ruling\.yaml:\d+: field families\.any\.linear: .*overflow"):
        load_court(court_with(tmp_path, _huge()), model="smollm2-135m")


def test_a_prior_whose_log_odds_overflow_is_refused_when_read(tmp_path: Path) -> None:
    path = tmp_path / "prior.yaml"
    path.write_text(yaml.safe_dump(_huge()))
    with pytest.raises(ConfigError, match=r"(?s)--prior .*prior\.yaml:\d+: field families\.any\.linear: .*overflow"):
        read_prior(path)


def test_large_weights_only_a_million_scales_can_reach_are_refused_and_ordinary_ones_kept() -> None:
    with pytest.raises(ValueError, match="overflow"):
        Linear(features=["x"], mean=[0.0], scale=[1.0], weights=[1e305], intercept=0.0)
    with pytest.raises(ValueError, match="overflow"):  # weight over scale beyond a float
        Linear(features=["x"], mean=[0.0], scale=[1e-300], weights=[1e10], intercept=0.0)
    assert Linear(features=["x"], mean=[1e10], scale=[1e-3], weights=[50.0], intercept=-3.0).weights == [50.0]


def _ruling_of(second: str = "overlap.unsupported", **extra: object) -> FittedRuling:
    linear = Linear(features=["grounding.mean", second], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, 1.0],
                    intercept=0.0)
    return FittedRuling(model="smollm2-135m", court="default", witnesses={"grounding": 1, "overlap": 1},
                        families={"any": FamilyRuling(linear=linear)}, **extra)


def test_testimony_whose_weighing_overflows_is_a_config_error_naming_the_ruling() -> None:
    testimony = [Testimony(witness="grounding", version=1, values={"mean": 1e308}),
                 Testimony(witness="overlap", version=1, values={"unsupported": 1e308})]  # each part finite, not the sum
    with pytest.raises(ConfigError, match=r"the ruling default/smollm2-135m cannot weigh this testimony"):
        _ruling_of().weigh(testimony, {}, "qa")
    with pytest.raises(ConfigError, match=r"default/smollm2-135m cannot weigh"):  # as `label --ruling` weighs
        _ruling_of().weigh_values({"grounding.mean": 1e308, "overlap.unsupported": 1e308}, "qa")


def test_a_probe_score_that_overflows_is_a_config_error_naming_the_ruling() -> None:
    probe = Probe(source="hidden", linear=Linear(features=[], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, 1.0],
                                                 intercept=0.0))
    ruling = _ruling_of("hidden.probe", probes={"hidden": probe})
    testimony = [Testimony(witness="grounding", version=1, values={"mean": 0.1})]
    with pytest.raises(ConfigError, match=r"default/smollm2-135m cannot weigh.*hidden\.probe"):
        ruling.weigh(testimony, {"hidden": [1e308, 1e308]}, "qa")


def test_a_word_score_that_overflows_is_a_config_error() -> None:
    width = len(FEATURES)
    model = SpanModel(linear=Linear(features=list(FEATURES), mean=[0.0] * width, scale=[1.0] * width,
                                    weights=[1.0] * width, intercept=0.0))
    assert 0 < model_scores(model, [[0.1] * width])[0] < 1
    with pytest.raises(ConfigError, match="span model cannot weigh"):
        model_scores(model, [[1e308] * width])
