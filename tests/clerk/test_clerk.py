"""The clerk alone (the default court, no trial): its measurement charges the statements the context accounts for
least, and decides the case by it, through its aggregation and threshold (per model)."""

from __future__ import annotations

import math

import pytest

from courtroom.case import Case, Verdict
from courtroom.clerk import Clerk, LexicalSpec
from courtroom.courts import court_from_config, load_court
from courtroom.door import ScriptedBackend
from courtroom.door.spec import BackendSpec
from courtroom.log.replay import replay
from tests.helpers.court_script import CourtScript
from tests.helpers.courts import tuned

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962. Its cottages are a "
                     "museum."],
            answer="It was first lit in 1874. It was automated in 1926.", label="FAIL")


def sig(g: float) -> float:
    """P(suspect) of a statement grounded at `g` (center 0.2, scale 0.3)."""
    return 1 / (1 + math.exp(-(0.2 - g) / 0.3))


def clerk(script: CourtScript, scoring: str = "sentence", clip: float | None = None,
          model: str = "scripted") -> tuple[Clerk, ScriptedBackend]:
    """The default court on the scripted backend, measuring at center 0.2 and scale 0.3, any charge at 0.5 or more
    convicting (no ruling is fitted for the model: the measurement decides; scoring by sentence, it hears no
    witnesses)."""
    backend = ScriptedBackend(script, model=model)
    c = load_court("default", backend, overrides={
        "grounding": {"center": 0.2, "scale": 0.3, "scoring": scoring, "clip": clip, "lexical": None},
        "aggregation": {"method": "any", "share_by": "statements", "threshold": 0.5, "by_model": {}},
        **({"witnesses": None} if scoring == "sentence" else {})})  # (heard on the whole answer's tokens)
    assert isinstance(c, Clerk)
    return c, backend


def test_grounding_charges_the_sentences_the_context_does_not_account_for() -> None:
    c, backend = clerk(CourtScript(grounding={"1926": -0.5, "1874": 1.2}))
    [outcome] = list(c.run_many([CASE]))
    [charges] = [e for e in outcome.events if e.event == "charges"]
    assert [ch.quote for ch in charges.charges] == ["It was automated in 1926."]
    assert charges.charges[0].grounding == pytest.approx(-0.5)
    assert backend.batches[0] == 4  # two sentences, with and without the context, in one batch
    [ruling] = outcome.verdict.rulings
    assert ruling.p_hallucinated == pytest.approx(sig(-0.5))
    assert outcome.verdict.label == "FAIL" and "grounding -0.50 nats/token" in ruling.reason


def test_cases_advance_in_lockstep() -> None:
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(4)]
    c, backend = clerk(CourtScript(grounding={"1926": -0.5}))
    c.window = 4
    verdicts = c.judge_many(cases)
    assert [v.case_id for v in verdicts] == ["c0", "c1", "c2", "c3"]
    assert backend.batches[0] == 16  # two sentences of four cases, with and without the context, at once
    assert sorted(backend.released) == ["c0", "c1", "c2", "c3"]


MEAN = (sig(-0.5) + sig(0.5) + sig(1.2)) / 3


@pytest.mark.parametrize("method, label, score", [("any", "FAIL", sig(-0.5)), ("majority", "PASS", MEAN),
                                                  ("mean", "PASS", MEAN)])
def test_aggregation_methods(method: str, label: str, score: float) -> None:
    case = CASE.model_copy(update={"answer": "It was first lit in 1874. It was automated in 1926. It is tall."})
    c, _ = clerk(CourtScript(grounding={"1926": -0.5, "1874": 1.2, "tall": 0.5}))
    tuned(c, aggregation__method=method, max_charges=3, indictment__threshold=0.01)  # every statement charged
    verdict = c.judge(case)
    assert verdict.label == label
    assert verdict.score == pytest.approx(score, abs=1e-6)


def test_share_aggregation_counts_every_statement() -> None:
    case = CASE.model_copy(update={"answer": "It was first lit in 1874. It was automated in 1926. It is tall."})
    c, _ = clerk(CourtScript(grounding={"1926": -0.4, "1874": 1.1, "tall": 0.2}))
    tuned(c, aggregation__method="share", max_charges=1)
    verdict = c.judge(case)
    assert verdict.score == pytest.approx((sig(-0.4) + sig(1.1) + sig(0.2)) / 3)
    assert [d.p_suspect for d in verdict.dropped] == pytest.approx([sig(1.1), sig(0.2)])


