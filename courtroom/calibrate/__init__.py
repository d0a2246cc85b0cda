"""Calibration, one layer above the run directories: rulings fitted on labelled runs, a court's verdict
threshold, and a shipped ruling refitted as a prior on a few labels of one's own."""
