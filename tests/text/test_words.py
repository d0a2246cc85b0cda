"""Lexical evidence: content words, matching by stem and number, the share a context never uses."""

from __future__ import annotations

import pytest

from courtroom.text.words import Vocabulary, content_words, word_key


def test_content_words_leave_out_function_words_and_keep_spans() -> None:
    text = "It was automated in 1962 by the Harbour Board."
    words = content_words(text)
    assert [w.text for w in words] == ["automated", "1962", "Harbour", "Board"]
    assert all(text[w.start:w.end] == w.text for w in words)


@pytest.mark.parametrize(("a", "b"), [("acquired", "acquires"), ("Companies", "company"), ("1,200", "1200"),
                                      ("Mary's", "mary")])
def test_words_match_by_stem_and_numbers_without_separators(a: str, b: str) -> None:
    assert word_key(a) == word_key(b)


def test_numbers_keep_their_decimals() -> None:
    assert word_key("2.5") != word_key("25") and word_key("2.5") == "2.5"


def test_evidence_is_the_share_of_distinct_words_the_sources_never_use() -> None:
    vocabulary = Vocabulary(["The lighthouse was automated in 1962.", "When was it automated?"])
    evidence = vocabulary.evidence("The lighthouse was automated in 1926 by a keeper, a keeper of bees.")
    # distinct content words: lighthouse, automated, 1926, keeper, bees -> 3 unsupported of 5
    assert evidence.unsupported == pytest.approx(3 / 5)
    assert evidence.words == ("1926", "keeper", "bees")
    assert vocabulary.evidence("It was.") == (0.0, ())
