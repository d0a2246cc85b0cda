"""Every path of a trial, on the scripted backend: indictment, withdraw, concede, rulings over rounds,
the round limit, the jury vote, aggregation, lockstep batching, failing cases and replay."""

from __future__ import annotations

import math

import pytest

from courtroom.case import Case, Verdict
from courtroom.court import Court
from courtroom.courts import court_from_config, load_court
from courtroom.door import ScriptedBackend, Truncated
from courtroom.door.pseudo import PseudoModel
from courtroom.log.replay import replay
from tests.helpers.court_script import CourtScript
from tests.helpers.courts import tuned

CASE = Case(id="c1", question="When was the lighthouse automated?",
            context=["The Harrow Point lighthouse was first lit in 1874 and automated in 1962."],
            answer="It was automated in 1926, after its last keeper retired.", label="FAIL")
CHARGE = {"quote": "automated in 1926", "reason": "the context says 1962"}


def court(script: CourtScript, name: str = "full", charges: str = "drafted", **options) -> tuple[Court, ScriptedBackend]:
    """A shipped court on the scripted backend; by default the clerk's persona drafts its charges, rulings follow
    the court's own verdict alone (judge weight 1), a side may give up on its first move (no rounds of exchange,
    which `test_trials` tests) and a trial may last 3 rounds, so each path is tested in isolation."""
    backend = ScriptedBackend(script, model=options.pop("model", "scripted"))
    drafted = {"trial.personas.clerk": "clerk"} if charges == "drafted" else {}
    c = load_court(name, backend, overrides={"trial.charges": charges, "trial.judge_weight": 1.0,
                                             "trial.exchange_rounds": options.pop("exchange_rounds", 0),
                                             "trial.max_rounds": options.pop("max_rounds", 3),
                                             "aggregation.by_model": {}, **drafted}, **options)
    return c, backend


def only(events, kind):
    return [e for e in events if e.event == kind]


def test_moves_rest_on_pieces_read_off_the_case_which_the_judge_reads() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    c, backend = court(script)
    [outcome] = list(c.run_many([CASE]))
    assert not [r for r in backend.calls if r.spec.kind == "json" and "argument" in r.spec.schema]  # nothing decoded
    argued = {m.role: m for m in only(outcome.events, "move")}
    prosecution, defence = argued["prosecutor"].grounds, argued["defender"].grounds
    assert prosecution.answer.verified and prosecution.answer.text in CASE.answer and defence.sentence == 1
    verdict = next(r for r in backend.calls if "Give your verdict" in r.messages[-1].content).messages[-1].content
    assert argued["prosecutor"].payload["argument"] in verdict and argued["defender"].payload["argument"] in verdict
    assert "Sentence 1 states it: 'The Harrow Point lighthouse was first lit in 1874 and automated in 1962'" in verdict


def test_no_charges_means_faithful_after_one_call() -> None:
    c, backend = court(CourtScript(charges=[]))
    verdict = c.judge(CASE)
    assert verdict.label == "PASS" and verdict.score == 0.0
    assert "No charges" in verdict.reason
    assert len(backend.calls) == 1


def test_a_quote_not_in_the_answer_is_dropped_and_recorded() -> None:
    script = CourtScript(charges=[{"quote": "the keeper was paid 10 pounds", "reason": "invented"}, CHARGE, CHARGE])
    c, _ = court(script, )
    [outcome] = list(c.run_many([CASE]))
    [charges] = only(outcome.events, "charges")
    assert [ch.quote for ch in charges.charges] == ["automated in 1926"]
    assert [d.why_dropped for d in charges.dropped] == ["the quote is not in the answer", "duplicate of charge 1"]


def test_withdrawal_acquits_with_the_move_probability() -> None:
    c, _ = court(CourtScript(charges=[CHARGE], moves={"prosecutor": ["withdraw"]}, move_p=0.7))
    verdict = c.judge(CASE)
    [ruling] = verdict.rulings
    assert ruling.source == "withdrawn" and ruling.verdict is Verdict.SUPPORTED
    assert ruling.p_hallucinated == pytest.approx(0.3)
    assert verdict.label == "PASS"


def test_concession_convicts() -> None:
    c, _ = court(CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["concede"]}))
    verdict = c.judge(CASE)
    assert verdict.rulings[0].source == "conceded" and verdict.label == "FAIL"
    assert verdict.score == pytest.approx(0.9)
    assert "automated in 1926" in verdict.reason


def test_the_judge_rules_with_the_verdict_probability() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                         p_hallucinated=0.2)
    c, _ = court(script)
    verdict = c.judge(CASE)
    [ruling] = verdict.rulings
    assert ruling.source == "judge" and ruling.rounds == 1
    assert ruling.verdict is Verdict.SUPPORTED and ruling.confidence == pytest.approx(0.8)
    assert verdict.label == "PASS" and verdict.score == pytest.approx(0.2)


