"""Rulings' trial weights are retired (#51): a ruling file that holds them still reads, without them (its clerk's
weights decide every case), and a run decided by a ruling with trial weights is refused by the registry."""

from __future__ import annotations

import pytest
import yaml

from courtroom.courts import courts_dir
from courtroom.courts.migrations import LAST_BEFORE_TRIAL_WEIGHTS
from courtroom.engine.registry import judge_from_config, upgrade_config
from courtroom.errors import CourtError
from courtroom.witness.ruling import FittedRuling

TRIAL_WEIGHTS = {"linear": {"features": ["trial.bench_max"], "mean": [0.0], "scale": [1.0], "weights": [2.0],
                            "intercept": 0.0}, "threshold": 0.5}


def with_trial_weights() -> dict:
    data = yaml.safe_load((courts_dir() / "rulings" / "default.smollm2-135m.yaml").read_text())
    data["families"]["any"]["trial"] = TRIAL_WEIGHTS
    return data


def test_a_ruling_file_with_trial_weights_reads_without_them() -> None:
    ruling = FittedRuling.model_validate(with_trial_weights())
    assert "trial" not in ruling.model_dump()["families"]["any"]
    assert ruling.families["any"].linear.weights  # the clerk's weights kept


def test_a_run_decided_by_a_ruling_with_trial_weights_is_refused_naming_the_last_version_that_replays_it() -> None:
    config = {"judge": "courtroom", "prompt_format": 2, "model": "smollm2-135m",
              "court": {**yaml.safe_load((courts_dir() / "full.yaml").read_text()), "sentences": "structured"}}
    config["court"]["witnesses"] = {"heard": ["grounding"], "rulings": {"smollm2-135m": with_trial_weights()}}
    upgraded, applied = upgrade_config(config)
    assert upgraded["retired"] == [
        "a ruling's trial weights (`families.*.trial`: a tried case decided by the trial's testimony)"]
    with pytest.raises(CourtError, match=LAST_BEFORE_TRIAL_WEIGHTS.replace("(", r"\(").replace(")", r"\)")):
        judge_from_config(upgraded, source="RUN/manifest.json")
