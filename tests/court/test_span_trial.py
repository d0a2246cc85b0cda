"""The span trial (#32): the prosecutor names the false words among the witnesses' candidates, the defender quotes a
context sentence, the court checks the quote against the named words, and only an unverified quote leaves the
ruling to the judge: a quote that does not hold the words cannot acquit them, one that does acquits them whatever
the judge would say."""

from __future__ import annotations

from typing import Any

from courtroom.case import Case
from courtroom.court import Court
from courtroom.court.span_trial import verified_support
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.requests import GenerationRequest

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
                       overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0})
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


def test_a_verified_quote_acquits_the_named_words_whatever_the_judge_says() -> None:
    assert verified_support("1926", "It was first lit in 1926.")
    assert not verified_support("1926 by the navy", "It was first lit in 1926.")
    verified_case = CASE.model_copy(update={"context": ["The lighthouse was built in 1871.",
                                                        "It was automated in 1926 by the navy."]})
    calls: list[str] = []
    court = Court.load("pointing", ScriptedBackend(script(2, 0.99, calls), model="pseudo"),
                       overrides={"indictment.threshold": 0.0, "aggregation.threshold": 0.0})
    [outcome] = court.run_many([verified_case])
    [defence] = [e for e in outcome.events if e.event == "move" and e.node == "defense"]
    assert defence.payload == {"evidence": 2} and defence.finding == "[2] holds the named words"
    assert "rule:True" in calls  # the judge still spoke, and was overruled by the verified quote
    assert not any(s.text == "1926" for s in outcome.verdict.spans)
