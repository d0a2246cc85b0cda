"""A negation cue however Unicode spells it (#50, defect 2: "wasn’t" with a typographic apostrophe was no cue, so the
polarity witness read 0 where "wasn't" reads 1, silently)."""

from __future__ import annotations

import pytest

from courtroom.text.negation import negated_keys
from courtroom.witness.polarity import check_polarity, is_yes_no_question

SPELLINGS = ["It wasn’t cancelled.",   # U+2019, as word processors write it
             "It wasnʼt cancelled.",   # U+02BC, the modifier letter apostrophe
             "It wasn＇t cancelled.",  # U+FF07, fullwidth
             "It wasn‘t cancelled.",   # U+2018, the wrong quote
             "It wasn`t cancelled.", "It wasn´t cancelled.",
             "It was ｎｏｔ cancelled."]  # fullwidth letters, "not" under NFKC


@pytest.mark.parametrize("sentence", SPELLINGS)
def test_a_cue_spelled_with_other_characters_negates_as_its_plain_spelling(sentence: str) -> None:
    assert negated_keys("It wasn't cancelled.") == {"cancel"}
    assert "cancel" in negated_keys(sentence)


def test_the_fullwidth_colon_ends_a_scope_as_the_colon_does() -> None:
    assert negated_keys("It was not cancelled： it was delayed.") == {"cancel"}


@pytest.mark.parametrize("sentence", SPELLINGS[:6])
def test_the_polarity_witness_flags_a_dropped_typographic_negation(sentence: str) -> None:
    [check] = check_polarity([(0, len(sentence))], sentence, ["The trial was cancelled."])
    assert check.flipped


@pytest.mark.parametrize("question", ["Isnʼt it open?", "Isn＇t it open?", "Ｉｓ it open?", "Wonʼt it rain?"])
def test_a_question_opening_with_a_typographic_negative_auxiliary_asks_yes_or_no(question: str) -> None:
    assert is_yes_no_question(question)
