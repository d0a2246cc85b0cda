"""The shipped rulings (`personas/courts/rulings/`), written by `courtroom calibrate --ruling` from the committed
witness runs: each run decided again by this version first (`courtroom rejudge`: no model call, its testimony heard
anew by the current witnesses), then fitted. `make rulings` runs this.

The shipped rulings' runs keep no transcripts in git (they hold the data's text, and live where the runs were made),
so CI cannot fit them again. What `tests/test_shipped_rulings.py` checks in CI instead: each shipped ruling was
fitted on its committed runs' labelled cases (their number, the hallucinated ones, the sources, from the committed
`results.jsonl`), and the same two steps on a small run whose transcripts are committed (`CHECK`: 24 cases of made-up
towns on the pseudo-model) write its committed ruling, so a change to the witnesses, the fit or the file fails there
first (then `make rulings` where the runs' transcripts are, and `python experiments/rulings.py --check` here).

    PYTHONPATH=. python experiments/rulings.py [MODEL ...]
    PYTHONPATH=. python experiments/rulings.py --check [--new-run]"""

from __future__ import annotations

import os
import shutil
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
CHECK = HERE.parent / "tests" / "golden" / "ruling_check"
"""The small run CI refits (`run/`, transcripts committed), its cases (`towns.jsonl`) and its ruling (`ruling.yaml`)."""


def ruling_file(model: str) -> Path:
    return HERE.parent / "personas" / "courts" / "rulings" / f"default.{model}.yaml"


def missing_transcripts(model: str) -> list[str]:
    """The runs of a model's ruling whose transcripts are not here (what a fit reads the testimony from)."""
    return [run for run in RUNS[model] if not any((HERE / "results" / run / "transcripts").glob("*.jsonl"))]


def refreshed(source: Path, out: Path) -> Path:
    """The run at `source` decided again by this version at `out` (never committed)."""
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "courtroom.cli", "rejudge", str(source), "--set", "witnesses.rulings={}",
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def check(new_run: bool) -> None:
    """Write the check run's ruling (and the run anew first, when its rejudge can no longer replay it: the towns on the
    pseudo-model), with paths relative to the repository, as the files record them."""
    from tests.helpers.runs import judged, labelled

    os.chdir(HERE.parent)
    here = CHECK.relative_to(HERE.parent)
    if new_run:
        shutil.rmtree(here / "run", ignore_errors=True)
        here.mkdir(exist_ok=True)
        judged(labelled(here / "towns.jsonl"), here / "run")
    subprocess.run([sys.executable, "-m", "courtroom.cli", "calibrate", str(refreshed(here / "run", here / "run-now")),
                    "--ruling", str(here / "ruling.yaml")], check=True)
    shutil.rmtree(here / "run-now")


def main(models: list[str]) -> None:
    if models[:1] == ["--check"]:
        check(new_run="--new-run" in models)
        return
    for model in models or list(RUNS):
        if missing := missing_transcripts(model):
            print(f"{model}: skipped, the runs {', '.join(missing)} keep no transcripts here", file=sys.stderr)
            continue
        runs = [str(refreshed(HERE / "results" / run, HERE / "results" / f"{run}-now")) for run in RUNS[model]]
        subprocess.run([sys.executable, "-m", "courtroom.cli", "calibrate", *runs, "--ruling", str(ruling_file(model))],
                       check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
