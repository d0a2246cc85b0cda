"""The span trial (#32): the prosecutor names the false words among the witnesses' candidates, the defender quotes a
context sentence, the court checks the quote against the named words, and only an unverified quote leaves the
ruling to the judge: a quote that does not hold the words cannot acquit them, one that does acquits them whatever
the judge would say."""

from __future__ import annotations

import math
from typing import Any

import pytest

from courtroom.case import Case, HallucinatedSpan
from courtroom.court import Court
from courtroom.court.span_trial import verified_support
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.requests import GenerationRequest

NAMED = {"witnesses.trial_charges": "named"}
"""The first span trial: only the words the prosecutor names are tried."""

CASE = Case(id="lamp", question="When was the lighthouse automated?", label="FAIL",
            context=["The lighthouse was built in 1871. It was automated in 1962 by the coast guard."],
            answer="The lighthouse was automated in 1926 by the navy.")


def script(quote: int, judge_p: float, calls: list[str]) -> Any:
    """The pseudo-model, except: the prosecutor names '1926', the defender quotes sentence `quote` (each with no
    preference when the content is taken away, so the calibrated choice is the model's), the judge says hallucinated
    with `judge_p`."""
    pseudo = PseudoModel()

    def answer(request: GenerationRequest) -> Any:
        spec, prompt = request.spec, request.messages[-1].content
        if spec.kind == "choice" and "(none)" in spec.options and "exact words" in prompt:
            calls.append("name")
            if "[1] N/A" in prompt:  # the same choice with the context taken away: no preference
                return dict.fromkeys(spec.options, 1.0)
            return {o: (0.9 if o == "1926" else 0.1 / len(spec.options)) for o in spec.options}
        if spec.kind == "choice" and "Quote the one context sentence" in prompt:
            calls.append("quote")
            if '"N/A"' in prompt:  # the same choice with the named words taken away
                return dict.fromkeys(spec.options, 1.0)
            return {o: (0.9 if o == str(quote) else 0.1 / len(spec.options)) for o in spec.options}
        if spec.kind == "choice" and set(spec.options) == {"hallucinated", "supported"}:
            calls.append(f"rule:{'court checked' in prompt}")
            return {"hallucinated": judge_p, "supported": 1 - judge_p}
        return pseudo(request)

    return answer


def judged(quote: int, judge_p: float) -> tuple[Any, list[str]]:
    calls: list[str] = []
    court = Court.load("pointing", ScriptedBackend(script(quote, judge_p, calls), model="pseudo"),
                       overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0, **NAMED})
    [outcome] = court.run_many([CASE])
    assert outcome.verdict is not None, outcome.error
    return outcome, calls


def test_an_unverified_quote_cannot_acquit_the_named_words_and_the_judge_convicts_them() -> None:
    outcome, calls = judged(quote=1, judge_p=0.8)  # [1] "The lighthouse was built in 1871." holds no '1926'
    assert "name" in calls and "quote" in calls and "rule:True" in calls
    [span] = outcome.verdict.spans
    assert (span.text, span.verified, span.named_by) == ("1926", True, ["prosecutor", "judge"])
    assert CASE.answer[span.start:span.end] == "1926"
    defence = next(e for e in outcome.events if e.event == "move" and e.node == "defense")
    assert defence.finding == "[1] does not hold the named words"


def test_a_quote_that_does_not_hold_the_words_leaves_them_to_the_judge_who_may_acquit() -> None:
    outcome, _ = judged(quote=1, judge_p=0.2)
    assert outcome.verdict.spans == []


def test_a_strict_quote_check_wants_a_number_to_count_the_same_thing() -> None:
    # the quote holds '12' and 'employees', but its 12 counts offices: the `words` check verified it
    counted = "The firm had 12 employees."
    assert not verified_support("12 employees", "The firm had 12 offices and 400 employees.", counted)
    assert verified_support("12 employees", "Of its 12 employees, all stayed.", counted)
    assert verified_support("12 employees", "The firm had 12 of the employees.", counted)
    assert verified_support("12 employees", "The firm had 12 offices and 400 employees.")  # `words`: as before
    # words holding only the number: what it counts is read in the statement
    assert not verified_support("12", "The firm had 12 offices and 400 employees.", counted)
    assert verified_support("12", "It had 12 employees in 2020.", counted)
    # a number followed by other words than the thing it counts pairs with nothing
    assert verified_support("1926 by the navy", "The navy automated it in 1926.", "It was automated in 1926 by the navy.")
    assert not verified_support("12 employees", "It had 12, employees said.", counted)  # not across a comma


