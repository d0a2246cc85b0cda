"""The registry: a court hears the witnesses whose needs the reading meets; the others are recorded not heard, with
why, never as zeros."""

from __future__ import annotations

import pytest

from courtroom.witness import ruling
from courtroom.witness.registry import READING_NEEDS, WITNESSES, GroundingSettings, hear
from tests.helpers.witness import reading

ALL = ["grounding", "lookback", "hidden", "figures", "names", "polarity", "overlap", "verdict"]
ANSWER = "Revenue was 512 million."


def scored(**more: object):
    return reading(ANSWER, ["Revenue was 480 million."], token_spans=((0, 7), (7, 11), (11, 24)),
                   full=(-1.0, -0.5, -2.0), bare=(-2.0, -0.5, -1.0), **more)


def test_every_witness_is_named_versioned_and_needs_only_what_a_reading_can_hold() -> None:
    assert sorted(WITNESSES) == sorted(ALL)
    for name, witness in WITNESSES.items():
        assert witness.name == name and witness.version >= 1 and witness.about
        assert witness.needs <= set(READING_NEEDS)


def test_without_the_models_passes_only_the_text_witnesses_are_heard_and_the_rest_say_why() -> None:
    r = reading(ANSWER, ["Revenue was 480 million."])
    testimony = hear(r, ALL, GroundingSettings())
    assert [t.witness for t in testimony] == ALL  # in the order named
    heard = {t.witness: t for t in testimony}
    assert {n for n, t in heard.items() if t.heard} == {"figures", "names", "polarity", "overlap"}
    for name in ("grounding", "lookback", "hidden", "verdict"):
        t = heard[name]
        assert not t.heard and t.values == {} and t.sentences == [] and t.points == []  # never zeros
        assert "logprobs" in t.why_not and t.version == WITNESSES[name].version
    assert heard["figures"].values["absent"] == 1.0
    # nothing of a witness not heard reaches a ruling's values
    values = ruling.testimony_values(testimony)
    assert not any(k.split(".")[0] in {"grounding", "lookback", "hidden", "verdict"} for k in values)
    assert "figures.absent" in values


def test_a_witness_the_backend_cannot_serve_is_recorded_with_the_courts_reason() -> None:
    why = "the model door reports no attention (a served model returns log-probabilities only)"
    r = scored(unheard={"attention": why, "hidden_states": "no hidden states here"})
    heard = {t.witness: t for t in hear(r, ALL, GroundingSettings())}
    assert heard["grounding"].heard and heard["verdict"].heard  # log-probabilities are there
    assert not heard["lookback"].heard and heard["lookback"].why_not == why
    assert not heard["hidden"].heard and heard["hidden"].why_not == "no hidden states here"


def test_a_witness_with_its_needs_met_testifies() -> None:
    r = scored(lookback=((0.5, 0.7), (0.5, 0.7)), token_lookback=(0.6, 0.2, 0.7), hidden=((0.1, 0.2), (0.1, 0.2)))
    heard = {t.witness: t for t in hear(r, ["lookback", "hidden"], GroundingSettings())}
    assert heard["lookback"].heard and heard["lookback"].values == {"mean": pytest.approx(0.6)}
    # the token whose share of attention fell furthest below the answer's mean is pointed at
    assert [ANSWER[p.start:p.end] for p in heard["lookback"].points] == [" was"]
    assert heard["hidden"].heard and heard["hidden"].sentences == [{}]


def test_the_grounding_settings_reach_the_grounding_witness() -> None:
    loose, tight = (hear(scored(), ["grounding"], GroundingSettings(clip=clip))[0] for clip in (None, 0.5))
    assert loose.values["mean"] == pytest.approx(0.0, abs=1e-6)            # gains 1, 0, -1
    assert tight.values["mean"] == pytest.approx(-0.5 / 3, abs=1e-6)      # capped at 0.5
    centered = [hear(scored(), ["grounding"], GroundingSettings(center=c))[0].values["share"] for c in (0.0, 1.0)]
    assert centered[0] < centered[1]
