"""Attack tests: hostile inputs, forged runs, faults and costs (the runs they judge: `tests.helpers.runs`)."""