def test_a_strict_quote_check_reads_negation_where_it_reaches_the_words() -> None:
    statement = "It was automated in 1926."
    # a "not" elsewhere in a long quote says nothing of the named words: it refused a true statement before
    assert verified_support("automated in 1926", "The tower, which was not painted, was automated in 1926.", statement)
    # and a quote that negates the words elsewhere in the sentence was taken for agreeing with a negated statement
    negative = "It was not automated in 1926."
    assert not verified_support("automated in 1926", "It was automated in 1926, not 1920.", negative)
    assert not verified_support("automated in 1926", "It was automated in 1926\u2014not 1920.", negative)
    assert verified_support("automated in 1926", "It was not automated in 1926, but in 1930.", negative)
    assert not verified_support("automated in 1926", "It was not automated in 1926, but in 1930.", statement)
    assert verified_support("automated in 1926", "Although it was not painted, it was automated in 1926.", statement)
    # a negation reaches over a list and an aside to the words (review: a clause split at every comma lost it)
    assert not verified_support("fatigue", "Patients showed no fever, cough, or fatigue.", "Patients showed fatigue.")
    assert not verified_support("improve survival", "The treatment did not, however, improve survival.",
                                "The treatment did improve survival.")
    assert verified_support("reduce pain", "The drug did not, as expected, reduce pain.", "The drug did not reduce pain.")
    assert not verified_support("approved by the FDA", "The drug has not yet been approved by the FDA.",
                                "The drug was approved by the FDA.")
    # two negations do not cancel, a curly apostrophe negates, a bracket or a range opens no new reach (second review)
    assert not verified_support("cough", "Patients had no fever and no cough.", "Patients had a cough.")
    assert not verified_support("improved survival", "The drug didn\u2019t improve survival.",
                                "The drug improved survival.")
    assert not verified_support("hospitalization", "It did not reduce mortality (HR 0.95; CI 0.80-1.12) or "
                                "hospitalization.", "It reduced hospitalization.")
    assert not verified_support("repurchase shares", "It did not pay dividends in 2019\u20132021 or repurchase shares.",
                                "It repurchased shares.")
    assert verified_support("reduced pain", "The drug not only reduced pain but also improved sleep.",
                            "The drug reduced pain.")
    # words without a content word that hold a negation are held by no quote: what they negate is the question
    assert not verified_support("not", "The drug reduced pain, but not fever.", "The drug did not reduce pain.")
    # words held twice: one place that agrees is enough
    assert verified_support("reduced pain", "Placebo did not reduce pain, but the drug reduced pain.",
                            "The drug reduced pain.")


def test_a_strict_quote_check_wants_the_words_in_their_order() -> None:
    # a role swap holds every content word: the `words` check verifies it, the strict one does not
    statement = "Google acquired YouTube in 2006."
    assert not verified_support("Google acquired YouTube", "YouTube acquired Google in 2006.", statement)
    assert verified_support("Google acquired YouTube", "In 2006 Google acquired YouTube.", statement)
    # the passive names the same roles in the reverse order, with "by"
    assert verified_support("Google acquired YouTube", "YouTube was acquired by Google in 2006.", statement)
    assert not verified_support("Google acquired YouTube", "Google was acquired by YouTube in 2006.", statement)
    assert verified_support("Google acquired YouTube", "YouTube acquired Google in 2006.")  # `words`: as before
    assert not verified_support("Lakers beat the Celtics", "The Celtics, led by Bird, beat the Lakers.",
                                "The Lakers beat the Celtics.")  # a "by" of an aside names no agent of the words
    assert not verified_support("Pfizer acquired Seagen", "Seagen acquired a startup founded by Pfizer veterans.",
                                "Pfizer acquired Seagen.")  # "by" must join the words, as "of" must
    assert not verified_support("Ford CEO", "The CEO of GM, a longtime rival of Ford, said so.", "Ford CEO Jim said so.")
    # the same words in the same order pass, whatever "by" they hold; numbers keep no order; "of" reverses a pair
    said = "YouTube was acquired by Google in 2006."
    assert verified_support("by Google in 2006", said, said)
    assert verified_support("YouTube was acquired by", said, said)
    assert verified_support("Sales increased 12%", "Sales increased by 12% in 2023.", "Sales increased 12% in 2023.")
    assert verified_support("Google acquired YouTube in 2006", said, "Google acquired YouTube in 2006.")
    assert verified_support("acquired YouTube in 2006", "In 2006, Google acquired YouTube.", statement)
    assert verified_support("vaccine efficacy", "The efficacy of the vaccine was 95%.", "Vaccine efficacy was 95%.")


