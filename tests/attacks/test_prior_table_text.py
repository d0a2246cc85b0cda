"""Attack: `calibrate --prior`'s table said its labels were "picked near the threshold: not a sample of your data",
though `courtroom label` draws them at random: a false caveat, and no interval on what is an estimate from a sample.
It now says they are a random sample of the run's cases, how many, and gives each score its 95% interval; the docs
say the same."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.helpers.labels import fill, invoke, world  # noqa: F401 (world: a fixture)

DOCS = Path(__file__).parents[2] / "docs" / "witnesses.md"


def test_the_refit_table_calls_random_labels_a_sample_with_intervals(world, tmp_path: Path) -> None:  # noqa: ANN001, F811
    run, prior_file, _ = world
    assert invoke("label", str(run), "--n", "24", "--write", str(tmp_path / "l.csv")).exit_code == 0
    labels = fill(tmp_path / "l.csv", run, keep=20)
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(prior_file),
                    "--labels", str(labels))
    text = " ".join(result.output.split())
    assert result.exit_code == 0, text
    assert "near the threshold" not in text and "not a sample" not in text, text
    assert "a random sample of 20 of the run's cases" in text, text
    cells = re.findall(r"(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]", text)
    assert len(cells) == 4 and all(float(lo) <= float(v) <= float(hi) for v, lo, hi in cells), text
    scores = yaml.safe_load((tmp_path / "r.yaml").read_text())["evaluation"]["on_the_labels"]
    assert scores["prior"]["balanced_accuracy_95"][0] <= scores["prior"]["balanced_accuracy"]
    # the runs' gold labels (no --labels) are all the labelled cases, not a sample drawn by `label`
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "g.yaml"), "--prior", str(prior_file))
    text = " ".join(result.output.split())
    assert result.exit_code == 0 and "the runs' 40 labelled cases (their gold labels)" in text, text


def test_the_docs_no_longer_say_the_labels_are_picked_near_the_threshold() -> None:
    text = " ".join(DOCS.read_text().split())
    assert "picked near the threshold, not a sample of your data" not in text
    assert "a random sample of the run's cases" in text
