"""The clerk: the measurement, as a judge of its own and the default one (its settings: `ClerkSpec`)."""

from courtroom.clerk.clerk import Clerk, CourtroomJudge
from courtroom.clerk.spec import (
           AggregationSpec,
           ClerkSpec,
           GroundingSpec,
           IndictmentSpec,
           LexicalSpec,
           WitnessesSpec,
)

__all__ = ["AggregationSpec", "Clerk", "ClerkSpec", "CourtroomJudge", "GroundingSpec", "IndictmentSpec",
           "LexicalSpec", "WitnessesSpec"]
