"""Attack (#58, low): the test of the shipped rulings (`make rulings`) skipped whenever the runs' transcripts were
absent, which in a clean checkout is always: CI never compared the shipped rulings with what `courtroom calibrate`
writes. Two checks now run from a clean checkout and can fail. What they check, and what not: the shipped rulings'
own inputs are the testimony in their runs' transcripts, which git does not keep (they hold the data's text), so CI
cannot fit them again (tests/test_shipped_rulings.py does where the transcripts are). It checks that each was fitted
on its committed runs' labelled cases, and that the same two steps as `make rulings` (rejudge, calibrate) on a small
committed run with its transcripts (`experiments/rulings.py` `CHECK`) write its committed ruling: a change to the
witnesses, the fit or the ruling file shows there, and calls for `make rulings` (and `rulings.py --check`)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from courtroom.calibrate.ruling_runs import calibrate_ruling
from courtroom.log.store import RunStore
from courtroom.witness.ruling import FittedRuling, Linear

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))
import rulings  # noqa: E402


def parameters(ruling: FittedRuling) -> dict[str, object]:
    """Every fitted number of a ruling, by where it is: each linear model's features, means, scales, weights and
    intercept, each threshold, each family's case count."""
    linears: dict[str, Linear] = {f"probes.{name}": p.linear for name, p in ruling.probes.items()}
    linears |= {f"families.{name}": f.linear for name, f in ruling.families.items()}
    if ruling.spans is not None:
        linears |= {"spans": ruling.spans.linear, **({"spans.probe": ruling.spans.probe.linear} if ruling.spans.probe else {})}
    out: dict[str, object] = {f"{where}.{field}": getattr(linear, field) for where, linear in linears.items()
                              for field in ("features", "mean", "scale", "weights", "intercept")}
    return out | {f"families.{name}.{k}": getattr(f, k) for name, f in ruling.families.items() for k in ("threshold", "cases")}


def test_the_check_run_fits_again_to_its_committed_ruling(tmp_path: Path) -> None:
    assert any((rulings.CHECK / "run" / "transcripts").glob("*.jsonl")), "the check run keeps its transcripts in git"
    fit, _ = calibrate_ruling([rulings.refreshed(rulings.CHECK / "run", tmp_path / "now")])
    made = parameters(fit.ruling)
    committed = parameters(FittedRuling.model_validate(yaml.safe_load((rulings.CHECK / "ruling.yaml").read_text())))
    assert made.keys() == committed.keys()
    for name, value in made.items():
        same = value == committed[name] if name.endswith((".features", ".cases")) else \
            np.allclose(value, committed[name], atol=1e-5)
        assert same, f"{name}: `make rulings` would write another ruling now; run `python experiments/rulings.py " \
                     "--check` and `make rulings` where the runs' transcripts are"


@pytest.mark.parametrize("model", sorted(rulings.RUNS))
def test_a_shipped_ruling_was_fitted_on_its_committed_runs_labelled_cases(model: str) -> None:
    shipped = FittedRuling.model_validate(yaml.safe_load(rulings.ruling_file(model).read_text()))
    rows = {row.case_id: row for run in rulings.RUNS[model] for row in RunStore(EXPERIMENTS / "results" / run).rows()}
    labelled = [row for row in rows.values() if row.label is not None and row.gold is not None]
    assert shipped.model == model and shipped.court == "default"
    assert shipped.fitted["cases"] == len(labelled) == shipped.families["any"].cases
    assert shipped.fitted["hallucinated"] == sum(row.gold == "FAIL" for row in labelled)
    assert shipped.fitted["sources"] == dict(Counter(row.source for row in labelled))