def test_a_threshold_tuned_for_a_model_applies_to_that_model_only() -> None:
    verdicts = {}
    for model in ("default", "smollm2-135m", "qwen2.5-coder-0.5b"):
        c, _ = clerk(CourtScript(grounding={"1926": 0.45}), model=model)  # P(suspect) 0.3
        tuned(c, aggregation__threshold=0.5, aggregation__by_model={"smollm2-135m": 0.25}, indictment__threshold=0.2)
        verdicts[model] = c.judge(CASE).label
        rebuilt = court_from_config(c.config(), BackendSpec(model=model))  # as replay and Ray workers rebuild it
        assert rebuilt.threshold == c.threshold == (0.5 if model.startswith("qwen") else 0.25)
    # `default` is smollm2-135m: the tuned 0.25 convicts at P = 0.3; Qwen keeps the court's 0.5
    assert verdicts == {"default": "FAIL", "smollm2-135m": "FAIL", "qwen2.5-coder-0.5b": "PASS"}


def test_answer_scoring_reads_every_sentence_off_two_calls_per_case() -> None:
    c, backend = clerk(CourtScript(grounding={"1926": -0.5, "1874": 1.2}), scoring="answer")
    [outcome] = list(c.run_many([CASE]))
    [charges] = [e for e in outcome.events if e.event == "charges"]
    assert backend.batches[0] == 2  # the whole answer, with and without the context
    assert [call.spec.options for call in backend.calls[:2]] == [(CASE.answer,)] * 2
    assert [ch.quote for ch in charges.charges] == ["It was automated in 1926."]
    assert charges.charges[0].grounding == pytest.approx(-0.5)
    assert [d.grounding for d in charges.dropped] == pytest.approx([1.2])
    assert outcome.verdict.rulings[0].p_hallucinated == pytest.approx(sig(-0.5))


def test_clip_caps_what_one_copied_word_can_gain_from_the_context() -> None:
    case = CASE.model_copy(update={"answer": "It was first lit in 1874. Harrow was automated in 1926."})
    # "Harrow" is copied from the context (+6 nats); the other four words gain nothing (0.0)
    script = dict(grounding={"1926": 0.0, "1874": 1.0}, word_grounding={"Harrow": 6.0})
    uncapped, _ = clerk(CourtScript(**script), scoring="answer")
    capped, _ = clerk(CourtScript(**script), scoring="answer", clip=1.0)
    assert [c.grounding for c in uncapped.judge(case).dropped] == pytest.approx([1.0, 6 / 5])
    [charge] = capped.judge(case).charges
    assert charge.quote == "Harrow was automated in 1926." and charge.grounding == pytest.approx(1 / 5)


def test_share_by_characters_weighs_each_statement_by_its_length() -> None:
    case = CASE.model_copy(update={"answer": "Yes. It was automated in 1926 by the lighthouse board."})
    c, _ = clerk(CourtScript(grounding={"1926": -0.4, "Yes": 1.0}), scoring="answer")
    tuned(c, aggregation__method="share", aggregation__share_by="characters")
    verdict = c.judge(case)
    short, long = "Yes.", "It was automated in 1926 by the lighthouse board."
    expected = (len(short) * sig(1.0) + len(long) * sig(-0.4)) / (len(short) + len(long))
    assert verdict.score == pytest.approx(expected)


def test_replay_of_an_answer_scoring_clerk() -> None:
    c, _ = clerk(CourtScript(grounding={"1926": -0.5}), scoring="answer", clip=1.0)
    [outcome] = list(c.run_many([CASE]))
    rebuilt = court_from_config(c.config())
    assert rebuilt.spec.grounding.scoring == "answer" and rebuilt.spec.grounding.clip == 1.0
    result = replay(outcome.events, rebuilt)
    assert result.matches, result.differences


def test_an_answer_scoring_charge_names_the_words_the_context_accounts_for_least() -> None:
    script = CourtScript(grounding={"1926": 0.5, "1874": 1.2}, word_grounding={"1926": -3.0, "automated": -1.0})
    c, _ = clerk(script, scoring="answer")
    [charge] = c.judge(CASE).charges
    assert charge.grounding == pytest.approx((0.5 * 3 - 1.0 - 3.0) / 5)
    assert "least accounted for: 'It', 'automated', '1926')" in charge.reason  # in text order


