"""`courtroom view`: a local web app over a folder of runs (read live as they are written), their cases and records,
two runs side by side, and labelling with the prior refit, on 127.0.0.1 behind a token made at each start."""
