"""The clerk: the measurement, as a judge of its own and the default one. It cuts the answer into sentences,
measures how well the context accounts for each (`grounding`, `measure`), hears its witnesses (`examine`), charges
the least grounded (`indictment`) and decides (`verdict`, `program`), by the measurement or a fitted ruling
(`rulings`). Its settings are `ClerkSpec`; court files are read by `courtroom.court` (`files`, `load`)."""

from courtroom.clerk.clerk import Clerk
from courtroom.clerk.spec import AggregationSpec, ClerkSpec, GroundingSpec, IndictmentSpec, LexicalSpec, WitnessesSpec

__all__ = ["AggregationSpec", "Clerk", "ClerkSpec", "GroundingSpec", "IndictmentSpec", "LexicalSpec", "WitnessesSpec"]
