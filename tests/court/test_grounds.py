"""A trial a person can check (#59): every side's move quotes and cites what it rests on, read off the case (not
generated) and checked; the court composes each text from those pieces, so no role writes another's words; a quote
that is not where it is said to be is flagged, never shown as verified."""

from __future__ import annotations

import pytest

from courtroom.case import Case
from courtroom.clerk.reading import Reading
from courtroom.court import Court
from courtroom.court.grounds import prosecution
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.engine.events import Grounds, Quote
from courtroom.errors import CourtError
from courtroom.report.grounds import pieces, reading_note
from courtroom.report.record import rests_on
from courtroom.text.words import content_words
from tests.helpers.court_script import CourtScript

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962 after a storm."],
            answer="It was automated in 1926.", label="FAIL")
FAITHFUL = CASE.model_copy(update={"id": "c2", "answer": "It was first lit in 1874.", "label": "PASS"})
TRIED = {"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}


def court(script: CourtScript, **changes: object) -> tuple[Court, ScriptedBackend]:
    """The shipped full court on the scripted backend, every statement charged."""
    backend = ScriptedBackend(script, model="scripted")
    overrides = {"indictment.threshold": 0.0, "aggregation.by_model": {},
                 **{k.replace("__", "."): v for k, v in changes.items()}}
    return load_court("full", backend, overrides=overrides), backend


def moves(outcome) -> dict:  # noqa: ANN001
    return {e.role: e for e in outcome.events if e.event == "move"}


def test_the_prosecution_quotes_the_words_no_sentence_accounts_for_and_the_defence_the_sentence_that_states_it() -> None:
    script = CourtScript(moves=TRIED, word_grounding={"1926": -2.0}, sentence_grounding={"1962": 1.5, "1874": -0.5})
    c, backend = court(script)
    [outcome] = list(c.run_many([CASE]))
    made = moves(outcome)
    accused, defence = made["prosecutor"].grounds, made["defender"].grounds
    assert accused.reading == "likelihood" and accused.answer.text == "1926" and accused.answer.verified
    assert accused.sentence == 2 and accused.passage.text == "It was automated in 1962 after a storm." and accused.verified
    # the statement's grounding in each sentence alone: four words at the sentence's gain, the year at -2
    assert defence.sentence == 2 and defence.scores == {1: pytest.approx(-0.8), 2: pytest.approx(0.8)}
    assert made["prosecutor"].payload == {
        "argument": "The answer says '1926', and sentence 2 says 'It was automated in 1962 after a storm'."}
    assert made["defender"].payload == {"argument": "Sentence 2 states it: 'It was automated in 1962 after a storm'."}
    ruled = outcome.verdict.rulings[0].verdict.value
    side = "the prosecution: the answer says '1926'" if ruled == "hallucinated" else "the defence: sentence 2 states it"
    assert made["judge"].payload["reason"].startswith(f"{ruled.capitalize()}, with {side}")
    assert not [r for r in backend.calls if r.spec.kind == "json"]  # composed: no text is decoded


def test_no_sentence_speaks_to_words_none_names_or_makes_likelier_and_the_reading_is_recorded() -> None:
    script = CourtScript(moves=TRIED, grounding={"1926": -1.0}, sentence_grounding={"1962": -0.4, "1874": -0.7})
    retired = CASE.model_copy(update={"answer": "Its keepers retired in 1926."})
    [outcome, named] = list(court(script)[0].run_many([retired, CASE]))
    made = moves(outcome)
    assert made["prosecutor"].grounds.answer.text == "keepers retired in 1926"  # every word unaccounted for
    assert made["prosecutor"].grounds.sentence is None and made["defender"].grounds.sentence is None
    assert made["defender"].grounds.scores == {1: pytest.approx(-0.7), 2: pytest.approx(-0.4)}
    assert made["prosecutor"].payload["argument"].endswith("and no sentence of the context speaks to it.")
    assert made["defender"].payload["argument"] == "No single sentence of the context states it."
    assert "no sentence speaks to it (read by the model's likelihoods: [1] -0.70, [2] -0.40)" in \
        reading_note(made["defender"].grounds)
    # a sentence that names a quoted word speaks to it, however little it accounts for it
    assert moves(named)["prosecutor"].grounds.sentence == 2 and moves(named)["defender"].grounds.sentence is None


def test_no_two_roles_of_a_trial_share_a_text_whatever_the_model_writes() -> None:
    for texts in ("composed", "generated"):
        script = CourtScript(moves=TRIED, sentence_grounding={"1962": 1.0, "1874": 0.5},
                             payloads={move: {"argument": "The context does not support the statement.",
                                              "reason": "The context does not support the statement."}
                                       for move in ("argue", "rebut", "rule")})
        outcomes = list(court(script, trial__texts=texts)[0].run_many([CASE, FAITHFUL]))
        for outcome in outcomes:
            for charge in {e.charge for e in outcome.events if e.event == "move"}:
                said = [" ".join(map(str, e.payload.values())) for e in outcome.events
                        if e.event == "move" and e.charge == charge]
                assert len(said) == 3 and len(set(said)) == 3, (texts, said)


def test_a_generated_sentence_follows_the_pieces_it_was_shown() -> None:
    script = CourtScript(moves=TRIED, word_grounding={"1926": -2.0}, sentence_grounding={"1962": 1.5},
                         payloads={"argue": {"argument": "The year is wrong."}})
    c, backend = court(script, trial__texts="generated")
    [outcome] = list(c.run_many([CASE]))
    argued = moves(outcome)["prosecutor"]
    assert argued.payload == {"argument": "The answer says '1926', and sentence 2 says 'It was automated in 1962 after "
                                          "a storm'.", "generated": "The year is wrong."}
    prompt = next(r for r in backend.calls if "Your move: argue" in r.messages[-1].content).messages[-1].content
    assert "What your move rests on, read and checked by the court: The answer says '1926'" in prompt
    assert '"evidence"' not in next(r for r in backend.calls if r.spec.kind == "json").spec.schema  # no number written


def test_the_words_reading_needs_no_model_and_quotes_the_words_no_sentence_uses() -> None:
    c, backend = court(CourtScript(moves=TRIED), trial__reading="words")
    [outcome] = list(c.run_many([CASE]))
    accused = moves(outcome)["prosecutor"].grounds
    assert accused.reading == "words" and accused.answer.text == "1926" and accused.sentence == 2
    assert accused.scores == {2: 0.0}  # sentence 2 names the statement's other words, not the year
    assert c.needs_text_scoring() is not None  # the clerk's measured charges still need the model's likelihoods
    drafted = load_court("generative", backend)
    assert drafted.spec.trial.reading == "words" and drafted.needs_text_scoring() is None


def test_a_quote_not_found_where_it_is_said_to_be_is_flagged_never_shown_as_verified() -> None:
    answer = "It was automated in 1926."
    words = tuple(content_words(answer))
    reading = Reading("likelihood", answer, statement="It was first lit in 1874.", words=words,
                      support={1: (1.5, -1.0)}, grounding={1: 0.1}, context=(1.5, -1.0),
                      sentences=("It was automated in 1962.",))
    accused = prosecution(reading)
    assert accused.answer.text == "1926" and not accused.answer.verified and not accused.verified
    assert "a quote was NOT found where it is said to be" in reading_note(accused)
    moved = Grounds(reading="likelihood", answer=Quote(text="1962", start=0, end=4, verified=True), sentence=1,
                    passage=Quote(text="1926", start=20, end=24, verified=True), found=True)
    shown = pieces(moved, answer, ("It was automated in 1962.",))  # the offsets do not hold the words: not placed
    assert [(p.source, p.verified) for p in shown] == [("answer", False), ("sentence 1", False)]
    assert "NOT FOUND" in rests_on(moved, answer, ("It was automated in 1962.",)).plain


def test_composed_texts_refuse_an_inline_payload_only_a_model_can_write() -> None:
    inline = {"name": "Aside", "fields": {"aside": {"description": "an aside"}}}
    with pytest.raises(CourtError, match="inline payload 'Aside'.*set trial.texts: generated"):
        load_court("full", overrides={"trial.graph.edges": [
            {"from": "prosecution", "move": "argue", "to": "defense", "payload": inline, "description": "argue"},
            {"from": "defense", "move": "rebut", "to": "bench", "payload": "argument", "description": "rebut"},
            {"from": "bench", "move": "rule", "to": "ruling", "payload": "ruling", "description": "rule"}]})


def test_a_charge_no_sentence_shares_a_word_with_is_read_as_spoken_to_by_none() -> None:
    many = CASE.model_copy(update={"id": "many", "answer": "Penguins sing.", "context": [
        " ".join(f"Sentence {n} is about lighthouse number {n}." for n in range(1, 9))]})
    [outcome] = list(court(CourtScript(moves=TRIED))[0].run_many([many]))
    assert outcome.ok, outcome.error  # more sentences than are read, none sharing a word: no reading call at all
    made = moves(outcome)
    assert made["prosecutor"].grounds.sentence is None and made["defender"].grounds.sentence is None
    assert not [e for e in outcome.events if e.event == "model_call" and e.purpose == "read"]
