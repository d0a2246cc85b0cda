"""The witnesses that read the model's passes (lookback, hidden, verdict), and the text ones without a model
(overlap), and the task family a ruling picks its weights by."""

from __future__ import annotations

import math

import pytest

from courtroom.case import Case
from courtroom.witness import hidden, lookback, overlap, verdict
from courtroom.witness.family import task_family
from tests.helpers.witness import reading


def test_lookback_reports_the_mean_share_per_sentence_and_points_at_the_tokens_below_the_answers_mean() -> None:
    answer = " It rose. It fell."
    r = reading(answer, ["x"], sentences=["It rose.", "It fell."], token_spans=((0, 2), (2, 8), (8, 11), (11, 17)),
                lookback=((0.4, 0.6), (0.2, 0.4), (0.3, 0.5)), token_lookback=(0.5, 0.1, 0.6, 0.2))
    t = lookback.testify(r)
    assert t.values == {"mean": pytest.approx(0.4)}  # the whole answer's (last) pattern
    assert t.sentences == [{"mean": pytest.approx(0.5)}, {"mean": pytest.approx(0.3)}]
    # the three lowest tokens below the mean 0.4: " rose." (0.1) and " fell." (0.2); "It" (0.5) is above it
    assert [answer[p.start:p.end] for p in t.points] == [" rose.", " fell."]
    assert [p.weight for p in t.points] == [pytest.approx(0.3), pytest.approx(0.2)]


def test_hidden_testifies_only_that_it_was_heard() -> None:
    t = hidden.testify(reading("It rose. It fell.", ["x"], sentences=["It rose.", "It fell."],
                               hidden=((0.1,), (0.2,), (0.15,))))
    assert t.heard and t.values == {} and t.sentences == [{}, {}]


@pytest.mark.parametrize(("answer", "says_yes", "agrees"), [
    ("Yes, it is.", 0.8, math.log(4)), ("No, it is not.", 0.8, -math.log(4)), ("No.", 0.2, math.log(4)),
    ("It is.", 0.9, 0.0),  # says neither
    ("Yes.", None, 0.0),    # the model was not asked
    ("Yes.", 1.0, math.log((1 - 1e-6) / 1e-6)),  # clipped, not infinite
])
def test_verdict_is_the_models_agreement_with_the_answers_yes_or_no(answer: str, says_yes: float | None,
                                                                    agrees: float) -> None:
    t = verdict.testify(reading(answer, ["x"], question="Is it open?", says_yes=says_yes))
    assert t.values["agrees"] == pytest.approx(agrees, abs=1e-5)
    assert t.sentences == [{"agrees": t.values["agrees"]}]
    assert bool(t.points) == (agrees < 0)
    assert verdict.testify(reading(answer, ["x"], question="What is it?", says_yes=says_yes)).values["agrees"] == 0.0


def test_verdict_points_at_the_answers_first_word_when_the_model_disagrees() -> None:
    answer = "  No, it is closed."
    [point] = verdict.testify(reading(answer, ["x"], question="Is it open?", says_yes=0.9)).points
    assert answer[point.start:point.end].startswith("No") and "P(yes) = 0.90" in point.note


def test_overlap_is_the_share_of_content_words_the_sources_never_use() -> None:
    answer = "The bakery opens early. It sells croissants."
    t = overlap.testify(reading(answer, ["The bakery opens at seven."], question="When does it open?",
                                sentences=["The bakery opens early.", "It sells croissants."]))
    # content words: bakery, opens, early | sells, croissants; unused: early, sells, croissants
    assert t.sentences == [{"unsupported": pytest.approx(1 / 3, abs=1e-6)}, {"unsupported": 1.0}]
    assert t.values == {"unsupported": pytest.approx(3 / 5, abs=1e-6)}
    assert [answer[p.start:p.end] for p in t.points] == ["early", "sells", "croissants"]


@pytest.mark.parametrize(("question", "context", "metadata", "family"), [
    ("What time does it open?", ["It opens at 8."], {}, "qa"),
    ("Summarize the following news article.", ["Long text."], {}, "summary"),
    ("Please summarise this.", ["Long text."], {}, "summary"),
    ("Write an overview of this business.", ['{"name": "Cafe", "city": "Leeds"}'], {}, "data2text"),
    ("Describe the record.", ["name: A\ncity: B\nstars: 4\nopen: yes\nprice: low\n"], {}, "data2text"),
    ("Describe the painting.", ["It is a painting of a boat at sea."], {}, "qa"),  # prose to describe: not data
    ("What time does it open?", ["x"], {"task": "Summarization"}, "summary"),  # the dataset's own word
    ("Summarize it.", ["x"], {"task": "QA"}, "qa"),
    ("Summarize it.", ["x"], {"task": "something else"}, "summary"),
    ("[Human]: Who directed it? [Assistant]: Andrew Niccol. [Human]: What else did he write?", ["x"], {}, "dialogue"),
    ("User: hi\nAssistant: hello\nUser: What time does it open?", ["It opens at 8."], {}, "dialogue"),
    ("What did the user ask: where is it?", ["x"], {}, "qa"),  # one speaker's name is no dialogue
    ("What time does it open?", ["x"], {"task": "Dialogue"}, "dialogue"),
])
def test_the_task_family(question: str, context: list[str], metadata: dict, family: str) -> None:
    assert task_family(Case(id="c", question=question, context=context, answer="a", metadata=metadata)) == family
