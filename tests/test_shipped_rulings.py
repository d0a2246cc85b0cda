"""The shipped rulings are what `courtroom calibrate --ruling` writes from their committed witness runs
(`experiments/rulings.py`, `make rulings`): where the runs' transcripts are here, each is fitted again and its weights
compared with the shipped file's; where they are not (git keeps none: they hold the data's text), the test says so.
What runs in CI from a clean checkout instead: tests/attacks/test_rulings_in_ci.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from courtroom.calibrate.ruling_runs import calibrate_ruling
from courtroom.witness.ruling import FittedRuling

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))
import rulings  # noqa: E402


def weights(ruling: FittedRuling) -> dict[str, list[float]]:
    out = {f"{name}.probe": p.linear.weights for name, p in ruling.probes.items()}
    out |= {f"{name}.family": f.linear.weights for name, f in ruling.families.items()}
    return out


@pytest.mark.parametrize("model", sorted(rulings.RUNS))
def test_a_shipped_ruling_is_what_courtroom_calibrate_writes_from_its_runs(model: str, tmp_path: Path) -> None:
    shipped = FittedRuling.model_validate(yaml.safe_load(rulings.ruling_file(model).read_text()))
    assert shipped.model == model and shipped.court == "default"
    if missing := rulings.missing_transcripts(model):
        pytest.skip(f"{rulings.ruling_file(model).name} cannot be fitted again here: its runs "
                    f"({', '.join(missing)}) keep no transcripts on this machine (git keeps none); `make rulings` "
                    "writes it where they are")
    fit, _ = calibrate_ruling([rulings.refreshed(EXPERIMENTS / "results" / run, tmp_path / run)
                               for run in rulings.RUNS[model]])
    made, have = weights(fit.ruling), weights(shipped)
    assert made.keys() == have.keys()
    for name in made:
        assert np.allclose(made[name], have[name], atol=1e-5), name
