"""The court: a clerk (`courtroom.clerk`) whose charges are tried, by personas over a procedure graph (its
files are `courtroom.courts`')."""

from courtroom.clerk import AggregationSpec, GroundingSpec, IndictmentSpec, LexicalSpec, WitnessesSpec
from courtroom.court.court import Court
from courtroom.court.personas import shipped_dir
from courtroom.court.spec import CourtSpec, EscalationSpec, TrialSpec, with_overrides

__all__ = ["AggregationSpec", "Court", "CourtSpec", "EscalationSpec", "GroundingSpec", "IndictmentSpec",
           "LexicalSpec", "TrialSpec", "WitnessesSpec", "shipped_dir", "with_overrides"]
