"""Readings of hand-made cases, for the witnesses' tests."""

from __future__ import annotations

from collections.abc import Sequence

from courtroom.case import Case
from courtroom.witness.reading import Reading


def reading(answer: str, context: Sequence[str], question: str = "What happened?", sentences: Sequence[str] = (),
            context_sentences: Sequence[str] = (), **passes: object) -> Reading:
    """A reading of a case whose answer is cut into `sentences` (the stripped answer as one sentence by default)."""
    case = Case(id="c", question=question, context=list(context), answer=answer)
    return Reading.of(case, spans_of(answer.strip(), list(sentences) or [answer.strip()]),
                      list(context_sentences) or list(context), **passes)


def spans_of(answer: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """Where each of `sentences` (substrings of `answer`, in order) stands in it."""
    spans, cursor = [], 0
    for sentence in sentences:
        start = answer.index(sentence, cursor)
        spans.append((start, start + len(sentence)))
        cursor = start + len(sentence)
    return spans
