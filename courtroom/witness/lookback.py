"""The lookback witness (Lookback Lens, Chuang et al. 2024): the share of attention the answer's tokens pay to
the prompt, per layer and head (weighed by a ruling's probe); it reports the mean and points where it falls
lowest."""

from __future__ import annotations

import statistics

from courtroom.case import Testimony
from courtroom.witness.reading import Reading

VERSION = 1
POINTED = 3
"""The tokens with the lowest share of attention to the context that the witness points at."""


def testify(reading: Reading) -> Testimony:
    """The mean share of attention to the context, of the answer and of each sentence; the tokens where it is
    lowest."""
    assert reading.lookback is not None and reading.token_lookback is not None
    means = [statistics.fmean(v) for v in reading.lookback]
    spans = reading.token_spans or ()
    points = []
    overall = means[-1]
    for share, i in sorted((v, i) for i, v in enumerate(reading.token_lookback))[:POINTED]:
        if i < len(spans) and share < overall:
            a, b = spans[i]
            points.append(reading.pointer(a, b, f"attention to the context fell to {share:.2f} (answer mean "
                                                f"{overall:.2f})", overall - share))
    return Testimony(witness="lookback", version=VERSION, values={"mean": round(overall, 6)},
                     sentences=[{"mean": round(m, 6)} for m in means[:-1]], points=points)