def test_the_round_limit_forces_a_ruling() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"],
                                                  "judge": ["next_round"]})
    c, backend = court(script)
    [outcome] = list(c.run_many([CASE]))
    moves = only(outcome.events, "move")
    judge_moves = [m for m in moves if m.role == "judge"]
    assert [(m.round, m.move, m.forced) for m in judge_moves] == [
        (1, "next_round", False), (2, "next_round", False), (3, "rule", True)]
    assert outcome.verdict.rulings[0].rounds == 3
    # at round 3 no move choice was asked of the judge: only payload and verdict
    assert script.seen.count("judge:next_round") == 2


def test_jury_votes_in_one_batch_and_the_mean_decides() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"],
                                                  "judge": ["to_jury"]}, p_hallucinated=[0.9, 0.6, 0.3])
    c, backend = court(script, "jury")
    verdict = c.judge(CASE)
    [ruling] = verdict.rulings
    assert ruling.source == "jury" and ruling.p_hallucinated == pytest.approx(0.6)
    assert "2 of 3" in ruling.reason
    assert backend.batches[-1] == 3  # the three jurors were asked together


def test_cases_and_charges_advance_in_lockstep() -> None:
    cases = [CASE.model_copy(update={"id": f"c{i}"}) for i in range(4)]
    script = CourtScript(charges=[CHARGE, {"quote": "after its last keeper retired", "reason": "invented"}],
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    c, backend = court(script, window=4)
    verdicts = c.judge_many(cases)
    assert [v.case_id for v in verdicts] == ["c0", "c1", "c2", "c3"]
    assert backend.batches[0] == 4       # four clerks at once
    assert max(backend.batches) == 8     # two charges of four cases, side by side
    assert sorted(backend.released) == ["c0", "c1", "c2", "c3"]


def test_a_failing_case_does_not_stop_the_others() -> None:
    good = CourtScript(grounding={"1926": -1.0}, moves={"prosecutor": ["argue"], "defender": ["concede"]})

    def script(request):
        if request.cache_group == "bad" and request.spec.kind == "json":
            return Truncated()  # the prosecutor's argument is cut off by its token limit
        return good(request)

    c = load_court("full", ScriptedBackend(script), overrides={"trial.texts": "generated"})
    outcomes = {o.case.id: o for o in c.run_many([CASE, CASE.model_copy(update={"id": "bad"})])}
    assert outcomes["c1"].ok
    bad = outcomes["bad"]
    assert not bad.ok and bad.error_type == "TruncatedGenerationError" and "max_new_tokens" in bad.error
    assert bad.events[-1].event == "error" and "Traceback" in bad.events[-1].traceback


@pytest.mark.parametrize("name, moves", [
    ("full", {"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["next_round", "rule"]}),
    ("jury", {"prosecutor": ["argue", "withdraw"], "defender": ["rebut"], "judge": ["next_round", "to_jury"]}),
    ("cross_examination", {"prosecutor": ["argue"], "defender": ["rebut"], "cross": ["question"], "judge": ["rule"]}),
])
def test_replay_rebuilds_the_debate_and_verdict(name: str, moves: dict) -> None:
    script = CourtScript(charges=[CHARGE, {"quote": "after its last keeper retired", "reason": "x"}], moves=moves,
                         p_hallucinated=[0.7, 0.2, 0.4, 0.6])
    c, _ = court(script, name)
    [outcome] = list(c.run_many([CASE]))
    assert outcome.ok
    result = replay(outcome.events, court_from_config(c.config()))
    assert result.matches, result.differences
    assert result.verdict == outcome.verdict


def test_replay_catches_a_tampered_transcript() -> None:
    script = CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    c, _ = court(script)
    [outcome] = list(c.run_many([CASE]))
    events = list(outcome.events)
    i = next(i for i, e in enumerate(events) if e.event == "model_call" and e.purpose == "verdict")
    events[i] = events[i].model_copy(update={"option_probs": {"hallucinated": 0.1, "supported": 0.9},
                                             "value": "supported"})
    result = replay(events, c)
    assert not result.matches
    assert any("ruling" in d for d in result.differences)


def test_metric_style_score() -> None:
    c, _ = court(CourtScript(charges=[CHARGE], moves={"prosecutor": ["argue"], "defender": ["concede"]}))
    result = c.score(input=CASE.question, output=CASE.answer, context=CASE.context)
    assert result.value == pytest.approx(0.9) and result.score == result.value
    assert "hallucinated" in result.reason


def evidence_court(script: CourtScript, weight: float = 0.0, charges: str = "measured", scoring: str = "sentence",
                   clip: float | None = None) -> tuple[Court, ScriptedBackend]:
    script.context_sentences = 3  # EVIDENCE_CASE's context has three sentences; a citation shows fewer
    c, backend = court(script, charges=charges)
    grounding = {"center": 0.2, "scale": 0.3, "scoring": scoring, "clip": clip, "lexical": None}
    aggregation = {"method": "any", "share_by": "statements", "threshold": 0.5, "by_model": {}}
    return tuned(c, trial__judge_weight=weight, grounding=grounding, aggregation=aggregation), backend


EVIDENCE_CASE = CASE.model_copy(update={
    "context": ["The Harrow Point lighthouse was first lit in 1874. It was automated in 1962. Its cottages are a museum."],
    "answer": "It was first lit in 1874. It was automated in 1926."})


def test_the_defence_can_acquit_by_citing_evidence_that_accounts_for_the_charge() -> None:
    script = CourtScript(grounding={"1926": -0.5}, cited_grounding={"1926": 1.5},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}, p_hallucinated=0.9)
    c, backend = evidence_court(script, weight=0.25)
    verdict = c.judge(EVIDENCE_CASE)
    [ruling] = verdict.rulings
    evidence = 1 / (1 + math.exp(-(0.2 - 1.5) / 0.3))
    assert ruling.p_hallucinated == pytest.approx(0.25 * 0.9 + 0.75 * evidence)
    assert verdict.label == "PASS" and "the cited sentence [1] at +1.50" in ruling.reason


def test_weighing_evidence_after_drafted_charges_measures_the_charge_then() -> None:
    script = CourtScript(charges=[{"quote": "It was automated in 1926.", "reason": "not 1962"}], grounding={"1926": -1.0},
                         moves={"prosecutor": ["argue"], "defender": ["concede"]}, move_p=0.9)
    c, _ = evidence_court(script, weight=0.5, charges="drafted")
    [ruling] = c.judge(EVIDENCE_CASE).rulings
    assert ruling.source == "conceded"
    assert ruling.p_hallucinated == pytest.approx(0.5 * 0.9 + 0.5 / (1 + math.exp(-(0.2 + 1.0) / 0.3)))


def test_replay_of_an_evidence_court() -> None:
    script = CourtScript(grounding={"1926": -0.5}, cited_grounding={"1926": 0.1},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["next_round", "rule"]})
    c, _ = evidence_court(script, weight=0.3)
    [outcome] = list(c.run_many([EVIDENCE_CASE]))
    result = replay(outcome.events, court_from_config(c.config()))
    assert result.matches, result.differences


def sig(g: float) -> float:
    return 1 / (1 + math.exp(-(0.2 - g) / 0.3))


def test_answer_scoring_weighs_the_cited_sentences_on_the_charge_tokens_only() -> None:
    script = CourtScript(grounding={"1926": -0.5, "1874": 1.2}, cited_grounding={"1926": 1.5, "1874": -3.0},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}, p_hallucinated=0.9)
    c, backend = evidence_court(script, weight=0.25, scoring="answer")
    [ruling] = c.judge(EVIDENCE_CASE).rulings
    read = [call for call in backend.calls if call.spec.options == (EVIDENCE_CASE.answer,)][2:]
    # the whole answer read against each sentence alone, once; the sentence the defence cited is not scored again
    assert [call.messages[-1].content.count("\n[") for call in read] == [1, 1, 1]
    assert ruling.evidence == pytest.approx(1.5)  # the charge's own tokens: the 1874 sentence's -3.0 is not counted
    assert ruling.p_hallucinated == pytest.approx(0.25 * 0.9 + 0.75 * sig(1.5))


def test_replay_of_an_answer_scoring_court() -> None:
    script = CourtScript(grounding={"1926": -0.5}, cited_grounding={"1926": 0.1},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["next_round", "rule"]})
    c, _ = evidence_court(script, weight=0.3, scoring="answer", clip=1.0)
    [outcome] = list(c.run_many([EVIDENCE_CASE]))
    rebuilt = court_from_config(c.config())
    assert rebuilt.spec.grounding.scoring == "answer" and rebuilt.spec.grounding.clip == 1.0
    result = replay(outcome.events, rebuilt)
    assert result.matches, result.differences


def test_describe_counts_charges_and_rounds_in_the_singular_and_plural() -> None:
    court = load_court("full", ScriptedBackend(PseudoModel()), overrides={"max_rounds": 1, "trial.exchange_rounds": 0,
                                                                           "max_charges": 2})
    assert "at most 2 charges, each tried for at most 1 round;" in court.describe()


def test_describe_says_which_charges_go_to_trial() -> None:
    assert "the clerk charges at most 3 statements, each decided by its measurement;" in load_court("default").describe()
    assert ("those measured at P(suspect) in [0.7, 0.8] tried for at most 1 round;"
            in load_court("escalated").describe())
