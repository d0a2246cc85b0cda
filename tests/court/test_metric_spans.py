"""The spans of a score: `Score.spans` and `Score.testimony`, and the reason the Opik, DeepEval and Ragas adapters
give (`courtroom.integrations.common.reason`: the court's reason, then the spans it finds hallucinated) with the
spans in their metadata. The adapters themselves are tested inside each host's environment (`tests/integrations`)."""

from __future__ import annotations

import json

from courtroom.case import CaseVerdict, HallucinatedSpan
from courtroom.courts import load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.metric import Score, spans_phrase
from courtroom.integrations.common import metadata, reason

CONTEXT = ["The Harrow Point lighthouse stands on a granite spur at the mouth of the Elm estuary. Construction began in "
           "1871 and the lamp was first lit on 3 March 1874. It was automated in 1962 and its keepers' cottages now "
           "house a small museum."]
HALLUCINATED = "It was automated in 1926, after its last keeper retired."


def test_a_score_exposes_the_spans_and_the_testimony_and_the_reason_names_the_spans() -> None:
    court = load_court("default", ScriptedBackend(PseudoModel(), model="pseudo"))
    score = court.score(question="When was the lighthouse automated?", answer=HALLUCINATED, context=CONTEXT)
    assert score.spans == score.verdict.spans and score.testimony == score.verdict.testimony
    assert score.spans, "the pseudo-model's court names no span: the test would prove nothing"
    assert all(isinstance(s, HallucinatedSpan) for s in score.spans) and {t.witness for t in score.testimony} >= {"grounding"}
    said = reason(score)
    first, second = said.split("\n")
    assert first == score.reason
    assert second == "hallucinated: " + ", ".join(f"'{s.text}' ({s.score:.2f})" for s in score.spans)
    assert "'1926'" in second and "'last keeper retired'" in second
    spans = metadata(score)["spans"]
    assert [(s["start"], s["end"], s["text"]) for s in spans] == [(s.start, s.end, s.text) for s in score.spans]
    assert spans[0]["named_by"] == score.spans[0].named_by and json.dumps(metadata(score))  # plain JSON


def _score(spans: list[HallucinatedSpan]) -> Score:
    verdict = CaseVerdict(case_id="c", label="FAIL" if spans else "PASS", score=0.8, reason="Why.", spans=spans)
    return Score(name="n", value=0.8, reason="Why.", verdict=verdict, threshold=0.5, success=not spans)


def test_the_reason_names_the_five_strongest_spans_and_counts_the_rest() -> None:
    spans = [HallucinatedSpan(start=i, end=i + 1, text=f"w{i}", score=round(0.9 - i / 20, 2)) for i in range(7)]
    assert spans_phrase(spans) == ("hallucinated: 'w0' (0.90), 'w1' (0.85), 'w2' (0.80), 'w3' (0.75), 'w4' (0.70) "
                                   "and 2 more")
    assert reason(_score(spans)) == "Why.\n" + spans_phrase(spans)
    assert reason(_score([])) == "Why." and metadata(_score([]))["spans"] == []
