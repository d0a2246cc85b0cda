"""pytest helpers for unit tests of a RAG pipeline: the court as an assertion.

    from courtroom.testing import assert_faithful

    def test_the_answer_is_grounded(): answer = my_rag("When was the lighthouse automated?")
    assert_faithful(answer=answer.text, context=answer.passages, question="When was the lighthouse
    automated?")

A hallucinated answer fails the test with the court's charges and the evidence for each."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from courtroom.courts.load import load_court
from courtroom.engine.judge import Judge
from courtroom.engine.metric import Score


@functools.cache
def default_court() -> Judge:
    """The court `assert_faithful` uses when given none: `courtroom.load_court()` (the default court), loaded
    once per process."""
    return load_court()


def assert_faithful(answer: str, context: Sequence[str] | str, question: str | None = None, *,
                    court: Judge | None = None, threshold: float | None = None) -> Score:
    """Fail (AssertionError) unless the court finds `answer` faithful to `context`; return the court's
    `Score`. `court` defaults to `default_court()`; with `threshold`, fail when P(hallucinated) reaches it
    instead."""
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not this helper
    result = (court or default_court()).score(answer=answer, context=context, question=question,
                                              threshold=threshold)
    if not result.success:
        raise AssertionError(failure_message(result, court or default_court()))
    return result


def failure_message(result: Score, court: Judge) -> str:
    """The verdict and the number that decided, then each charge with its evidence and ruling, then the
    reason."""
    verdict = result.verdict
    how = (f"the court's verdict is hallucinated (P(hallucinated) = {result.value:.2f}, its threshold "
           f"{result.threshold:.2f})" if verdict.label == "FAIL" else
           f"P(hallucinated) = {result.value:.2f} reaches the threshold {result.threshold:.2f}")
    lines = [f"the answer is not faithful to its context: {how}; court {court.title!r} on model "
             f"{court.model!r}"]
    rulings = {r.charge: r for r in verdict.rulings}
    for charge in verdict.charges:
        ruling = rulings.get(charge.index)
        found = (f"{ruling.verdict.value} (P(hallucinated) = {ruling.p_hallucinated:.2f})"
                 if ruling else "not ruled on")
        lines += [f"  charge {charge.index + 1}: \"{charge.quote}\" found {found}",
                  f"    charged because {charge.reason}"]
        if ruling:
            lines.append(f"    ruling: {ruling.reason}")
    if not verdict.charges:
        lines.append("  no charge was brought")
    for dropped in verdict.dropped:
        lines.append(f"  not tried: \"{dropped.quote}\" ({dropped.why_dropped}; {dropped.reason})")
    # else the reason is a convicted charge's
    if not any(r.verdict.value == "hallucinated" for r in verdict.rulings):
        lines.append(f"  verdict: {verdict.reason}")
    return "\n".join(lines)
