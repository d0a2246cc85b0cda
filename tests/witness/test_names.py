"""The names witness: the names of the answer, looked up in the sources."""

from __future__ import annotations

from courtroom.witness import names as witness
from courtroom.witness.names import check_names, names
from tests.helpers.witness import reading


def found(text: str) -> list[str]:
    return [text[a:b] for a, b in names(text)]


def test_runs_of_capitalised_words_are_names_and_joiners_may_join_them() -> None:
    assert found("The loan came from Bank of America in New York last year.") == ["Bank of America", "New York"]
    assert found("She met John Smith at the Museum of Modern Art.") == ["John Smith", "Museum of Modern Art"]
    # a joiner at the edge of a run is not part of the name
    assert found("We sold it to Acme of the world.") == ["Acme"]


def test_a_single_capitalised_word_is_a_name_mid_sentence_but_not_where_a_sentence_opens() -> None:
    assert found("According to Pfizer, the drug works.") == ["Pfizer"]
    assert found("Smith said it was fine.") == []          # sentence-initial: any first word is capitalised
    assert found("It rained. Smith said it was fine.") == []
    assert found('He wrote: "Nothing works." Then Mary left.') == ["Mary"]
    assert found("Smith and Jones said so.") == ["Smith and Jones"]  # two capitals: a name even at the start
    assert found("the answer is 42 and it is fine.") == []


def test_a_name_ends_with_its_sentence_but_not_at_an_abbreviation() -> None:
    assert found("It opens on Sundays. Zorba Pastries runs it.") == ["Sundays", "Zorba Pastries"]
    assert found("We flew to Paris. Then London.") == ["Paris", "London"]
    assert found("He met with Dr. Jane Doe.") == ["Dr. Jane Doe"]
    assert found("It is Acme Inc. in Boston.") == ["Acme Inc", "Boston"]


def test_a_possessive_is_the_name() -> None:
    [check] = check_names("The plan was Acme's idea.", ["acme proposed a plan"])
    assert check.present and check.text.startswith("Acme")
    [check] = check_names("The plan was Zenith's idea.", ["acme proposed a plan"])
    assert not check.present


def test_a_name_is_present_when_the_sources_contain_it_however_punctuated() -> None:
    for context in ("The drug was made by Pfizer.", "(Pfizer) made the drug", '"Pfizer": maker of the drug',
                    "PFIZER made it; nobody else"):
        [check] = check_names("The drug came from Pfizer today.", [context])
        assert check.present, context
    [check] = check_names("It came from Bank of America today.", ["It was lent by Bank of America."])
    assert check.present
    # every word of a multi-word name present, in another order ("Smith, John")
    [check] = check_names("The report by John Smith was late.", ["Author: Smith, John."])
    assert check.present
    # one word of the name is not there
    [check] = check_names("The report by Jane Smith was late.", ["Author: Smith, John."])
    assert not check.present


def test_a_name_the_question_gives_is_present_and_each_name_is_checked_once() -> None:
    checks = check_names("Pfizer said so, and then Pfizer said it again to Moderna.",
                         ["The company said so."] + ["Did Moderna agree?"])
    assert [(c.text, c.present) for c in checks] == [("Pfizer", False), ("Moderna", True)]


def test_the_testimony_counts_absent_names_per_sentence_and_points_at_them() -> None:
    answer = "  The trial was run by Pfizer. It was reviewed by the Food Safety Board last week.  "
    r = reading(answer, ["Pfizer ran the trial."], sentences=["The trial was run by Pfizer.",
                                                               "It was reviewed by the Food Safety Board last week."])
    t = witness.testify(r)
    assert t.values == {"absent": 1.0, "absent_share": 0.5}
    assert t.sentences == [{"absent": 0.0, "absent_share": 0.0}, {"absent": 1.0, "absent_share": 1.0}]
    assert [answer[p.start:p.end] for p in t.points] == ["Food Safety Board"]
    assert all(p.weight == 1.0 and "never names" in p.note for p in t.points)


def test_an_answer_without_names_testifies_zero() -> None:
    t = witness.testify(reading("it was fine.", ["It was fine."]))
    assert t.values == {"absent": 0.0, "absent_share": 0.0} and t.points == []
