"""Runners: where trials execute (in process, or on Ray actors)."""
