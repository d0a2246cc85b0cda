"""Attack: `calibrate --prior` checked the prior's model and witnesses against the run, not its court: a ruling fitted
for another court was refitted and written, and the run's court (`-o`, `rejudge --court`) refuses it later. It is
refused at once, in one line naming both courts and both models, as the court refuses it; so is `label --ruling`."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.labels import fill, invoke, world  # noqa: F401 (world: a fixture)


def test_a_prior_of_another_court_is_refused_naming_both_courts(world, tmp_path: Path) -> None:  # noqa: ANN001, F811
    run, prior_file, _ = world
    data = yaml.safe_load(prior_file.read_text())
    assert data["court"] == "default"
    other = tmp_path / "strict.yaml"
    other.write_text(yaml.safe_dump({**data, "court": "strict"}, sort_keys=False))
    assert invoke("label", str(run), "--n", "24", "--write", str(tmp_path / "l.csv")).exit_code == 0
    labels = fill(tmp_path / "l.csv", run)
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(other), "--labels",
                    str(labels), "-o", str(tmp_path / "court.yaml"))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and text.count("error:") == 1 and text.startswith(f"error: --prior {other}:"), text
    assert f"model {NO_RULING_MODEL!r} and court 'strict'" in text and "by court 'default'" in text, text
    assert text.count(repr(NO_RULING_MODEL)) >= 2, text
    assert not (tmp_path / "r.yaml").exists() and not (tmp_path / "court.yaml").exists()
    result = invoke("label", str(run), "--n", "24", "--ruling", str(other), "--write", str(tmp_path / "m.csv"))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "court 'strict'" in text and "court 'default'" in text, text
    assert not (tmp_path / "m.csv").exists()
    # the prior of the run's court still refits
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(prior_file),
                    "--labels", str(labels))
    assert result.exit_code == 0, result.output
