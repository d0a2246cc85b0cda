"""Calibration, one layer above the run directories: a ruling fitted on labelled runs (`fit_ruling`, `fit_spans`,
`logistic`, with what it is worth out of fold: `ruling_report`) and written beside its court
(`ruling_runs`), a court's verdict threshold (`threshold_runs`), and a few labels of one's own: the cases worth
labelling (`label_pick`), the label file (`label_file`) and the shipped ruling refitted on them as its prior
(`prior_refit`, `prior_runs`)."""
