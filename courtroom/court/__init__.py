"""The court: its YAML spec, personas, the procedure graph, moves, evidence, indictment, trial and verdict."""

from courtroom.court.court import *  # noqa: F403
from courtroom.court.court import Court, CourtSpec, LexicalSpec, court_json_schema, courts_dir, find_court_file  # noqa: F401
