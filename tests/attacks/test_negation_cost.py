"""Negation by scope costs what the text is long, not its square (#50, defect 1: one 13 KB context sentence and a
40-sentence answer cost 28-30 s of CPU in the polarity witness: the context sentence was read again for every answer
sentence, each cue sought its clause's end afresh, and every word was compared with every cue's scope). Counted, not
timed: `benchmarks/bench_negation.py` times it."""

from __future__ import annotations

import random
import re
import sys

import pytest

from courtroom.text import negation
from courtroom.text.negation import negated_keys, negated_spans
from courtroom.text.words import content_words
from courtroom.witness import polarity
from courtroom.witness.polarity import check_polarity
from tests.helpers.cases import SYMPTOMS, negated_list, negated_list_case
from tests.helpers.witness import reading


def test_each_context_sentence_is_read_for_negation_once_a_case_however_long_the_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    monkeypatch.setattr(negation, "negated_spans", lambda text: reads.append(text) or negated_spans(text))
    for sentences in (10, 100):
        reads.clear()
        case = negated_list_case(sentences, words=300)
        checks = check_polarity([m.span() for m in re.finditer(r"[^.]+\.", case.answer)], case.answer, case.context)
        assert sum(c.flipped for c in checks) == sentences  # each answer sentence is compared with it, and flipped
        times = reads.count(case.context[0])
        assert times == 1, f"{sentences} answer sentences: the context sentence read {times} times"


class ScanCounted:
    """A pattern that counts the characters its searches read (from where each starts to where its match ends)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.read = pattern, 0

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.search(text, pos)
        self.read += (found.end() if found else len(text)) - pos
        return found


def test_the_clause_ends_are_sought_over_the_sentence_once_however_many_cues_it_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counted = ScanCounted(negation._CLAUSE_END)
    monkeypatch.setattr(negation, "_CLAUSE_END", counted)
    text = negated_list(900)  # 900 cues in one clause: each sought the clause's end to the sentence's end
    assert len(negated_spans(text)) == 900
    assert counted.read <= len(text), f"{counted.read} characters read seeking clause ends in a {len(text)}-char text"


def clauses_of_five(words: int) -> str:
    """One sentence of `words` symptoms in clauses of five ("fever0, cough1, no fatigue2, rash3, nausea4;")."""
    return " ".join(f"{'no ' if i % 5 == 2 else ''}{SYMPTOMS[i % 10]}{i}{';' if i % 5 == 4 else ','}"
                    for i in range(words)) + " reported."


def calls_to_read(text: str) -> int:
    """Python and C function calls made reading the negated words of `text`."""
    count = 0

    def counted(frame: object, event: str, arg: object) -> None:
        nonlocal count
        count += event in ("call", "c_call")
    sys.setprofile(counted)
    try:
        negated_keys(text)
    finally:
        sys.setprofile(None)
    return count


def test_a_sentence_four_times_as_long_takes_about_four_times_the_work() -> None:
    short, long = calls_to_read(clauses_of_five(500)), calls_to_read(clauses_of_five(2000))
    assert long / short < 6, f"{short} calls for 500 words, {long} for 2,000: the work grows faster than the sentence"


def test_the_witness_on_a_long_context_sentence_testifies_as_the_scope_says() -> None:
    context = clauses_of_five(300)
    first, second = "The patient had fever0 and cough1.", "The patient had rash3 and nausea4."
    testimony = polarity.testify(reading(f"{first} {second}", [context], sentences=[first, second]))
    assert testimony.sentences == [{"answer": 0.0, "flipped": 0.0}, {"answer": 0.0, "flipped": 1.0}]


def naive_keys(text: str) -> set[str]:
    """The meaning read word by word against every scope (the code before #50): the reference."""
    spans, reached = negated_spans(text), {}
    for word in content_words(text):
        reached[word.key] = reached.get(word.key, True) and any(s <= word.start < e for s, e in spans)
    return {key for key, inside in reached.items() if inside}


def test_the_words_negated_are_the_same_as_read_word_by_word() -> None:
    pieces = ["not", "no", "never", "fails to", "didn't", "lacks", "fever", "cough", "the", "of", ",", ".", ";", "but",
              "while", " - ", "—", "rash", "improved", "mice", "grew", "unlikely", "without"]
    rng = random.Random(0)
    for _ in range(300):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        assert negated_keys(text) == naive_keys(text), text
