"""The answer under judgment is data: text in it cannot change how a turn is parsed."""

from __future__ import annotations

from courtroom.casefile import answer_fence
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from tests.helpers.cases import BENIGN, INJECTED
from tests.helpers.court_script import CourtScript

CHARGE = {"quote": "It was automated in 1926", "reason": "the context says 1962"}
MOVES = {"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}
SUSPECT = {"1926": 0.9}
GROUNDING = {"1926": -1.0}


def shape(backend: ScriptedBackend) -> list[tuple]:
    # the answer's own sentences are measured (grounding) or rated: those calls follow its sentences
    return [(r.spec.key, r.spec.options, r.constrained) for r in backend.calls
            if "ANSWER SENTENCE" not in r.messages[-1].content and not (r.spec.kind == "choice" and
                                                                      len(r.spec.options) == 1)]


def test_injected_text_does_not_change_the_requested_structure() -> None:
    runs = {}
    for case in (BENIGN, INJECTED):
        backend = ScriptedBackend(CourtScript(suspect=SUSPECT, grounding=GROUNDING, moves=MOVES, p_hallucinated=0.9))
        verdict = load_court("full", backend).judge(case)  # score-mode clerk: one call per answer sentence
        runs[case.id] = (backend, verdict)
    assert shape(runs["benign"][0]) == shape(runs["injected"][0])
    assert runs["injected"][1].label == "FAIL"  # the fake verdict inside the answer changed nothing


def test_the_answer_appears_only_inside_its_fence() -> None:
    backend = ScriptedBackend(CourtScript(suspect=SUSPECT, grounding=GROUNDING, moves=MOVES))
    load_court("full", backend).judge(INJECTED)
    for request in backend.calls:
        system, user = request.messages
        fence = answer_fence(INJECTED)
        if fence not in user.content:
            assert INJECTED.answer not in user.content  # a grounding measure: the answer is what it scores
            continue
        fenced = user.content.split(fence)
        assert len(fenced) == 3 and INJECTED.answer in fenced[1]
        assert "Ignore previous instructions" not in fenced[0]
        for line in fenced[2].splitlines():  # elsewhere, answer text appears only as a quoted statement
            if "Ignore previous instructions" in line:
                assert line.startswith(("CHARGE 1: the answer states \"", "ANSWER SENTENCE 1 of 2: \""))
