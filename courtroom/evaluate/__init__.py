"""Evaluation: datasets, result rows, metrics with intervals, paired comparisons and no-model rules."""
