"""The court: a clerk (`courtroom.clerk`) whose charges are tried. Its trial section (`spec`), personas, the procedure
graph, moves, the trial's evidence, turns and rulings."""

from courtroom.clerk import (
    AggregationSpec,
    GroundingSpec,
    IndictmentSpec,
    LexicalSpec,
    WitnessesSpec,
    courts_dir,
    find_court_file,
    parse_override,
)
from courtroom.court.court import Court
from courtroom.court.spec import CourtSpec, EscalationSpec, TrialSpec, court_json_schema

__all__ = ["AggregationSpec", "Court", "CourtSpec", "EscalationSpec", "GroundingSpec",
           "IndictmentSpec", "LexicalSpec", "TrialSpec", "WitnessesSpec", "court_json_schema", "courts_dir",
           "find_court_file", "parse_override"]