def test_a_strict_quote_check_lets_a_number_count_a_thing_it_describes() -> None:
    # "12 full-time employees" counts employees: it was refused for "12 employees" before
    counted = "The firm had 12 employees."
    assert verified_support("12 employees", "The firm had 12 full-time employees.", counted)
    assert verified_support("12 employees", "It had 12 of the new employees.", counted)
    assert not verified_support("12 employees", "The firm had 12 offices and 400 employees.", counted)
    assert not verified_support("12 employees", "The firm had 12 offices, 400 employees.", counted)
    # a unit counts too, and the thing as written ("patient cohorts" are not patients)
    assert not verified_support("12%", "It opened 12 stores, and revenue grew 5%.", "Revenue grew 12% in 2023.")
    assert not verified_support("$12 million", "It had 12 million users; revenue was $3 million.", "Revenue was $12 million.")
    assert not verified_support("3 patients", "The study enrolled 3 patient cohorts.", "The study enrolled 3 patients.")
    assert verified_support("12%", "Revenue grew 12% in 2023.", "Revenue grew 12% in 2023.")
    # a number joined to its word by a hyphen counts that word alone
    assert not verified_support("2 treatments", "Patients received a 2-week treatment course.",
                                "Patients received 2 treatments.")
    assert not verified_support("30 employees", "The firm gave a 30-day employee notice.", "It laid off 30 employees.")


def test_a_verified_quote_acquits_the_named_words_whatever_the_judge_says() -> None:
    assert verified_support("1926", "It was first lit in 1926.")
    assert not verified_support("1926 by the navy", "It was first lit in 1926.")
    # the strict check (given the statement) matches words without a content word whole: "in" is not in "within"
    statement = "It was lit in 1926."
    assert verified_support("in", "It was lit in 1926.", statement)
    assert not verified_support("in", "It was lit within a year.", statement)
    assert not verified_support("", "It was lit in 1926.", statement)
    assert verified_support("in", "It was lit within a year.")  # the `words` check, as the runs before it were made
    verified_case = CASE.model_copy(update={"context": ["The lighthouse was built in 1871.",
                                                        "It was automated in 1926 by the navy."]})
    calls: list[str] = []
    court = Court.load("pointing", ScriptedBackend(script(2, 0.99, calls), model="pseudo"),
                       overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0, **NAMED})
    [outcome] = court.run_many([verified_case])
    [defence] = [e for e in outcome.events if e.event == "move" and e.node == "defense"]
    assert defence.payload == {"evidence": 2} and defence.finding == "[2] holds the named words"
    assert "rule:True" in calls  # the judge still spoke, and was overruled by the verified quote
    assert not any(s.text == "1926" for s in outcome.verdict.spans)


# `witnesses.trial_charges: spans`: the witnesses' own spans are the counts; the judge's calibrated odds shift theirs.

