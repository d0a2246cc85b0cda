"""`courtroom.testing.assert_faithful`: the court as an assertion in a RAG pipeline's unit tests, and the failure
message a reader gets (the verdict and its number, each charge with why it was charged and its ruling)."""

from __future__ import annotations

import pytest

from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.testing import assert_faithful
from tests.helpers.cases import CONTEXT, FAITHFUL, HALLUCINATED, QUESTION
from tests.helpers.court_script import CourtScript


@pytest.fixture
def court() -> Court:
    script = CourtScript(grounding={"1926": -1.0}, moves={"prosecutor": ["argue"], "defender": ["concede"]})
    # the defence concedes on its first move: a court without the rounds of exchange (full has one)
    return load_court("full", ScriptedBackend(script, model="scripted"), overrides={"trial.exchange_rounds": 0})


def test_a_faithful_answer_passes_and_returns_the_score(court: Court) -> None:
    result = assert_faithful(answer=FAITHFUL, context=CONTEXT, question=QUESTION, court=court)
    assert result.success and result.value < result.threshold


def test_a_hallucinated_answer_fails_with_the_charge_and_its_evidence(court: Court) -> None:
    with pytest.raises(AssertionError) as failed:
        assert_faithful(answer=HALLUCINATED, context=CONTEXT, question=QUESTION, court=court)
    message = str(failed.value)
    lines = message.splitlines()
    assert lines[0].startswith("the answer is not faithful to its context: the court's verdict is hallucinated "
                               "(P(hallucinated) = 0.55, its threshold 0.48); court 'full' on model 'scripted'")
    assert lines[1] == '  charge 1: "It was automated in 1926." found hallucinated (P(hallucinated) = 0.98)'
    assert lines[2].startswith("    charged because the context accounts poorly for it (grounding -1.00 nats/token, "
                               "P(suspect) = 0.99; least accounted for:")
    assert lines[3].startswith("    ruling: the defence conceded the charge (P(concede) = 0.90); the context accounts "
                               "for it at -1.00 nats/token")
    assert lines[4].startswith('  not tried: "It was first lit in 1874." (P(suspect) = 0.12 is below the threshold')
    assert len(lines) == 5  # the verdict's reason is the convicted charge's: not repeated


def test_a_threshold_of_your_own(court: Court) -> None:
    with pytest.raises(AssertionError, match=r"P\(hallucinated\) = 0\.12 reaches the threshold 0\.05"):
        assert_faithful(answer=FAITHFUL, context=CONTEXT, court=court, threshold=0.05)
    assert_faithful(answer=HALLUCINATED, context=CONTEXT, court=court, threshold=0.99)


def test_missing_arguments_are_the_metrics_clear_errors(court: Court) -> None:
    with pytest.raises(TypeError, match="no context given"):
        assert_faithful(answer=FAITHFUL, context=None, court=court)  # type: ignore[arg-type]


def test_the_default_court_is_loaded_once(monkeypatch: pytest.MonkeyPatch, court: Court) -> None:
    import courtroom.testing as testing

    loads = []
    testing.default_court.cache_clear()
    monkeypatch.setattr(testing, "load_court", lambda: loads.append(1) or court)
    assert_faithful(answer=FAITHFUL, context=CONTEXT)
    assert_faithful(answer=FAITHFUL, context=CONTEXT)
    assert loads == [1]
    testing.default_court.cache_clear()  # the next test's default court is its own


@pytest.mark.model
def test_the_default_court_on_the_real_default_model() -> None:
    """`assert_faithful` with no court: the default court on the embedded default model, as docs/integrations.md
    shows it (SmolLM2-135M is at chance as a judge, so only the shape of the outcome is checked)."""
    try:
        result = assert_faithful(answer=FAITHFUL, context=CONTEXT, question=QUESTION)
    except AssertionError as failed:
        assert str(failed).startswith("the answer is not faithful to its context: ")
        assert "court 'default' on model 'default'" in str(failed)
    else:
        assert result.success and result.threshold == 0.44  # the court's own threshold for SmolLM2
