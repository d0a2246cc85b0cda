"""The court: its YAML spec, personas, the procedure graph, moves, evidence, indictment, trial and verdict."""

from courtroom.court.court import Court
from courtroom.court.spec import (
    AggregationSpec,
    CourtSpec,
    GroundingSpec,
    IndictmentSpec,
    LexicalSpec,
    RulingSpec,
    court_json_schema,
    courts_dir,
    find_court_file,
)

__all__ = ["AggregationSpec", "Court", "CourtSpec", "GroundingSpec", "IndictmentSpec", "LexicalSpec", "RulingSpec",
           "court_json_schema", "courts_dir", "find_court_file"]
