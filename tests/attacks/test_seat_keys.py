"""Attack (#50): two roles seated on one served model (`model@url`, one door) with different `api_key_env`: the door
is built once, so the second role's key was silently ignored and its calls went out with the first's. One model at
one URL has one key: the court file is refused, naming both roles and both variables. Fails on 0abab8c."""

from __future__ import annotations

import pytest

from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door.spec import BackendSpec
from courtroom.errors import CourtError

URL = "http://127.0.0.1:9/v1"


def load(judge: dict, prosecutor: dict) -> Court:
    return load_court("full", BackendSpec(model="debaters"),
                      overrides={"trial.models.judge": judge, "trial.models.prosecutor": prosecutor})


def test_one_served_model_seated_with_two_keys_is_refused_naming_both_roles_and_variables() -> None:
    with pytest.raises(CourtError, match=r"trial\.models\.prosecutor: .*'x' at http://127\.0\.0\.1:9/v1.*"
                                         r"PROSECUTOR_KEY.*role 'prosecutor'.*JUDGE_KEY.*role 'judge'"):
        load({"model": "x", "url": URL, "api_key_env": "JUDGE_KEY"},
             {"model": "x", "url": URL, "api_key_env": "PROSECUTOR_KEY"})
    with pytest.raises(CourtError, match=r"PROSECUTOR_KEY.*no variable \(--api-key-env's at --model-url's host\)"):
        load({"model": "x", "url": URL}, {"model": "x", "url": URL, "api_key_env": "PROSECUTOR_KEY"})


def test_one_key_for_one_served_model_or_two_urls_each_with_its_own_are_kept() -> None:
    same = load({"model": "x", "url": URL, "api_key_env": "K"}, {"model": "x", "url": URL, "api_key_env": "K"})
    assert same.seat_keys() == {"judge": [f"x@{URL}"], "prosecutor": [f"x@{URL}"]}
    load({"model": "x", "url": URL, "api_key_env": "A"}, {"model": "x", "url": "http://127.0.0.1:10/v1",
                                                           "api_key_env": "B"})