def spans_court(quote: int, judge_p: float, calls: list[str], overrides: dict[str, Any] | None = None) -> Court:
    """The pointing court trying the witnesses' spans; the judge says `judge_p`, and 0.5 with the words taken away."""
    scripted = script(quote, judge_p, calls)

    def answer(request: GenerationRequest) -> Any:
        spec, prompt = request.spec, request.messages[-1].content
        if spec.kind == "choice" and set(spec.options) == {"hallucinated", "supported"} and '"N/A"' in prompt:
            calls.append("rule:free")
            return {"hallucinated": 0.5, "supported": 0.5}
        return scripted(request)

    return Court.load("pointing", ScriptedBackend(answer, model="pseudo"),
                      overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0,
                                 "witnesses.trial_charges": "spans", **(overrides or {})})


def spans_of(court: Court, case: Case = CASE) -> tuple[list[tuple[str, tuple[str, ...]]], Any]:
    [outcome] = court.run_many([case])
    assert outcome.verdict is not None, outcome.error
    return [(s.text, tuple(s.named_by)) for s in outcome.verdict.spans], outcome


def test_a_judge_without_an_opinion_leaves_the_witnesses_spans_and_the_prosecutor_silent() -> None:
    calls: list[str] = []
    found, outcome = spans_of(spans_court(1, 0.5, calls))
    assert [text for text, _ in found] == ["navy", "1926"]  # the witnesses' spans, strongest first
    assert all(by[-1] == "judge" and "prosecutor" not in by for _, by in found)
    assert "name" not in calls  # the witnesses found words in the only charged sentence: nothing left to name
    assert calls.count("rule:free") == 2 and calls.count("rule:True") == 2
    rulings = [e for e in outcome.events if e.event == "move" and e.node == "bench"]
    assert all(e.choice_probs == {"hallucinated": 0.5, "supported": 0.5} for e in rulings)


def test_the_judges_calibrated_doubt_acquits_the_weaker_span_only() -> None:
    # calibrated P(hallucinated) 0.3 (log-odds -0.85): it outweighs the margin of '1926' over the threshold (0.65,
    # +0.62), not that of 'navy' (0.76, +1.16)
    found, outcome = spans_of(spans_court(1, 0.3, []))
    assert [text for text, _ in found] == ["navy"]
    [navy] = outcome.verdict.spans
    assert 0.5 < navy.score < 0.76  # the witnesses' P, lowered by the judge's doubt
    acquitted = next(e for e in outcome.events if e.event == "move" and e.node == "bench" and e.payload["words"] == "1926")
    assert acquitted.finding.endswith("acquitted")


def test_a_verified_quote_acquits_a_witness_span_whatever_the_judge_says() -> None:
    verified_case = CASE.model_copy(update={"context": ["The lighthouse was built in 1871.",
                                                        "It was automated in 1926 by the navy."]})
    found, outcome = spans_of(spans_court(2, 0.99, []), verified_case)
    assert found == []
    rulings = [e for e in outcome.events if e.event == "move" and e.node == "bench"]
    assert rulings and all(e.finding == "acquitted: the defence's quote, verified, holds the words" for e in rulings)


def test_the_spans_beyond_the_strongest_stand_untried(monkeypatch: Any) -> None:
    from courtroom.court import span_trial

    monkeypatch.setattr(span_trial, "COUNTS", 1)
    found, outcome = spans_of(spans_court(1, 0.02, []))  # the judge acquits every count it tries
    assert found == [("1926", ("overlap",))]  # 'navy' was tried and acquitted; '1926' was never tried
    assert [e.payload["words"] for e in outcome.events if e.event == "move" and e.node == "bench"] == ["navy"]


@pytest.mark.parametrize("judge_p", [0.9, 0.02])
def test_an_untried_span_the_prosecutor_names_stands_or_falls_with_his_words(monkeypatch: Any, judge_p: float) -> None:
    # 'navy' (the strongest span) is tried; '1926', the witnesses' weaker span, stands untried in the second sentence,
    # where the prosecutor, finding no count, names the same word. Before, the verdict listed '1926' twice when the
    # judge convicted it, and once (untried) when he acquitted it.
    from courtroom.court import span_trial

    monkeypatch.setattr(span_trial, "COUNTS", 1)
    case = CASE.model_copy(update={"answer": "The lighthouse was automated by the navy. It was automated in 1926."})
    found, outcome = spans_of(spans_court(1, judge_p, []), case)
    named = [e.payload["words"] for e in outcome.events if e.event == "move" and e.node == "prosecution"]
    assert named == ["1926"]
    convicted = [("navy", ("grounding", "overlap", "judge")), ("1926", ("prosecutor", "judge"))]
    assert found == (convicted if judge_p > 0.5 else [])
    starts = [s.start for s in outcome.verdict.spans]
    assert len(starts) == len(set(starts))


