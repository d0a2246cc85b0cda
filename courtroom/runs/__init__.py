"""Evaluation runs: the run spec, starting or resuming a run directory, and the runners (local, Ray)."""
