"""Attack: a ruling weighs the testimony of the witnesses it was fitted on. Refitting one (`calibrate --prior`) or
picking cases by it (`label --ruling`) on a run whose court does not hear them would weigh every case at the ruling's
means (its inputs left at their means: an intercept and nothing else), print scores of it and write a ruling the
court refuses later; both are refused at once, naming the witness, as a court refuses such a ruling."""

from __future__ import annotations

from pathlib import Path

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.labels import USER_TOWNS, fill, invoke, world  # noqa: F401 (world: a fixture)
from tests.helpers.runs import labelled


@pytest.fixture(scope="module")
def fewer_witnesses(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user's run by a court that hears the grounding witness alone."""
    tmp = tmp_path_factory.mktemp("fewer")
    spec = RunSpec.build(str(labelled(tmp / "mine.jsonl", USER_TOWNS)), judge="courtroom", court="default",
                         model=NO_RULING_MODEL, judge_options={"overrides": {"witnesses.heard": ["grounding"]}})
    run = start_run(spec, tmp / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    return tmp / "run"


def test_a_prior_weighing_witnesses_the_runs_court_does_not_hear_is_refused(world, fewer_witnesses: Path,  # noqa: F811
                                                                             tmp_path: Path) -> None:
    _, prior_file, _ = world
    result = invoke("label", str(fewer_witnesses), "--n", "24", "--ruling", str(prior_file), "--write",
                    str(tmp_path / "l.csv"))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "which court 'default' does not hear" in text, text
    assert not (tmp_path / "l.csv").exists()
    assert invoke("label", str(fewer_witnesses), "--n", "24", "--write", str(tmp_path / "m.csv")).exit_code == 0
    labels = fill(tmp_path / "m.csv", fewer_witnesses)
    result = invoke("calibrate", str(fewer_witnesses), "--ruling", str(tmp_path / "r.yaml"), "--prior",
                    str(prior_file), "--labels", str(labels))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "--prior" in text and "which court 'default' does not hear" in text, text
    assert not (tmp_path / "r.yaml").exists()

