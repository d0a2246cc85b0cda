"""The court: a clerk (`courtroom.clerk`) whose charges are tried, and the one loader of both."""

from courtroom.clerk import AggregationSpec, GroundingSpec, IndictmentSpec, LexicalSpec, WitnessesSpec
from courtroom.court.court import Court
from courtroom.court.files import courts_dir, find_court_file, parse_override, read_court, shipped_dir, with_overrides
from courtroom.court.load import load_court
from courtroom.court.spec import CourtSpec, EscalationSpec, TrialSpec, court_json_schema

__all__ = ["AggregationSpec", "Court", "CourtSpec", "EscalationSpec", "GroundingSpec", "IndictmentSpec", "LexicalSpec",
           "TrialSpec", "WitnessesSpec", "court_json_schema", "courts_dir", "find_court_file", "load_court",
           "parse_override", "read_court", "shipped_dir", "with_overrides"]
