"""Evaluation runs: starting or resuming a run directory (`start`), and the runners (local, Ray)."""
