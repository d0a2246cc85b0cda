"""The labelling session (`calibrate.label_session`): a run still being written is drawn over the cases its manifest
lists, so the draw never reshuffles as cases arrive (a case not judged yet waits in its place); `audit edit`'s
corrections are labels for the session and for `calibrate` (a charge found hallucinated makes its case hallucinated);
after every label, what a refit would do, and when the last labels stopped changing it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from courtroom.calibrate.label_session import STABLE_AFTER, LabelSession
from courtroom.errors import ConfigError
from courtroom.log.audit import Audit
from tests.helpers.labels import invoke, world  # noqa: F401 (world: a fixture)


@pytest.fixture
def run(world, tmp_path: Path) -> Path:  # noqa: ANN001, F811
    shutil.copytree(world[0], tmp_path / "run")
    return tmp_path / "run"


def test_a_run_being_written_is_drawn_over_its_manifest_and_never_reshuffled(run: Path, world) -> None:  # noqa: ANN001, F811
    results = run / "results.jsonl"
    whole = results.read_text()
    results.write_text("".join(whole.splitlines(keepends=True)[:10]))  # 10 of the 40 cases the manifest lists
    session = LabelSession(Audit(run), str(world[1]), n=5)
    drawn = session.order()
    waiting = [c for c in drawn if c not in session.found]
    assert len(drawn) == 15 and waiting and len(waiting) < 15
    with pytest.raises(ConfigError, match="not judged yet"):
        session.give(waiting[0], "h")
    results.write_text(whole)  # the run goes on
    session.sync()
    assert session.order() == drawn and not [c for c in drawn if c not in session.found]
    assert drawn == LabelSession(Audit(run), str(world[1]), n=5).order()  # the draw of the run once it is whole
    session.give(waiting[0], "h")
    assert Audit(run).human_labels() == {waiting[0]: "FAIL"}


def test_corrections_are_labels_for_the_session_and_for_calibrate(run: Path, world, tmp_path: Path) -> None:  # noqa: ANN001, F811
    audit = Audit(run)
    rows = audit.rows()
    fails = [r for r in rows if r.gold == "FAIL" and r.charges][:3]
    passes = [r for r in rows if r.gold == "PASS"][:3]
    for r in fails[:2] + passes:
        audit.edit(r.case_id, r.gold, "read the context", "reviewer")
    audit.edit(fails[2].case_id, "hallucinated", "this statement is false", "reviewer", charge=0)
    assert Audit(run).human_labels() == {r.case_id: r.gold for r in fails + passes}
    session = LabelSession(Audit(run), str(world[1]), n=5)
    assert session.labels() == {r.case_id: r.gold == "FAIL" for r in fails + passes} and session.why_not() is None
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(world[1]))
    text = " ".join(result.output.split())
    assert result.exit_code == 0 and "6 labels (3 hallucinated, 3 faithful: the 6 labels of" in text, text
    assert yaml.safe_load((tmp_path / "r.yaml").read_text())["fitted"]["labels"] == 6


def test_after_every_label_what_a_refit_would_do_and_when_labels_stop_changing_it(run: Path, world) -> None:  # noqa: ANN001, F811
    gold = {r.case_id: r.gold for r in Audit(run).rows()}
    session = LabelSession(Audit(run), str(world[1]), n=20)
    seen = []
    for case in session.order()[:20]:
        session.give(case, "h" if gold[case] == "FAIL" else "f")
        seen.append(session.estimate())
    ready = [e for e in seen if e is not None]
    assert seen[0] is None and ready and ready[-1].summary()["labelled"] == 20
    assert all(e.after.keys() == ready[0].after.keys() for e in ready)  # every case decided by each refit
    last = ready[-1]
    flips = [[c for c in last.after if c not in last.labels and e.after[c] != last.after[c]] for e in ready[-1 - STABLE_AFTER:-1]]
    assert last.stable == (len(ready) > STABLE_AFTER and not any(flips))
