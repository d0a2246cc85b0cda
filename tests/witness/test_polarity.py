"""The polarity witness: yes/no answers, and negations that disagree with the closest context sentence."""

from __future__ import annotations

import pytest

from courtroom.text.negation import negated_keys
from courtroom.witness import polarity as witness
from courtroom.witness.polarity import answer_polarity, check_polarity, is_yes_no_question
from tests.helpers.witness import reading


@pytest.mark.parametrize(("question", "yes_no"), [
    ("Does the drug work?", True), ("  is it open on Sundays?", True), ("Did the trial succeed?", True),
    ("Can it fly?", True), ("Has the company grown?", True), ("Isn't aspirin an NSAID?", True),
    ("Doesn't it open at 8?", True), ("Can't it fly?", True), ("Won't it rain?", True), ("Aren’t they open?", True),
    ("What is the dose?", False), ("When did it open?", False), ("Why is it closed?", False), ("", False),
    ("Island hopping: which island?", False),  # opens with "Is..." but not the word
])
def test_a_question_that_opens_with_an_auxiliary_asks_yes_or_no(question: str, yes_no: bool) -> None:
    assert is_yes_no_question(question) is yes_no


@pytest.mark.parametrize(("answer", "polarity"), [
    ("Yes, it does.", 1), ("yes", 1), ('  "Yes" it does.', 1), ("No.", -1), ("No, it does not.", -1),
    ("Maybe.", 0), ("It does.", 0), ("Yesterday it did.", 0), ("Nobody knows.", 0),
])
def test_the_answer_to_a_yes_no_question_says_yes_or_no(answer: str, polarity: int) -> None:
    assert answer_polarity("Does the drug work?", answer) == polarity
    assert answer_polarity("How does the drug work?", answer) == 0  # not a yes/no question: no polarity


def test_negation_is_read_by_scope_over_the_words_compared() -> None:
    def negated(text: str, keys: set[str]) -> bool:  # some of the words `keys` name are negated in `text`
        return bool(negated_keys(text) & keys)

    assert negated("The drug did not work.", {"work"}) and negated("It didn't work.", {"work"})
    assert negated("It failed to improve.", {"improv"}) and negated("No patients died.", {"patient"})
    assert not negated("The drug worked.", {"work"})
    assert not negated("The drug did not work.", {"drug"})  # before the cue: outside its scope
    assert not negated("It did not fail to improve.", {"improv"})  # a cue right after a cue: the pair asserts
    assert negated("The patient had no fever and no cough.", {"fever", "cough"})  # parity read this as asserted
    assert not negated("It was automated in 1926, not 1920.", {"autom", "1926"})  # "not" reaches "1920" alone


CONTEXT = ["Patients were enrolled in 2019.", "The drug did not reduce mortality in the trial."]


@pytest.mark.parametrize(("sentence", "flipped"), [
    ("The drug reduced mortality in the trial.", True),           # the negation dropped
    ("The drug did not reduce mortality in the trial.", False),
    ("No, the drug did not reduce mortality in the trial.", False),  # its "no" answers the question
    ("Yes, the drug did not reduce mortality in the trial.", False),
    ("No, the drug reduced mortality in the trial.", True),
    ("Yes, the drug reduced mortality in the trial.", True),
    ("The weather was pleasant yesterday.", False),                 # no close context sentence
    ("The drug did not fail to reduce mortality in the trial.", True),  # two cues undo each other
])
def test_a_sentence_is_flipped_when_its_negation_disagrees_with_the_closest_context_sentence(sentence: str,
                                                                                              flipped: bool) -> None:
    [check] = check_polarity([(0, len(sentence))], sentence, CONTEXT)
    assert check.flipped is flipped
    if flipped:
        assert check.context_sentence == 1 and check.overlap >= 0.3


@pytest.mark.parametrize(("sentence", "context", "flipped"), [
    ("The patient had no fever and no cough.", "The patient had fever and cough.", True),  # two cues, parity missed it
    ("The patient had fever and cough.", "The patient had no fever and no cough.", True),
    ("The company was founded in 1920.", "The company was founded in 1926, not 1920.", True),
    ("The company was founded in 1926.", "The company was founded in 1926, not 1920.", False),  # parity flagged it
    ("The study did not find a link.", "The study found no link between them.", False),  # both negate the link
    ("The trial reduced hospital stays.", "The trial found no effect on deaths, but reduced hospital stays.", False),
])
def test_the_scope_of_each_negation_decides_not_the_number_of_cues(sentence: str, context: str, flipped: bool) -> None:
    [check] = check_polarity([(0, len(sentence))], sentence, [context])
    assert check.flipped is flipped


def test_the_closest_context_sentence_is_the_one_sharing_most_words() -> None:
    context = ["The drug did not reduce mortality.", "The drug reduced hospital stays and mortality in older patients."]
    [check] = check_polarity([(0, 52)], "The drug reduced hospital stays in older patients.", context)
    assert check.context_sentence == 1 and not check.flipped
    [check] = check_polarity([(0, 25)], "The drug cured everything", ["Unrelated words here."])
    assert check.context_sentence == -1 and check.overlap == 0.0 and not check.flipped


def test_the_testimony_reports_the_answer_and_points_at_flipped_sentences() -> None:
    answer = " Yes. The drug reduced mortality in the trial. Patients were enrolled in 2019."
    r = reading(answer, [" ".join(CONTEXT)], question="Did the drug reduce mortality?",
                sentences=["Yes.", "The drug reduced mortality in the trial.", "Patients were enrolled in 2019."],
                context_sentences=CONTEXT)
    t = witness.testify(r)
    assert t.values == {"answer": 1.0, "flipped": pytest.approx(1 / 3)}
    assert [s["flipped"] for s in t.sentences] == [0.0, 1.0, 0.0] and all(s["answer"] == 1.0 for s in t.sentences)
    [point] = t.points
    assert answer[point.start:point.end] == "The drug reduced mortality in the trial."
    assert point.context_sentence == 2 and "[2]" in point.note
