"""The hidden-state witness: the model's residual stream, weighed by a fitted ruling's probe; it reports only
that it was heard (the vectors stay in the call's record)."""

from __future__ import annotations

from courtroom.case import Testimony
from courtroom.witness.reading import Reading

VERSION = 1


def testify(reading: Reading) -> Testimony:
    """Heard: no values of its own."""
    assert reading.hidden is not None
    return Testimony(witness="hidden", version=VERSION, values={},
                     sentences=[{} for _ in reading.sentences], points=[])
