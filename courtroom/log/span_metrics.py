"""A run's span metrics: the spans its court named against the gold spans, on the finished cases whose gold is
known."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from courtroom.errors import TranscriptError
from courtroom.evaluate.results import ResultRow
from courtroom.evaluate.spans import SpanCase, span_scores
from courtroom.log.store import RunStore


def has_gold_spans(rows: Sequence[ResultRow]) -> bool:
    """Whether the run's data annotates spans and its judge names them."""
    return any(r.gold_spans for r in rows) and any(r.spans is not None for r in rows)


def span_cases(store: RunStore, rows: Sequence[ResultRow]) -> list[SpanCase]:
    """The answers the span metrics measure (see the module), in the rows' order."""
    if not has_gold_spans(rows):
        return []
    cases = []
    for row in rows:
        if row.error is not None or row.spans is None or not (row.gold_spans or row.gold == "PASS"):
            continue
        try:
            answer = store.case(row.case_id).answer
        except TranscriptError:
            continue
        cases.append(SpanCase(answer, row.gold_spans or [], row.spans))
    return cases


def run_span_scores(store: RunStore, rows: Sequence[ResultRow],
                    resamples: int = 1000) -> dict[str, Any] | None:
    """The run's span metrics (`span_scores`), or None when its data has no gold spans or its judge names
    none."""
    cases = span_cases(store, rows)
    return span_scores(cases, resamples=resamples) if cases else None