def test_lexical_evidence_charges_the_statement_with_words_the_context_never_uses() -> None:
    c, _ = clerk(CourtScript(grounding={"1926": 0.3, "1874": 0.3}), scoring="answer")
    lexical = {"center": 0.35, "scale": 0.1}
    c.spec = c.spec.model_copy(update={"grounding": c.spec.grounding.model_copy(
        update={"lexical": LexicalSpec(**lexical)})})
    assert c.config()["court"]["grounding"]["lexical"] == lexical
    [outcome] = list(c.run_many([CASE]))
    [charges] = [e for e in outcome.events if e.event == "charges"]
    # both sentences are grounded alike; only "automated 1926" brings a word the context never uses (1926)
    assert [ch.quote for ch in charges.charges] == ["It was automated in 1926."]
    assert "words the context never uses: '1926'" in charges.charges[0].reason
    [ruling] = outcome.verdict.rulings
    z = (0.2 - 0.3) / 0.3 + (1 / 2 - 0.35) / 0.1  # content words: automated, 1926
    assert ruling.p_hallucinated == pytest.approx(1 / (1 + math.exp(-z)))
    [dropped] = charges.dropped
    assert dropped.p_suspect == pytest.approx(1 / (1 + math.exp(-((0.2 - 0.3) / 0.3 + (0 - 0.35) / 0.1))))
    assert replay(outcome.events, court_from_config(c.config())).matches


def test_lexical_exhibits_can_be_named_without_being_weighed() -> None:
    c, _ = clerk(CourtScript(grounding={"1926": -0.5, "1874": 1.2}), scoring="answer")
    plain = c.judge(CASE)
    c.spec = c.spec.model_copy(update={"grounding": c.spec.grounding.model_copy(
        update={"lexical": LexicalSpec(center=0.35, scale=None)})})
    named = c.judge(CASE)
    assert named.score == pytest.approx(plain.score)
    assert "words the context never uses: '1926'" in named.charges[0].reason
    assert "never uses" not in plain.charges[0].reason


def _ruling(charge: int, p: float, reason: str):
    from courtroom.case import Ruling

    verdict = Verdict.HALLUCINATED if p >= 0.5 else Verdict.SUPPORTED
    return Ruling(charge=charge, verdict=verdict, reason=reason, confidence=max(p, 1 - p), p_hallucinated=p)


def test_a_share_verdict_names_what_decided_it_not_an_acquitted_charge() -> None:
    from courtroom.case import Charge, DroppedCharge
    from courtroom.clerk.verdict import aggregate

    court = load_court("full")
    court = (court.spec.aggregation, court.threshold)
    charge = [Charge(index=0, quote="The bridge is red.", reason="r")]
    unsure = [DroppedCharge(quote="It opened in 1901.", reason="r", why_dropped="over the charge limit", p_suspect=0.9)]
    convicted_by_share = aggregate(*court, "c", charge, unsure, [_ruling(0, 0.1, "the context says red")])
    assert convicted_by_share.label == "FAIL"
    assert "No charge was convicted" in convicted_by_share.reason and "It opened in 1901." in convicted_by_share.reason
    assert "is found hallucinated" not in convicted_by_share.reason

    small = [Charge(index=0, quote="Red.", reason="r")]
    faithful = [DroppedCharge(quote="The bridge opened in 1901 and spans the river.", reason="r", why_dropped="grounded",
                              p_suspect=0.05)]
    acquitted_by_share = aggregate(*court, "c", small, faithful, [_ruling(0, 0.6, "no colour in the context")])
    assert acquitted_by_share.label == "PASS"
    assert "0 of 1 charge found supported" in acquitted_by_share.reason
    assert "stays below the threshold" in acquitted_by_share.reason


def test_a_whole_answer_on_trial_is_not_counted_again_through_its_sentences() -> None:
    from courtroom.case import Charge, DroppedCharge
    from courtroom.clerk.verdict import aggregate

    court = load_court("full")
    answer = "It opened in 1901. It is red."
    parts = [DroppedCharge(quote=q, reason="r", why_dropped="grounded", p_suspect=0.1)
             for q in ("It opened in 1901.", "It is red.")]
    verdict = aggregate(court.spec.aggregation, court.threshold, "c", [Charge(index=0, quote=answer, reason="r", whole_answer=True)], parts,
                        [_ruling(0, 0.9, "invented")])
    assert verdict.score == pytest.approx(0.9) and verdict.label == "FAIL"
