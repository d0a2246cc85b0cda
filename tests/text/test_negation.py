"""Negation: one meaning, by scope (`courtroom.text.negation`)."""

from __future__ import annotations

import pytest

from courtroom.text.negation import negated_keys, negated_spans


@pytest.mark.parametrize(("text", "negated"), [
    ("No fever, cough, or fatigue was reported.", {"fever", "cough", "fatigu", "report"}),  # a comma does not end it
    ("It was automated in 1926, not 1920.", {"1920"}),
    ("The trial found no effect, but it reduced stays.", {"effect"}),  # a contrast ends the clause
    ("The patient had no fever and no cough.", {"fever", "cough"}),  # two cues, both words negated
    ("It did not fail to improve.", set()),  # a cue right after a cue: the pair asserts
    ("It did not, sadly, fail to improve.", {"sad", "fail", "improv"}),  # punctuation between
    ("The drug works; it is not toxic.", {"toxic"}),
])
def test_a_cue_negates_the_words_after_it_to_the_end_of_its_clause(text: str, negated: set[str]) -> None:
    assert negated_keys(text) == negated


def test_a_word_said_both_ways_is_not_negated() -> None:
    assert negated_keys("Mice without the gene grew; mice with the gene grew faster.") == set()
    assert negated_spans("Nothing here.") == [(7, 12)]  # from after the cue to the sentence's end
