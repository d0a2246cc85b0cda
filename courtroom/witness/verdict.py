"""The verdict witness: for a yes/no question, the model's own yes after the context, as log-odds of
agreeing."""

from __future__ import annotations

import math

from courtroom.case import Testimony
from courtroom.witness.polarity import answer_polarity
from courtroom.witness.reading import Reading

VERSION = 1


def testify(reading: Reading) -> Testimony:
    """The model's agreement with the answer's yes or no, in log-odds."""
    polarity = answer_polarity(reading.case.question, reading.answer)
    agrees = 0.0
    points = []
    if polarity and reading.says_yes is not None:
        p = min(max(reading.says_yes, 1e-6), 1 - 1e-6)
        agrees = polarity * math.log(p / (1 - p))
        first = reading.answer.split()[0] if reading.answer.split() else ""
        if agrees < 0:
            points.append(reading.pointer(0, len(first), "the model reads the context the other way (P(yes) "
                                                         f"= {p:.2f})", -agrees))
    return Testimony(witness="verdict", version=VERSION, values={"agrees": round(agrees, 6)},
                     sentences=[{"agrees": round(agrees, 6)} for _ in reading.sentences], points=points)
