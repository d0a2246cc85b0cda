"""Confounds: signals that separate a dataset's labels without judging faithfulness.

Answer length is the known one: in HaluEval the right answers are short spans and the hallucinated
ones whole sentences, and in RAGTruth longer responses are more often hallucinated. A judge whose
accuracy comes close to the length-only rule's on the same cases may be measuring length.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from courtroom.case import Case
from courtroom.transcripts.store import ResultRow

LENGTH_ONLY = "length-only"


def answer_words(case: Case) -> int:
    """The answer's length in words."""
    return len(case.answer.split())


def length_only_rows(cases: Sequence[Case]) -> list[ResultRow]:
    """The length-only rule as a judge of these cases: FAIL when the answer is longer (in words) than the
    cases' median; the score is the length's rank among them, from 0 (shortest) to 1, for AUROC."""
    if not cases:
        return []
    words = np.array([answer_words(c) for c in cases])
    median = float(np.median(words))
    ordered = np.sort(words)  # tied lengths share their mean rank, so ties stay ties for AUROC
    ranks = (np.searchsorted(ordered, words, "left") + np.searchsorted(ordered, words, "right") - 1) / 2
    ranks = ranks / max(len(cases) - 1, 1)
    return [ResultRow(case_id=c.id, source=c.source, gold=c.label, label="FAIL" if n > median else "PASS",
                      score=float(rank), reason=f"{n} words (median {median:g})")
            for c, n, rank in zip(cases, words, ranks)]