def test_the_prosecutors_words_are_tried_where_the_witnesses_found_them_not_where_they_first_occur(
        monkeypatch: Any) -> None:
    # the witnesses' weaker span is the year 1926 at the end; '1926' also occurs inside '219260' before it. The words
    # were placed by their first occurrence: inside the code number, and the untried year stayed listed beside them.
    from courtroom.court import case_program, span_trial

    answer = "The lighthouse was automated by the navy. Its code 219260 dates from 1926."
    year = answer.rindex("1926")
    witnessed = [HallucinatedSpan(start=answer.index("navy"), end=answer.index("navy") + 4, text="navy", score=0.9,
                                  named_by=["overlap"]),
                 HallucinatedSpan(start=year, end=year + 4, text="1926", score=0.6, named_by=["overlap"])]
    trial = case_program.span_trial
    monkeypatch.setattr(case_program, "span_trial", lambda bench, case, examination, spans, sentences, transcript:
                        trial(bench, case, examination, witnessed, sentences, transcript))
    monkeypatch.setattr(span_trial, "COUNTS", 1)
    for judge_p, convicted in ((0.9, [(year, "1926", ("prosecutor", "judge"))]), (0.02, [])):
        [outcome] = spans_court(1, judge_p, []).run_many([CASE.model_copy(update={"answer": answer})])
        assert outcome.verdict is not None, outcome.error
        found = [(s.start, s.text, tuple(s.named_by)) for s in outcome.verdict.spans if s.text != "navy"]
        assert found == convicted


def test_an_untried_span_keeps_the_words_the_trial_did_not_rule_on() -> None:
    from courtroom.court.span_trial import _untried_rest

    answer = "It became an art school, then a museum."
    span = HallucinatedSpan(start=13, end=23, text="art school", score=0.6, named_by=["overlap"])
    assert _untried_rest(span, [], answer) == [span]
    assert _untried_rest(span, [(0, 2)], answer) == [span]  # words elsewhere
    [rest] = _untried_rest(span, [(13, 16)], answer)  # the prosecutor named 'art': 'school' was never tried
    assert (rest.start, rest.end, rest.text, rest.score) == (17, 23, "school", 0.6)
    assert _untried_rest(span, [(10, 30)], answer) == []  # all of it tried
    assert [r.text for r in _untried_rest(span, [(16, 17)], answer)] == ["art", "school"]


def test_the_prosecutor_names_words_only_where_the_witnesses_found_none() -> None:
    calls: list[str] = []
    case = CASE.model_copy(update={"answer": "The lighthouse was built in 1871. It was automated in 1926 by the navy."})
    found, outcome = spans_of(spans_court(1, 0.5, calls), case)
    named = [e.payload["words"] for e in outcome.events if e.event == "move" and e.node == "prosecution"]
    assert named == ["1871", "1926"]  # no witness span in either sentence: the prosecutor speaks in both
    assert found == [("1926", ("prosecutor", "judge"))]  # '1871' is acquitted by its verified quote [1]
    charges = {(e.node, e.payload.get("words", e.payload.get("evidence"))): e.charge
               for e in outcome.events if e.event == "move"}
    # each named word is defended and ruled on under the charge the prosecutor named it in
    assert charges[("prosecution", "1871")] == charges[("bench", "1871")] != charges[("bench", "1926")]
    assert charges[("prosecution", "1926")] == charges[("bench", "1926")]
    [span] = outcome.verdict.spans
    assert case.answer[span.start:span.end] == "1926" and span.verified


