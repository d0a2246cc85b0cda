"""The figures witness: every number of the answer looked up in the context, stated, computed or absent."""

from __future__ import annotations

import pytest

from courtroom.witness import figures
from courtroom.witness.figures import STATUSES, check_figures
from tests.helpers.witness import reading

Q = "What was the revenue?"


def status(answer: str, context: str, question: str = Q) -> list[tuple[str, str]]:
    return [(c.text, c.status) for c in check_figures(answer, [context], question)]


@pytest.mark.parametrize(("answer", "context"), [
    ("Revenue was $1,234,567.", "Revenue reached 1234567 dollars."),          # thousands separators, currency
    ("Revenue was 1234567 dollars.", "Revenue reached $1,234,567."),
    ("Revenue was $1.2 billion.", "Revenue reached 1,200 million."),           # scale words
    ("Revenue was 1,200 million.", "Revenue reached $1.2 billion."),
    ("Revenue was 2.5m.", "Revenue reached 2,500 thousand."),                 # a scale suffix
    ("Revenue was 3,144 million.", "Revenue reached $3144000.00 (in thousands)."),  # units a thousand apart
    ("The rate was 3.5%.", "The rate reached 0.035."),                        # a percentage against a fraction
    ("The rate was 0.035.", "The rate reached 3.5%."),
    ("The margin was 21.1%.", "The margin reached 21.08 percent."),           # rounded at the answer's precision
    ("Revenue was $1.2 billion.", "Revenue reached 1,183 million."),           # "1.2 billion" is 1.15 to 1.25 billion
    ("Revenue was 2.5k.", "Revenue reached 2,460."),
])
def test_a_figure_the_context_states_in_another_form_is_stated(answer: str, context: str) -> None:
    [(_, found)] = status(answer, context)
    assert found == "stated"


@pytest.mark.parametrize(("answer", "context"), [
    ("The margin was 21.1%.", "The margin reached 21.16 percent."),           # rounds to 21.2
    ("Revenue was $1.2 billion.", "Revenue reached 1,260 million."),           # rounds to 1.3 billion
    ("Revenue was 1,183 million.", "Revenue reached $1.2 billion."),           # more precise than the context
    ("Revenue was $1,234,567.", "Revenue reached 1,244,567 dollars."),
    ("The rate was 3.5%.", "The rate reached 0.045."),
])
def test_a_figure_off_at_its_own_precision_is_absent(answer: str, context: str) -> None:
    [(_, found)] = status(answer, context)
    assert found == "absent"


def test_computed_figures_are_one_step_of_arithmetic_from_the_context() -> None:
    context = "Sales were 480 in the first year and 612 in the second year."
    question = "How did sales change from the first year to the second year?"
    assert status("Sales rose by 132.", context, question) == [("132", "computed")]              # a difference
    assert status("Sales grew 27.5%.", context, question) == [("27.5%", "computed")]            # a change
    assert status("The ratio of the years' sales was 1.275.", context, question) == [("1.275", "computed")]  # a ratio
    [check] = check_figures("Sales grew 27.5%.", [context], question)
    assert "612" in check.how and "480" in check.how
    assert status("Sales grew 31.5%.", context, question) == [("31.5%", "absent")]  # no step gives it


def test_a_ratio_to_the_average_of_two_numbers_is_computed_when_the_question_asks_for_an_average() -> None:
    context = "Net income was 13. Total assets were 190 at the start of the year and 210 at its end."
    figure = "Return on assets was 6.5%."  # 13 / mean(190, 210)
    asked = "What was the return of net income on average total assets?"
    assert status(figure, context, asked) == [("6.5%", "computed")]
    [check] = check_figures(figure, [context], asked)
    assert check.how.startswith("= 13 / mean(") and "190" in check.how and "210" in check.how
    # without "average" in the question, no mean is tried (13 / 190 and 13 / 210 are 6.8% and 6.2%)
    assert status(figure, context, asked.replace("average ", "")) == [("6.5%", "absent")]


def test_only_numbers_near_the_question_words_take_part_in_a_computation() -> None:
    context = ("Sales were 480 in the first year and 612 in the second year. " + "Unrelated filler. " * 3 +
               "Headcount numbers: " + ", ".join(str(1000 + 7 * i) for i in range(20)) + ".")
    assert status("Sales rose by 132.", context, "How did sales change?") == [("132", "computed")]
    # 1140 - 1007 = 133: reachable from the headcount numbers, but they follow no word of the question
    assert status("Sales rose by 133.", context, "How did sales change?") == [("133", "absent")]


def test_a_figure_the_question_gives_is_given_and_years_and_small_counts_are_left_out() -> None:
    checks = check_figures("In 2019 the 3 plants made 4,500 units, up from 1,250.", ["The plants made units."],
                           "Did the plants make more than 1,250 units?")
    assert [(c.text, c.status) for c in checks] == [("4,500", "absent"), ("1,250", "given")]
    # the question gives a figure in any form the context could, at the answer's precision
    assert status("The rate was 0.035.", "Nothing here.", "Was the rate 3.5%?") == [("0.035", "given")]
    assert status("The rate was 21.1%.", "Nothing here.", "Was the rate 21.08%?") == [("21.1%", "given")]
    assert status("The rate was 22.1%.", "Nothing here.", "Was the rate 21.08%?") == [("22.1%", "absent")]
    # a small count written as a percentage is a figure
    assert [(c.text, c.status) for c in check_figures("It rose 7%.", ["It rose."], "How much?")] == [("7%", "absent")]


def test_the_testimony_counts_per_sentence_and_points_at_the_right_characters() -> None:
    context = ["Revenue was 480 million in 2020 and 612 million in 2021."]
    answer = "   Revenue was 480 million in 2020. It reached 999 million in 2021, up 132 million.  "
    r = reading(answer, context, question="How did revenue change between 2020 and 2021?",
                sentences=["Revenue was 480 million in 2020.", "It reached 999 million in 2021, up 132 million."])
    assert r.offset == 3
    t = figures.testify(r)
    assert t.witness == "figures" and set(t.values) == set(STATUSES)
    assert t.values == {"absent": 1.0, "computed": 1.0, "stated": 1.0, "given": 0.0}
    assert t.sentences == [{"absent": 0.0, "computed": 0.0, "stated": 1.0, "given": 0.0},
                           {"absent": 1.0, "computed": 1.0, "stated": 0.0, "given": 0.0}]
    assert [(answer[p.start:p.end], p.weight) for p in t.points] == [("999 million", 1.0), ("132 million", 0.5)]
    assert "no such figure" in t.points[0].note and t.points[1].note.startswith("computed: ")


def test_an_answer_without_figures_testifies_zeros_for_each_sentence() -> None:
    t = figures.testify(reading("It was fine. Nobody came.", ["It was fine."], sentences=["It was fine.", "Nobody came."]))
    assert t.values == dict.fromkeys(STATUSES, 0.0) and len(t.sentences) == 2 and t.points == []
