"""Rulings' regions are retired (#53): a ruling file that holds one still reads, without it (its weights decide every
case), and a run decided by a ruling with a region is refused by the registry of retired settings."""

from __future__ import annotations

import pytest
import yaml

from courtroom.courts import courts_dir
from courtroom.courts.migrations import LAST_BEFORE_REGIONS
from courtroom.engine.registry import judge_from_config, upgrade_config
from courtroom.errors import CourtError
from courtroom.witness.ruling import FittedRuling

REGION = {"mean": [0.0], "covariance": [[1.0]], "distances": [0.5, 1.0, 2.0], "limit": 2.0}


def with_region() -> dict:
    data = yaml.safe_load((courts_dir() / "rulings" / "default.smollm2-135m.yaml").read_text())
    data["families"]["any"]["region"] = REGION
    return data


def test_a_ruling_file_with_a_region_reads_without_it() -> None:
    ruling = FittedRuling.model_validate(with_region())
    assert "region" not in ruling.model_dump()["families"]["any"]
    assert ruling.families["any"].linear.weights  # its weights kept


def test_a_run_decided_by_a_ruling_with_a_region_is_refused_naming_the_last_version_that_replays_it() -> None:
    config = {"judge": "courtroom", "prompt_format": 2, "model": "smollm2-135m",
              "court": {**yaml.safe_load((courts_dir() / "default.yaml").read_text()), "sentences": "structured"}}
    config["court"]["witnesses"]["rulings"] = {"smollm2-135m": with_region()}
    upgraded, applied = upgrade_config(config)
    assert upgraded["retired"] == ["a ruling's region (`families.*.region`: the measure decided the cases beyond it)"]
    with pytest.raises(CourtError, match=LAST_BEFORE_REGIONS.replace("(", r"\(").replace(")", r"\)")):
        judge_from_config(upgraded, source="RUN/manifest.json")
