"""Single-model judges to compare the court against, on the same model door and the same model."""

from courtroom.baselines.judges import *  # noqa: F403
from courtroom.baselines.judges import BASELINES, read_leniently  # noqa: F401
