"""The shipped rulings (`personas/courts/rulings/`), written by `courtroom calibrate --ruling` from the committed
witness runs: each run decided again by this version first (`courtroom rejudge`: no model call, its testimony heard
anew by the current witnesses), then fitted. `make rulings` runs this; `tests/test_shipped_rulings.py` checks that
each shipped file is what it writes, or says why it cannot (the runs keep no transcripts in git: they hold the data's
text, and live where the runs were made).

    PYTHONPATH=. python experiments/rulings.py [MODEL ...]"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {
    "smollm2-135m": ["default/halubench-word-states", "default/ragtruth-word-states"],
    "qwen2.5-coder-0.5b": ["qwen2.5-coder-0.5b/halubench-word-states", "qwen2.5-coder-0.5b/ragtruth-word-states"],
    "qwen2.5-coder-1.5b": ["qwen2.5-coder-1.5b/halubench-witnesses", "qwen2.5-coder-1.5b/ragtruth-witnesses"],
}
"""Each shipped ruling's model -> the witness runs it is fitted on (under experiments/results/)."""


def ruling_file(model: str) -> Path:
    return HERE.parent / "personas" / "courts" / "rulings" / f"default.{model}.yaml"


def missing_transcripts(model: str) -> list[str]:
    """The runs of a model's ruling whose transcripts are not here (what a fit reads the testimony from)."""
    return [run for run in RUNS[model] if not any((HERE / "results" / run / "transcripts").glob("*.jsonl"))]


def refreshed(run: str) -> Path:
    """The run decided again by this version, beside it (`RUN-now`; never committed)."""
    source, out = HERE / "results" / run, HERE / "results" / f"{run}-now"
    subprocess.run(["courtroom", "rejudge", str(source), "--set", "witnesses.rulings={}", "--out", str(out)],
                   check=True)
    return out


def main(models: list[str]) -> None:
    for model in models or list(RUNS):
        if missing := missing_transcripts(model):
            print(f"{model}: skipped, the runs {', '.join(missing)} keep no transcripts here", file=sys.stderr)
            continue
        runs = [str(refreshed(run)) for run in RUNS[model]]
        subprocess.run(["courtroom", "calibrate", *runs, "--ruling", str(ruling_file(model))], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
