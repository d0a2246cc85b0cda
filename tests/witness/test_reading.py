"""A reading: the answer cut into sentences (spans in the stripped answer), and pointers placed in the case's answer."""

from __future__ import annotations

from courtroom.case import Case
from courtroom.text.sentences import sentence_spans
from courtroom.witness.reading import Reading


def case(answer: str) -> Case:
    return Case(id="c", question="q", context=["ctx"], answer=answer)


def test_sentences_are_found_in_order_even_when_repeated_and_the_offset_is_the_stripped_blanks() -> None:
    c = case("   Yes. Yes. It is.\n")
    r = Reading.of(c, sentence_spans(c.answer.strip()), ["ctx"])
    assert r.answer == "Yes. Yes. It is." and r.offset == 3
    assert r.sentences == ((0, 4), (5, 9), (10, 16))
    assert r.context_sentences == ("ctx",)


def test_a_pointer_stands_in_the_cases_own_answer() -> None:
    c = case("\n\t  Paris is big.")
    r = Reading.of(c, [(0, 13)], ["ctx"])
    p = r.pointer(0, 5, "a name", weight=0.123456, context_sentence=2)
    assert c.answer[p.start:p.end] == "Paris"
    assert p.weight == 0.1235 and p.context_sentence == 2 and p.note == "a name"


def test_sentence_of_a_character_is_the_last_sentence_starting_at_or_before_it() -> None:
    r = Reading.of(case("One. Two. Three."), [(0, 4), (5, 9), (10, 16)], [])
    assert [r.sentence_of(i) for i in (0, 3, 4, 5, 9, 10, 15)] == [0, 0, 0, 1, 1, 2, 2]


def test_tokens_of_a_span_are_the_tokens_overlapping_it() -> None:
    r = Reading.of(case("One. Two."), [(0, 4), (5, 9)], [], token_spans=((0, 3), (3, 4), (4, 8), (8, 9)))
    assert [r.tokens(a, b) for a, b in r.sentences] == [[0, 1], [2, 3]]
    assert Reading.of(case("One."), [(0, 4)], []).tokens(0, 4) == []  # no passes, no tokens
