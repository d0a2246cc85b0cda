"""A ruling with a region decides the cases like those it was fitted on, and the court falls back to its measure for
a case outside it, saying so in the reason; the record and the report give each case's distance."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.events import VerdictEvent
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.report.testimony import weighing_line
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.cli.test_calibrate_ruling import judged, labelled
from tests.helpers.cases import NO_RULING_MODEL

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
ODD = {"id": "odd", "source": "odd", "question": "Who met whom?", "label": "FAIL",
       "context": ["Nothing happened in the village of Arden on Tuesday."],
       "answer": "Zork Quibble met Yarn Vexley, Plim Ostrava and Dax Morrow in Paris, London and Rome on 12,345 "
                 "occasions, spending $98,765,432 and 4,321 hours. It was not raining. They never disagreed."}
"""A case unlike the towns the ruling was fitted on: invented names and figures by the dozen."""


def verdicts(run: Path) -> dict:
    audit = Audit(run)
    return {row.case_id: next(e.verdict for e in audit.events(row.case_id) if isinstance(e, VerdictEvent))
            for row in audit.rows()}


def fitted_court(tmp_path: Path) -> tuple[Path, Path, Path]:
    run = judged(labelled(tmp_path / "towns.jsonl"), tmp_path / "run")
    ruling, court = tmp_path / "ruling.yaml", tmp_path / "court.yaml"
    result = runner.invoke(app, ["calibrate", str(run), "--ruling", str(ruling), "-o", str(court)], env=WIDE)
    assert result.exit_code == 0, result.output
    return run, ruling, court


def test_a_case_outside_the_rulings_region_is_decided_by_the_measure_and_the_reason_says_so(tmp_path: Path) -> None:
    run, ruling, court = fitted_court(tmp_path)
    assert yaml.safe_load(ruling.read_text())["families"]["any"]["region"]["limit"] == 99.0
    data = tmp_path / "mixed.jsonl"
    data.write_text(json.dumps(ODD) + "\n" + (tmp_path / "towns.jsonl").read_text().splitlines()[0] + "\n")
    mixed = start_run(RunSpec.build(str(data), judge="courtroom", court=str(court), model=NO_RULING_MODEL),
                      tmp_path / "mixed")
    mixed.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    mixed.close()
    ruled, measured = verdicts(tmp_path / "mixed"), verdicts(judged(data, tmp_path / "measured"))
    odd = ruled["odd"]
    assert odd.weighing is not None and odd.weighing.outside and odd.weighing.percentile == 100.0
    assert "was not applied: the case lies outside the cases it was fitted on (distance" in odd.reason
    assert "The ruling fitted for org/pseudo-model" in odd.reason and "so the measure decided" in odd.reason
    assert (odd.label, odd.score) == (measured["odd"].label, measured["odd"].score)  # the measure's verdict
    assert [c.quote for c in odd.charges] == [c.quote for c in measured["odd"].charges]
    assert "outside them, so the measure decided" in weighing_line(odd.weighing)
    town = next(v for k, v in ruled.items() if k != "odd")
    assert town.weighing is not None and not town.weighing.outside and town.weighing.distance is not None
    assert town.reason.startswith("The ruling fitted for org/pseudo-model (") and "not applied" not in town.reason
    assert "distance" in weighing_line(town.weighing)


def test_past_a_tighter_limit_the_rulings_own_cases_fall_back_and_without_a_region_none_do(tmp_path: Path) -> None:
    run, ruling, court = fitted_court(tmp_path)
    data = yaml.safe_load(ruling.read_text())
    before = verdicts(run)

    def rejudged(name: str) -> dict:
        out = tmp_path / name
        result = runner.invoke(app, ["rejudge", str(run), "--court", str(court), "--out", str(out)], env=WIDE)
        assert result.exit_code == 0, result.output
        return verdicts(out)

    data["families"]["any"]["region"]["limit"] = 1.0  # beyond the 1st percentile: nearly every case is outside
    ruling.write_text(yaml.safe_dump(data, sort_keys=False))
    tight = rejudged("tight")
    outside = [k for k, v in tight.items() if v.weighing.outside]
    assert len(outside) >= 0.9 * len(tight)
    assert all((tight[k].label, tight[k].score) == (before[k].label, before[k].score) for k in outside)

    del data["families"]["any"]["region"]  # a ruling file from before regions: the ruling decides every case
    ruling.write_text(yaml.safe_dump(data, sort_keys=False))
    old = rejudged("old")
    assert all(v.weighing is not None and v.weighing.distance is None and not v.weighing.outside for v in old.values())
    assert all("not applied" not in v.reason for v in old.values())