def test_each_count_is_tried_under_the_charge_of_the_sentence_holding_its_words() -> None:
    # the witnesses find 'keepers left' in the second charged sentence only; the prosecutor names words in the first.
    # Numbering the counts in the order they were tried put 'keepers left' under the first sentence's charge.
    case = CASE.model_copy(update={"answer": "The lighthouse was built in 1871 by a king. The keepers left in 1962."})
    found, outcome = spans_of(spans_court(1, 0.5, []), case)
    assert {text for text, _ in found} == {"keepers left", "king"}
    charges = [c.quote for c in outcome.verdict.charges]
    moves = [e for e in outcome.events if e.event == "move" and e.node in ("prosecution", "bench")]
    assert {(e.node, e.payload["words"]) for e in moves} == {("prosecution", "king"), ("bench", "king"),
                                                             ("bench", "keepers left")}
    for move in moves:
        assert move.payload["words"] in charges[move.charge], (move.node, move.payload["words"], move.charge)


def test_a_strict_quote_check_does_not_let_a_quote_acquit_words_whose_negation_it_lacks() -> None:
    # "not" is a function word: the quote holds every content word of the flipped statement, and the `words` check
    # (the default, so runs made before `quote_check` replay) verifies it
    assert not verified_support("not automated", "The lighthouse was automated in 1962.", "It was not automated.")
    assert verified_support("not automated", "It was not automated in 1962.", "It was not automated.")
    case = CASE.model_copy(update={"answer": "The lighthouse was not automated by the coast guard.",
                                   "context": ["The lighthouse was built in 1871.",
                                               "The lighthouse was automated in 1962 by the coast guard."]})
    findings = {}
    for check in ("words", "strict"):
        court = spans_court(2, 0.5, [], {"witnesses.quote_check": check})
        found, outcome = spans_of(court, case)
        [defence] = [e for e in outcome.events if e.event == "move" and e.node == "defense"]
        assert defence.payload == {"evidence": 2}
        findings[check] = (defence.finding, [text for text, _ in found])
    assert findings["words"] == ("[2] holds the named words", [])  # acquitted by the quote
    assert findings["strict"] == ("[2] does not hold the named words",
                                  ["The lighthouse was not automated by the coast guard"])


def test_braces_in_the_case_text_are_quoted_not_formatted() -> None:
    # a structured context or answer (JSON, tables) holds braces: the defender's question used to be built with
    # str.format, and '{"dj": ...}' failed the case with KeyError
    braces = CASE.model_copy(update={"context": ['The lighthouse was built in 1871. Its log reads {"dj": 1962}.'],
                                     "answer": 'The lighthouse was automated in 1926 {"dj": "navy"}.'})
    for trial in ("named", "spans"):
        calls: list[str] = []
        court = spans_court(1, 0.9, calls) if trial == "spans" else Court.load(
            "pointing", ScriptedBackend(script(1, 0.9, calls), model="pseudo"),
            overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0, **NAMED})
        [outcome] = court.run_many([braces])
        assert outcome.error is None and outcome.verdict is not None, outcome.error
        assert "quote" in calls
        quoted = [e for e in outcome.events if e.event == "prompt" and "Quote the one context sentence" in str(e)]
        assert quoted and all('{"dj"' in str(e) for e in quoted)


def test_spans_point_into_the_answer_as_given_when_it_starts_with_blanks() -> None:
    padded = CASE.model_copy(update={"answer": "\n  " + CASE.answer})
    found, outcome = spans_of(spans_court(1, 0.5, []), padded)
    assert [text for text, _ in found] == ["navy", "1926"]
    assert all(padded.answer[s.start:s.end] == s.text for s in outcome.verdict.spans)


def test_a_judge_sure_beyond_the_clip_moves_a_span_by_four_in_log_odds_at_most() -> None:
    # calibrated P(hallucinated) 0.999 against 0.5 without the words: log-odds +6.9, clipped to +4
    found, outcome = spans_of(spans_court(1, 0.999, []))
    navy = next(s for s in outcome.verdict.spans if s.text == "navy")
    witnesses = 0.7622  # the witnesses' P of 'navy' (test_a_judge_without_an_opinion...: the same spans)
    clipped = 1 / (1 + math.exp(-(math.log(witnesses / (1 - witnesses)) + 4.0)))
    assert navy.score == pytest.approx(clipped, abs=1e-3)
